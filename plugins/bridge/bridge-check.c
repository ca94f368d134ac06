/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge CHECK: compare prevResult with the kernel (bridge, veth pair,
 * MACs, bridge membership, addresses, routes, nftables elements) and run the
 * IPAM plugin's CHECK. Unlike the reference, an L2-only config (no ipam.type)
 * does not fail on the IPAM step. Differences are code 105.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "bridge.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "pwnft/nft.h"

struct check_state {
	struct bridge_conf conf;
	const struct cni_result *pr;
	int netns_fd;
	struct nlw_sock *host, *pod;
	int br_idx, cont_idx; /* indexes into pr->ifaces */
	struct nlw_link br, cont, hveth;
	bool found_hveth;
};

_printf_(2, 3) static int differs(struct cni_ctx *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL, "%s", msg);
}

static bool mac_matches(const struct nlw_link *l, const char *recorded)
{
	unsigned char m[6];

	if (!recorded || !recorded[0])
		return true;
	return nlw_mac_parse(recorded, m) >= 0 && memcmp(m, l->mac, 6) == 0;
}

static int find_ifaces(struct cni_ctx *ctx, struct check_state *s)
{
	s->br_idx = s->cont_idx = -1;
	for (size_t i = 0; i < s->pr->n_ifaces; i++) {
		const struct cni_iface *f = &s->pr->ifaces[i];
		bool in_pod = f->sandbox && f->sandbox[0];

		if (!in_pod && strcmp(f->name, s->conf.bridge) == 0)
			s->br_idx = (int)i;
		else if (in_pod && strcmp(f->name, ctx->ifname) == 0 &&
			 strcmp(f->sandbox, ctx->netns) == 0)
			s->cont_idx = (int)i;
	}
	if (s->br_idx < 0)
		return differs(ctx, "prevResult: no interface named like the bridge '%s'%s",
			       s->conf.bridge, "");
	if (s->cont_idx < 0)
		return differs(ctx, "prevResult: no interface '%s' with sandbox '%s'", ctx->ifname,
			       ctx->netns);
	return 0;
}

static int check_bridge(struct cni_ctx *ctx, struct check_state *s)
{
	const struct cni_iface *f = &s->pr->ifaces[s->br_idx];
	int r = nlw_link_get_by_name(s->host, f->name, &s->br);

	if (r == -ENODEV)
		return differs(ctx, "bridge '%s' does not exist%s", f->name, "");
	if (r < 0)
		return bridge_fail(ctx, s->host, r, "look up bridge '%s'", f->name);
	if (strcmp(s->br.kind, "bridge") != 0)
		return differs(ctx, "'%s' is not a bridge (kind '%s')", f->name, s->br.kind);
	if (!mac_matches(&s->br, f->mac))
		return differs(ctx, "bridge '%s' MAC differs from prevResult %s", f->name, f->mac);
	if (s->br.promisc != s->conf.promisc_mode)
		return differs(ctx, "bridge '%s' promiscuous mode differs from promiscMode %s",
			       f->name, s->conf.promisc_mode ? "true" : "false");
	return 0;
}

static int check_container(struct cni_ctx *ctx, struct check_state *s)
{
	const struct cni_iface *f = &s->pr->ifaces[s->cont_idx];
	int r = nlw_link_get_by_name(s->pod, f->name, &s->cont);

	if (r == -ENODEV)
		return differs(ctx, "interface '%s' not found in '%s'", f->name, ctx->netns);
	if (r < 0)
		return bridge_fail(ctx, s->pod, r, "look up '%s'", f->name);
	if (strcmp(s->cont.kind, "veth") != 0)
		return differs(ctx, "'%s' is not a veth (kind '%s')", f->name, s->cont.kind);
	if (!mac_matches(&s->cont, f->mac))
		return differs(ctx, "interface '%s' MAC differs from prevResult %s", f->name, f->mac);
	return 0;
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
			return differs(ctx, "interface '%s' should not be in sandbox '%s'", f->name,
				       f->sandbox);
		r = nlw_link_get_by_name(s->host, f->name, &l);
		if (r == -ENODEV)
			return differs(ctx, "interface '%s' not found%s", f->name, "");
		if (r < 0)
			return bridge_fail(ctx, s->host, r, "look up '%s'", f->name);
		if (s->found_hveth || strcmp(l.kind, "veth") != 0 || l.ifindex != s->cont.link ||
		    l.master != s->br.ifindex)
			continue;
		if (!mac_matches(&l, f->mac))
			return differs(ctx, "host veth '%s' MAC differs from prevResult %s", f->name,
				       f->mac);
		s->hveth = l;
		s->found_hveth = true;
	}
	if (!s->found_hveth)
		return differs(ctx, "CNI veth created for bridge %s was not found%s", s->conf.bridge,
			       "");
	return 0;
}

