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

int podnet_netns_rule(struct cni_ctx *ctx, bool required, int r, bool own)
{
	if (required) {
		if (r == -ENOENT)
			return cni_errorf(&ctx->err, CNI_ERR_UNKNOWN_CONTAINER, r,
					  "CNI_NETNS: netns '%s' does not exist", ctx->netns);
		return r < 0 ? cannot_open(ctx, r) : 1;
	}
	if (isempty(ctx->netns) || r == -ENOENT)
		return 0; /* none, or gone and every device in it with it */
	if (r == -EINVAL) {
		cni_log_warning("CNI_NETNS '%s' is not a network namespace (any more): treating "
				"it as gone",
				ctx->netns);
		return 0;
	}
	if (r < 0) {
		/* DEL never fails on the pod's side: what is on the host is still cleaned. */
		cni_log_warning("CNI_NETNS: cannot open netns '%s': %s: treating it as gone",
				ctx->netns, strerror(-r));
		return 0;
	}
	if (own) {
		/* Links "in the pod" would be host links: never touch them by CNI_IFNAME. */
		cni_log_warning("CNI_NETNS '%s' is the plugin's own netns: treating it as gone, "
				"no link is touched",
				ctx->netns);
		return 0;
	}
	return 1;
}
