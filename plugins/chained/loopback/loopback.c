/* SPDX-License-Identifier: Apache-2.0 */
/* loopback's ADD, DEL and CHECK. */
#include <errno.h>

#include "base/macro.h"
#include "loopback.h"
#include "nlw/netns.h"
#include "nlw/sock.h"
#include "podnet/rules.h"

/* The reference's quirk, kept: CNI_IFNAME is ignored, the interface is always lo. */
#define LO_NAME "lo"
#define LO_MAC "00:00:00:00:00:00"

/* The reference refuses an lo carrying anything but loopback addresses. */
static int check_addrs(struct cni_ctx *ctx, const struct lo_addrs *a)
{
	const struct ip_prefix *all[] = {a->v4, a->v6};
	const size_t n[] = {a->n_v4, a->n_v6};
	char buf[IP_PREFIX_STRLEN];

	for (size_t f = 0; f < ARRAY_SIZE(all); f++)
		for (size_t i = 0; i < n[f]; i++)
			if (!lo_addr_is_loopback(&all[f][i]))
				return cni_errorf(
				    &ctx->err, CNI_ERR_PLUGIN, -EINVAL,
				    "loopback interface found with non-loopback "
				    "address '%s'",
				    ip_addr_fmt(all[f][i].family, &all[f][i].addr, buf));
	return 0;
}

/* lo, its MAC, and the first address of each family (IPv4 first), as the reference. */
static int build_result(struct cni_ctx *ctx, const struct lo_addrs *a)
{
	struct cni_result *res = cni_result_new(ctx->conf.version);
	int idx;

	if (!res)
		return -ENOMEM;
	ctx->result = res;
	idx = cni_result_add_iface(res, LO_NAME, LO_MAC, ctx->netns);
	if (idx < 0)
		return idx;
	if (a->n_v4 > 0 &&
	    cni_result_add_ip(res, &(struct cni_ip){.address = a->v4[0], .interface = idx}) < 0)
		return -ENOMEM;
	if (a->n_v6 > 0 &&
	    cni_result_add_ip(res, &(struct cni_ip){.address = a->v6[0], .interface = idx}) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * CNI_NETNS by podnet's netns rules (podnet/rules.h), and a socket in it.
 * Returns 1, 0 no pod netns (DEL), or a negative errno with ctx->err set.
 */
static int open_pod(struct cni_ctx *ctx, struct nlw_sock **ret)
{
	_cleanup_close_ int ns = -1;
	int r = podnet_netns_open(ctx, podnet_netns_required(ctx->command), nlw_netns_open, &ns);

	if (r <= 0)
		return r;
	r = nlw_sock_open_in_netns(ns, NETLINK_ROUTE, ret);
	return r < 0 ? podnet_fail(ctx, NULL, r, "open netlink for lo in '%s'", ctx->netns) : 1;
}

static int cmd_add(struct cni_ctx *ctx)
{
	_cleanup_nlw_sock_ struct nlw_sock *s = NULL;
	struct lo_addrs addrs = {0};
	int r = open_pod(ctx, &s);

	if (r < 0)
		return r;
	r = lo_set_up(s, true);
	if (r >= 0)
		r = lo_addrs_get(s, &addrs);
	if (r < 0)
		return podnet_fail(ctx, s, r, "set up lo in '%s'", ctx->netns);
	r = check_addrs(ctx, &addrs);
	if (r < 0)
		return r;
	if (ctx->prev_result) {
		/* Chained: the previous result passes through unchanged. */
		ctx->result = cni_result_dup(ctx->prev_result);
		return ctx->result ? 0 : -ENOMEM;
	}
	return build_result(ctx, &addrs);
}

/*
 * DEL: lo down. No pod netns (empty, gone, or the plugin's own: setting the
 * host's lo down would cut the node off from itself) is success.
 */
static int cmd_del(struct cni_ctx *ctx)
{
	_cleanup_nlw_sock_ struct nlw_sock *s = NULL;
	int r = open_pod(ctx, &s);

	if (r <= 0)
		return r;
	r = lo_set_up(s, false);
	return r < 0 ? podnet_fail(ctx, s, r, "set down lo in '%s'", ctx->netns) : 0;
}

static int cmd_check(struct cni_ctx *ctx)
{
	_cleanup_nlw_sock_ struct nlw_sock *s = NULL;
	int r = open_pod(ctx, &s);

	if (r < 0)
		return r;
	r = lo_is_up(s);
	if (r < 0)
		return podnet_fail(ctx, s, r, "get lo in '%s'", ctx->netns);
	if (r == 0)
		return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
				  "loopback interface is down in '%s'", ctx->netns);
	return 0;
}

const struct cni_plugin_ops loopback_ops = {
    .name = "loopback",
    .about = "podwire loopback: sets lo up in the pod's network namespace",
    .add = cmd_add,
    .del = cmd_del,
    .check = cmd_check,
};
