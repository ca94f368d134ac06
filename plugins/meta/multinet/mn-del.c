/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DEL, CHECK, GC and STATUS. DEL and CHECK work from the cache alone; after
 * a finished DEL a tombstone makes the next one a no-op; with neither, DEL
 * rebuilds the delegates (and says so in the log). DEL and GC fail only for
 * a delegate's own failure (the cache stays for the retry), never for
 * config, NADs, isolation, a missing binary or the apiserver.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"

/* The first error wins; later ones become lines of its details. */
static void collect(struct cni_error *dst, struct cni_error *src, const struct mn_delegate *d)
{
	if (!cni_error_isset(dst)) {
		cni_error_move(dst, src);
		return;
	}
	char *line = NULL;

	if (asprintf(&line, "network %s (%s): %s", d->display, d->ifname,
		     src->msg ? src->msg : "failed") >= 0)
		cni_error_add_detail(dst, line);
	free(line);
	cni_error_done(src);
}

enum mn_del_outcome mn_del_outcome(int r, const struct cni_error *e)
{
	if (r >= 0)
		return MN_DEL_OK;
	/* libcni: the binary is not in the path (the chain's other plugins ran). */
	if (r == -ENOENT && e->code == CNI_ERR_DELEGATE)
		return MN_DEL_GIVE_UP;
	/* The cached config is what ADD ran; a plugin refusing it now always will. */
	if (e->code == CNI_ERR_INVALID_CONFIG || e->code == CNI_ERR_INCOMPATIBLE_VERSION)
		return MN_DEL_GIVE_UP;
	return MN_DEL_RETRY;
}

/* One delegate's DEL: 0 when done or given up (a warning), else the error in e. */
static int del_one(struct mn_call *c, const struct mn_plan *p, struct mn_delegate *d,
		   struct cni_error *e)
{
	struct cni_runtime_conf rc;
	int r;

	mn_runtime_conf(p, d, &rc);
	r = cni_runtime_del(&c->rt, d->list, &rc, e);
	switch (mn_del_outcome(r, e)) {
	case MN_DEL_RETRY:
		return r;
	case MN_DEL_GIVE_UP:
		cni_log_warning(
		    "network %s (%s): DEL can never succeed (%s, code %u): what it holds "
		    "may be left behind, ignoring",
		    d->display, d->ifname, e->msg ? e->msg : "?", e->code);
		cni_error_done(e);
		/* libcni keeps its result cache after a failed DEL; nobody retries this one. */
		(void)cni_cache_remove(c->rt.cache_dir, d->list->name, p->container_id, d->ifname,
				       NULL);
		break;
	case MN_DEL_OK:
		break;
	}
	if (d->devinfo_file)
		(void)unlink(d->devinfo_file);
	d->state = MN_PENDING;
	return 0;
}

int mn_del_delegate(struct mn_call *c, struct mn_plan *p, size_t i, struct cni_error *err)
{
	struct mn_delegate *d = &p->d[i];
	struct cni_error e = {0};
	int r = del_one(c, p, d, &e);

	if (r >= 0)
		return 0;
	cni_log_error("network %s (%s): DEL failed: %s", d->display, d->ifname,
		      e.msg ? e.msg : "?");
	if (!cni_error_isset(&e))
		cni_error_from_errno(&e, r);
	cni_error_wrapf(&e, r, "network %s (%s)", d->display, d->ifname);
	collect(err, &e, d);
	return r;
}

/* Run DEL for delegates [0, upto) in reverse; errors collected into err. */
static int mn_del_delegates(struct mn_call *c, struct mn_plan *p, size_t upto,
			    struct cni_error *err)
{
	size_t failed = 0;

	for (size_t i = upto; i > 0; i--)
		if (mn_del_delegate(c, p, i - 1, err) < 0)
			failed++;
	return failed ? -EIO : 0;
}

enum mn_del_source mn_del_source(int cache_r, bool tombstone)
{
	if (cache_r > 0)
		return MN_DEL_FROM_CACHE;
	/* An unusable cache says an attachment was there: never trust a tombstone over it. */
	if (cache_r == 0 && tombstone)
		return MN_DEL_DONE_BEFORE;
	return MN_DEL_REBUILD;
}

