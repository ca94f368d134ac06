/* SPDX-License-Identifier: Apache-2.0 */
/* CHECK: prevResult against the kernel. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "nlw/addr.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "podnet/check.h"

int podnet_differs(struct cni_ctx *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL, "%s", msg);
}

bool podnet_mac_matches(const struct nlw_link *l, const char *recorded)
{
	unsigned char m[6];

	if (!recorded || !recorded[0])
		return true;
	return nlw_mac_parse(recorded, m) >= 0 && memcmp(m, l->mac, 6) == 0;
}

int podnet_check_link(struct podnet *pn, struct nlw_sock *sock, const struct cni_iface *f,
		      const char *kind, struct nlw_link *ret)
{
	struct cni_ctx *ctx = pn->ctx;
	int r = nlw_link_get_by_name(sock, f->name, ret);

	if (r == -ENODEV && sock == pn->pod)
		return podnet_differs(ctx, "interface '%s' not found in '%s'", f->name, ctx->netns);
	if (r == -ENODEV)
		return podnet_differs(ctx, "interface '%s' not found", f->name);
	if (r < 0)
		return podnet_fail(ctx, sock, r, "look up '%s'", f->name);
	if (kind && strcmp(ret->kind, kind) != 0)
		return podnet_differs(ctx, "'%s' is not a %s (kind '%s')", f->name, kind,
				      ret->kind);
	if (!podnet_mac_matches(ret, f->mac))
		return podnet_differs(ctx, "interface '%s' MAC differs from prevResult %s", f->name,
				      f->mac);
	return 0;
}

int podnet_find_pod_iface(struct podnet *pn, const struct cni_result *pr)
{
	struct cni_ctx *ctx = pn->ctx;

	for (size_t i = 0; i < pr->n_ifaces; i++) {
		const struct cni_iface *f = &pr->ifaces[i];

		if (f->sandbox && f->sandbox[0] && strcmp(f->name, ctx->ifname) == 0 &&
		    strcmp(f->sandbox, ctx->netns) == 0)
			return (int)i;
	}
	return podnet_differs(ctx, "prevResult: no interface '%s' with sandbox '%s'", ctx->ifname,
			      ctx->netns);
}

static bool has_addr(const struct nlw_addr *list, unsigned n, const struct ip_prefix *want)
{
	for (unsigned j = 0; j < n; j++)
		if (list[j].prefix.family == want->family &&
		    list[j].prefix.prefixlen == want->prefixlen &&
		    ip_addr_equal(want->family, &list[j].prefix.addr, &want->addr))
			return true;
	return false;
}

int podnet_check_addrs(struct podnet *pn, int ifindex, const struct cni_result *pr)
{
	_cleanup_free_ struct nlw_addr *list = NULL;
	struct cni_ctx *ctx = pn->ctx;
	char a[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r;

	r = nlw_addr_list(pn->pod, ifindex, AF_UNSPEC, &list, &n);
	if (r < 0)
		return podnet_fail(ctx, pn->pod, r, "list addresses of '%s'", ctx->ifname);
	for (size_t i = 0; i < pr->n_ips; i++)
		if (!has_addr(list, n, &pr->ips[i].address))
			return podnet_differs(ctx, "address %s missing on '%s'",
					      ip_prefix_fmt(&pr->ips[i].address, a), ctx->ifname);
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

int podnet_check_routes(struct podnet *pn, const struct cni_result *pr)
{
	_cleanup_free_ struct nlw_route *list = NULL;
	struct cni_ctx *ctx = pn->ctx;
	char a[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r;

	if (pr->n_routes == 0)
		return 0;
	r = nlw_route_list(pn->pod, &(struct nlw_route_filter){.family = AF_UNSPEC}, &list, &n);
	if (r < 0)
		return podnet_fail(ctx, pn->pod, r, "list routes in '%s'", ctx->netns);
	for (size_t i = 0; i < pr->n_routes; i++) {
		bool found = false;

		for (unsigned j = 0; j < n && !found; j++)
			found = route_matches(&list[j], &pr->routes[i]);
		if (!found)
			return podnet_differs(ctx, "route to %s missing in '%s'",
					      ip_prefix_fmt(&pr->routes[i].dst, a), ctx->netns);
	}
	return 0;
}
