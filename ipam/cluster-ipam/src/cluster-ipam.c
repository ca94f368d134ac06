/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam's handlers: parse, take the node lock, talk to etcd, and
 * keep the block blackholes in the host netns in step.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "cni/log.h"
#include "cluster-add.h"
#include "cluster-pending.h"
#include "cluster-queue.h"

/* The handle's etcd key and its ID "<node>/<containerID>/<ifname>": 0 or -ENOMEM. */
static int handle_key(const struct cipam_conf *c, const char *cid, const char *ifname,
		      char **ret_key, char **ret_id)
{
	*ret_key = cipam_key_handle(c->prefix, c->node, cid, ifname);
	if (asprintf(ret_id, "%s/%s/%s", c->node, cid, ifname) < 0)
		*ret_id = NULL;
	if (*ret_key && *ret_id)
		return 0;
	*ret_key = mfree(*ret_key);
	*ret_id = mfree(*ret_id);
	return -ENOMEM;
}

static int handle_names(struct cni_ctx *ctx, const struct cipam_conf *c, char **ret_key,
			char **ret_id)
{
	if (!ctx->container_id || !cni_valid_name(ctx->container_id))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_CONTAINERID: not a valid container ID: '%s'",
				  ctx->container_id ? ctx->container_id : "");
	if (!ctx->ifname || !cni_valid_ifname(ctx->ifname))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_IFNAME: not a valid interface name: '%s'",
				  ctx->ifname ? ctx->ifname : "");
	return handle_key(c, ctx->container_id, ctx->ifname, ret_key, ret_id);
}

/* ADD and CHECK: the config (code 7 when wrong) and the handle's names. */
static int parse_all(struct cni_ctx *ctx, struct cipam_conf *c, char **ret_key, char **ret_id)
{
	int r = cipam_conf_parse(ctx, c);

	return r < 0 ? r : handle_names(ctx, c, ret_key, ret_id);
}

/* What ADD's undo needs: the config (moved in), the handle and the blocks it claimed. */
struct undo_arg {
	struct cipam_conf c;
	char *handle_key;
	struct ip_prefix claimed[2];
	size_t n_claimed;
};

static void undo_free(void *p)
{
	struct undo_arg *a = p;

	if (!a)
		return;
	cipam_conf_done(&a->c);
	free(a->handle_key);
	free(a);
}

/* Give back the handle at key and the blocks its ADD claimed (the undo, a failed blackhole). */
static int give_back(struct cipam_session *s, const char *key, const struct ip_prefix *claimed,
		     size_t n_claimed)
{
	bool released;
	int r = cipam_release_handle(s, key, &released);

	if (r >= 0 && n_claimed > 0)
		r = cipam_release_empty_blocks(s, 0, claimed, n_claimed);
	return r;
}

static int undo_release(void *p)
{
	struct undo_arg *a = p;
	struct cni_error err = {0};
	struct cipam_session s;
	int r = cipam_session_open(&s, &a->c, true, &err);

	if (r >= 0)
		r = give_back(&s, a->handle_key, a->claimed, a->n_claimed);
	cipam_session_close(&s);
	if (r < 0)
		cni_log_warning("undo of cluster-ipam ADD: %s", err.msg ? err.msg : strerror(-r));
	cni_error_done(&err);
	return r;
}

static int push_undo(struct cni_ctx *ctx, struct cipam_conf *c, const char *key,
		     const struct cipam_add_out *out)
{
	struct undo_arg *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->handle_key = strdup(key);
	if (!a->handle_key) {
		free(a);
		return -ENOMEM;
	}
	a->c = *c; /* moved */
	memset(c, 0, sizeof(*c));
	memcpy(a->claimed, out->claimed, sizeof(out->claimed));
	a->n_claimed = out->n_claimed;
	return cni_undo_push(&ctx->undo, "release cluster-ipam addresses", undo_release, a,
			     undo_free);
}

/*
 * Blackholes for the blocks request `key` claimed, under the node lock; on
 * failure its handle and claimed blocks are given back and err says why.
 */
static int install_routes(struct cipam_session *s, const char *key, const struct cipam_add_out *out,
			  struct cni_error *err)
{
	char buf[IP_PREFIX_STRLEN];