static const char *call_ifname(const struct cni_ctx *ctx)
{
	return ctx->ifname ? ctx->ifname : "eth0";
}

/* Every delegate of the cache entry; on failure the entry stays for the retry. */
static int del_from_cache(struct mn_call *c, struct mn_plan *p)
{
	struct cni_ctx *ctx = c->ctx;
	int r;

	free(p->netns);
	if (!(p->netns = strdup(ctx->netns ? ctx->netns : "")))
		return -ENOMEM;
	r = mn_del_delegates(c, p, p->n, &ctx->err);
	if (r < 0) {
		/*
		 * Keep the cache: the runtime retries DEL and every delegate runs
		 * again. It replaces the durable entry, so it is durable too.
		 */
		(void)mn_cache_write(c->conf.cni_dir, p, true, &(struct cni_error){0});
		return r;
	}
	return 0;
}

/* No usable cache: the delegates from config and, if it answers, the apiserver. */
static int del_rebuilt(struct mn_call *c, struct mn_plan *p)
{
	struct cni_ctx *ctx = c->ctx;
	int r;

	if ((r = mn_plan_rebuild(c, p)) < 0 || (r = mn_del_delegates(c, p, p->n, &ctx->err)) < 0)
		return r;
	/* DEL never fails because the apiserver is down: what only it names is left to GC. */
	if (c->apiserver_down && ctx->conf.prev_result)
		cni_log_warning("pod %s/%s: no multinet cache for %s, an ADD finished "
				"(prevResult) and the apiserver could not be reached: the pod's "
				"own networks are not deleted: a GC of those networks frees them",
				p->pod.namespace ? p->pod.namespace : "?",
				p->pod.name ? p->pod.name : "?", ctx->container_id);
	return 0;
}

static void log_rebuild(const struct mn_call *c, int cache_r, const struct cni_error *cache_err)
{
	const struct cni_ctx *ctx = c->ctx;

	if (cache_r < 0)
		cni_log_warning("cache for %s unusable (%s): rebuilding the delegates",
				ctx->container_id, cache_err->msg ? cache_err->msg : "?");
	else
		cni_log_warning("no cache for %s in %s: rebuilding the delegates from the "
				"configuration%s",
				ctx->container_id, c->conf.cni_dir,
				c->conf.kubeconfig ? " and the apiserver" : "");
}

/* Done: the cache goes, a tombstone makes the next DEL of it a no-op. */
static int del_finish(struct mn_call *c)
{
	struct cni_ctx *ctx = c->ctx;
	int r = mn_cache_remove(c->conf.cni_dir, ctx->container_id);

	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, r, "cache: cannot remove the entry of %s",
				  ctx->container_id);
	r = mn_tombstone_write(c->conf.cni_dir, ctx->container_id, call_ifname(ctx));
	if (r < 0)
		cni_log_warning("cannot write the tombstone of %s/%s in %s: %s; a later DEL of it "
				"rebuilds, ignoring",
				ctx->container_id, call_ifname(ctx), c->conf.cni_dir, strerror(-r));
	return 0;
}

static int del(struct mn_call *c, struct mn_plan *p)
{
	struct cni_ctx *ctx = c->ctx;
	struct cni_error cache_err = {0};
	int r = mn_cache_read(c->conf.cni_dir, ctx->container_id, p, &cache_err);
	bool tombstone =
	    r == 0 && mn_tombstone_exists(c->conf.cni_dir, ctx->container_id, call_ifname(ctx));

	switch (mn_del_source(r, tombstone)) {
	case MN_DEL_DONE_BEFORE:
		cni_log_info("%s/%s: already deleted (tombstone in %s): nothing to do",
			     ctx->container_id, call_ifname(ctx), c->conf.cni_dir);
		return 0;
	case MN_DEL_FROM_CACHE:
		r = del_from_cache(c, p);
		break;
	case MN_DEL_REBUILD:
		log_rebuild(c, r, &cache_err);
		cni_error_done(&cache_err);
		r = del_rebuilt(c, p);
		break;
	}
	return r < 0 ? r : del_finish(c);
}

