/* SPDX-License-Identifier: Apache-2.0 */
/* Opening an attachment: the pod netns and one netlink socket per netns. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "cni/log.h"
#include "nlw/netns.h"
#include "nlw/sock.h"
#include "podnet/podnet.h"

static int kernel_open_pod(int netns_fd, struct nlw_sock **ret)
{
	return nlw_sock_open_in_netns(netns_fd, NETLINK_ROUTE, ret);
}

static const struct podnet_ops kernel_ops = {
    .open_netns = nlw_netns_open,
    .open_host = nlw_sock_open,
    .open_pod = kernel_open_pod,
};

static const struct podnet_ops *ops = &kernel_ops;

void podnet_set_ops(const struct podnet_ops *o)
{
	static struct podnet_ops merged;

	if (!o) {
		ops = &kernel_ops;
		return;
	}
	merged.open_netns = o->open_netns ? o->open_netns : kernel_ops.open_netns;
	merged.open_host = o->open_host ? o->open_host : kernel_ops.open_host;
	merged.open_pod = o->open_pod ? o->open_pod : kernel_ops.open_pod;
	ops = &merged;
}

int podnet_open_host_sock(struct nlw_sock **ret)
{
	return ops->open_host(ret);
}

int podnet_fail(struct cni_ctx *ctx, struct nlw_sock *sock, int r, const char *fmt, ...)
{
	unsigned code = CNI_ERR_PLUGIN;
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r == -EAGAIN || r == -EBUSY || r == -ETIMEDOUT)
		code = CNI_ERR_TRY_AGAIN;
	r = cni_errorf(&ctx->err, code, r, "%s: %s", what, strerror(-r));
	if (sock && nlw_sock_ext_ack(sock))
		cni_error_add_detail(&ctx->err, nlw_sock_ext_ack(sock));
	return r;
}

/* ADD/CHECK: CNI_NETNS must be there (the skeleton already refused our own netns). */
static int open_required(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	int r = ops->open_netns(ctx->netns, &pn->netns_fd);

	if (r == -ENOENT)
		return cni_errorf(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER, r,
				  "CNI_NETNS: netns '%s' does not exist", ctx->netns);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, r,
				  "CNI_NETNS: cannot open netns '%s': %s", ctx->netns,
				  strerror(-r));
	return 0;
}

/* DEL/GC: no netns, a vanished one, or our own are all "no pod netns". */
static int open_optional(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	int r;

	if (!ctx->netns || !ctx->netns[0])
		return 0;
	r = ops->open_netns(ctx->netns, &pn->netns_fd);
	if (r == -ENOENT)
		return 0; /* gone, and every device in it with it */
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, r,
				  "CNI_NETNS: cannot open netns '%s': %s", ctx->netns,
				  strerror(-r));
	if (ops == &kernel_ops && nlw_netns_is_self(pn->netns_fd) > 0) {
		/* Links "in the pod" would be host links: never delete by CNI_IFNAME here. */
		cni_log_warning("CNI_NETNS '%s' is the plugin's own netns: treating it as gone, "
				"no link is touched",
				ctx->netns);
		close(pn->netns_fd);
		pn->netns_fd = -1;
	}
	return 0;
}

int podnet_open(struct podnet *pn, struct cni_ctx *ctx, enum podnet_mode mode)
{
	int r;

	pn->ctx = ctx;
	pn->netns_fd = -1;
	pn->host = pn->pod = NULL;
	r = mode == PODNET_NEED_NETNS ? open_required(pn) : open_optional(pn);
	if (r < 0)
		return r;
	r = ops->open_host(&pn->host);
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "open netlink socket");
	if (pn->netns_fd < 0)
		return 0;
	r = ops->open_pod(pn->netns_fd, &pn->pod);
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "open netlink socket in netns '%s'", ctx->netns);
	return 0;
}

void podnet_done(struct podnet *pn)
{
	pn->host = nlw_sock_free(pn->host);
	pn->pod = nlw_sock_free(pn->pod);
	if (pn->netns_fd >= 0)
		close(pn->netns_fd);
	pn->netns_fd = -1;
}
