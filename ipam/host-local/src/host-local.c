/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host-local's handlers: parse the config, then allocate, release, check,
 * collect garbage or report status against the file store.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "ipam/allocator.h"
#include "ipam/host-local.h"
#include "ipam/store-disk.h"

static const char *const host_local_args[] = {"IP", NULL};

static int open_store(struct cni_ctx *ctx, const struct host_local_conf *c, unsigned code,
		      bool create, struct ipam_disk_store **ret)
{
	int r = create ? ipam_disk_store_open(c->data_dir, ctx->conf.name, ret)
		       : ipam_disk_store_open_existing(c->data_dir, ctx->conf.name, ret);

	if (r == -ENOENT && !create)
		return r; /* never allocated here: the caller decides */
	if (r < 0)
		return cni_errorf(&ctx->err, code, r, "ipam.dataDir: cannot open '%s/%s': %s",
				  c->data_dir, ctx->conf.name, strerror(-r));
	return 0;
}

static int lock_store(struct cni_ctx *ctx, const struct ipam_store *st, unsigned code)
{
	int r = st->ops->lock(st->data);

	if (r < 0)
		return cni_errorf(&ctx->err, code, r, "IPAM store: lock failed: %s", strerror(-r));
	return 0;
}

/* The first requested address inside set s, consumed (the reference's order). */
static const struct ip_prefix *take_requested(struct host_local_conf *c, bool *used,
					      const struct ipam_range_set *s)
{
	for (size_t i = 0; i < c->n_requested; i++) {
		const struct ip_prefix *p = &c->requested[i];

		if (!used[i] && ipam_range_set_find(s, p->family, &p->addr) >= 0) {
			used[i] = true;
			return p;
		}
	}
	return NULL;
}

static int leftover_requested(struct cni_ctx *ctx, const struct host_local_conf *c,
			      const bool *used)
{
	char list[512] = "", buf[INET6_ADDRSTRLEN];
	size_t len = 0;

	for (size_t i = 0; i < c->n_requested; i++)
		if (!used[i] && len < sizeof(list))
			len += (size_t)snprintf(
			    list + len, sizeof(list) - len, "%s%s", len ? " " : "",
			    ip_addr_fmt(c->requested[i].family, &c->requested[i].addr, buf));
	if (len == 0)
		return 0;
	return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "failed to allocate all requested IPs: %s", list);
}

/* Give back exactly what this ADD reserved (not an older lease of the attachment). */
static void release_result(const struct ipam_store *st, const struct cni_result *res)
{
	for (size_t i = 0; i < res->n_ips; i++) {
		struct ipam_addr a = {.family = res->ips[i].address.family,
				      .addr = res->ips[i].address.addr};

		(void)st->ops->release_ip(st->data, &a);
	}
}

/*
 * One address per range set, under one lock. The requested addresses are
 * matched to sets first, so a request no set can satisfy fails before any
 * reservation touches the store. On failure nothing stays reserved.
 */
static int allocate_all(struct cni_ctx *ctx, struct host_local_conf *c, const struct ipam_store *st,
			struct cni_result *res)
{
	_cleanup_free_ bool *used = calloc(c->n_requested + 1, sizeof(bool));
	_cleanup_free_ const struct ip_prefix **wants = calloc(c->n_sets + 1, sizeof(*wants));
	int r;

	if (!used || !wants)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_sets; i++)
		wants[i] = take_requested(c, used, &c->sets[i]);
	r = leftover_requested(ctx, c, used);
	for (size_t i = 0; i < c->n_sets && r >= 0; i++) {
		struct ipam_addr req = {0};
		struct ipam_alloc_request ar = {
		    .set = &c->sets[i],
		    .set_id = (unsigned)i,
		    .id = ctx->container_id,
		    .ifname = ctx->ifname,
		};
		struct cni_ip ip;

		if (wants[i]) {
			req.family = wants[i]->family;
			req.addr = wants[i]->addr;
			ar.requested = &req;
		}
		r = ipam_allocate(st, &ar, &ip, &ctx->err);
		if (r < 0)
			r = cni_error_wrapf(&ctx->err, r, "failed to allocate for range %zu", i);
		else
			r = cni_result_add_ip(res, &ip);
	}
	if (r < 0)
		release_result(st, res);
	return r;
}

struct release_arg {
	char *data_dir, *network, *id, *ifname;
};

static void release_arg_free(void *p)
{
	struct release_arg *a = p;

	if (!a)
		return;
	free(a->data_dir);
	free(a->network);
	free(a->id);
	free(a->ifname);
	free(a);
}