static int check(struct mn_call *c, struct mn_plan *p)
{
	struct cni_ctx *ctx = c->ctx;
	struct cni_error first = {0};
	int r = mn_cache_read(c->conf.cni_dir, ctx->container_id, p, &ctx->err);

	if (r == 0)
		r = cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOENT,
			       "no multinet cache for container %s in %s", ctx->container_id,
			       c->conf.cni_dir);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n; i++) {
		struct mn_delegate *d = &p->d[i];
		struct cni_runtime_conf rc;
		struct cni_error e = {0};

		mn_runtime_conf(p, d, &rc);
		if (cni_runtime_check(&c->rt, d->list, &rc, &e) < 0) {
			cni_error_wrapf(&e, -EIO, "network %s (%s)", d->display, d->ifname);
			collect(&first, &e, d);
		}
	}
	if (!cni_error_isset(&first))
		return 0;
	cni_error_move(&ctx->err, &first);
	return -EIO;
}

static bool attachment_valid(const struct cni_ctx *ctx, const char *cid)
{
	for (size_t i = 0; i < ctx->conf.n_valid_attachments; i++)
		if (streq(ctx->conf.valid_attachments[i].container_id, cid))
			return true;
	return false;
}

struct gc_state {
	struct mn_plan *kept;
	size_t n_kept;
	struct cni_error err;
};

/* One cache entry: DEL it when its container is no longer valid, else keep it. */
static void gc_cache(struct mn_call *c, struct gc_state *g, const char *name)
{
	struct mn_plan p = {0};
	struct cni_error e = {0};
	struct mn_plan *nv;

	if (mn_cache_read(c->conf.cni_dir, name, &p, &e) <= 0) {
		cni_error_done(&e);
		return;
	}
	if (!attachment_valid(c->ctx, p.container_id)) {
		if (mn_del_delegates(c, &p, p.n, &g->err) == 0) {
			cni_log_info("gc: removed stale attachment %s", p.container_id);
			(void)mn_cache_remove(c->conf.cni_dir, p.container_id);
		}
	} else if ((nv = reallocarray_safe(g->kept, g->n_kept + 1, sizeof(*nv)))) {
		g->kept = nv;
		g->kept[g->n_kept++] = p;
		return;
	}
	mn_plan_done(&p);
}

/* Each cache file (not a temporary one, nor anything else in cniDir). */
static void gc_caches(struct mn_call *c, struct gc_state *g)
{
	struct dirent **names = NULL;
	int n = scandir(c->conf.cni_dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (names[i]->d_type == DT_REG && cni_valid_name(name) && !strstr(name, ".tmp."))
			gc_cache(c, g, name);
		free(names[i]);
	}
	free(names);
}

/* GC one delegate network with every kept attachment of it as valid. */
static void gc_network(struct mn_call *c, struct gc_state *g, const struct cni_netconf_list *l)
{
	struct cni_gc_attachment *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < g->n_kept; i++)
		for (size_t j = 0; j < g->kept[i].n; j++) {
			const struct mn_delegate *d = &g->kept[i].d[j];
			struct cni_gc_attachment *nv;

			if (!streq(d->list->name, l->name))
				continue;
			nv = reallocarray_safe(v, n + 1, sizeof(*nv));
			if (!nv)
				continue;
			v = nv;
			v[n++] = (struct cni_gc_attachment){g->kept[i].container_id, d->ifname};
		}
	struct cni_error e = {0};
	int r = cni_runtime_gc(&c->rt, l, true, v, n, &e);

	if (mn_del_outcome(r, &e) == MN_DEL_GIVE_UP)
		cni_log_warning("gc: network %s: %s (code %u), ignoring", l->name,
				e.msg ? e.msg : "?", e.code);
	else if (r < 0 && !cni_error_isset(&g->err))
		cni_error_move(&g->err, &e);
	cni_error_done(&e);
	free(v);
}

