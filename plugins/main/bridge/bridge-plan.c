/* SPDX-License-Identifier: Apache-2.0 */
/* Pure decisions of the bridge plugin: names, gateways, routes, VLANs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bridge.h"
#include "cni/result.h"
#include "nlw/link.h"

/* First address of the subnet of p (the reference's "network + 1"). */
static void first_host(const struct ip_prefix *p, union ip_addr *ret)
{
	struct ip_prefix net = *p;
	size_t len = ip_addr_len(p->family);

	ip_prefix_mask(&net);
	for (size_t i = len; i-- > 0;) {
		if (++net.addr.bytes[i] != 0)
			break;
	}
	*ret = net.addr;
}

static bool has_default_route(const struct cni_result *r, int family)
{
	for (size_t i = 0; i < r->n_routes; i++)
		if (r->routes[i].dst.family == family && ip_prefix_is_default(&r->routes[i].dst))
			return true;
	return false;
}

static int add_default_route(struct cni_result *r, const struct cni_ip *ip)
{
	struct cni_route rt;

	memset(&rt, 0, sizeof(rt));
	rt.dst.family = ip->address.family;
	rt.dst.prefixlen = 0;
	rt.has_gw = true;
	rt.gw = ip->gateway;
	return cni_result_add_route(r, &rt);
}

static int add_gw(struct bridge_gw *gws, size_t n, size_t max, const struct cni_ip *ip)
{
	struct ip_prefix want = {
	    .family = ip->address.family, .addr = ip->gateway, .prefixlen = ip->address.prefixlen};

	for (size_t i = 0; i < n; i++)
		if (gws[i].addr.family == want.family && gws[i].addr.prefixlen == want.prefixlen &&
		    ip_addr_equal(want.family, &gws[i].addr.addr, &want.addr))
			return (int)n;
	if (n >= max)
		return -EINVAL;
	gws[n].addr = want;
	return (int)n + 1;
}

int bridge_plan_l3(const struct bridge_conf *c, struct cni_result *r, struct bridge_gw *gws,
		   size_t max_gws)
{
	int n = 0;

	for (size_t i = 0; i < r->n_ips; i++) {
		struct cni_ip *ip = &r->ips[i];

		ip->interface = 2;
		if (!ip->has_gateway && c->is_gateway) {
			first_host(&ip->address, &ip->gateway);
			ip->has_gateway = true;
		}
		if (c->is_default_gateway && !has_default_route(r, ip->address.family)) {
			int k = add_default_route(r, ip);

			if (k < 0)
				return k;
			ip = &r->ips[i];
		}
		if (c->is_gateway) {
			n = add_gw(gws, (size_t)n, max_gws, ip);
			if (n < 0)
				return n;
		}
	}
	return n;
}

bool bridge_addr_conflicts(const struct ip_prefix *existing, const struct ip_prefix *want)
{
	if (existing->family != want->family)
		return false;
	if (existing->prefixlen == want->prefixlen &&
	    ip_addr_equal(want->family, &existing->addr, &want->addr))
		return false;
	if (want->family == AF_INET)
		return true;
	/* IPv6: only overlapping subnets conflict (either contains the other). */
	if (existing->prefixlen <= want->prefixlen)
		return ip_prefix_contains(existing, AF_INET6, &want->addr);
	return ip_prefix_contains(want, AF_INET6, &existing->addr);
}

unsigned bridge_plan_port_vlans(const struct bridge_conf *c, struct nlw_bridge_vlan *out,
				unsigned max)
{
	unsigned n = 0;

	if (max == 0)
		return 0;
	if (c->vlan)
		out[n++] = (struct nlw_bridge_vlan){.vid = (uint16_t)c->vlan,
						    .flags = NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED};
	else if (c->has_trunk)
		out[n++] = (struct nlw_bridge_vlan){.vid = 1,
						    .flags = NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED};
	/* Trunk VIDs as tagged ranges of consecutive ids (the access VLAN excluded). */
	for (size_t i = 0; i < c->n_trunk && n < max; i++) {
		uint16_t v = c->trunk[i];

		if (v == c->vlan || (!c->vlan && v == 1))
			continue;
		if (n > 0 && !out[n - 1].flags &&
		    (out[n - 1].vid_end ? out[n - 1].vid_end : out[n - 1].vid) + 1 == v) {
			out[n - 1].vid_end = v;
			continue;
		}
		out[n++] = (struct nlw_bridge_vlan){.vid = v};
	}
	return n;
}