/* Undo of ADD: release what (id, ifname) holds. */
static int release_undo(void *p)
{
	_cleanup_(ipam_disk_store_freep) struct ipam_disk_store *ds = NULL;
	struct release_arg *a = p;
	struct ipam_store st;
	int r;

	r = ipam_disk_store_open(a->data_dir, a->network, &ds);
	if (r < 0)
		return r;
	st = ipam_disk_store_handle(ds);
	r = st.ops->lock(st.data);
	if (r < 0)
		return r;
	r = st.ops->release_by_id(st.data, a->id, a->ifname);
	st.ops->unlock(st.data);
	return r < 0 ? r : 0;
}

static int push_undo(struct cni_ctx *ctx, const struct host_local_conf *c)
{
	struct release_arg *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->data_dir = strdup(c->data_dir);
	a->network = strdup(ctx->conf.name);
	a->id = strdup(ctx->container_id);
	a->ifname = strdup(ctx->ifname);
	if (!a->data_dir || !a->network || !a->id || !a->ifname) {
		release_arg_free(a);
		return -ENOMEM;
	}
	return cni_undo_push(&ctx->undo, "release host-local lease", release_undo, a,
			     release_arg_free);
}

static int load_dns(struct cni_ctx *ctx, const struct host_local_conf *c, struct cni_result *res)
{
	int r;

	if (!c->resolv_conf)
		return 0;
	r = host_local_parse_resolv_conf(c->resolv_conf, &res->dns);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, r, "ipam.resolvConf: cannot read '%s': %s",
				  c->resolv_conf, strerror(-r));
	return 0;
}

static int host_local_add(struct cni_ctx *ctx)
{
	_cleanup_(host_local_conf_done) struct host_local_conf c = {0};
	_cleanup_(ipam_disk_store_freep) struct ipam_disk_store *ds = NULL;
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	struct ipam_store st;
	int r;

	r = host_local_conf_parse(ctx, HOST_LOCAL_PARSE_RANGES | HOST_LOCAL_PARSE_REQUESTS, &c);
	if (r < 0)
		return r;
	res = cni_result_dup(c.extra);
	if (!res)
		return -ENOMEM;
	res->ips = mfree(res->ips);
	res->n_ips = 0;
	r = load_dns(ctx, &c, res);
	if (r >= 0)
		r = open_store(ctx, &c, CNI_ERR_IO, true, &ds);
	if (r < 0)
		return r;
	st = ipam_disk_store_handle(ds);
	r = lock_store(ctx, &st, CNI_ERR_IO);
	if (r < 0)
		return r;
	r = allocate_all(ctx, &c, &st, res);
	if (r >= 0) {
		r = push_undo(ctx, &c);
		if (r < 0)
			release_result(&st, res);
	}
	st.ops->unlock(st.data);
	if (r < 0)
		return r;
	ctx->result = TAKE_PTR(res);
	return 0;
}

static int host_local_del(struct cni_ctx *ctx)
{
	_cleanup_(host_local_conf_done) struct host_local_conf c = {0};
	_cleanup_(ipam_disk_store_freep) struct ipam_disk_store *ds = NULL;
	struct ipam_store st;
	int r;

	r = host_local_conf_parse(ctx, HOST_LOCAL_PARSE_STORE, &c);
	if (r >= 0 && c.skip_store) /* a dataDir ADD refuses: no lease can exist */
		return 0;
	if (r >= 0)
		r = open_store(ctx, &c, CNI_ERR_IO, false, &ds);
	if (r == -ENOENT) /* no directory, no lease: DEL succeeds and creates nothing */
		return 0;
	if (r < 0)
		return r;
	st = ipam_disk_store_handle(ds);
	r = lock_store(ctx, &st, CNI_ERR_IO);
	if (r < 0)
		return r;
	r = st.ops->release_by_id(st.data, ctx->container_id, ctx->ifname);
	st.ops->unlock(st.data);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, r, "release addresses of %s/%s: %s",
				  ctx->container_id, ctx->ifname, strerror(-r));
	return 0;
}

static int not_found(struct cni_ctx *ctx)
{
	return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -ENOENT,
			  "host-local: Failed to find address added by container %s",
			  ctx->container_id);
}

static int host_local_check(struct cni_ctx *ctx)
{
	_cleanup_(host_local_conf_done) struct host_local_conf c = {0};
	_cleanup_(ipam_disk_store_freep) struct ipam_disk_store *ds = NULL;
	_cleanup_free_ struct ipam_addr *held = NULL;
	struct ipam_store st;
	size_t n = 0;
	int r;

	r = host_local_conf_parse(ctx, HOST_LOCAL_PARSE_RANGES, &c);
	if (r >= 0)
		r = open_store(ctx, &c, CNI_ERR_IO, false, &ds);
	if (r == -ENOENT)
		return not_found(ctx);
	if (r < 0)
		return r;
	st = ipam_disk_store_handle(ds);
	r = lock_store(ctx, &st, CNI_ERR_IO);
	if (r < 0)
		return r;
	r = st.ops->get_by_id(st.data, ctx->container_id, ctx->ifname, &held, &n);
	st.ops->unlock(st.data);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, r, "IPAM store: lookup failed: %s",
				  strerror(-r));
	return n == 0 ? not_found(ctx) : 0;
}

