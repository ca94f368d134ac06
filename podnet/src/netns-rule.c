/* SPDX-License-Identifier: Apache-2.0 */
/* The netns rules (podnet/netns-rule.h): no kernel calls, no libmnl. */
#include <errno.h>
#include <string.h>

#include "base/parse.h"
#include "cni/log.h"
#include "podnet/netns-rule.h"

static int cannot_open(struct cni_ctx *ctx, int r)
{
	return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, r,
			  "CNI_NETNS: cannot open netns '%s': %s", ctx->netns, strerror(-r));
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

int podnet_netns_rule(struct cni_ctx *ctx, bool required, int r, bool own)
{
	if (required) {
		if (r == -ENOENT)
			return cni_errorf(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER, r,
					  "CNI_NETNS: netns '%s' does not exist", ctx->netns);
		return r < 0 ? cannot_open(ctx, r) : 1;
	}
	if (isempty(ctx->netns))
		return 0; /* none */
	if (r < 0 || own) {
		podnet_netns_log_gone("CNI_NETNS", ctx->netns, r, own);
		return 0;
	}
	return 1;
}