	for (size_t i = 0; i < out->n_claimed; i++) {
		int r = cipam_route_add(&out->claimed[i], s->c->route_protocol);
		struct cni_error ignored = {0}, *keep = s->err;

		if (r >= 0)
			continue;
		for (size_t k = 0; k < i; k++)
			(void)cipam_route_del(&out->claimed[k], s->c->route_protocol);
		s->err = &ignored;
		(void)give_back(s, key, out->claimed, out->n_claimed);
		s->err = keep;
		cni_error_done(&ignored);
		return cni_errorf(err, CNI_ERR_PLUGIN, r, "add route blackhole %s proto %u: %s",
				  ip_prefix_fmt(&out->claimed[i], buf), s->c->route_protocol,
				  strerror(-r));
	}
	return 0;
}

static int build_result(struct cni_ctx *ctx, const struct cipam_conf *c,
			const struct cipam_add_out *out)
{
	_cleanup_(cni_result_freep) struct cni_result *res =
	    c->routes ? cni_result_dup(c->routes) : cni_result_new(ctx->conf.version);

	if (!res)
		return -ENOMEM;
	res->version = ctx->conf.version;
	for (size_t i = 0; i < out->n_ips; i++) {
		struct cni_ip ip = {.address = out->ips[i], .interface = -1};
		int r = cni_result_add_ip(res, &ip);

		if (r < 0)
			return r;
	}
	ctx->result = TAKE_PTR(res);
	return 0;
}

/*
 * Test-only (README): PODWIRE_CIPAM_TEST_STALL_MS=N sleeps N ms after the
 * allocation committed and before the blackhole is installed, so that e2e
 * can SIGKILL an ADD at its worst moment.
 */