static bool attachment_valid(const struct cni_ctx *ctx, const struct ipam_lease *l)
{
	for (size_t i = 0; i < ctx->conf.n_valid_attachments; i++) {
		const struct cni_attachment *a = &ctx->conf.valid_attachments[i];

		/* A legacy (ID-only) lease belongs to any attachment of its container. */
		if (streq(a->container_id, l->id) && (!l->ifname || streq(a->ifname, l->ifname)))
			return true;
	}
	return false;
}

static int gc_leases(struct cni_ctx *ctx, const struct ipam_store *st)
{
	struct ipam_lease *l = NULL;
	char buf[INET6_ADDRSTRLEN];
	size_t n = 0;
	int r, first = 0;

	r = st->ops->list(st->data, &l, &n);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, r, "IPAM store: listing leases failed: %s",
				  strerror(-r));
	for (size_t i = 0; i < n; i++) {
		if (attachment_valid(ctx, &l[i]))
			continue;
		r = st->ops->release_ip(st->data, &l[i].ip);
		if (r < 0 && r != -ENOENT && first == 0)
			first = cni_errorf(&ctx->err, CNI_ERR_IO, r, "GC: release %s: %s",
					   ipam_addr_fmt(&l[i].ip, buf), strerror(-r));
		else if (r >= 0)
			cni_log_info("GC: released %s held by %s/%s", ipam_addr_fmt(&l[i].ip, buf),
				     l[i].id, l[i].ifname ? l[i].ifname : "");
	}
	ipam_leases_free(l, n);
	return first;
}

static int host_local_gc(struct cni_ctx *ctx)
{
	_cleanup_(host_local_conf_done) struct host_local_conf c = {0};
	_cleanup_(ipam_disk_store_freep) struct ipam_disk_store *ds = NULL;
	struct ipam_store st;
	int r;

	if (!ctx->conf.has_valid_attachments) {
		cni_log_warning("GC without cni.dev/valid-attachments: nothing released");
		return 0;
	}
	r = host_local_conf_parse(ctx, HOST_LOCAL_PARSE_STORE, &c);
	if (r >= 0 && c.skip_store)
		return 0;
	if (r >= 0)
		r = open_store(ctx, &c, CNI_ERR_IO, false, &ds);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	st = ipam_disk_store_handle(ds);
	r = lock_store(ctx, &st, CNI_ERR_IO);
	if (r < 0)
		return r;
	r = gc_leases(ctx, &st);
	st.ops->unlock(st.data);
	return r;
}

static int status_sets(struct cni_ctx *ctx, const struct host_local_conf *c,
		       const struct ipam_store *st)
{
	for (size_t i = 0; i < c->n_sets; i++) {
		_cleanup_free_ char *s = NULL;
		int r = ipam_set_has_free(st, &c->sets[i], (unsigned)i);

		if (r < 0)
			return cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, r,
					  "IPAM store: reading leases failed: %s", strerror(-r));
		if (r == 0) {
			s = ipam_range_set_fmt(&c->sets[i]);
			return cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, -ENOSPC,
					  "range set %zu (%s) exhausted: no IP addresses available "
					  "in %s",
					  i, c->set_paths[i], s ? s : "?");
		}
	}
	return 0;
}

static int host_local_status(struct cni_ctx *ctx)
{
	_cleanup_(host_local_conf_done) struct host_local_conf c = {0};
	_cleanup_(ipam_disk_store_freep) struct ipam_disk_store *ds = NULL;
	struct ipam_store st;
	int r;

	r = host_local_conf_parse(ctx, HOST_LOCAL_PARSE_RANGES, &c);
	if (r >= 0)
		r = open_store(ctx, &c, CNI_ERR_NOT_AVAILABLE, true, &ds);
	if (r < 0)
		return r;
	st = ipam_disk_store_handle(ds);
	r = lock_store(ctx, &st, CNI_ERR_NOT_AVAILABLE);
	if (r < 0)
		return r;
	r = ipam_disk_store_probe(ds);
	if (r < 0)
		r = cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, r,
			       "ipam.dataDir: '%s/%s' is not writable: %s", c.data_dir,
			       ctx->conf.name, strerror(-r));
	else
		r = status_sets(ctx, &c, &st);
	st.ops->unlock(st.data);
	return r;
}

const struct cni_plugin_ops ipam_host_local_ops = {
    .name = "host-local",
    .about = "podwire host-local IPAM (reference-compatible lease files)",
    .cni_args_keys = host_local_args,
    .add = host_local_add,
    .del = host_local_del,
    .check = host_local_check,
    .gc = host_local_gc,
    .status = host_local_status,
};
