/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pod side on the shared podnet/ layer: opening the pod netns and both
 * sockets, IPAM delegation (the binary's in-process table, see main.c), and
 * the moved VF netdev configured from the result (sysctls, addresses
 * without DAD, up, routes).
 */
#include <errno.h>

#include "base/macro.h"
#include "nlw/netns.h"
#include "podnet/iface.h"
#include "podnet/ipam.h"
#include "podnet/podnet.h"
#include "sriov-rdma.h"

int sr_open(struct sr_run *r, bool need_netns)
{
	struct podnet pn = PODNET_INIT;
	int e = nlw_netns_open_self(&r->host_ns_fd);

	if (e < 0)
		return sr_fail(r->ctx, NULL, e, "open the host netns");
	e = podnet_open(&pn, r->ctx, need_netns ? PODNET_NEED_NETNS : PODNET_MAY_LACK_NETNS);
	/* The working set owns them from here. */
	r->host = TAKE_PTR(pn.host);
	r->pod = TAKE_PTR(pn.pod);
	r->pod_ns_fd = pn.netns_fd;
	return e;
}

int sr_ipam_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	return podnet_ipam_add(ctx, ret);
}

int sr_ipam_run(struct cni_ctx *ctx, enum cni_command cmd)
{
	return podnet_ipam_run(ctx, cmd);
}

int sr_pod_configure(struct sr_run *r, int ifindex)
{
	struct podnet pn = {
	    .ctx = r->ctx, .netns_fd = r->pod_ns_fd, .host = r->host, .pod = r->pod};

	return podnet_iface_configure(
	    &pn, &(struct podnet_iface){.ifindex = ifindex, .name = r->ctx->ifname}, r->result);
}
