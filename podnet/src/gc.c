/* SPDX-License-Identifier: Apache-2.0 */
/* GC of the host ends of attachments that are no longer valid. */
#include <errno.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "podnet/gc.h"
#include "podnet/name.h"

/* Is l the host end of an attachment of this network that is no longer valid? */
static bool stale(const struct cni_ctx *ctx, const struct nlw_link *l)
{
	char copy[NLW_ALIAS_MAX];
	const char *net, *cid, *ifname;

	if (podnet_alias_parse(l->alias, copy, &net, &cid, &ifname) < 0)
		return false; /* not ours, or a tag too long to be sure */
	return strcmp(net, ctx->conf.name) == 0 &&
	       !cni_conf_attachment_valid(&ctx->conf, cid, ifname);
}

int podnet_gc_host_links(struct podnet *pn, const struct nlw_link_filter *f)
{
	_cleanup_free_ struct nlw_link *links = NULL;
	struct cni_ctx *ctx = pn->ctx;
	unsigned n = 0;
	int r, removed = 0;

	if (!ctx->conf.has_valid_attachments)
		return 0;
	r = nlw_link_list(pn->host, f, &links, &n);
	if (r < 0)
		return podnet_fail(ctx, pn->host, r, "list host links");
	for (unsigned i = 0; i < n; i++) {
		if (!stale(ctx, &links[i]))
			continue;
		r = nlw_link_del(pn->host, links[i].ifindex);
		if (r < 0 && r != -ENODEV)
			return podnet_fail(ctx, pn->host, r, "GC: delete host link '%s' (%s)",
					   links[i].name, links[i].alias);
		cni_log_info("GC removed host link '%s' (%s)", links[i].name, links[i].alias);
		removed++;
	}
	return removed;
}
