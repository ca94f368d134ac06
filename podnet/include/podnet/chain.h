/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers for chained plugins (tuning, bandwidth, portmap): they receive a
 * prevResult and work on the interface an earlier plugin created.
 */
#pragma once

#include "cni/plugin.h"
#include "podnet/podnet.h"

struct nlw_link;

/*
 * A chained plugin's precondition: ctx->prev_result is there, else code 7
 * "prevResult: missing; <plugin> must be called as a chained plugin".
 */
int podnet_require_prev(struct cni_ctx *ctx);

/*
 * CNI_IFNAME in the pod netns (pn->pod, PODNET_POD on ADD or CHECK), the
 * interface an earlier plugin created. Code 100 naming it when it is not
 * there (-ENODEV) or cannot be read.
 */
int podnet_pod_iface(struct podnet *pn, struct nlw_link *ret);

/*
 * The host end of CNI_IFNAME's veth: the pod interface's peer, which must
 * be in the host netns and listed in prevResult as a host interface.
 * Code 7 when prevResult has no interfaces; code 100 when the pod
 * interface is no veth, its peer is elsewhere or prevResult does not list
 * it.
 */
int podnet_host_peer(struct podnet *pn, struct nlw_link *ret);
