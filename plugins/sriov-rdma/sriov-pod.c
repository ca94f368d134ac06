/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPAM and the pod side of the VF netdev: addresses (IPv6 without DAD), up,
 * routes. Kept in this one file so that it can move onto the shared podnet/
 * layer as a whole.
 */
#include <errno.h>
#include <string.h>

#include "base/ipaddr.h"
#include "cni/log.h"
#include "ipam/delegate.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/route.h"
#include "nlw/sysctl.h"
#include "sriov-rdma.h"

static int undo_ipam(void *arg)
{
	return ipam_delegate_del(arg);
}

int sr_ipam_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	int r = ipam_delegate_add(ctx, ret);

	if (r < 0)
		return r;
	r = cni_undo_push(&ctx->undo, "IPAM DEL", undo_ipam, ctx, NULL);
	if (r >= 0 && (*ret)->n_ips == 0)
		r = cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EINVAL,
			       "ipam: %s returned no IP address", ctx->conf.ipam_type);
	return r;
}

int sr_ipam_run(struct cni_ctx *ctx, enum cni_command cmd)
{
	switch (cmd) {
	case CNI_CMD_DEL:
		return ipam_delegate_del(ctx);
	case CNI_CMD_CHECK:
		return ipam_delegate_check(ctx);
	case CNI_CMD_GC:
		return ipam_delegate_gc(ctx);
	case CNI_CMD_STATUS:
		return ipam_delegate_status(ctx);
	default:
		return -EINVAL;
	}
}

static const union ip_addr *gw_of(const struct cni_result *res, int family)
{
	for (size_t i = 0; i < res->n_ips; i++)
		if (res->ips[i].has_gateway && res->ips[i].address.family == family)
			return &res->ips[i].gateway;
	return NULL;
}

static int add_routes(struct sr_run *r, int ifindex)
{
	const struct cni_result *res = r->result;
	char buf[64];

	for (size_t i = 0; i < res->n_routes; i++) {
		const struct cni_route *rt = &res->routes[i];
		const union ip_addr *gw = rt->has_gw ? &rt->gw : gw_of(res, rt->dst.family);
		struct nlw_route nr = {.dst = rt->dst, .oif = ifindex, .priority = rt->priority,
				       .mtu = rt->mtu, .advmss = rt->advmss};
		int e;

		ip_prefix_mask(&nr.dst);
		if (gw) {
			nr.has_gw = true;
			nr.gw = *gw;
		}
		if (rt->has_table)
			nr.table = rt->table;
		if (rt->has_scope)
			nr.scope = (unsigned char)rt->scope;
		e = nlw_route_append(r->pod, &nr);
		if (e < 0 && e != -EEXIST)
			return sr_fail(r->ctx, r->pod, e, "add route %s in the pod",
				       ip_prefix_fmt(&rt->dst, buf));
	}
	return 0;
}

int sr_pod_configure(struct sr_run *r, int ifindex)
{
	const struct cni_result *res = r->result;
	char buf[64];
	int e;

	for (size_t i = 0; i < res->n_ips; i++) {
		const struct cni_ip *ip = &res->ips[i];
		struct nlw_addr_opts o = {.flags = ip->address.family == AF_INET6 ? NLW_ADDR_NODAD : 0};

		e = nlw_addr_add(r->pod, ifindex, &ip->address, &o);
		if (e < 0 && e != -EEXIST)
			return sr_fail(r->ctx, r->pod, e, "add address %s to '%s'",
				       ip_prefix_fmt(&ip->address, buf), r->ctx->ifname);
	}
	e = nlw_link_set_up(r->pod, ifindex);
	if (e < 0)
		return sr_fail(r->ctx, r->pod, e, "set '%s' up", r->ctx->ifname);
	return add_routes(r, ifindex);
}
