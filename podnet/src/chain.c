/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers for chained plugins: prevResult's interface in the pod and its host peer. */
#include <errno.h>
#include <string.h>

#include "nlw/link.h"
#include "podnet/chain.h"

int podnet_require_prev(struct cni_ctx *ctx)
{
	if (ctx->prev_result)
		return 0;
	return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "prevResult: missing; %s must be called as a chained plugin",
			  ctx->ops->name);
}

int podnet_pod_iface(struct podnet *pn, struct nlw_link *ret)
{
	struct cni_ctx *ctx = pn->ctx;
	int r = nlw_link_get_by_name(pn->pod, ctx->ifname, ret);

	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "failed to get '%s' in '%s': %s",
				  ctx->ifname, ctx->netns,
				  r == -ENODEV ? "no such interface" : strerror(-r));
	return 0;
}

static bool prev_has_host_iface(const struct cni_result *pr, const char *name)
{
	for (size_t i = 0; i < pr->n_ifaces; i++)
		if ((!pr->ifaces[i].sandbox || !pr->ifaces[i].sandbox[0]) &&
		    strcmp(pr->ifaces[i].name, name) == 0)
			return true;
	return false;
}

int podnet_host_peer(struct podnet *pn, struct nlw_link *ret)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_link l;
	int r;

	if (ctx->prev_result->n_ifaces == 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "prevResult.interfaces: no interfaces provided");
	r = podnet_pod_iface(pn, &l);
	if (r < 0)
		return r;
	if (strcmp(l.kind, "veth") != 0 || l.link <= 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EINVAL,
				  "container interface %s has no veth peer", ctx->ifname);
	r = nlw_link_get_by_index(pn->host, l.link, ret);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r,
				  "veth peer with index %d is not in host ns", l.link);
	if (!prev_has_host_iface(ctx->prev_result, ret->name))
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOENT,
				  "no veth peer of container interface found in host ns "
				  "(prevResult does not list '%s')",
				  ret->name);
	return 0;
}