static int check_addrs(struct cni_ctx *ctx, struct check_state *s)
{
	_cleanup_free_ struct nlw_addr *list = NULL;
	char a[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r;

	r = nlw_addr_list(s->pod, s->cont.ifindex, AF_UNSPEC, &list, &n);
	if (r < 0)
		return bridge_fail(ctx, s->pod, r, "list addresses of '%s'", ctx->ifname);
	for (size_t i = 0; i < s->pr->n_ips; i++) {
		const struct ip_prefix *want = &s->pr->ips[i].address;
		bool found = false;

		for (unsigned j = 0; j < n && !found; j++)
			found = list[j].prefix.family == want->family &&
				list[j].prefix.prefixlen == want->prefixlen &&
				ip_addr_equal(want->family, &list[j].prefix.addr, &want->addr);
		if (!found)
			return differs(ctx, "address %s missing on '%s'", ip_prefix_fmt(want, a),
				       ctx->ifname);
	}
	return 0;
}

static bool route_matches(const struct nlw_route *k, const struct cni_route *want)
{
	struct ip_prefix dst = want->dst;

	ip_prefix_mask(&dst);
	if (k->dst.family != dst.family || k->dst.prefixlen != dst.prefixlen ||
	    !ip_addr_equal(dst.family, &k->dst.addr, &dst.addr))
		return false;
	return !want->has_gw || (k->has_gw && ip_addr_equal(dst.family, &k->gw, &want->gw));
}

static int check_routes(struct cni_ctx *ctx, struct check_state *s)
{
	_cleanup_free_ struct nlw_route *list = NULL;
	char a[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r;

	if (s->pr->n_routes == 0)
		return 0;
	r = nlw_route_list(s->pod, &(struct nlw_route_filter){ .family = AF_UNSPEC }, &list, &n);
	if (r < 0)
		return bridge_fail(ctx, s->pod, r, "list routes in '%s'", ctx->netns);
	for (size_t i = 0; i < s->pr->n_routes; i++) {
		bool found = false;

		for (unsigned j = 0; j < n && !found; j++)
			found = route_matches(&list[j], &s->pr->routes[i]);
		if (!found)
			return differs(ctx, "route to %s missing in '%s'",
				       ip_prefix_fmt(&s->pr->routes[i].dst, a), ctx->netns);
	}
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
		r = pw_nft_spoof_check(nft, &(struct pw_nft_spoof){ .network = ctx->conf.name,
								    .container_id = ctx->container_id,
								    .ifname = ctx->ifname,
								    .host_ifname = s->hveth.name,
								    .mac = s->cont.mac });
		if (r == 0)
			r = differs(ctx, "macspoofchk: nftables elements for '%s' (%s) missing",
				    s->hveth.name, ctx->ifname);
	}
	if (r >= 0 && s->conf.ip_masq && s->conf.is_layer3) {
		r = bridge_result_addrs(s->pr, &addrs, &n);
		if (r >= 0 && n > 0)
			r = pw_nft_masq_check(nft, &(struct pw_nft_masq){ .network = ctx->conf.name,
									  .container_id = ctx->container_id,
									  .ifname = ctx->ifname,
									  .addrs = addrs,
									  .n_addrs = n });
		if (r == 0 && n > 0)
			r = differs(ctx, "ipMasq: nftables elements of %s/%s missing",
				    ctx->container_id, ctx->ifname);
	}
	if (r < 0 && !cni_error_isset(&ctx->err))
		r = bridge_fail(ctx, NULL, r, "read nftables state");
	pw_nft_free(nft);
	return r < 0 ? r : 0;
}

static int check_steps(struct cni_ctx *ctx, struct check_state *s)
{
	int r;

	if (!ctx->prev_result)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "prevResult: required for CHECK");
	s->pr = ctx->prev_result;
	r = s->conf.is_layer3 ? bridge_ipam_run(ctx, CNI_CMD_CHECK) : 0;
	if (r >= 0)
		r = bridge_open_netns(ctx, &s->netns_fd);
	if (r >= 0)
		r = bridge_open_sockets(ctx, s->netns_fd, &s->host, &s->pod);
	if (r >= 0)
		r = find_ifaces(ctx, s);
	if (r >= 0)
		r = check_bridge(ctx, s);
	if (r >= 0)
		r = check_container(ctx, s);
	if (r >= 0)
		r = check_host_side(ctx, s);
	if (r >= 0)
		r = check_addrs(ctx, s);
	if (r >= 0)
		r = check_routes(ctx, s);
	if (r >= 0 && (s->conf.macspoofchk || (s->conf.ip_masq && s->conf.is_layer3)))
		r = check_nft(ctx, s);
	return r;
}

int bridge_cmd_check(struct cni_ctx *ctx)
{
	struct check_state s = { .netns_fd = -1 };
	int r;

	r = bridge_conf_parse(ctx, &s.conf);
	if (r < 0)
		return r;
	r = check_steps(ctx, &s);
	bridge_conf_done(&s.conf);
	nlw_sock_free(s.host);
	nlw_sock_free(s.pod);
	if (s.netns_fd >= 0)
		close(s.netns_fd);
	return r;
}
