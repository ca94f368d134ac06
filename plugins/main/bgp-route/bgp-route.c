/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route ADD: IPAM, one veth (pod end created in the pod netns), host end
 * ee:ee:ee:ee:ee:ee with the routing sysctls, the pod's /32 and /128 with
 * on-link gateways, then the host routes BIRD announces. Every step's
 * resource is owned by the veth (routes, neighbour, sysctls go with it), so
 * its undo plus IPAM's undo roll a failed ADD back completely.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "bgp-route.h"
#include "cni/log.h"
#include <linux/ip.h>

#include "nlw/batch.h"
#include "nlw/link.h"
#include "nlw/neigh.h"
#include "nlw/netconf.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "nlw/sysctl.h"
#include "nlw/types.h"
#include "podnet/iface.h"
#include "podnet/ipam.h"
#include "podnet/name.h"
#include "podnet/podnet.h"
#include "podnet/veth.h"

struct bgpr_add {
	struct bgpr_conf conf;
	struct podnet *pn;
	struct podnet_veth_pair veth;
	struct cni_result *result;
	bool v4, v6;
	union ip_addr gw6; /* the host end's link-local (bgpr_host_ll) */
};

/* A host end left by an earlier ADD of this very attachment: replace it. */
static int remove_stale(struct cni_ctx *ctx, struct bgpr_add *a)
{
	char name[IFNAMSIZ];
	struct nlw_link l;
	int r;

	r = podnet_host_ifname(a->conf.host_if_prefix, BGPR_HOST_HEX, ctx->container_id,
			       ctx->ifname, 0, name);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, r, "hostIfPrefix: bad name");
	if (nlw_link_get_by_name(a->pn->host, name, &l) < 0 || strcmp(l.kind, "veth") != 0 ||
	    !podnet_alias_matches(l.alias, ctx->conf.name, ctx->container_id, ctx->ifname))
		return 0;
	cni_log_info("replacing host veth '%s' of an earlier ADD", name);
	r = nlw_link_del(a->pn->host, l.ifindex);
	if (r < 0 && r != -ENODEV)
		return podnet_fail(ctx, a->pn->host, r, "delete stale host veth '%s'", name);
	return 0;
}

static int run_ipam(struct cni_ctx *ctx, struct bgpr_add *a)
{
	int r;

	a->result = cni_result_new(CNI_V110);
	if (!a->result)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	r = podnet_ipam_add_to(ctx, a->result);
	if (r < 0)
		return r;
	a->v4 = cni_result_has_family(a->result, AF_INET);
	a->v6 = cni_result_has_family(a->result, AF_INET6);
	return 0;
}

/*
 * The IPv6 settings only /proc/sys can change, each written only when the
 * new link did not inherit it (the GETLINK after its creation read them all;
 * typically only accept_dad is left). Before the link goes up.
 */
static int host_sysctls6(struct cni_ctx *ctx, struct bgpr_add *a)
{
	const struct nlw_link *h = &a->veth.host;
	const char *n = a->veth.host_name;
	struct nlw_sysctl_batch b;
	int r;

	nlw_sysctl_batch_init(&b, ctx->procfs_fd);
	if (!h->has_inet6_conf || h->inet6_disable_ipv6 != 0)
		(void)nlw_sysctl_batch_put(&b, "0", "net/ipv6/conf/%s/disable_ipv6", n);
	if (!h->has_inet6_conf || h->inet6_accept_dad != 0)
		(void)nlw_sysctl_batch_put(&b, "0", "net/ipv6/conf/%s/accept_dad", n);
	if (!h->has_inet6_conf || h->inet6_forwarding != 1)
		(void)nlw_sysctl_batch_put(&b, "1", "net/ipv6/conf/%s/forwarding", n);
	r = nlw_sysctl_batch_write(&b, -1);
	for (size_t i = 0; r >= 0 && i < b.n; i++)
		if (b.err[i] < 0)
			return podnet_fail(ctx, NULL, b.err[i], "sysctl %s=%s", b.path[i],
					   b.value[i]);
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "host sysctls of '%s'", n);
	return 0;
}

/*
 * Calico's host-side settings (reference: bgp-ipam.md 1.6) and the tag, in
 * one RTM_SETLINK while the link is down (no notification then): IPv4
 * proxy_arp, forwarding and rp_filter (strict) as IFLA_INET_CONF, IPv6
 * addr_gen_mode 0 (EUI-64: the link-local is bgpr_host_ll(), the pod's IPv6
 * gateway).
 */
