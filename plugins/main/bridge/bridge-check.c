/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge CHECK: compare prevResult with the kernel (bridge, veth pair,
 * MACs, bridge membership, addresses, routes, nftables elements) and run the
 * IPAM plugin's CHECK. Unlike the reference, an L2-only config (no ipam.type)
 * does not fail on the IPAM step. Differences are code 105.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "bridge.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "podnet/check.h"
#include "podnet/ipam.h"
#include "pwnft/nft.h"

struct check_state {
	struct bridge_conf conf;
	const struct cni_result *pr;
	struct podnet *pn;
	int br_idx, cont_idx; /* indexes into pr->ifaces */
	struct nlw_link br, cont, hveth;
	bool found_hveth;
};

static int find_ifaces(struct cni_ctx *ctx, struct check_state *s)
{
	s->br_idx = -1;
	for (size_t i = 0; i < s->pr->n_ifaces; i++) {
		const struct cni_iface *f = &s->pr->ifaces[i];

		if (!(f->sandbox && f->sandbox[0]) && strcmp(f->name, s->conf.bridge) == 0)
			s->br_idx = (int)i;
	}
	if (s->br_idx < 0)
		return podnet_differs(ctx, "prevResult: no interface named like the bridge '%s'",
				      s->conf.bridge);
	s->cont_idx = podnet_find_pod_iface(s->pn, s->pr);
	return s->cont_idx < 0 ? s->cont_idx : 0;
}

static int check_bridge(struct cni_ctx *ctx, struct check_state *s)
{
	const struct cni_iface *f = &s->pr->ifaces[s->br_idx];
	int r = nlw_link_get_by_name(s->pn->host, f->name, &s->br);

	if (r == -ENODEV)
		return podnet_differs(ctx, "bridge '%s' does not exist%s", f->name, "");
	if (r < 0)
		return podnet_fail(ctx, s->pn->host, r, "look up bridge '%s'", f->name);
	if (strcmp(s->br.kind, "bridge") != 0)
		return podnet_differs(ctx, "'%s' is not a bridge (kind '%s')", f->name, s->br.kind);
	if (!podnet_mac_matches(&s->br, f->mac))
		return podnet_differs(ctx, "bridge '%s' MAC differs from prevResult %s", f->name,
				      f->mac);
	if (s->br.promisc != s->conf.promisc_mode)
		return podnet_differs(ctx,
				      "bridge '%s' promiscuous mode differs from promiscMode %s",
				      f->name, s->conf.promisc_mode ? "true" : "false");
	return 0;
}

static int check_container(struct cni_ctx *ctx, struct check_state *s)
{
	(void)ctx;
	return podnet_check_link(s->pn, s->pn->pod, &s->pr->ifaces[s->cont_idx], "veth", &s->cont);
}

/* Every other prevResult interface lives in the host; one is our veth's peer. */
static int check_host_side(struct cni_ctx *ctx, struct check_state *s)
{
	for (size_t i = 0; i < s->pr->n_ifaces; i++) {
		const struct cni_iface *f = &s->pr->ifaces[i];
		struct nlw_link l;
		int r;

		if ((int)i == s->br_idx || (int)i == s->cont_idx)
			continue;
		if (f->sandbox && f->sandbox[0])
			return podnet_differs(ctx, "interface '%s' should not be in sandbox '%s'",
					      f->name, f->sandbox);
		r = nlw_link_get_by_name(s->pn->host, f->name, &l);
		if (r == -ENODEV)
			return podnet_differs(ctx, "interface '%s' not found%s", f->name, "");
		if (r < 0)
			return podnet_fail(ctx, s->pn->host, r, "look up '%s'", f->name);
		if (s->found_hveth || strcmp(l.kind, "veth") != 0 || l.ifindex != s->cont.link ||
		    l.master != s->br.ifindex)
			continue;
		if (!podnet_mac_matches(&l, f->mac))
			return podnet_differs(ctx, "host veth '%s' MAC differs from prevResult %s",
					      f->name, f->mac);
		s->hveth = l;
		s->found_hveth = true;
	}
	if (!s->found_hveth)
		return podnet_differs(ctx, "CNI veth created for bridge %s was not found%s",
				      s->conf.bridge, "");
	return 0;
}

