/* SPDX-License-Identifier: Apache-2.0 */
/* loopback's ADD, DEL and CHECK. */
#include <errno.h>
#include <string.h>

#include "cni/log.h"

#include "base/macro.h"
#include "loopback.h"
#include "podnet/netns-rule.h"

/* The reference's quirk, kept: CNI_IFNAME is ignored, the interface is always lo. */
#define LO_NAME "lo"
#define LO_MAC "00:00:00:00:00:00"

/* podwire's one errno-to-code policy, as podnet_fail applies it. */
static int kernel_error(struct cni_ctx *ctx, int r, const char *what)
{
	return cni_errorf(&ctx->err, cni_error_code_for(r), r, "%s lo in '%s': %s", what,
			  ctx->netns, strerror(-r));
}

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
 * Enter CNI_NETNS by podnet's netns rules (podnet/netns-rule.h), then open
 * the socket there. Returns 1 entered, 0 no pod netns (DEL), or a negative
 * errno with ctx->err set.
 */
static int enter(struct cni_ctx *ctx, int *ret_fd)
{
	bool required = podnet_netns_required(ctx->command), own = false;
	_cleanup_close_ int ns = -1;
	int r;

	if (!required && isempty(ctx->netns))
		return 0;
	r = lo_netns_open(ctx->netns, &ns);
	if (r >= 0)
		own = lo_netns_is_own(ns);
	if (r >= 0 && !own)
		r = lo_netns_enter(ns);
	r = podnet_netns_rule(ctx, required, r, own);
	if (r <= 0)
		return r;
	r = lo_sock_open(ret_fd);
	return r < 0 ? kernel_error(ctx, r, "open netlink for") : 1;
}

static int cmd_add(struct cni_ctx *ctx)
{
	struct lo_addrs addrs = {0};
	struct lo_reply st = {.seq_last = 2, .link_up = -1, .addrs = &addrs};
	_cleanup_close_ int fd = -1;
	char req[256];
	int r, len;

	r = enter(ctx, &fd);
	if (r < 0)
		return r;
	len = lo_req_up_dump(req, sizeof(req), 1);
	r = len < 0 ? len : lo_sock_transact(fd, req, (size_t)len, &st);
	if (r < 0)
		return kernel_error(ctx, r, "set up");
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
	struct lo_reply st = {.seq_last = 1, .link_up = -1};
	_cleanup_close_ int fd = -1;
	char req[64];
	int r, len;

	r = enter(ctx, &fd);
	if (r <= 0)
		return r;
	len = lo_req_setflags(req, sizeof(req), 1, false);
	r = len < 0 ? len : lo_sock_transact(fd, req, (size_t)len, &st);
	if (r < 0)
		return kernel_error(ctx, r, "set down");
	return 0;
}

static int cmd_check(struct cni_ctx *ctx)
{
	struct lo_reply st = {.seq_last = 1, .link_up = -1};
	_cleanup_close_ int fd = -1;
	char req[64];
	int r, len;

	r = enter(ctx, &fd);
	if (r < 0)
		return r;
	len = lo_req_getlink(req, sizeof(req), 1);
	r = len < 0 ? len : lo_sock_transact(fd, req, (size_t)len, &st);
	if (r < 0)
		return kernel_error(ctx, r, "get");
	if (st.link_up != 1)
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
