/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CHECK helpers: compare what prevResult recorded with the kernel. Every
 * difference is code 105 naming what differs.
 */
#pragma once

#include "cni/result.h"
#include "nlw/link.h"
#include "podnet/podnet.h"

/* Record a code-105 difference. Returns -EINVAL. */
int podnet_differs(struct cni_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Does the link's MAC equal the recorded one (an absent record matches)? */
bool podnet_mac_matches(const struct nlw_link *l, const char *recorded);

/*
 * Look up the interface `f` of prevResult on sock (the pod socket for a
 * sandboxed one), and check its kind (NULL: any) and MAC.
 */
int podnet_check_link(struct podnet *pn, struct nlw_sock *sock, const struct cni_iface *f,
		      const char *kind, struct nlw_link *ret);

/* Index in pr->ifaces of the pod interface CNI_IFNAME in CNI_NETNS, or a code-105 error. */
int podnet_find_pod_iface(struct podnet *pn, const struct cni_result *pr);

/* Every address of pr->ips is on ifindex (the pod interface). */
int podnet_check_addrs(struct podnet *pn, int ifindex, const struct cni_result *pr);

/* Every route of pr->routes is in the pod netns (dst, and gateway when recorded). */
int podnet_check_routes(struct podnet *pn, const struct cni_result *pr);