static int check_nft(struct cni_ctx *ctx, struct check_state *s)
{
	_cleanup_free_ struct ip_prefix *addrs = NULL;
	struct pw_nft *nft = NULL;
	size_t n = 0;
	int r;

	r = pw_nft_open(&nft);
	if (r >= 0 && s->conf.macspoofchk) {
		struct pw_nft_spoof sp = bridge_nft_spoof(ctx, s->hveth.name, s->cont.mac);

		r = pw_nft_spoof_check(nft, &sp);
		if (r == 0)
			r = podnet_differs(ctx,
					   "macspoofchk: nftables elements for '%s' (%s) missing",
					   s->hveth.name, ctx->ifname);
	}
	if (r >= 0 && s->conf.ip_masq && s->conf.is_layer3) {
		struct pw_nft_masq mq;

		r = cni_result_addrs(s->pr, &addrs, &n);
		mq = bridge_nft_masq(ctx, addrs, n);
		if (r >= 0 && n > 0)
			r = pw_nft_masq_check(nft, &mq);
		if (r == 0 && n > 0)
			r = podnet_differs(ctx, "ipMasq: nftables elements of %s/%s missing",
					   ctx->container_id, ctx->ifname);
	}
	if (r < 0 && !cni_error_isset(&ctx->err))
		r = podnet_fail(ctx, NULL, r, "read nftables state");
	pw_nft_free(nft);
	return r < 0 ? r : 0;
}

/* The host port: up, and its flags as the config says (lost connectivity otherwise). */
static int check_port(struct cni_ctx *ctx, struct check_state *s)
{
	const struct nlw_link *l = &s->hveth;

	if (!(l->flags & IFF_UP) || l->operstate != NLW_OPER_UP)
		return podnet_differs(ctx, "host veth '%s' is down (operstate %u)", l->name,
				      l->operstate);
	if (l->has_brport && l->hairpin != s->conf.hairpin_mode)
		return podnet_differs(ctx, "hairpin mode on port '%s' is %s, hairpinMode is %s",
				      l->name, l->hairpin ? "on" : "off",
				      s->conf.hairpin_mode ? "true" : "false");
	if (l->has_brport && l->isolated != s->conf.port_isolation)
		return podnet_differs(ctx, "isolation on port '%s' is %s, portIsolation is %s",
				      l->name, l->isolated ? "on" : "off",
				      s->conf.port_isolation ? "true" : "false");
	return 0;
}

/* With isGateway, every gateway of prevResult's IPs is on the bridge (or its VLAN link). */
static int check_gateways(struct cni_ctx *ctx, struct check_state *s)
{
	_cleanup_free_ struct nlw_addr *list = NULL;
	char name[IFNAMSIZ + 16], a[IP_PREFIX_STRLEN];
	struct nlw_link gwl = s->br;
	unsigned n = 0;
	int r;

	if (!s->conf.is_gateway || !s->conf.is_layer3)
		return 0;
	snprintf(name, sizeof(name), "%s.%u", s->conf.bridge, s->conf.vlan);
	r = s->conf.vlan ? nlw_link_get_by_name(s->pn->host, name, &gwl) : 0;
	if (r == -ENODEV)
		return podnet_differs(ctx, "VLAN gateway link '%s' not found", name);
	if (r >= 0)
		r = nlw_addr_list(s->pn->host, gwl.ifindex, AF_UNSPEC, &list, &n);
	if (r < 0)
		return podnet_fail(ctx, s->pn->host, r, "list addresses of '%s'", gwl.name);
	for (size_t i = 0; i < s->pr->n_ips; i++) {
		const struct cni_ip *ip = &s->pr->ips[i];
		struct ip_prefix gw = {.family = ip->address.family,
				       .addr = ip->gateway,
				       .prefixlen = ip->address.prefixlen};
		bool found = false;

		if (!ip->has_gateway)
			continue;
		for (unsigned j = 0; j < n && !found; j++)
			found = list[j].prefix.family == gw.family &&
				list[j].prefix.prefixlen == gw.prefixlen &&
				ip_addr_equal(gw.family, &list[j].prefix.addr, &gw.addr);
		if (!found)
			return podnet_differs(ctx, "gateway %s missing on '%s'",
					      ip_prefix_fmt(&gw, a), gwl.name);
	}
	return 0;
}

/* The links, the bridge port and the gateways against prevResult, in this order. */
static int (*const kernel_checks[])(struct cni_ctx *, struct check_state *) = {
    find_ifaces, check_bridge, check_container, check_host_side, check_port, check_gateways,
};

static int check_steps(struct cni_ctx *ctx, struct check_state *s)
{
	int r;

	if (!ctx->prev_result)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "prevResult: required for CHECK");
	s->pr = ctx->prev_result;
	r = s->conf.is_layer3 ? podnet_ipam_run(ctx, CNI_CMD_CHECK) : 0;
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(kernel_checks); i++)
		r = kernel_checks[i](ctx, s);
	if (r >= 0)
		r = podnet_check_addrs(s->pn, s->cont.ifindex, s->pr);
	if (r >= 0)
		r = podnet_check_routes(s->pn, s->pr);
	if (r >= 0 && (s->conf.macspoofchk || (s->conf.ip_masq && s->conf.is_layer3)))
		r = check_nft(ctx, s);
	return r;
}

int bridge_cmd_check(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct check_state s = {.pn = pn};
	int r;

	r = bridge_conf_parse(ctx, &s.conf);
	if (r < 0)
		return r;
	r = check_steps(ctx, &s);
	bridge_conf_done(&s.conf);
	return r;
}