static void test_stall(void)
{
	const char *v = getenv("PODWIRE_CIPAM_TEST_STALL_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;

	if (ms > 0 && ms <= 60000)
		usleep((useconds_t)ms * 1000u);
}

/* The requests this leader serves: its own (0) and the queue's. */
struct batch {
	struct cipam_qreq q[CIPAM_MAX_BATCH - 1];
	size_t n; /* requests, own included */
	struct cipam_add_req reqs[CIPAM_MAX_BATCH];
	char *keys[CIPAM_MAX_BATCH], *ids[CIPAM_MAX_BATCH];
	struct cipam_add_out outs[CIPAM_MAX_BATCH];
};

static void batch_done(struct batch *b)
{
	for (size_t i = 1; i < b->n; i++) {
		cipam_qreq_done(&b->q[i - 1]);
		free(b->keys[i]);
		free(b->ids[i]);
	}
	for (size_t i = 0; i < b->n; i++)
		cni_error_done(&b->outs[i].err);
}

/*
 * The ADD of a handle whose earlier DEL is still pending (its replay just
 * failed, usually etcd unreachable): allocating now would let that release, replayed
 * later, free the new allocation. Code 11, the runtime retries.
 */
static int pending_busy(struct cni_error *err, const char *container_id, const char *ifname)
{
	return cni_errorf(err, CNI_ERR_TRY_AGAIN, -EAGAIN,
			  "cluster-ipam: the release of %s/%s by an earlier DEL is still pending "
			  "(its replay failed); retry",
			  container_id, ifname);
}

/* One queued request as request b->n, or answered at once (out of memory, release pending). */
static void batch_add(struct batch *b, const struct cipam_session *s, struct cipam_qreq *q)
{
	const struct cipam_conf *c = s->c;
	struct cipam_qreq *slot = &b->q[b->n - 1];
	struct cni_error e = {0};
	struct cipam_add_out none = {0};
	char *key, *id;
	int r = handle_key(c, q->container_id, q->ifname, &key, &id);

	if (r < 0)
		r = cni_errorf(&e, CNI_ERR_PLUGIN, r, "out of memory");
	else if (cipam_pending_exists(c->data_dir, q->container_id, q->ifname))
		r = pending_busy(&e, q->container_id, q->ifname);
	if (r < 0) {
		free(key);
		free(id);
		(void)cipam_queue_answer(s->queue_fd, q->tag, r, &e, &none);
		cni_error_done(&e);
		cipam_qreq_done(q);
		return;
	}
	if (slot != q) {
		*slot = *q;
		memset(q, 0, sizeof(*q));
	}
	b->keys[b->n] = key;
	b->ids[b->n] = id;
	b->reqs[b->n] = (struct cipam_add_req){
	    key, id, slot->container_id, slot->ifname, slot->network, slot->pod};
	b->n++;
}

/* Everything allocated: blackholes, then the answers of the queued requests. */
static void batch_finish(struct batch *b, struct cipam_session *s, int r)
{
	bool any = false;

	for (size_t i = 0; r >= 0 && i < b->n; i++)
		any |= b->outs[i].r == 0 && !b->outs[i].existing;
	if (any)
		test_stall();
	for (size_t i = 0; r >= 0 && i < b->n; i++)
		if (b->outs[i].r == 0 && !b->outs[i].existing)
			b->outs[i].r =
			    install_routes(s, b->reqs[i].handle_key, &b->outs[i], &b->outs[i].err);
	for (size_t i = 1; i < b->n; i++)
		(void)cipam_queue_answer(s->queue_fd, b->q[i - 1].tag, r < 0 ? r : b->outs[i].r,
					 r < 0 ? s->err : &b->outs[i].err, &b->outs[i]);
}

/*
 * This process holds the node lock: allocate for itself and every queued
 * ADD of the same batch key in one txn, install the blackholes, answer.
 */
static int lead(struct cipam_session *s, const char *qkey, const struct cipam_add_req *self,
		struct cipam_add_out *out)
{
	struct batch *b = calloc(1, sizeof(*b));
	size_t n;
	int r;

	if (!b)
		return -ENOMEM;
	cipam_pending_replay(s); /* old releases first: a re-ADDed handle gets fresh addresses */
	if (cipam_pending_exists(s->c->data_dir, self->container_id, self->ifname)) {
		free(b);
		return pending_busy(s->err, self->container_id, self->ifname);
	}
	b->reqs[0] = *self;
	b->n = 1;
	n = qkey ? cipam_queue_take(s->queue_fd, qkey, b->q, CIPAM_MAX_BATCH - 1) : 0;
	for (size_t i = 0; i < n; i++) {
		cipam_session_limit(s, b->q[i].deadline_ms); /* its answer is due then */
		batch_add(b, s, &b->q[i]);
	}
	r = cipam_allocate(s, b->reqs, b->n, b->outs);
	if (b->n > 1 || s->conflicts)
		cni_log_debug("allocated for %zu ADDs in one txn (%u conflicts)", b->n,
			      s->conflicts);
	batch_finish(b, s, r);
	if (r >= 0 && b->outs[0].r < 0) {
		r = b->outs[0].r;
		cni_error_move(s->err, &b->outs[0].err);
	}
	if (r >= 0)
		*out = b->outs[0];
	memset(&out->err, 0, sizeof(out->err));
	batch_done(b);
	free(b);
	return r;
}

static int cluster_add(struct cni_ctx *ctx)
{
	_cleanup_(cipam_conf_done) struct cipam_conf c = {0};
	_cleanup_free_ char *key = NULL, *id = NULL, *pod = NULL, *qkey = NULL;
	const char *ns = cni_args_get(&ctx->args, "K8S_POD_NAMESPACE");
	const char *name = cni_args_get(&ctx->args, "K8S_POD_NAME");
	struct cipam_add_out out = {0};
	struct cipam_session s;
	int r;

	r = parse_all(ctx, &c, &key, &id);
	if (r < 0)
		return r;
	if (ns && name && asprintf(&pod, "%s/%s", ns, name) < 0)
		return -ENOMEM;
	struct cipam_add_req req = {
	    .handle_key = key,
	    .handle_id = id,
	    .container_id = ctx->container_id,
	    .ifname = ctx->ifname,
	    .network = ctx->conf.name,
	    .pod = pod,
	};
	struct cipam_join join = {.key = qkey = cipam_queue_key(&c), .req = &req, .out = &out};

	r = cipam_session_open_add(&s, &c, &join, &ctx->err);
	if (r == 1) /* served by the node's lock holder */
		r = join.r;
	else if (r >= 0)
		r = lead(&s, qkey, &req, &out);
	cipam_session_close(&s);
	if (r >= 0)
		r = build_result(ctx, &c, &out);
	if (r >= 0 && !out.existing)
		r = push_undo(ctx, &c, key, &out);
	return r == -ENOMEM ? cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "out of memory") : r;
}

