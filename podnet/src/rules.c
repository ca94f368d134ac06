/* SPDX-License-Identifier: Apache-2.0 */
/* The netns rules and the one error helper (podnet/rules.h): no libmnl. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/parse.h"
#include "cni/log.h"
#include "nlw/netns.h"
#include "nlw/sock.h"
#include "podnet/rules.h"

__attribute__((format(printf, 4, 0))) static int failv(struct cni_ctx *ctx, const char *ext_ack,
						       int r, const char *fmt, va_list ap)
{
	char what[256];

	vsnprintf(what, sizeof(what), fmt, ap);
	r = cni_errorf(&ctx->err, cni_error_code_for(r), r, "%s: %s", what, strerror(-r));
	cni_error_add_detail(&ctx->err, ext_ack);
	return r;
}

int podnet_fail(struct cni_ctx *ctx, struct nlw_sock *sock, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = failv(ctx, sock ? nlw_sock_ext_ack(sock) : NULL, r, fmt, ap);
	va_end(ap);
	return r;
}

int podnet_fail_ack(struct cni_ctx *ctx, const char *ext_ack, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r = failv(ctx, ext_ack, r, fmt, ap);
	va_end(ap);
	return r;
}

void podnet_netns_log_gone(const char *what, const char *path, int r, bool own)
{
	if (r == -ENOENT)
		cni_log_debug("%s '%s' is gone", what, path);
	else if (own)
		/* Links "in the pod" would be host links: never touch them by CNI_IFNAME. */
		cni_log_warning("%s '%s' is the plugin's own netns: treating it as gone, no link "
				"is touched",
				what, path);
	else if (r == -EINVAL)
		cni_log_warning("%s '%s' is not a network namespace (any more): treating it as "
				"gone",
				what, path);
	else
		/* DEL never fails on the pod's side: what is on the host is still cleaned. */
		cni_log_warning("%s '%s': cannot open it: %s, treating it as gone", what, path,
				strerror(-r));
}

/* What r (opening CNI_NETNS) and own mean for the command: 1 use it, 0 none, <0 error. */
static int netns_rule(struct cni_ctx *ctx, bool required, int r, bool own)
{
	if (required) {
		if (r == -ENOENT)
			return cni_errorf(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER, r,
					  "CNI_NETNS: netns '%s' does not exist", ctx->netns);
		if (r < 0)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, r,
					  "CNI_NETNS: cannot open netns '%s': %s", ctx->netns,
					  strerror(-r));
		return 1;
	}
	if (r < 0 || own) {
		podnet_netns_log_gone("CNI_NETNS", ctx->netns, r, own);
		return 0;
	}
	return 1;
}

int podnet_netns_open(struct cni_ctx *ctx, bool required, int (*open_netns)(const char *, int *),
		      int *ret_fd)
{
	int fd = -1, r;

	*ret_fd = -1;
	if (!required && isempty(ctx->netns))
		return 0;
	r = open_netns(ctx->netns, &fd);
	r = netns_rule(ctx, required, r, r >= 0 && nlw_netns_is_self(fd) > 0);
	if (r <= 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	*ret_fd = fd;
	return 1;
}