static void gc_networks(struct mn_call *c, struct gc_state *g, const struct mn_plan *master)
{
	struct mn_strv done = {0};
	const struct cni_netconf_list *all[MN_MAX_NETWORKS * 4];
	size_t n = 0;

	for (size_t j = 0; j < master->n && n < ARRAY_SIZE(all); j++)
		all[n++] = master->d[j].list;
	for (size_t i = 0; i < g->n_kept; i++)
		for (size_t j = 0; j < g->kept[i].n && n < ARRAY_SIZE(all); j++)
			all[n++] = g->kept[i].d[j].list;
	for (size_t i = 0; i < n; i++) {
		if (mn_strv_contains(&done, all[i]->name))
			continue;
		(void)mn_strv_push(&done, all[i]->name);
		gc_network(c, g, all[i]);
	}
	mn_strv_done(&done);
}

/* master: the cluster network (and the other static delegates). */
static int gc(struct mn_call *c, struct mn_plan *master)
{
	struct cni_ctx *ctx = c->ctx;
	struct gc_state g = {0};
	int r;

	if (!ctx->conf.has_valid_attachments) {
		cni_log_warning("gc: no cni.dev/valid-attachments given: nothing removed");
		return 0;
	}
	if ((r = mn_connect(c)) < 0 &&
	    (r = mn_lenient(c, r, "gc: the cluster network is looked up without it")) < 0)
		return r;
	if ((r = mn_resolve_master(c, master)) < 0)
		return r;
	gc_caches(c, &g);
	gc_networks(c, &g, master);
	for (size_t i = 0; i < g.n_kept; i++)
		mn_plan_done(&g.kept[i]);
	free(g.kept);
	r = mn_tombstone_gc(c->conf.cni_dir, &ctx->conf);
	if (r < 0)
		cni_log_warning("gc: tombstones in %s: %s, ignoring", c->conf.cni_dir,
				strerror(-r));
	else if (r > 0)
		cni_log_info("gc: removed %d tombstone(s)", r);
	if (!cni_error_isset(&g.err))
		return 0;
	cni_error_move(&ctx->err, &g.err);
	return -EIO;
}

static int status(struct mn_call *c, struct mn_plan *p)
{
	const char *ready = c->conf.readiness_file;
	int r;

	if (ready && access(ready, F_OK) < 0)
		return cni_errorf(&c->ctx->err, CNI_ERR_NOT_AVAILABLE, -ENOENT,
				  "readinessindicatorfile '%s' does not exist", ready);
	if ((r = mn_connect(c)) < 0 || (r = mn_resolve_master(c, p)) < 0)
		return r;
	return p->n > 0 ? cni_runtime_status(&c->rt, p->d[0].list, &c->ctx->err) : 0;
}

/* DEL, CHECK, GC and STATUS: fn with the call and an empty plan. */
static int with_call(struct podnet *pn, int (*fn)(struct mn_call *c, struct mn_plan *p))
{
	struct mn_call c;
	struct mn_plan p = {0};
	int r = mn_call_init(&c, pn->ctx);

	if (r >= 0)
		r = fn(&c, &p);
	mn_plan_done(&p);
	mn_call_done(&c);
	return r;
}

static int cmd_del(struct podnet *pn)
{
	return with_call(pn, del);
}

static int cmd_check(struct podnet *pn)
{
	return with_call(pn, check);
}

static int cmd_gc(struct podnet *pn)
{
	return with_call(pn, gc);
}

static int cmd_status(struct podnet *pn)
{
	return with_call(pn, status);
}

/*
 * Only ADD touches the pod netns (collisions, default routes). DEL, CHECK
 * and GC hand CNI_NETNS to the delegates as given, so podnet opens nothing
 * for them, and a DEL with the netns gone or CNI_NETNS empty runs as any.
 */
const struct podnet_plugin_ops multinet_ops = {
    .name = "multinet",
    .about = "podwire multinet: Multus-compatible meta plugin for multi-NIC pods",
    .add = {mn_cmd_add, PODNET_POD},
    .del = {cmd_del, PODNET_NOTHING},
    .check = {cmd_check, PODNET_NOTHING},
    .gc = {cmd_gc, PODNET_NOTHING},
    .status = {cmd_status, PODNET_NOTHING},
};