/*
 * DEL and GC: a config that names no usable etcd, prefix, node or dataDir
 * cannot release anything, and failing would wedge the runtime's clean-up
 * until someone edits the config. Warn and succeed (1: skip); the handle
 * stays in etcd until a DEL or GC with a valid config releases it.
 */
static int conf_for_cleanup(struct cni_ctx *ctx, struct cipam_conf *c)
{
	int r = cipam_conf_parse(ctx, c);

	if (r >= 0 || ctx->err.code != CNI_ERR_INVALID_CONFIG)
		return r;
	cni_log_warning("%s; %s releases nothing (a GC with a valid config releases what is left)",
			ctx->err.msg ? ctx->err.msg : "invalid ipam config",
			ctx->command == CNI_CMD_GC ? "GC" : "DEL");
	cni_error_done(&ctx->err);
	return 1;
}

/*
 * DEL's session: with the node lock, or, when dataDir cannot be created
 * or opened (code 5), without it: the release txn compares every revision
 * it relied on, so it is safe unlocked; only the node cache is not
 * updated.
 */
static int del_session_open(struct cipam_session *s, const struct cipam_conf *c,
			    struct cni_ctx *ctx)
{
	int r = cipam_session_open(s, c, true, &ctx->err);
	uint64_t deadline = s->deadline_ms;

	if (r >= 0 || ctx->err.code != CNI_ERR_IO)
		return r;
	cni_log_warning("%s; releasing without the node lock", ctx->err.msg);
	cni_error_done(&ctx->err);
	cipam_session_close(s);
	r = cipam_session_open(s, c, false, &ctx->err);
	cipam_session_limit(s, deadline); /* still the call's bound */
	return r;
}

/*
 * The release could not be done in etcd (unreachable, frozen, 5xx, node
 * lock busy: code 11): record it in <dataDir>/pending, warn and succeed;
 * the next call of the node that reaches etcd replays it. When it cannot
 * be recorded, the code-11 error stands (the runtime retries).
 */
static int del_pending(struct cni_ctx *ctx, const struct cipam_conf *c, const char *key,
		       const char *id, int r)
{
	_cleanup_free_ char *path = NULL;
	int k;

	if (!cipam_pending_wanted(ctx->err.code, r))
		return r;
	k = cipam_pending_record(c->data_dir, ctx->container_id, ctx->ifname, key, id, &path);
	if (k < 0) {
		cni_log_warning("cannot record the pending release of %s in '%s/pending': %s", id,
				c->data_dir, strerror(-k));
		return r;
	}
	cni_log_warning("%s; the release of %s is pending in '%s': replayed by the node's next "
			"call that reaches etcd",
			ctx->err.msg ? ctx->err.msg : strerror(-r), id, path ? path : c->data_dir);
	cni_error_done(&ctx->err);
	return 0;
}

static int cluster_del(struct cni_ctx *ctx)
{
	_cleanup_(cipam_conf_done) struct cipam_conf c = {0};
	_cleanup_free_ char *key = NULL, *id = NULL;
	struct cipam_session s;
	bool released = false;
	int r;

	r = conf_for_cleanup(ctx, &c);
	if (r > 0)
		return 0;
	if (r >= 0)
		r = handle_names(ctx, &c, &key, &id);
	if (r < 0)
		return r;
	r = del_session_open(&s, &c, ctx);
	if (r >= 0)
		r = cipam_release_handle(&s, key, &released);
	if (r >= 0 && s.locked) { /* etcd answered: its own entry is done, replay the others */
		(void)cipam_pending_remove(c.data_dir, ctx->container_id, ctx->ifname);
		cipam_pending_replay(&s);
	}
	cipam_session_close(&s);
	if (r >= 0 && released)
		cni_log_info("released the addresses of %s", id);
	return r < 0 ? del_pending(ctx, &c, key, id, r) : r;
}

#define check_fail(ctx, ...) cni_errorf(&(ctx)->err, CNI_ERR_CHECK_FAILED, -ENOENT, __VA_ARGS__)

