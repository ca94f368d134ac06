/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route DEL and GC. DEL is idempotent and best effort: the host routes
 * go first (BIRD withdraws them from every peer at once; measured 1.7-3.5
 * ms route-first against 17-24 ms when the veth goes first), then the veth,
 * then IPAM, which is released even when the netns is gone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/ipaddr.h"
#include "bgp-route.h"
#include "cni/log.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "podnet/ipam.h"
#include "podnet/name.h"
#include "podnet/podnet.h"
#include "podnet/veth.h"

/*
 * Delete our host routes on oif, whatever their destinations: a dump of the
 * link's routes (the kernel walks the whole table for it). GC, and DEL when
 * the pod's addresses cannot be read. Returns the count deleted or a
 * negative errno.
 */
static int del_pod_routes(struct cni_ctx *ctx, const struct bgpr_conf *c, struct nlw_sock *s,
			  int oif)
{
	struct nlw_route_filter f = {.family = AF_UNSPEC, .oif = oif};
	_cleanup_free_ struct nlw_route *rt = NULL;
	char buf[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r, count = 0;

	r = nlw_route_list(s, &f, &rt, &n);
	if (r == -ENODEV) /* the link went meanwhile (its netns deleted), its routes with it */
		return 0;
	if (r < 0)
		return podnet_fail(ctx, s, r, "list routes of ifindex %d", oif);
	for (unsigned i = 0; i < n; i++) {
		if (!bgpr_is_pod_route(c, &rt[i]) || rt[i].oif != oif)
			continue;
		r = nlw_route_del(s, &rt[i]);
		if (r == -ENODEV)
			return count;
		if (r < 0 && r != -ESRCH)
			return podnet_fail(ctx, s, r, "delete host route %s",
					   ip_prefix_fmt(&rt[i].dst, buf));
		count++;
	}
	return count;
}

#define BGPR_DEL_DSTS_MAX 16

/* Add ip as a host route destination (/32, /128) unless it is there already. */
static void put_dst(struct ip_prefix *v, size_t *n, const struct ip_prefix *ip)
{
	struct ip_prefix d = *ip;

	if (d.family != AF_INET && d.family != AF_INET6)
		return;
	d.prefixlen = (unsigned char)ip_family_bits(d.family);
	for (size_t i = 0; i < *n; i++)
		if (v[i].family == d.family && ip_addr_equal(d.family, &v[i].addr, &d.addr))
			return;
	if (*n < BGPR_DEL_DSTS_MAX)
		v[(*n)++] = d;
}

/*
 * The destinations of this attachment's host routes: the global addresses
 * of CNI_IFNAME in the pod (a dump of one small namespace) and prevResult's
 * ips. Returns how many.
 */
static size_t host_route_dsts(struct cni_ctx *ctx, struct podnet *pn, struct ip_prefix *v)
{
	_cleanup_free_ struct nlw_addr *addrs = NULL;
	struct nlw_link pod;
	unsigned n_addrs = 0;
	size_t n = 0;

	if (podnet_has_pod(pn) && nlw_link_get_by_name(pn->pod, ctx->ifname, &pod) >= 0 &&
	    nlw_addr_list(pn->pod, pod.ifindex, AF_UNSPEC, &addrs, &n_addrs) >= 0)
		for (unsigned i = 0; i < n_addrs; i++)
			if (addrs[i].scope == NLW_SCOPE_UNIVERSE)
				put_dst(v, &n, &addrs[i].prefix);
	for (size_t i = 0; ctx->prev_result && i < ctx->prev_result->n_ips; i++)
		put_dst(v, &n, &ctx->prev_result->ips[i].address);
	return n;
}

/*
 * The host routes on oif: by destination, one RTM_DELROUTE per address and
 * protocol (pod, then borrowed), no table walk. When none was found that
 * way (addresses unknown, or not the ones routed), the link's routes are
 * dumped instead. Returns the count deleted or a negative errno.
 */
static int del_host_routes(struct cni_ctx *ctx, const struct bgpr_conf *c, struct podnet *pn,
			   int oif)
{
	const unsigned char protos[2] = {c->proto_pod, c->proto_borrowed};
	struct ip_prefix dsts[BGPR_DEL_DSTS_MAX];
	size_t n = host_route_dsts(ctx, pn, dsts);
	char buf[IP_PREFIX_STRLEN];
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		int r = nlw_route_del_proto(pn->host, &dsts[i], oif, protos, 2);

		if (r == -ENODEV) /* as in del_pod_routes */
			return count;
		if (r < 0)
			return podnet_fail(ctx, pn->host, r, "delete host route %s",
					   ip_prefix_fmt(&dsts[i], buf));
		count += r;
	}
	return count > 0 ? count : del_pod_routes(ctx, c, pn->host, oif);
}

/* Is l this attachment's host veth? */
static bool ours(struct cni_ctx *ctx, const struct nlw_link *l)
{
	return strcmp(l->kind, "veth") == 0 &&
	       podnet_alias_matches(l->alias, ctx->conf.name, ctx->container_id, ctx->ifname);
}

/*
 * The host end: by its deterministic name, else by the name prevResult
 * recorded (a name retried after a clash). 0 and *ret, or -ENODEV.
 */
static int find_host_veth(struct cni_ctx *ctx, const struct bgpr_conf *c, struct podnet *pn,
			  struct nlw_link *ret)
{
	char name[IFNAMSIZ];

	if (podnet_host_ifname(c->host_if_prefix, BGPR_HOST_HEX, ctx->container_id, ctx->ifname, 0,
			       name) >= 0 &&
	    nlw_link_get_by_name(pn->host, name, ret) >= 0 && ours(ctx, ret))
		return 0;
	if (ctx->prev_result && ctx->prev_result->n_ifaces > 0 &&
	    strncmp(ctx->prev_result->ifaces[0].name, c->host_if_prefix,
		    strlen(c->host_if_prefix)) == 0 &&
	    nlw_link_get_by_name(pn->host, ctx->prev_result->ifaces[0].name, ret) >= 0 &&
	    ours(ctx, ret))
		return 0;
	return -ENODEV;
}

