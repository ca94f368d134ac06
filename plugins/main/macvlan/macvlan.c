/* SPDX-License-Identifier: Apache-2.0 */
/* macvlan's ADD, DEL and CHECK on podnet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "macvlan.h"
#include "nlw/nlw.h"
#include "podnet/check.h"
#include "podnet/iface.h"
#include "podnet/ipam.h"
#include "podnet/podnet.h"

#define RT_TABLE_MAIN_ID 254

struct add_state {
	struct cni_ctx *ctx;
	struct macvlan_conf c;
	struct podnet *pn;
	struct nlw_sock *msock; /* where master lives: host, or pod with linkInContainer */
	const char *where;
	struct nlw_link master;
	char master_name[IFNAMSIZ];
	struct nlw_link pod;
	struct cni_result *res;
};

/* The first default route's oif in the main table, IPv4 first; 0 when none. */
static int default_route_oif(struct nlw_sock *sock, int *ret_oif)
{
	static const int families[] = {AF_INET, AF_INET6};

	*ret_oif = 0;
	for (size_t f = 0; f < ARRAY_SIZE(families) && !*ret_oif; f++) {
		struct nlw_route_filter flt = {.family = families[f], .table = RT_TABLE_MAIN_ID};
		_cleanup_free_ struct nlw_route *rt = NULL;
		unsigned n = 0;
		int r = nlw_route_list(sock, &flt, &rt, &n);

		if (r < 0)
			return r;
		for (unsigned i = 0; i < n && !*ret_oif; i++)
			if (rt[i].dst.prefixlen == 0 && rt[i].oif > 0)
				*ret_oif = rt[i].oif;
	}
	return 0;
}

/* The reference's default master: the interface of the first default route. */
static int default_route_iface(struct nlw_sock *sock, char name[IFNAMSIZ])
{
	struct nlw_link l;
	int oif, r = default_route_oif(sock, &oif);

	if (r < 0)
		return r;
	if (!oif)
		return -ENOENT;
	r = nlw_link_get_by_index(sock, oif, &l);
	if (r < 0)
		return r;
	memcpy(name, l.name, IFNAMSIZ);
	return 0;
}

static int resolve_master(struct add_state *s)
{
	struct cni_ctx *ctx = s->ctx;
	int r;

	s->msock = s->c.link_in_container ? s->pn->pod : s->pn->host;
	s->where = s->c.link_in_container ? "the pod netns" : "the host netns";
	if (!s->c.master) {
		r = default_route_iface(s->msock, s->master_name);
		if (r == -ENOENT)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, r,
					  "master: not set, and no default route in %s to take "
					  "its interface from",
					  s->where);
		if (r < 0)
			return podnet_fail(ctx, s->msock, r, "find the default route in %s",
					   s->where);
		s->c.master = s->master_name;
	}
	r = nlw_link_get_by_name(s->msock, s->c.master, &s->master);
	if (r == -ENODEV)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, r,
				  "master: interface '%s' not found in %s", s->c.master, s->where);
	if (r < 0)
		return podnet_fail(ctx, s->msock, r, "look up master '%s'", s->c.master);
	return macvlan_check_mtu(ctx, &s->c, s->master.mtu);
}

/* One RTM_NEWLINK: named CNI_IFNAME, created directly in the pod netns. */
static int create_macvlan(struct add_state *s)
{
	struct cni_ctx *ctx = s->ctx;
	struct nlw_macvlan_params p = {
	    .name = ctx->ifname,
	    .parent = s->master.ifindex,
	    .mode = s->c.mode,
	    .mtu = s->c.mtu,
	    .mac = s->c.has_mac ? s->c.mac : NULL,
	    .netns_fd = s->c.link_in_container ? -1 : s->pn->netns_fd,
	    .bc_queue_len = s->c.bc_queue_len,
	};
	int r = nlw_link_add_macvlan(s->msock, &p);

	if (r == -EEXIST)
		return cni_errorf(&ctx->err, CNI_ERR_EXISTS, r,
				  "CNI_IFNAME: '%s' already exists in the pod netns '%s'",
				  ctx->ifname, ctx->netns);
	if (r == -EADDRNOTAVAIL && s->c.has_mac)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, r,
				  "%s: the kernel refused the address for '%s'", s->c.mac_src,
				  ctx->ifname);
	if (r < 0)
		return podnet_fail(ctx, s->msock, r, "create macvlan '%s' on master '%s' (mode %s)",
				   ctx->ifname, s->c.master, s->c.mode_str);
	r = nlw_link_get_by_name(s->pn->pod, ctx->ifname, &s->pod);
	if (r < 0)
		return podnet_fail(ctx, s->pn->pod, r, "look up '%s' in the pod", ctx->ifname);
	return podnet_undo_pod_link(s->pn, s->pod.ifindex);
}

static int build_result(struct add_state *s)
{
	struct cni_ctx *ctx = s->ctx;
	char mac[18];
	int r;

	s->res = cni_result_new(ctx->conf.version);
	if (!s->res)
		return -ENOMEM;
	r = cni_result_add_iface(s->res, ctx->ifname, nlw_mac_fmt(s->pod.mac, mac), ctx->netns);
	return r < 0 ? r : 0;
}

