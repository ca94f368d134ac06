/* SPDX-License-Identifier: Apache-2.0 */
/*
 * default-route: the pod's default route of a family moves to the network
 * that asked for it. Routes are read back to verify; the delegates' results
 * (and their libcni cache entries) are rewritten to match, so CHECK agrees.
 * The routes of before are kept on podnet's undo list until the ADD ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ipaddr.h"
#include "base/macro.h"
#include "cni/log.h"
#include "multinet.h"
#include "nlw/link.h"
#include "nlw/route.h"

#define RT_MAIN 254

struct gw_req {
	ssize_t idx; /* delegate, -1: none */
	union ip_addr gw;
	const char *text;
};

static int collect(const struct mn_plan *p, struct gw_req *v4, struct gw_req *v6,
		   struct cni_error *err)
{
	v4->idx = v6->idx = -1;
	for (size_t i = 0; i < p->n; i++) {
		const json_t *e;
		size_t j;

		json_array_foreach (p->d[i].default_route, j, e) {
			const char *s = json_string_value(e);
			union ip_addr a;
			int fam;
			struct gw_req *g;

			if (!s || ip_addr_parse(s, &fam, &a) < 0)
				return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
						  "network %s: default-route: '%s' is not an IP "
						  "address",
						  p->d[i].display, s ? s : "?");
			g = fam == AF_INET ? v4 : v6;
			if (g->idx >= 0)
				return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
						  "default-route: more than one IPv%c gateway "
						  "(%s on %s, %s on %s): ECMP is not supported",
						  fam == AF_INET ? '4' : '6', g->text,
						  p->d[g->idx].display, s, p->d[i].display);
			*g = (struct gw_req){(ssize_t)i, a, s};
		}
	}
	return 0;
}

int mn_route_validate(const struct mn_plan *p, struct cni_error *err)
{
	struct gw_req v4, v6;

	return collect(p, &v4, &v6, err);
}

static bool route_is(const struct nlw_route *r, int oif, int fam, const union ip_addr *gw)
{
	return r->oif == oif && r->has_gw && ip_addr_equal(fam, &r->gw, gw);
}

static bool route_in(const struct nlw_route *r, const struct nlw_route *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (route_is(&v[i], r->oif, r->dst.family, &r->gw) && v[i].priority == r->priority)
			return true;
	return false;
}

static int list_defaults(struct nlw_sock *s, int fam, struct nlw_route **ret, unsigned *ret_n)
{
	struct nlw_route_filter f = {.family = fam, .table = RT_MAIN};
	struct nlw_route *v = NULL;
	unsigned n = 0, k = 0;
	int r = nlw_route_list(s, &f, &v, &n);

	if (r < 0)
		return r;
	for (unsigned i = 0; i < n; i++)
		if (v[i].dst.prefixlen == 0 && v[i].dst.family == fam)
			v[k++] = v[i];
	*ret = v;
	*ret_n = k;
	return 0;
}

/* The default routes of one family as they were before multinet changed them. */
struct defaults_undo {
	int family;
	unsigned n;
	struct nlw_route v[];
};

/*
 * Undo: the family's default routes as they were: ours removed, the ones
 * removed put back on the links still there (another attachment's included).
 */
static int undo_defaults(struct podnet *pn, void *arg)
{
	const struct defaults_undo *u = arg;
	_cleanup_free_ struct nlw_route *now = NULL;
	unsigned n;
	int first = 0, r = list_defaults(pn->pod, u->family, &now, &n);

	if (r < 0)
		return r;
	for (unsigned i = 0; i < n; i++)
		if (!route_in(&now[i], u->v, u->n) &&
		    (r = nlw_route_del(pn->pod, &now[i])) != -ESRCH)
			podnet_keep_first(&first, r);
	for (unsigned i = 0; i < u->n; i++)
		if (!route_in(&u->v[i], now, n) &&
		    (r = nlw_route_add(pn->pod, &u->v[i])) != -ENODEV)
			podnet_keep_first(&first, r);
	return first;
}

static int push_defaults_undo(struct podnet *pn, int fam, const struct nlw_route *v, unsigned n)
{
	struct defaults_undo *u = malloc(sizeof(*u) + (size_t)n * sizeof(*v));

	if (!u)
		return -ENOMEM;
	u->family = fam;
	u->n = n;
	if (n)
		memcpy(u->v, v, (size_t)n * sizeof(*v));
	return podnet_undo_push(pn,
				fam == AF_INET ? "restore the IPv4 default routes"
					       : "restore the IPv6 default routes",
				undo_defaults, u, free);
}