static int del_steps(struct cni_ctx *ctx, const struct bgpr_conf *c, struct podnet *pn)
{
	char name[IFNAMSIZ] = "";
	struct nlw_link host;
	int first = 0, r;

	if (find_host_veth(ctx, c, pn, &host) >= 0) {
		snprintf(name, sizeof(name), "%s", host.name);
		r = del_host_routes(ctx, c, pn, host.ifindex);
		podnet_keep_first(&first, r < 0 ? r : 0);
	} else {
		(void)podnet_host_ifname(c->host_if_prefix, BGPR_HOST_HEX, ctx->container_id,
					 ctx->ifname, 0, name);
	}
	podnet_keep_first(&first, podnet_veth_del(pn, name));
	return first;
}

int bgpr_cmd_del(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bgpr_conf c;
	int first = 0, r;

	(void)bgpr_conf_parse(ctx, &c); /* lenient: bad keys are warnings, defaults used */
	podnet_keep_first(&first, del_steps(ctx, &c, pn));
	/* IPAM last and always: an address must not leak because the netns is gone. */
	if (ctx->conf.ipam_type) {
		struct cni_error kept = {0};

		if (first < 0)
			cni_error_move(&kept, &ctx->err);
		r = podnet_ipam_run(ctx, CNI_CMD_DEL);
		if (first < 0) {
			cni_error_done(&ctx->err);
			cni_error_move(&ctx->err, &kept);
		}
		podnet_keep_first(&first, r);
	}
	return first;
}

/* GC of one host link: a pwr* veth of this network whose attachment is not valid. */
static int gc_link(struct cni_ctx *ctx, const struct bgpr_conf *c, struct nlw_sock *s, int oif)
{
	const char *net = NULL, *cid = NULL, *ifn = NULL;
	char copy[NLW_ALIAS_MAX];
	struct nlw_link l;
	int r;

	if (nlw_link_get_by_index(s, oif, &l) < 0 || strcmp(l.kind, "veth") != 0 ||
	    strncmp(l.name, c->host_if_prefix, strlen(c->host_if_prefix)) != 0 ||
	    podnet_alias_parse(l.alias, copy, &net, &cid, &ifn) < 0 ||
	    strcmp(net, ctx->conf.name) != 0 || cni_conf_attachment_valid(&ctx->conf, cid, ifn))
		return 0;
	cni_log_info("GC: removing '%s' of %s/%s (not a valid attachment)", l.name, cid, ifn);
	r = del_pod_routes(ctx, c, s, oif);
	if (r >= 0) {
		r = nlw_link_del(s, oif);
		if (r == -ENODEV)
			r = 0;
		if (r < 0)
			r = podnet_fail(ctx, s, r, "GC: delete '%s'", l.name);
	}
	return r < 0 ? r : 1;
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The distinct ifindexes carrying a route of protocol pod or borrowed. */
static int pod_route_oifs(struct cni_ctx *ctx, const struct bgpr_conf *c, struct nlw_sock *s,
			  int **ret, size_t *ret_n)
{
	const unsigned char protos[2] = {c->proto_pod, c->proto_borrowed};
	int *oifs = NULL;
	size_t n = 0, k = 0;

	for (size_t p = 0; p < 2; p++) {
		struct nlw_route_filter f = {.family = AF_UNSPEC, .protocol = protos[p]};
		_cleanup_free_ struct nlw_route *rt = NULL;
		unsigned m = 0;
		int r = nlw_route_list(s, &f, &rt, &m);
		int *grown;

		if (r < 0) {
			free(oifs);
			return podnet_fail(ctx, s, r, "GC: list routes of proto %u", protos[p]);
		}
		grown = reallocarray(oifs, n + m + 1, sizeof(*oifs));
		if (!grown) {
			free(oifs);
			return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
		}
		oifs = grown;
		for (unsigned i = 0; i < m; i++)
			if (bgpr_is_pod_route(c, &rt[i]))
				oifs[n++] = rt[i].oif;
	}
	if (n)
		qsort(oifs, n, sizeof(*oifs), int_cmp);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || oifs[k - 1] != oifs[i])
			oifs[k++] = oifs[i];
	*ret = oifs;
	*ret_n = k;
	return 0;
}

static int gc_links(struct cni_ctx *ctx, const struct bgpr_conf *c, struct nlw_sock *s)
{
	_cleanup_free_ int *oifs = NULL;
	int first = 0, r, done = 0;
	size_t n = 0;

	r = pod_route_oifs(ctx, c, s, &oifs, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		r = gc_link(ctx, c, s, oifs[i]);
		podnet_keep_first(&first, r < 0 ? r : 0);
		done += r > 0;
	}
	if (done)
		cni_log_info("GC removed %d attachment(s)", done);
	return first;
}

/*
 * GC: host veths carrying a pod route of ours and this network's tag whose
 * attachment is not in cni.dev/valid-attachments (routes first, then the
 * link), then the IPAM's GC. Without the key nothing is compared.
 */
int bgpr_cmd_gc(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bgpr_conf c;
	int first = 0;

	(void)bgpr_conf_parse(ctx, &c);
	if (ctx->conf.has_valid_attachments)
		podnet_keep_first(&first, gc_links(ctx, &c, pn->host));
	if (ctx->conf.ipam_type && first == 0)
		podnet_keep_first(&first, podnet_ipam_run(ctx, CNI_CMD_GC));
	return first;
}