/* L3: IPAM, then addresses, up and routes through podnet; L2: only up. */
static int configure(struct add_state *s)
{
	struct cni_ctx *ctx = s->ctx;
	int r;

	if (!s->c.l3) {
		r = nlw_link_set_up(s->pn->pod, s->pod.ifindex);
		return r < 0 ? podnet_fail(ctx, s->pn->pod, r, "set '%s' up", ctx->ifname) : 0;
	}
	r = podnet_ipam_add_to(ctx, s->res);
	if (r < 0)
		return r;
	for (size_t i = 0; i < s->res->n_ips; i++)
		s->res->ips[i].interface = 0;
	return podnet_iface_configure(
	    s->pn, &(struct podnet_iface){.ifindex = s->pod.ifindex, .name = ctx->ifname}, s->res);
}

static int cmd_add(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct add_state s = {.ctx = ctx, .pn = pn};
	int r;

	r = macvlan_conf_parse(ctx, &s.c);
	if (r >= 0)
		r = resolve_master(&s);
	if (r >= 0)
		r = create_macvlan(&s);
	if (r >= 0)
		r = build_result(&s);
	if (r >= 0)
		r = configure(&s);
	if (r >= 0)
		r = cni_result_apply_conf_dns(s.res, &ctx->conf);
	if (r >= 0)
		ctx->result = TAKE_PTR(s.res);
	cni_result_free(s.res);
	return r;
}

/*
 * Delete CNI_IFNAME in the pod when it is a macvlan. Anything else by that
 * name is not ours (an ADD that failed with 103 is followed by the runtime's
 * DEL): it is left alone with a warning. A missing link is success.
 */
static int del_pod_link(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_link l;
	int r = nlw_link_get_by_name(pn->pod, ctx->ifname, &l);

	if (r >= 0 && strcmp(l.kind, "macvlan") != 0) {
		cni_log_warning("'%s' in the pod is a %s, not a macvlan: left in place",
				ctx->ifname, l.kind[0] ? l.kind : "device without kind");
		return 0;
	}
	if (r >= 0)
		r = nlw_link_del(pn->pod, l.ifindex);
	if (r == -ENODEV)
		return 0;
	return r < 0 ? podnet_fail(ctx, pn->pod, r, "delete '%s' in the pod", ctx->ifname) : 0;
}

/* IPAM first (it needs no netns), then the link; a missing netns or link is success. */
static int cmd_del(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct macvlan_conf c = {0};
	int first = 0;

	if (macvlan_conf_parse(ctx, &c) < 0)
		c.l3 = !isempty(ctx->conf.ipam_type);
	if (c.l3)
		podnet_keep_first(&first, podnet_ipam_run(ctx, CNI_CMD_DEL));
	if (podnet_has_pod(pn))
		podnet_keep_first(&first, del_pod_link(pn));
	return first;
}

static int check_iface(struct podnet *pn, const struct macvlan_conf *c, const struct cni_result *pr)
{
	struct nlw_link l;
	int idx, r;

	idx = podnet_find_pod_iface(pn, pr);
	if (idx < 0)
		return idx;
	r = podnet_check_link(pn, pn->pod, &pr->ifaces[idx], "macvlan", &l);
	if (r < 0)
		return r;
	if (l.macvlan_mode != (uint32_t)c->mode)
		return podnet_differs(pn->ctx, "'%s': macvlan mode is %s, configured %s", l.name,
				      macvlan_mode_str((enum nlw_macvlan_mode)l.macvlan_mode),
				      c->mode_str);
	r = podnet_check_addrs(pn, l.ifindex, pr);
	return r < 0 ? r : podnet_check_routes(pn, pr);
}

static int cmd_check(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct macvlan_conf c;
	int r;

	r = macvlan_conf_parse(ctx, &c);
	if (r >= 0 && c.l3)
		r = podnet_ipam_run(ctx, CNI_CMD_CHECK);
	if (r >= 0 && !ctx->prev_result)
		r = cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			       "prevResult: required for CHECK");
	if (r >= 0)
		r = check_iface(pn, &c, ctx->prev_result);
	return r;
}

/* GC and STATUS concern only IPAM: a macvlan has no state outside the pod. */
static int cmd_ipam_only(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct macvlan_conf c;
	int r = macvlan_conf_parse(ctx, &c);

	if (r < 0 || !c.l3)
		return r;
	return podnet_ipam_run(ctx, ctx->command);
}

static const char *const macvlan_cni_args[] = {"MAC", NULL};

const struct podnet_plugin_ops macvlan_ops = {
    .name = "macvlan",
    .about = "podwire macvlan: a macvlan of a host interface as the pod interface",
    .cni_args_keys = macvlan_cni_args,
    .add = {cmd_add, PODNET_POD},
    .del = {cmd_del, PODNET_POD},
    .check = {cmd_check, PODNET_POD},
    .gc = {cmd_ipam_only, PODNET_NOTHING},
    .status = {cmd_ipam_only, PODNET_NOTHING},
};