static void host_conf(struct cni_ctx *ctx, const struct bgpr_add *a, char *alias,
		      struct nlw_link_conf *ret)
{
	static const struct nlw_inet_conf v4[] = {
	    {IPV4_DEVCONF_PROXY_ARP, 1},
	    {IPV4_DEVCONF_FORWARDING, 1},
	    {IPV4_DEVCONF_RP_FILTER, 1},
	};

	podnet_alias(ctx->conf.name, ctx->container_id, ctx->ifname, alias);
	*ret = (struct nlw_link_conf){.alias = alias, .inet6_addr_gen_mode = -1};
	if (a->v4) {
		memcpy(ret->inet, v4, sizeof(v4));
		ret->n_inet = ARRAY_SIZE(v4);
	}
	if (a->v6)
		ret->inet6_addr_gen_mode = 0; /* IN6_ADDR_GEN_MODE_EUI64 */
}

/* Node forwarding (ip_forward, ipv6 conf/all) as the batch read it; on when off. */
static int host_forwarding(struct cni_ctx *ctx, const struct bgpr_add *a, const int fwd[2])
{
	int r;

	if (a->v4 && fwd[0] != 1 && (r = podnet_host_forwarding(ctx, AF_INET)) < 0)
		return r;
	if (a->v6 && fwd[1] != 1 && (r = podnet_host_forwarding(ctx, AF_INET6)) < 0)
		return r;
	return 0;
}

/*
 * The host end's settings, tag and up in one datagram: the SETLINK of
 * host_conf, IPv4 neigh proxy_delay 0 (best effort), up, and the reads of
 * node forwarding. The kernel runs them in order, so the settings are in
 * place before the link is up, as with the /proc writes they replace.
 */
static int host_setup(struct cni_ctx *ctx, struct bgpr_add *a)
{
	struct nlw_sock *s = a->pn->host;
	char alias[NLW_ALIAS_MAX];
	struct nlw_link_conf conf;
	struct nlw_batch b;
	int fwd[2] = {-1, -1}, r;

	if (a->v6 && (r = host_sysctls6(ctx, a)) < 0)
		return r;
	host_conf(ctx, a, alias, &conf);
	nlw_batch_begin(&b, s);
	r = nlw_link_set_conf(s, a->veth.host.ifindex, &conf);
	if (r >= 0 && a->v4)
		r = nlw_neigh_set_proxy_delay(s, AF_INET, a->veth.host.ifindex, 0);
	if (r >= 0)
		r = nlw_link_set_up(s, a->veth.host.ifindex);
	if (r >= 0 && a->v4)
		r = nlw_netconf_get_forwarding(s, AF_INET, NLW_NETCONF_ALL, &fwd[0]);
	if (r >= 0 && a->v6)
		r = nlw_netconf_get_forwarding(s, AF_INET6, NLW_NETCONF_ALL, &fwd[1]);
	if (r < 0) {
		nlw_batch_abort(&b);
		return podnet_fail(ctx, s, r, "settings of veth '%s'", a->veth.host_name);
	}
	r = nlw_batch_run(&b);
	if (r >= 0 && (r = b.err[0]) < 0)
		return podnet_fail(ctx, s, r, "set tag and IPv4/IPv6 settings of veth '%s'",
				   a->veth.host_name);
	if (r >= 0 && a->v4 && b.err[1] < 0)
		cni_log_debug("proxy_delay of '%s': %s, ignoring", a->veth.host_name,
			      strerror(-b.err[1]));
	if (r >= 0 && (r = b.err[a->v4 ? 2 : 1]) < 0)
		return podnet_fail(ctx, s, r, "set veth '%s' up", a->veth.host_name);
	if (r < 0)
		return podnet_fail(ctx, s, r, "configure veth '%s'", a->veth.host_name);
	/* An unanswered read (old kernel) is taken as "off": /proc decides then. */
	return host_forwarding(ctx, a, fwd);
}

