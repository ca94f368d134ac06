/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pod side on the shared podnet/ layer: IPAM delegation (the binary's
 * in-process table, see main.c), and the moved VF netdev configured from the
 * result (sysctls, addresses without DAD, up, routes).
 */
#include "podnet/iface.h"
#include "podnet/ipam.h"
#include "sriov-rdma.h"

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
	return podnet_iface_configure(
	    r->pn, &(struct podnet_iface){.ifindex = ifindex, .name = r->ctx->ifname}, r->result);
}