/* Every IP of the handle is held by it in its block. */
static int check_blocks(struct cni_ctx *ctx, struct cipam_session *s, const struct cipam_handle *h)
{
	char buf[IP_PREFIX_STRLEN];
	int r = 0;

	for (size_t i = 0; i < h->n_ips && r >= 0; i++) {
		struct ip_prefix cidr = h->ips[i];
		struct cipam_bref ref;
		const char *holder;

		ip_prefix_mask(&cidr);
		r = cipam_read_block(s, &cidr, &ref);
		holder = r > 0 ? ref.b.used[cipam_block_ordinal(&cidr, &h->ips[i].addr)] : NULL;
		if (r == 0)
			r = check_fail(ctx, "cluster-ipam: %s: its block %s does not exist", h->id,
				       ip_prefix_fmt(&cidr, buf));
		else if (r > 0 && (!holder || strcmp(holder, h->id) != 0))
			r = check_fail(ctx, "cluster-ipam: %s: %s is not allocated to it", h->id,
				       ip_prefix_fmt(&h->ips[i], buf));
		cipam_block_done(&ref.b);
	}
	return r < 0 ? r : 0;
}

static int cluster_check(struct cni_ctx *ctx)
{
	_cleanup_(cipam_conf_done) struct cipam_conf c = {0};
	_cleanup_free_ char *key = NULL, *id = NULL;
	struct cipam_handle h = {0};
	struct cipam_session s;
	struct pwetcd_kv kv = {0};
	const char *why = "";
	bool found = false;
	int r;

	r = parse_all(ctx, &c, &key, &id);
	if (r < 0)
		return r;
	r = cipam_session_open(&s, &c, false, &ctx->err);
	if (r >= 0 && (r = pwetcd_get(s.etcd, key, &kv, &found)) < 0)
		r = cipam_etcd_error(&s, r, "read handle");
	if (r >= 0 && !found)
		r = check_fail(ctx, "cluster-ipam: no addresses allocated to %s", id);
	else if (r >= 0 && cipam_handle_parse(kv.value, kv.value_len, &h, &why) < 0)
		r = check_fail(ctx, "cluster-ipam: handle %s: %s", key, why);
	else if (r >= 0)
		r = check_blocks(ctx, &s, &h);
	cipam_handle_done(&h);
	pwetcd_kv_done(&kv);
	cipam_session_close(&s);
	return r;
}

static int gc_handles(struct cni_ctx *ctx, struct cipam_session *s)
{
	struct pwetcd_range_result res = {0};
	int r = cipam_list_node(s, "handles", "list handles", &res);

	for (size_t i = 0; i < res.n_kvs && r >= 0; i++) {
		struct cipam_handle h = {0};
		const char *why = "";
		bool released;

		if (cipam_handle_parse(res.kvs[i].value ? res.kvs[i].value : "",
				       res.kvs[i].value_len, &h, &why) >= 0 &&
		    cni_conf_attachment_valid(&ctx->conf, h.container_id, h.ifname)) {
			cipam_handle_done(&h);
			continue;
		}
		r = cipam_release_handle(s, res.kvs[i].key, &released);
		if (r >= 0 && released)
			cni_log_info("GC: released %s", res.kvs[i].key);
		cipam_handle_done(&h);
	}
	pwetcd_range_result_done(&res);
	return r;
}

/* Under the node lock: the queue files of dead processes go (no key matches ""). */
static void gc_queue(const struct cipam_conf *c)
{
	struct cipam_qreq none[1];
	int qfd = cipam_queue_open(c->data_dir, false);

	if (qfd < 0)
		return;
	(void)cipam_queue_take(qfd, "", none, 1);
	close(qfd);
}