static int create_veth(struct cni_ctx *ctx, struct bgpr_add *a)
{
	int r;

	r = podnet_veth_add(a->pn,
			    &(struct podnet_veth){.host_prefix = a->conf.host_if_prefix,
						  .host_hex = BGPR_HOST_HEX,
						  .mtu = a->conf.mtu,
						  .host_mac = bgpr_host_mac},
			    &a->veth);
	if (r >= 0)
		r = host_setup(ctx, a);
	return r;
}

static int configure_pod(struct cni_ctx *ctx, struct bgpr_add *a)
{
	struct cni_route gw4 = {.dst = {.family = AF_INET, .prefixlen = 32},
				.has_scope = true,
				.scope = NLW_SCOPE_LINK};
	union ip_addr nh;
	int r;

	(void)ip_addr_parse(BGPR_GW4, &(int){0}, &nh);
	gw4.dst.addr = nh;
	bgpr_host_ll(&a->gw6);
	bgpr_pod_ips(a->result);
	if (bgpr_pod_routes(a->result, &a->gw6) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	r = podnet_iface_configure(a->pn,
				   &(struct podnet_iface){.ifindex = a->veth.pod.ifindex,
							  .name = ctx->ifname,
							  .p2p = true,
							  .pre_routes = a->v4 ? &gw4 : NULL,
							  .n_pre_routes = a->v4 ? 1 : 0},
				   a->result);
	if (r < 0 || !a->v4)
		return r;
	/* Proxy ARP answers only where the node has a route to 169.254.1.1 elsewhere. */
	r = nlw_neigh_add_permanent(a->pn->pod, a->veth.pod.ifindex, AF_INET, &nh, bgpr_host_mac);
	if (r < 0)
		return podnet_fail(ctx, a->pn->pod, r, "add neighbour %s in '%s'", BGPR_GW4,
				   ctx->netns);
	return 0;
}

/*
 * The local blocks of the pod's families: blackholes of proto block. A
 * filtered dump (the kernel's route lookup answers EINVAL for a blackhole,
 * even with RTM_F_FIB_MATCH, so it cannot name the covering block); one per
 * family the pod has, so a single-stack pod walks one table only.
 */
static int list_blocks(struct cni_ctx *ctx, struct bgpr_add *a, struct nlw_route **ret,
		       unsigned *ret_n)
{
	static const int families[] = {AF_INET, AF_INET6};
	struct nlw_route *all = NULL;
	unsigned n = 0;

	for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
		struct nlw_route_filter flt = {.family = families[f],
					       .protocol = a->conf.proto_block,
					       .type = NLW_ROUTE_BLACKHOLE};
		_cleanup_free_ struct nlw_route *v = NULL;
		struct nlw_route *grown;
		unsigned m = 0;
		int r;

		if (!(families[f] == AF_INET ? a->v4 : a->v6))
			continue;
		r = nlw_route_list(a->pn->host, &flt, &v, &m);
		if (r >= 0 && m > 0) {
			grown = reallocarray(all, n + m, sizeof(*all));
			r = grown ? 0 : -ENOMEM;
			if (grown) {
				all = grown;
				memcpy(all + n, v, m * sizeof(*v));
				n += m;
			}
		}
		if (r < 0) {
			free(all);
			return podnet_fail(ctx, a->pn->host, r, "list block routes (proto %u)",
					   a->conf.proto_block);
		}
	}
	*ret = all;
	*ret_n = n;
	return 0;
}

/* What became of host route `hr` (err: the kernel's answer to it). */
static int host_route_result(struct cni_ctx *ctx, struct bgpr_add *a, const struct nlw_route *hr,
			     int err)
{
	char buf[IP_PREFIX_STRLEN];

	if (err == -EEXIST)
		return cni_errorf(
		    &ctx->err, CNI_ERR_EXISTS, err,
		    "host route %s: already exists (another attachment has this address?)",
		    ip_prefix_fmt(&hr->dst, buf));
	if (err < 0)
		return podnet_fail(ctx, a->pn->host, err, "add host route %s dev %s",
				   ip_prefix_fmt(&hr->dst, buf), a->veth.host_name);
	return 0;
}

/*
 * The host routes, last: BIRD announces a pod that is ready. The result is
 * already rendered (publish_result): what BIRD and its peers do with the
 * routes starts at once, on the same cores, so only the write is left. Both
 * routes go in one datagram: the second does not wait for the first's
 * answer while BIRD is already at work on it.
 */
