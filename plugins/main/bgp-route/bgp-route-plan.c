/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route-plan.c: the decisions, without the kernel: which protocol a
 * host route carries (pod or borrowed), the host route itself, the pod's
 * addresses and routes.
 */
#include <errno.h>
#include <string.h>

#include "bgp-route.h"
#include "cni/result.h"
#include "nlw/types.h"

const unsigned char bgpr_host_mac[6] = {0xee, 0xee, 0xee, 0xee, 0xee, 0xee};

void bgpr_host_ll(union ip_addr *ret)
{
	const unsigned char *m = bgpr_host_mac;

	/* fe80::/64 + the modified EUI-64 of the MAC (RFC 4291 2.5.1, appendix A) */
	memset(ret, 0, sizeof(*ret));
	ret->bytes[0] = 0xfe;
	ret->bytes[1] = 0x80;
	ret->bytes[8] = m[0] ^ 0x02; /* the universal/local bit inverted */
	ret->bytes[9] = m[1];
	ret->bytes[10] = m[2];
	ret->bytes[11] = 0xff;
	ret->bytes[12] = 0xfe;
	ret->bytes[13] = m[3];
	ret->bytes[14] = m[4];
	ret->bytes[15] = m[5];
}

unsigned char bgpr_route_proto(const struct bgpr_conf *c, const struct ip_prefix *ip,
			       const struct nlw_route *blocks, size_t n_blocks)
{
	bool any = false;

	for (size_t i = 0; i < n_blocks; i++) {
		const struct nlw_route *b = &blocks[i];

		if (b->protocol != c->proto_block || b->type != NLW_ROUTE_BLACKHOLE ||
		    b->dst.family != ip->family)
			continue;
		any = true;
		if (ip_prefix_contains(&b->dst, ip->family, &ip->addr))
			return c->proto_pod;
	}
	return (any || c->strict_borrow) ? c->proto_borrowed : c->proto_pod;
}

void bgpr_host_route(const struct ip_prefix *ip, int oif, unsigned char proto,
		     struct nlw_route *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->dst = *ip;
	ret->dst.prefixlen = (unsigned char)ip_family_bits(ip->family);
	ret->oif = oif;
	ret->protocol = proto;
	ret->type = NLW_ROUTE_UNICAST;
	ret->scope = NLW_SCOPE_LINK;
	if (ip->family == AF_INET6) {
		ret->scope = NLW_SCOPE_UNIVERSE; /* the kernel keeps IPv6 routes at universe */
		ret->priority = BGPR_V6_METRIC;
	}
}

bool bgpr_is_pod_route(const struct bgpr_conf *c, const struct nlw_route *r)
{
	return (r->protocol == c->proto_pod || r->protocol == c->proto_borrowed) && r->oif > 0 &&
	       r->dst.prefixlen == ip_family_bits(r->dst.family);
}

void bgpr_pod_ips(struct cni_result *res)
{
	for (size_t i = 0; i < res->n_ips; i++) {
		struct cni_ip *ip = &res->ips[i];

		ip->address.prefixlen = (unsigned char)ip_family_bits(ip->address.family);
		ip->has_gateway = false;
		memset(&ip->gateway, 0, sizeof(ip->gateway));
		ip->interface = 1;
	}
}

static void set_gw(struct cni_route *rt, const union ip_addr *gw6)
{
	rt->has_gw = true;
	if (rt->dst.family == AF_INET6)
		rt->gw = *gw6;
	else
		(void)ip_addr_parse(BGPR_GW4, &(int){0}, &rt->gw);
}

int bgpr_pod_routes(struct cni_result *res, const union ip_addr *gw6)
{
	static const int families[] = {AF_INET, AF_INET6};
	size_t k = 0;

	for (size_t i = 0; i < res->n_routes; i++) {
		struct cni_route *rt = &res->routes[i];

		if (!cni_result_has_family(res, rt->dst.family))
			continue;
		set_gw(rt, gw6);
		res->routes[k++] = *rt;
	}
	res->n_routes = k;
	for (size_t f = 0; f < 2; f++) {
		struct cni_route def = {.dst = {.family = families[f]}};
		bool have = false;

		if (!cni_result_has_family(res, families[f]))
			continue;
		for (size_t i = 0; i < res->n_routes; i++)
			have = have || (res->routes[i].dst.family == families[f] &&
					res->routes[i].dst.prefixlen == 0);
		if (have)
			continue;
		set_gw(&def, gw6);
		if (cni_result_add_route(res, &def) < 0)
			return -ENOMEM;
	}
	return 0;
}