static int cluster_gc(struct cni_ctx *ctx)
{
	_cleanup_(cipam_conf_done) struct cipam_conf c = {0};
	struct cipam_session s;
	int r;

	if (!ctx->conf.has_valid_attachments) {
		cni_log_warning("GC without cni.dev/valid-attachments: nothing released");
		return 0;
	}
	r = conf_for_cleanup(ctx, &c);
	if (r != 0)
		return r < 0 ? r : 0;
	r = cipam_session_open(&s, &c, true, &ctx->err);
	if (r < 0 && ctx->err.code == CNI_ERR_IO) { /* no node lock: blackholes cannot be synced */
		cni_log_warning("%s; GC releases nothing", ctx->err.msg);
		cni_error_done(&ctx->err);
		cipam_session_close(&s);
		return 0;
	}
	if (r >= 0)
		gc_queue(&c);
	if (r >= 0)
		cipam_pending_replay(&s);
	if (r >= 0)
		r = gc_handles(ctx, &s);
	if (r >= 0)
		r = cipam_release_empty_blocks(&s, c.grace_s, NULL, 0);
	cipam_session_close(&s);
	/* etcd unreachable or the lock busy: warn, the next GC does the rest */
	if (r < 0 && ctx->err.code == CNI_ERR_TRY_AGAIN) {
		cni_log_warning("%s; GC stopped there, the next GC releases the rest",
				ctx->err.msg);
		cni_error_done(&ctx->err);
		return 0;
	}
	return r;
}

/* Does the pool have a free address (a free block, or a block with room)? */
static int pool_has_free(struct cipam_session *s, const struct cipam_pool *p)
{
	struct pwetcd_range_req rr = {.count_only = true};
	struct pwetcd_range_result res = {0};
	int r = cipam_list_pool(s, p, &rr, &res), found = 0;

	if (r < 0 || (cipam_u128)res.count < cipam_pool_blocks(p))
		return r < 0 ? r : 1;
	rr.count_only = false;
	r = cipam_list_pool(s, p, &rr, &res);
	if (r < 0)
		return r;
	for (size_t i = 0; i < res.n_kvs && !found; i++) {
		struct cipam_bref ref;

		if (cipam_bref_load(s, &res.kvs[i], NULL, &ref) < 0) {
			cni_error_done(s->err);
			continue;
		}
		found = ref.b.n_used < ref.b.size &&
			(!s->c->strict_affinity || (ref.b.node && streq(ref.b.node, s->c->node)));
		cipam_block_done(&ref.b);
	}
	pwetcd_range_result_done(&res);
	return found;
}

static int status_pools(struct cni_ctx *ctx, struct cipam_session *s)
{
	static const int families[] = {AF_INET, AF_INET6};

	for (size_t f = 0; f < 2; f++) {
		bool any = false, free_ = false;

		for (size_t i = 0; i < s->c->n_pools && !free_; i++) {
			int r;

			if (s->c->pools[i].cidr.family != families[f])
				continue;
			any = true;
			r = pool_has_free(s, &s->c->pools[i]);
			if (r < 0)
				return r;
			free_ = r > 0;
		}
		if (any && !free_)
			return cni_errorf(&ctx->err, CNI_ERR_LIMITED_CONNECTIVITY, -ENOSPC,
					  "cluster-ipam: no free IPv%c address in ipam.pools",
					  families[f] == AF_INET6 ? '6' : '4');
	}
	return 0;
}

static int cluster_status(struct cni_ctx *ctx)
{
	_cleanup_(cipam_conf_done) struct cipam_conf c = {0};
	struct cipam_session s;
	int r;

	r = cipam_conf_parse(ctx, &c);
	if (r < 0)
		return r;
	r = cipam_session_open(&s, &c, false, &ctx->err);
	if (r >= 0 && (r = pwetcd_status(s.etcd, NULL)) < 0)
		r = cni_errorf(&ctx->err, CNI_ERR_NOT_AVAILABLE, r, "etcd unreachable: %s",
			       pwetcd_errmsg(s.etcd));
	if (r >= 0)
		r = status_pools(ctx, &s);
	if (r < 0 && ctx->err.code == CNI_ERR_TRY_AGAIN) /* etcd failed mid-way: not available */
		ctx->err.code = CNI_ERR_NOT_AVAILABLE;
	cipam_session_close(&s);
	return r;
}

const struct cni_plugin_ops ipam_cluster_ops = {
    .name = "cluster-ipam",
    .about = "podwire cluster-ipam (block IPAM on etcd v3)",
    .cni_args_keys = NULL, /* K8S_POD_* read when present; nothing else */
    .add = cluster_add,
    .del = cluster_del,
    .check = cluster_check,
    .gc = cluster_gc,
    .status = cluster_status,
};