static int add_host_routes(struct cni_ctx *ctx, struct bgpr_add *a)
{
	_cleanup_free_ struct nlw_route *blocks = NULL;
	struct nlw_route hr[NLW_BATCH_MAX];
	size_t n = ctx->result->n_ips < NLW_BATCH_MAX ? ctx->result->n_ips : NLW_BATCH_MAX;
	unsigned n_blocks = 0;
	struct nlw_batch b;
	int r;

	r = list_blocks(ctx, a, &blocks, &n_blocks);
	if (r < 0)
		return r;
	nlw_batch_begin(&b, a->pn->host);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct ip_prefix *ip = &ctx->result->ips[i].address;

		bgpr_host_route(ip, a->veth.host.ifindex,
				bgpr_route_proto(&a->conf, ip, blocks, n_blocks), &hr[i]);
		r = nlw_route_add(a->pn->host, &hr[i]);
	}
	if (r < 0) {
		nlw_batch_abort(&b);
		return podnet_fail(ctx, a->pn->host, r, "host routes of '%s'", a->veth.host_name);
	}
	r = nlw_batch_run(&b);
	for (size_t i = 0; i < n; i++)
		if (b.err[i] < 0)
			return host_route_result(ctx, a, &hr[i], b.err[i]);
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "add host routes dev %s",
				   a->veth.host_name);
	/* More addresses than one datagram holds (never from IPAM so far): one by one. */
	for (size_t i = n; i < ctx->result->n_ips; i++) {
		const struct ip_prefix *ip = &ctx->result->ips[i].address;
		struct nlw_route one;

		bgpr_host_route(ip, a->veth.host.ifindex,
				bgpr_route_proto(&a->conf, ip, blocks, n_blocks), &one);
		if ((r = host_route_result(ctx, a, &one, nlw_route_add(a->pn->host, &one))) < 0)
			return r;
	}
	return 0;
}

/* cni_result_take_ipam took ips, routes and DNS only: the interfaces are ours. */
static int build_result(struct cni_ctx *ctx, struct bgpr_add *a)
{
	struct cni_result *res = a->result;
	char mac[18];
	int r;

	r = cni_result_add_iface(res, a->veth.host_name, nlw_mac_fmt(bgpr_host_mac, mac), NULL);
	if (r >= 0)
		r = cni_result_add_iface(res, ctx->ifname, nlw_mac_fmt(a->veth.pod.mac, mac),
					 ctx->netns);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	res->ifaces[1].mtu = a->conf.mtu;
	return cni_result_apply_conf_dns(res, &ctx->conf);
}

/* The result is final before the host routes: handed over and rendered. */
static int publish_result(struct cni_ctx *ctx, struct bgpr_add *a)
{
	a->result->version = ctx->conf.version;
	ctx->result = TAKE_PTR(a->result);
	return cni_plugin_render_result(ctx);
}

/* As bridge: the host end operationally up before its routes go in and ADD returns. */
static int host_up(struct cni_ctx *ctx, struct bgpr_add *a)
{
	(void)ctx;
	return podnet_veth_wait_up(a->pn, &a->veth);
}

/*
 * ADD's steps in order. IPAM first: when it refuses, the earlier attachment
 * is left as it was.
 */
static int (*const add_steps[])(struct cni_ctx *, struct bgpr_add *) = {
    run_ipam, remove_stale, create_veth,    configure_pod,
    host_up,  build_result, publish_result, add_host_routes,
};

int bgpr_cmd_add(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bgpr_add a = {.pn = pn};
	int r;

	r = bgpr_conf_parse(ctx, &a.conf);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(add_steps); i++)
		r = add_steps[i](ctx, &a);
	if (r < 0 && !cni_error_isset(&ctx->err))
		cni_error_from_errno(&ctx->err, r);
	cni_result_free(a.result);
	return r;
}

const struct podnet_plugin_ops bgpr_ops = {
    .name = "bgp-route",
    .about = "podwire bgp-route plugin: routed veth pods (no bridge), host routes "
	     "announced by BIRD 2 through their routing protocol number",
    .add = {bgpr_cmd_add, PODNET_POD},
    .del = {bgpr_cmd_del, PODNET_POD},
    .check = {bgpr_cmd_check, PODNET_POD},
    .gc = {bgpr_cmd_gc, PODNET_HOST},
    .status = {bgpr_cmd_status, PODNET_NOTHING},
};