/* In the pod: remove other default routes of fam, add ours, verify. */
static int move_default(struct podnet *pn, int fam, int oif, const struct gw_req *g,
			const char *ifname)
{
	_cleanup_free_ struct nlw_route *v = NULL;
	struct nlw_route want = {.dst.family = fam, .has_gw = true, .gw = g->gw, .oif = oif};
	char ipv = fam == AF_INET ? '4' : '6';
	unsigned n;
	int r;

	if ((r = list_defaults(pn->pod, fam, &v, &n)) < 0)
		return podnet_fail(pn->ctx, pn->pod, r, "default-route: list the IPv%c routes",
				   ipv);
	if ((r = push_defaults_undo(pn, fam, v, n)) < 0)
		return r;
	for (unsigned i = 0; i < n; i++) {
		if (route_is(&v[i], oif, fam, &g->gw))
			continue;
		r = nlw_route_del(pn->pod, &v[i]);
		if (r < 0 && r != -ESRCH)
			return podnet_fail(pn->ctx, pn->pod, r,
					   "default-route: remove an IPv%c default route", ipv);
	}
	r = nlw_route_add(pn->pod, &want);
	if (r < 0 && r != -EEXIST)
		return podnet_fail(pn->ctx, pn->pod, r, "default-route: add default via %s dev %s",
				   g->text, ifname);
	v = mfree(v);
	if ((r = list_defaults(pn->pod, fam, &v, &n)) < 0)
		return podnet_fail(pn->ctx, pn->pod, r, "default-route: list the IPv%c routes",
				   ipv);
	if (n != 1 || !route_is(&v[0], oif, fam, &g->gw))
		return cni_errorf(&pn->ctx->err, CNI_ERR_PLUGIN, -EIO,
				  "default-route: after the change the pod has %u IPv%c default "
				  "routes, not just 'via %s dev %s'",
				  n, ipv, g->text, ifname);
	cni_log_info("default-route: IPv%c default via %s dev %s", ipv, g->text, ifname);
	return 0;
}

static bool is_default_of(const json_t *route, int family)
{
	struct ip_prefix p;

	if (ip_prefix_parse(json_string_value(json_object_get(route, "dst")), &p) < 0)
		return false;
	return p.prefixlen == 0 && p.family == family;
}

static void drop_from(json_t *routes, int family)
{
	for (size_t i = json_array_size(routes); i > 0; i--)
		if (is_default_of(json_array_get(routes, i - 1), family))
			json_array_remove(routes, i - 1);
}

void mn_result_drop_default(json_t *result, int family)
{
	drop_from(json_object_get(result, "routes"), family);
	drop_from(
	    json_object_get(json_object_get(result, family == AF_INET ? "ip4" : "ip6"), "routes"),
	    family);
}

int mn_result_add_default(json_t *result, const char *gw)
{
	int fam;
	union ip_addr a;
	json_t *legacy, *routes;
	const char *dst;

	if (ip_addr_parse(gw, &fam, &a) < 0)
		return -EINVAL;
	dst = fam == AF_INET ? "0.0.0.0/0" : "::/0";
	legacy = json_object_get(result, fam == AF_INET ? "ip4" : "ip6");
	routes = json_object_get(legacy ? legacy : result, "routes");
	if (!json_is_array(routes)) {
		routes = json_array();
		if (json_object_set_new(legacy ? legacy : result, "routes", routes) < 0)
			return -ENOMEM;
	}
	return json_array_append_new(routes, json_pack("{s:s,s:s}", "dst", dst, "gw", gw)) < 0
		   ? -ENOMEM
		   : 0;
}

static int apply_family(struct podnet *pn, struct mn_plan *p, int fam, const struct gw_req *g)
{
	struct mn_delegate *d = &p->d[g->idx];
	struct nlw_link link;
	int r;

	r = nlw_link_get_by_name(pn->pod, d->ifname, &link);
	if (r < 0)
		return podnet_fail(pn->ctx, pn->pod, r,
				   "network %s: default-route: look up %s in the pod", d->display,
				   d->ifname);
	if ((r = move_default(pn, fam, link.ifindex, g, d->ifname)) < 0)
		return r;
	for (size_t i = 0; i < p->n; i++)
		if (p->d[i].result)
			mn_result_drop_default(p->d[i].result, fam);
	if (d->result && mn_result_add_default(d->result, g->text) < 0)
		return -ENOMEM;
	return 0;
}

/* Rewrite every delegate's libcni cache entry with its edited result. */
static int recache(const struct mn_plan *p, const struct cni_runtime *rt, struct cni_error *err)
{
	for (size_t i = 0; i < p->n; i++) {
		struct cni_runtime_conf rc;
		int r;

		if (!p->d[i].result || p->d[i].state != MN_ADDED)
			continue;
		mn_runtime_conf(p, &p->d[i], &rc);
		r = cni_cache_write(rt->cache_dir, p->d[i].list, &rc, p->d[i].result,
				    !rt->cache_nosync, err);
		if (r < 0)
			return r;
	}
	return 0;
}

int mn_route_apply(struct podnet *pn, struct mn_plan *p, const struct cni_runtime *rt)
{
	struct gw_req v4, v6;
	int r;

	if ((r = collect(p, &v4, &v6, &pn->ctx->err)) < 0)
		return r;
	if (v4.idx < 0 && v6.idx < 0)
		return 0;
	if (v4.idx >= 0 && (r = apply_family(pn, p, AF_INET, &v4)) < 0)
		return r;
	if (v6.idx >= 0 && (r = apply_family(pn, p, AF_INET6, &v6)) < 0)
		return r;
	if ((r = recache(p, rt, &pn->ctx->err)) < 0)
		return r;
	return 1;
}
