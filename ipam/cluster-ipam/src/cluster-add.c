/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam ADD: read (handle, pools, this node's blocks), plan one
 * address per family (own block with space, else claim a free block, else
 * borrow), then write everything in one txn whose compares fail if any
 * block, the handle or a pool changed meanwhile; retry on conflict.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "cluster-add.h"
#include "cluster-queue.h"

#define MAX_REFS 136

struct add_state {
	struct cipam_session *s;
	const struct cipam_add_req *reqs; /* one txn for all of them */
	struct cipam_add_out *outs;
	size_t n_reqs, cur; /* cur: the request being planned */
	struct cipam_bref refs[MAX_REFS];
	char *keys[MAX_REFS];
	size_t claimer[MAX_REFS]; /* request that claimed refs[i] */
	size_t n_refs;
	bool pool_missing[CIPAM_MAX_POOLS];
	struct {
		size_t ref;
		unsigned ordinal;
	} picks[CIPAM_MAX_BATCH][2];
	size_t n_picks[CIPAM_MAX_BATCH];
	char *raw[MAX_REFS];	/* value as read (own blocks): for the node cache */
	char *newval[MAX_REFS]; /* value the commit writes */
	struct {
		char *value; /* the stored pool matching configured pool i */
		int64_t mod;
	} pool_kv[CIPAM_MAX_POOLS];
	unsigned own_blocks;	     /* blocks this node holds (read) */
	bool cache_stale;	     /* the node cache did not name exactly the affinities */
	bool from_cache;	     /* the state is the node cache's, not read */
	int64_t revision;	     /* of the commit */
	struct pwetcd_txn_result rd; /* the reads the state was loaded from (owned) */
	/* pool i's block keys, read with the state (in rd), or NULL */
	const struct pwetcd_range_result *listing[CIPAM_MAX_POOLS];
	bool claim_in[CIPAM_MAX_POOLS]; /* the plan claims a block in pool i */
	/* a failed commit's failure branch: the state for the next attempt */
	struct pwetcd_txn_result next;
	bool has_next;
	bool next_listed[CIPAM_MAX_POOLS];
};

static void state_reset(struct add_state *st)
{
	for (size_t i = 0; i < st->n_refs; i++) {
		cipam_block_done(&st->refs[i].b);
		free(st->keys[i]);
		st->raw[i] = mfree(st->raw[i]);
		st->newval[i] = mfree(st->newval[i]);
	}
	for (size_t i = 0; i < CIPAM_MAX_POOLS; i++)
		st->pool_kv[i].value = mfree(st->pool_kv[i].value);
	st->n_refs = 0;
	st->from_cache = false;
	memset(st->n_picks, 0, sizeof(st->n_picks));
	st->own_blocks = 0;
	st->cache_stale = false;
	memset(st->pool_missing, 0, sizeof(st->pool_missing));
	pwetcd_txn_result_done(&st->rd);
	memset(st->listing, 0, sizeof(st->listing));
	memset(st->claim_in, 0, sizeof(st->claim_in));
}

static int config_mismatch(struct cipam_session *s, size_t i, const struct cipam_pool *stored)
{
	char a[IP_PREFIX_STRLEN], b[IP_PREFIX_STRLEN];
	const struct cipam_pool *p = &s->c->pools[i];

	return cni_errorf(s->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "ipam.pools[%zu]: pool %s/blockSize %u disagrees with pool %s/blockSize "
			  "%u stored in etcd",
			  i, ip_prefix_fmt(&p->cidr, a), p->block_size,
			  ip_prefix_fmt(&stored->cidr, b), stored->block_size);
}

/* Compare the configured pools with etcd's: equal, missing (to create) or a code-7 error. */
static int check_pools(struct add_state *st, const struct pwetcd_range_result *pools)
{
	const struct cipam_conf *c = st->s->c;

	for (size_t i = 0; i < c->n_pools; i++) {
		bool found = false;

		for (size_t k = 0; k < pools->n_kvs; k++) {
			const struct pwetcd_kv *kv = &pools->kvs[k];
			struct cipam_pool sp;
			const char *why;

			if (cipam_pool_parse(kv->value ? kv->value : "", kv->value_len, &sp, &why) <
			    0) {
				cni_log_warning("etcd key '%s': %s, ignored", kv->key, why);
				continue;
			}
			if (!ip_prefix_contains(&sp.cidr, c->pools[i].cidr.family,
						&c->pools[i].cidr.addr) &&
			    !ip_prefix_contains(&c->pools[i].cidr, sp.cidr.family, &sp.cidr.addr))
				continue;
			if (sp.cidr.prefixlen != c->pools[i].cidr.prefixlen ||
			    sp.block_size != c->pools[i].block_size)
				return config_mismatch(st->s, i, &sp);
			found = true;
			free(st->pool_kv[i].value);
			st->pool_kv[i].value = strndup(kv->value, kv->value_len);
			st->pool_kv[i].mod = kv->mod_revision;
		}
		st->pool_missing[i] = !found;
	}
	return 0;
}

static bool own(const struct add_state *st, const struct cipam_block *b)
{
	return b->node && strcmp(b->node, st->s->c->node) == 0;
}

static int push_ref(struct add_state *st, char *key, size_t *ret)
{
	if (!key)
		return -ENOMEM;
	if (st->n_refs >= MAX_REFS) {
		free(key);
		return -E2BIG;
	}
	st->keys[st->n_refs] = key;
	memset(&st->refs[st->n_refs], 0, sizeof(st->refs[0]));
	*ret = st->n_refs++;
	return 0;
}

/*
 * This node's blocks: those in the cache were read by round trip 1 (ops
 * from index `first_op` of res1, one per cached block: load_state counted
 * them); the others are read now in one txn.
 */
static int read_own_blocks(struct add_state *st, const struct pwetcd_range_result *affs,
			   const struct cipam_cache *cache, const struct pwetcd_txn_result *res1,
			   size_t first_op)
{
	struct cipam_session *s = st->s;
	size_t dirlen = strlen(s->c->prefix) + strlen("/ipam/affinity/") + strlen(s->c->node) + 1;
	const struct cipam_preread pr = {
	    .cidr = cache->v, .res = res1->ops + first_op, .n = cache->n};
	struct ip_prefix cidr[CIPAM_READ_MAX] = {0};
	const struct pwetcd_range_result *rr[CIPAM_READ_MAX];
	struct pwetcd_txn_result res = {0};
	size_t n = 0, first = st->n_refs, idx;
	int r = 0;

	for (size_t i = 0; i < affs->n_kvs && n < CIPAM_READ_MAX && r >= 0; i++) {
		const struct pwetcd_kv *kv = &affs->kvs[i];

		if (kv->key_len <= dirlen || cipam_keypart_parse(kv->key + dirlen, &cidr[n]) < 0 ||
		    cipam_pool_find(s->c, cidr[n].family, &cidr[n].addr) < 0)
			continue;
		r = push_ref(st, cipam_key_block(s->c->prefix, &cidr[n]), &idx);
		n += r >= 0;
	}
	if (r >= 0)
		r = cipam_read_blocks(s, &pr, cidr, n, rr, &res);
	/* blocks not in the cache (or no cache) cost one more round trip */
	st->cache_stale = r != 0 || n != cache->n;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		struct cipam_bref *ref = &st->refs[first + i];

		if (rr[i]->n_kvs == 0) /* affinity without block: GC repairs; not usable */
			continue;
		r = cipam_bref_load(s, &rr[i]->kvs[0], &cidr[i], ref);
		if (r >= 0 && own(st, &ref->b)) {
			st->own_blocks++;
			st->raw[first + i] = strdup(rr[i]->kvs[0].value);
		}
	}
	pwetcd_txn_result_done(&res);
	return r;
}

/* An existing handle of request i: its addresses are the answer. */
static int existing_handle(struct add_state *st, size_t i, const struct pwetcd_kv *kv)
{
	struct cipam_add_out *out = &st->outs[i];
	struct cipam_handle h = {0};
	const char *why = "";
	int r = cipam_handle_parse(kv->value ? kv->value : "", kv->value_len, &h, &why);

	if (r < 0)
		return cni_errorf(st->s->err, CNI_ERR_TRY_AGAIN, r, "etcd key '%s': %s", kv->key,
				  why);
	out->existing = true;
	out->n_ips = h.n_ips < 2 ? h.n_ips : 2;
	memcpy(out->ips, h.ips, sizeof(h.ips[0]) * out->n_ips);
	cipam_handle_done(&h);
	return 0;
}

static void outs_reset(struct add_state *st)
{
	for (size_t i = 0; i < st->n_reqs; i++) {
		st->outs[i].existing = false;
		st->outs[i].n_ips = st->outs[i].n_claimed = 0;
	}
}

/* The handles of the requests: existing ones answered. 1 when all exist. */
static int read_handles(struct add_state *st, const struct pwetcd_txn_result *res)
{
	size_t n_existing = 0;

	outs_reset(st);
	for (size_t i = 0; i < st->n_reqs; i++) {
		if (res->ops[i].range.n_kvs == 0)
			continue;
		if (existing_handle(st, i, &res->ops[i].range.kvs[0]) < 0)
			return -EBADMSG;
		n_existing++;
	}
	return n_existing == st->n_reqs ? 1 : 0;
}

/*
 * The reads of an ADD into branch b: handles, pools, affinities, the
 * cache's blocks, then the block keys of every pool i with listed[i].
 */
static int add_reads(struct add_state *st, struct pwetcd_txn *t, enum pwetcd_branch b,
		     const struct cipam_cache *cache, const bool *listed)
{
	struct cipam_session *s = st->s;
	_cleanup_free_ char *pools = cipam_key_dir(s->c->prefix, "pools", NULL);
	_cleanup_free_ char *affs = cipam_key_dir(s->c->prefix, "affinity", s->c->node);
	struct pwetcd_range_req rp = {.key = pools, .prefix = true},
				ra = {.key = affs, .prefix = true, .keys_only = true};

	if (!pools || !affs)
		return -ENOMEM;
	for (size_t i = 0; i < st->n_reqs; i++) {
		struct pwetcd_range_req rh = {.key = st->reqs[i].handle_key};

		pwetcd_txn_range(t, b, &rh);
	}
	pwetcd_txn_range(t, b, &rp);
	pwetcd_txn_range(t, b, &ra);
	for (size_t i = 0; i < cache->n; i++) {
		_cleanup_free_ char *bkey = cipam_key_block(s->c->prefix, &cache->v[i]);
		struct pwetcd_range_req rb = {.key = bkey};

		if (!bkey)
			return -ENOMEM;
		pwetcd_txn_range(t, b, &rb);
	}
	for (size_t i = 0; i < s->c->n_pools; i++) {
		_cleanup_free_ char *key = NULL, *end = NULL;
		struct pwetcd_range_req rl = {.keys_only = true};

		if (!listed[i])
			continue;
		if (cipam_pool_block_range(s->c->prefix, &s->c->pools[i], &key, &end) < 0)
			return -ENOMEM;
		rl.key = key;
		rl.range_end = end;
		pwetcd_txn_range(t, b, &rl);
	}
	return 0;
}

/*
 * The answer to add_reads (moved into st->rd): 1 when every handle exists
 * (outs filled), 0 state loaded.
 */
static int load_state(struct add_state *st, struct pwetcd_txn_result *in,
		      const struct cipam_cache *cache, const bool *listed)
{
	const struct pwetcd_txn_result *res = &st->rd;
	size_t n = st->n_reqs, k = n + 2 + cache->n, n_listed = 0;
	int r;

	pwetcd_txn_result_done(&st->rd);
	st->rd = *in;
	memset(in, 0, sizeof(*in));
	for (size_t i = 0; i < st->s->c->n_pools; i++)
		n_listed += listed[i];
	if (res->n_ops != k + n_listed)
		return cni_errorf(st->s->err, CNI_ERR_TRY_AGAIN, -EBADMSG,
				  "etcd: short txn answer");
	for (size_t i = 0; i < st->s->c->n_pools; i++)
		st->listing[i] = listed[i] ? &res->ops[k++].range : NULL;
	r = read_handles(st, res);
	if (r == 0)
		r = check_pools(st, &res->ops[n].range);
	if (r == 0)
		r = read_own_blocks(st, &res->ops[n + 1].range, cache, res, n + 2);
	return r;
}

/*
 * Round trip 1 of an ADD without a usable node cache. A cache that names
 * no block (a node that has none yet claims one) also lists the pools'
 * block keys, so that the claim needs no round trip of its own.
 */
static int read_state(struct add_state *st, const struct cipam_cache *cache)
{
	_cleanup_(pwetcd_txn_freep) struct pwetcd_txn *t = pwetcd_txn_new();
	struct pwetcd_txn_result res = {0};
	bool listed[CIPAM_MAX_POOLS];
	int r;

	for (size_t i = 0; i < CIPAM_MAX_POOLS; i++)
		listed[i] = cache->n == 0 && i < st->s->c->n_pools;
	r = t ? add_reads(st, t, PWETCD_SUCCESS, cache, listed) : -ENOMEM;
	if (r < 0)
		return r;
	r = pwetcd_txn_commit(st->s->etcd, t, &res);
	if (r < 0)
		return cipam_etcd_error(st->s, r, "read pools and blocks");
	r = load_state(st, &res, cache, listed);
	pwetcd_txn_result_done(&res);
	return r;
}

/* After a commit: the node cache holds the pools and this node's blocks as written. */
static void update_cache(struct add_state *st)
{
	const struct cipam_conf *c = st->s->c;
	struct cipam_cache cache = {0}; /* borrows the state's strings */

	for (size_t i = 0; i < c->n_pools; i++) {
		struct cipam_cache_kv *p = &cache.pools[cache.n_pools];

		p->cidr = c->pools[i].cidr;
		p->mod = st->pool_missing[i] ? st->revision : st->pool_kv[i].mod;
		p->value =
		    st->pool_missing[i] ? cipam_pool_json(&c->pools[i]) : st->pool_kv[i].value;
		if (p->value && !st->pool_missing[i])
			p->value = strdup(p->value);
		cache.n_pools += p->value != NULL;
	}
	for (size_t i = 0; i < st->n_refs && cache.n < CIPAM_CACHE_MAX; i++) {
		const struct cipam_bref *ref = &st->refs[i];
		char *v = ref->dirty ? st->newval[i] : st->raw[i];

		if (!(ref->exists || ref->claimed) || !own(st, &ref->b))
			continue;
		cache.v[cache.n] = ref->b.cidr;
		cache.mod[cache.n] = ref->dirty ? st->revision : ref->b.mod_revision;
		cache.val[cache.n++] = v ? strdup(v) : NULL;
	}
	cipam_cache_save(st->s, &cache);
	cipam_cache_done(&cache);
}

static int take(struct add_state *st, size_t ref, unsigned ordinal)
{
	size_t q = st->cur;
	int r = cipam_block_take(&st->refs[ref].b, ordinal, st->reqs[q].handle_id, st->s->now);

	if (r < 0)
		return r;
	st->refs[ref].dirty = true;
	st->picks[q][st->n_picks[q]].ref = ref;
	st->picks[q][st->n_picks[q]++].ordinal = ordinal;
	return 0;
}

/* Block cidr claimed by the request being planned, as refs[ref]. */
static int claim_ref(struct add_state *st, size_t ref, const struct ip_prefix *cidr)
{
	st->refs[ref].claimed = true;
	st->claimer[ref] = st->cur;
	return cipam_block_init(&st->refs[ref].b, cidr, st->s->c->node, st->s->now);
}

static int new_block(struct add_state *st, const struct ip_prefix *cidr, size_t *ret)
{
	int r = push_ref(st, cipam_key_block(st->s->c->prefix, cidr), ret);

	return r < 0 ? r : claim_ref(st, *ret, cidr);
}

static unsigned claims(const struct add_state *st)
{
	unsigned n = 0;

	for (size_t i = 0; i < st->n_refs; i++)
		n += st->refs[i].claimed;
	return n;
}

static bool at_cap(const struct add_state *st)
{
	return st->s->c->max_blocks && st->own_blocks + claims(st) >= st->s->c->max_blocks;
}

static int cmp_u128(const void *a, const void *b)
{
	cipam_u128 x = *(const cipam_u128 *)a, y = *(const cipam_u128 *)b;

	return x < y ? -1 : x > y;
}

/* The pool's block numbers in use (in etcd or claimed by this txn), ascending. */
static int used_indexes(const struct add_state *st, const struct cipam_pool *p,
			const struct pwetcd_range_result *rr, cipam_u128 **ret, size_t *ret_n)
{
	size_t dirlen = strlen(st->s->c->prefix) + strlen("/ipam/blocks/");
	cipam_u128 *v = calloc(rr->n_kvs + st->n_refs + 1, sizeof(*v));
	size_t n = 0;
	bool added = false;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < rr->n_kvs; i++) {
		struct ip_prefix b;

		if (rr->kvs[i].key_len <= dirlen ||
		    cipam_keypart_parse(rr->kvs[i].key + dirlen, &b) < 0 ||
		    !ip_prefix_contains(&p->cidr, b.family, &b.addr))
			continue;
		v[n++] = cipam_pool_block_index(p, &b.addr);
	}
	for (size_t i = 0; i < st->n_refs; i++) {
		const struct ip_prefix *b = &st->refs[i].b.cidr;

		if (!st->refs[i].claimed || !ip_prefix_contains(&p->cidr, b->family, &b->addr))
			continue;
		v[n++] = cipam_pool_block_index(p, &b->addr);
		added = true;
	}
	if (added)
		qsort(v, n, sizeof(*v), cmp_u128);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* First free block number at or after start (wrapping), or -ENOSPC. */
int cipam_free_index(const cipam_u128 *used, size_t n, cipam_u128 total, cipam_u128 start,
		     cipam_u128 *ret)
{
	cipam_u128 cand = start;
	size_t i = 0;

	while (i < n && used[i] < start)
		i++;
	for (; i < n && used[i] <= cand; i++)
		if (used[i] == cand)
			cand++;
	if (cand < total) {
		*ret = cand;
		return 0;
	}
	cand = 0;
	for (i = 0; i < n && used[i] <= cand && cand < start; i++)
		if (used[i] == cand)
			cand++;
	if (cand < start) {
		*ret = cand;
		return 0;
	}
	return -ENOSPC;
}

/* Claim a free block of pool pi (its block keys: read with the state, else now). */
static int claim_in_pool(struct add_state *st, size_t pi, bool *done)
{
	const struct cipam_pool *p = &st->s->c->pools[pi];
	struct pwetcd_range_result rr = {0};
	_cleanup_free_ cipam_u128 *used = NULL;
	cipam_u128 total = cipam_pool_blocks(p), idx;
	struct ip_prefix cidr;
	size_t n = 0, ref;
	int r = 0;

	*done = false;
	st->claim_in[pi] = true; /* a failed commit lists them again for the retry */
	if (st->listing[pi]) {
		r = used_indexes(st, p, st->listing[pi], &used, &n);
	} else {
		r = cipam_list_pool(st->s, p, &(struct pwetcd_range_req){.keys_only = true}, &rr);
		if (r >= 0)
			r = used_indexes(st, p, &rr, &used, &n);
		pwetcd_range_result_done(&rr);
	}
	if (r < 0)
		return r;
	if (cipam_free_index(used, n, total, (cipam_u128)cipam_hash(st->s->c->node) % total, &idx) <
	    0)
		return 0;
	cipam_pool_block(p, idx, &cidr);
	r = new_block(st, &cidr, &ref);
	if (r >= 0)
		r = take(st, ref, (unsigned)cipam_block_pick(&st->refs[ref].b));
	*done = r >= 0;
	return r;
}

static int find_key(const struct add_state *st, const char *key, size_t len)
{
	for (size_t i = 0; i < st->n_refs; i++)
		if (strlen(st->keys[i]) == len && memcmp(st->keys[i], key, len) == 0)
			return (int)i;
	return -1;
}

static int borrow_in_pool(struct add_state *st, const struct cipam_pool *p, bool *done)
{
	struct pwetcd_range_result rr = {0};
	int r;

	*done = false;
	r = cipam_list_pool(st->s, p, &(struct pwetcd_range_req){0}, &rr);
	for (size_t i = 0; r >= 0 && i < rr.n_kvs && !*done; i++) {
		struct cipam_bref tmp;
		size_t ref;
		int ord;

		int known = find_key(st, rr.kvs[i].key, rr.kvs[i].key_len);

		if (known >= 0) { /* read before (or taken from by this txn): its state here */
			ord = cipam_block_pick(&st->refs[known].b);
			if (ord >= 0 && !own(st, &st->refs[known].b)) {
				r = take(st, (size_t)known, (unsigned)ord);
				*done = r >= 0;
			}
			continue;
		}
		if (cipam_bref_load(st->s, &rr.kvs[i], NULL, &tmp) < 0) {
			cni_error_done(st->s->err); /* skip a broken block, check reports it */
			continue;
		}
		ord = cipam_block_pick(&tmp.b);
		if (ord < 0 || own(st, &tmp.b)) {
			cipam_block_done(&tmp.b);
			continue;
		}
		r = push_ref(st, strndup(rr.kvs[i].key, rr.kvs[i].key_len), &ref);
		if (r < 0) {
			cipam_block_done(&tmp.b);
			break;
		}
		st->refs[ref] = tmp;
		r = take(st, ref, (unsigned)ord);
		*done = r >= 0;
	}
	pwetcd_range_result_done(&rr);
	return r;
}

static int exhausted(struct add_state *st, int family, const char *why)
{
	return cni_errorf(st->s->err, CNI_ERR_IPAM_EXHAUSTED, -ENOSPC,
			  "no IPv%c address left for node %s: %s", family == AF_INET6 ? '6' : '4',
			  st->s->c->node, why);
}

static int plan_auto(struct add_state *st, int family)
{
	const struct cipam_conf *c = st->s->c;
	bool done = false;
	int r = 0;

	for (size_t i = 0; i < st->n_refs; i++) {
		const struct cipam_block *b = &st->refs[i].b;
		int ord;

		if (!(st->refs[i].exists || st->refs[i].claimed) || b->cidr.family != family ||
		    !own(st, b) || (ord = cipam_block_pick(b)) < 0)
			continue;
		return take(st, i, (unsigned)ord);
	}
	if (st->from_cache) /* claiming or borrowing needs the real state */
		return -ENOENT;
	if (at_cap(st))
		return exhausted(st, family, "its maxBlocksPerNode blocks are full");
	for (size_t i = 0; i < c->n_pools && !done && r >= 0; i++)
		if (c->pools[i].cidr.family == family)
			r = claim_in_pool(st, i, &done);
	if (done || r < 0)
		return r;
	if (c->strict_affinity)
		return exhausted(st, family,
				 "every block is claimed (strictAffinity: no borrowing)");
	for (size_t i = 0; i < c->n_pools && !done && r >= 0; i++)
		if (c->pools[i].cidr.family == family)
			r = borrow_in_pool(st, &c->pools[i], &done);
	if (done || r < 0)
		return r;
	return exhausted(st, family, "every block of the pools is full");
}

static int find_ref(struct add_state *st, const struct ip_prefix *cidr)
{
	for (size_t i = 0; i < st->n_refs; i++) {
		const struct cipam_block *b = &st->refs[i].b;

		if ((st->refs[i].exists || st->refs[i].claimed) && ip_prefix_equal(&b->cidr, cidr))
			return (int)i;
	}
	return -1;
}

static int plan_requested(struct add_state *st, const struct ip_prefix *want)
{
	const struct cipam_conf *c = st->s->c;
	const struct cipam_pool *p = &c->pools[cipam_pool_find(c, want->family, &want->addr)];
	struct ip_prefix cidr = {.family = want->family, .addr = want->addr};
	char buf[INET6_ADDRSTRLEN];
	int i, r;
	size_t ref;

	cidr.prefixlen = (unsigned char)p->block_size;
	ip_prefix_mask(&cidr);
	i = find_ref(st, &cidr);
	if (i < 0) { /* read it: taken from, claimed or borrowed */
		r = push_ref(st, cipam_key_block(c->prefix, &cidr), &ref);
		if (r >= 0)
			r = cipam_read_block(st->s, &cidr, &st->refs[ref]);
		if (r == 0 && at_cap(st))
			r = exhausted(st, want->family, "its maxBlocksPerNode blocks are full");
		else if (r == 0)
			r = claim_ref(st, ref, &cidr);
		if (r < 0)
			return r;
		i = (int)ref;
	}
	r = take(st, (size_t)i, cipam_block_ordinal(&cidr, &want->addr));
	if (r == -EEXIST)
		return cni_errorf(st->s->err, CNI_ERR_IPAM_CONFLICT, r,
				  "requested IP %s is already allocated (to %s)",
				  ip_addr_fmt(want->family, &want->addr, buf),
				  st->refs[i].b.used[cipam_block_ordinal(&cidr, &want->addr)]);
	return r;
}

static bool has_family(const struct cipam_conf *c, int family)
{
	for (size_t i = 0; i < c->n_pools; i++)
		if (c->pools[i].cidr.family == family)
			return true;
	return false;
}

static int plan_one(struct add_state *st)
{
	static const int families[] = {AF_INET, AF_INET6};
	const struct cipam_conf *c = st->s->c;
	int r = 0;

	for (size_t f = 0; f < 2 && r >= 0; f++) {
		const struct ip_prefix *want = NULL;

		if (!has_family(c, families[f]))
			continue;
		for (size_t i = 0; i < c->n_requested; i++)
			if (c->requested[i].family == families[f])
				want = &c->requested[i];
		/* requested addresses: only the families asked for */
		if (c->n_requested > 0 && !want)
			continue;
		r = want ? plan_requested(st, want) : plan_auto(st, families[f]);
	}
	return r;
}

/* Every request whose handle is new; in a batch, any failure fails the plan (-ECANCELED). */
static int plan(struct add_state *st)
{
	int r = 0;

	for (st->cur = 0; st->cur < st->n_reqs && r >= 0; st->cur++) {
		if (st->outs[st->cur].existing)
			continue;
		r = plan_one(st);
		if (r >= 0 && st->n_picks[st->cur] == 0)
			r = cni_errorf(st->s->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				       "ipam.pools: no pool for the requested families");
	}
	if (r < 0 && r != -ENOMEM && st->from_cache) {
		cni_error_done(st->s->err); /* not from the cache alone: read first */
		r = -ENOENT;
	} else if (r < 0 && st->n_reqs > 1) {
		cni_error_done(st->s->err); /* served one by one instead */
		r = -ECANCELED;
	}
	return r;
}

/* The addresses of request q's picks, each with its block's prefix length. */
static size_t picked_ips(const struct add_state *st, size_t q, struct ip_prefix *ips)
{
	for (size_t k = 0; k < st->n_picks[q]; k++) {
		const struct cipam_block *b = &st->refs[st->picks[q][k].ref].b;

		ips[k] = b->cidr;
		cipam_block_addr(&b->cidr, st->picks[q][k].ordinal, &ips[k].addr);
	}
	return st->n_picks[q];
}

/* The handle value of request i's picks. */
static char *handle_value(struct add_state *st, size_t i)
{
	const struct cipam_add_req *q = &st->reqs[i];
	struct cipam_handle h = {
	    .id = (char *)q->handle_id,
	    .node = (char *)st->s->c->node,
	    .container_id = (char *)q->container_id,
	    .ifname = (char *)q->ifname,
	    .network = (char *)q->network,
	    .pod = (char *)q->pod,
	    .created = st->s->now,
	};

	h.n_ips = picked_ips(st, i, h.ips);
	return cipam_handle_json(&h);
}

static void put_pools(struct add_state *st, struct pwetcd_txn *t)
{
	for (size_t i = 0; i < st->s->c->n_pools; i++) {
		_cleanup_free_ char *key = NULL, *val = NULL;

		if (!st->pool_missing[i])
			continue;
		key = cipam_key_pool(st->s->c->prefix, &st->s->c->pools[i].cidr);
		val = cipam_pool_json(&st->s->c->pools[i]);
		pwetcd_txn_cmp(t, key, PWETCD_TARGET_VERSION, PWETCD_EQUAL, 0);
		pwetcd_txn_put(t, PWETCD_SUCCESS, key, val, val ? strlen(val) : 0, 0);
	}
}

static void put_block(struct add_state *st, struct pwetcd_txn *t, size_t i)
{
	const struct cipam_bref *ref = &st->refs[i];
	char *val = cipam_block_json(&ref->b);

	if (ref->claimed) {
		_cleanup_free_ char *akey =
		    cipam_key_affinity(st->s->c->prefix, st->s->c->node, &ref->b.cidr);
		char cidr[IP_PREFIX_STRLEN], aval[IP_PREFIX_STRLEN + 40];

		snprintf(aval, sizeof(aval), "{\"cidr\":\"%s\",\"claimed\":%lld}",
			 ip_prefix_fmt(&ref->b.cidr, cidr), (long long)st->s->now);
		pwetcd_txn_cmp(t, st->keys[i], PWETCD_TARGET_VERSION, PWETCD_EQUAL, 0);
		pwetcd_txn_put(t, PWETCD_SUCCESS, akey, aval, strlen(aval), 0);
	} else {
		pwetcd_txn_cmp(t, st->keys[i], PWETCD_TARGET_MOD, PWETCD_EQUAL,
			       ref->b.mod_revision);
	}
	pwetcd_txn_put(t, PWETCD_SUCCESS, st->keys[i], val, val ? strlen(val) : 0, 0);
	free(st->newval[i]);
	st->newval[i] = val; /* for the node cache */
}

static int put_handle(struct add_state *st, struct pwetcd_txn *t, size_t i)
{
	_cleanup_free_ char *hval = handle_value(st, i);
	const char *key = st->reqs[i].handle_key;

	if (!hval)
		return -ENOMEM;
	pwetcd_txn_cmp(t, key, PWETCD_TARGET_VERSION, PWETCD_EQUAL, 0);
	pwetcd_txn_put(t, PWETCD_SUCCESS, key, hval, strlen(hval), 0);
	return 0;
}

/* A write from the node cache also compares the pools it relied on. */
static void cmp_pools(struct add_state *st, struct pwetcd_txn *t)
{
	for (size_t i = 0; i < st->s->c->n_pools; i++) {
		_cleanup_free_ char *key =
		    cipam_key_pool(st->s->c->prefix, &st->s->c->pools[i].cidr);

		pwetcd_txn_cmp(t, key, PWETCD_TARGET_MOD, PWETCD_EQUAL, st->pool_kv[i].mod);
	}
}

/*
 * The one write: 1 committed, 0 a compare failed: then *res holds, from
 * the failure branch, the reads of add_reads (with cache, and the block
 * keys of the pools the plan claims in), so that the next plan needs no
 * read of its own. When the state came from the node cache
 * (st->from_cache), the pools it relied on are compared too.
 */
static int commit(struct add_state *st, const struct cipam_cache *cache,
		  struct pwetcd_txn_result *res)
{
	_cleanup_(pwetcd_txn_freep) struct pwetcd_txn *t = pwetcd_txn_new();
	int r = t ? 0 : -ENOMEM;

	for (size_t i = 0; i < st->n_reqs && r >= 0; i++)
		if (!st->outs[i].existing)
			r = put_handle(st, t, i);
	if (r >= 0 && st->from_cache)
		cmp_pools(st, t);
	if (r >= 0)
		r = add_reads(st, t, PWETCD_FAILURE, cache, st->claim_in);
	if (r < 0)
		return r;
	put_pools(st, t);
	for (size_t i = 0; i < st->n_refs; i++)
		if (st->refs[i].dirty)
			put_block(st, t, i);
	r = pwetcd_txn_commit(st->s->etcd, t, res);
	if (r < 0)
		return cipam_etcd_error(st->s, r, "allocate");
	st->revision = res->revision;
	return res->succeeded ? 1 : 0;
}

static void fill_out(struct add_state *st, size_t q)
{
	struct cipam_add_out *out = &st->outs[q];

	out->n_ips = picked_ips(st, q, out->ips);
	for (size_t i = 0; i < out->n_ips; i++)
		out->borrowed[i] = !own(st, &st->refs[st->picks[q][i].ref].b);
	out->n_claimed = 0;
	for (size_t i = 0; i < st->n_refs && out->n_claimed < 2; i++)
		if (st->refs[i].claimed && st->refs[i].dirty && st->claimer[i] == q)
			out->claimed[out->n_claimed++] = st->refs[i].b.cidr;
}

/* Index of the cached pool equal to p, or -1. */
static int cached_pool(const struct cipam_cache *cache, const struct cipam_pool *p)
{
	for (size_t k = 0; k < cache->n_pools; k++) {
		const struct cipam_cache_kv *kv = &cache->pools[k];
		struct cipam_pool sp;
		const char *why;

		if (cipam_pool_parse(kv->value, strlen(kv->value), &sp, &why) == 0 &&
		    ip_prefix_equal(&sp.cidr, &p->cidr) && sp.block_size == p->block_size)
			return (int)k;
	}
	return -1;
}

/* The state as the node cache has it: 0, or -ENOENT when it cannot be used alone. */
static int cached_state(struct add_state *st, const struct cipam_cache *cache)
{
	const struct cipam_conf *c = st->s->c;
	size_t idx;
	int r;

	if (c->n_requested > 0 || cache->n == 0)
		return -ENOENT;
	for (size_t i = 0; i < c->n_pools; i++) {
		int k = cached_pool(cache, &c->pools[i]);

		if (k < 0)
			return -ENOENT;
		st->pool_kv[i].value = strdup(cache->pools[k].value);
		st->pool_kv[i].mod = cache->pools[k].mod;
	}
	for (size_t i = 0; i < cache->n; i++) {
		struct pwetcd_kv kv = {.key = (char *)"<node cache>",
				       .value = cache->val[i],
				       .value_len = cache->val[i] ? strlen(cache->val[i]) : 0,
				       .mod_revision = cache->mod[i]};

		if (!cache->val[i])
			return -ENOENT;
		if (cipam_pool_find(c, cache->v[i].family, &cache->v[i].addr) < 0)
			continue; /* not in the configured pools (any more) */
		r = push_ref(st, cipam_key_block(c->prefix, &cache->v[i]), &idx);
		if (r < 0)
			return r;
		if (cipam_bref_load(st->s, &kv, &cache->v[i], &st->refs[idx]) < 0 ||
		    !own(st, &st->refs[idx].b)) {
			cni_error_done(st->s->err);
			return -ENOENT;
		}
		st->raw[idx] = strdup(cache->val[i]);
		st->own_blocks++;
	}
	st->from_cache = true;
	return 0;
}

/*
 * Allocate from the node cache without reading: 2 committed, 1 every
 * handle exists, 0 the real state was read (a compare failed: plan
 * again), -ENOENT the cache cannot serve this (nothing sent), or an error.
 */
static int attempt_cached(struct add_state *st, const struct cipam_cache *cache)
{
	struct pwetcd_txn_result res = {0};
	int r = cached_state(st, cache);

	outs_reset(st);
	if (r >= 0)
		r = plan(st);
	if (r >= 0)
		r = commit(st, cache, &res);
	if (r == 0) { /* the failure branch read the real state */
		bool listed[CIPAM_MAX_POOLS];

		memcpy(listed, st->claim_in, sizeof(listed));
		state_reset(st);
		r = load_state(st, &res, cache, listed);
	} else if (r == 1) {
		r = 2;
	}
	pwetcd_txn_result_done(&res);
	return r;
}

/*
 * One try: 1 done (committed, or every handle exists), 0 lost a race (the
 * failure branch's reads kept in st->next for the next try), or an error.
 */
static int attempt(struct add_state *st, bool try_cache, const struct cipam_cache *cache)
{
	struct pwetcd_txn_result res = {0};
	int r;

	if (st->has_next) { /* the last try's failed commit read the state */
		st->has_next = false;
		r = load_state(st, &st->next, cache, st->next_listed);
	} else {
		r = try_cache ? attempt_cached(st, cache) : -ENOENT;
		if (r == -ENOENT) {
			state_reset(st);
			r = read_state(st, cache);
		}
	}
	if (r == 0) { /* state read: plan and write */
		r = plan(st);
		if (r >= 0)
			r = commit(st, cache, &res);
		if (r == 1) {
			r = 2;
		} else if (r == 0) {
			st->next = res;
			memset(&res, 0, sizeof(res));
			memcpy(st->next_listed, st->claim_in, sizeof(st->next_listed));
			st->has_next = true;
		}
	}
	if (r == 2) {
		for (size_t i = 0; i < st->n_reqs; i++)
			if (!st->outs[i].existing)
				fill_out(st, i);
		update_cache(st);
		r = 1;
	}
	pwetcd_txn_result_done(&res);
	return r;
}

/* All requests in one txn (retried on conflict): 0, -ECANCELED (plan failed), or an error. */
static int allocate_together(struct cipam_session *s, const struct cipam_add_req *reqs, size_t n,
			     struct cipam_add_out *outs)
{
	struct add_state *st = calloc(1, sizeof(*st));
	struct cipam_cache cache; /* under the node lock: it changes only by our commit */
	int r = 0;

	if (!st)
		return cni_errorf(s->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	st->s = s;
	st->reqs = reqs;
	st->n_reqs = n;
	st->outs = outs;
	cipam_cache_load(s, &cache);
	for (unsigned k = 0; k < CIPAM_MAX_ATTEMPTS; k++) {
		r = attempt(st, k == 0, &cache);
		state_reset(st);
		if (r != 0)
			break;
		s->conflicts++;
		cipam_backoff(s, k);
	}
	pwetcd_txn_result_done(&st->next);
	cipam_cache_done(&cache);
	free(st);
	if (r == 0)
		return cni_errorf(s->err, CNI_ERR_TRY_AGAIN, -EAGAIN,
				  "etcd: allocation lost %d races in a row", CIPAM_MAX_ATTEMPTS);
	if (r == -ENOMEM)
		return cni_errorf(s->err, CNI_ERR_PLUGIN, r, "out of memory");
	return r < 0 ? r : 0;
}

int cipam_allocate(struct cipam_session *s, const struct cipam_add_req *reqs, size_t n,
		   struct cipam_add_out *outs)
{
	struct cni_error *err = s->err;
	int r;

	if (n == 0 || n > CIPAM_MAX_BATCH)
		return -EINVAL;
	r = allocate_together(s, reqs, n, outs);
	if (r != -ECANCELED)
		return r;
	/* a request of the batch could not be planned (e.g. no address left): each alone */
	for (size_t i = 0; i < n; i++) {
		s->err = &outs[i].err;
		outs[i].r = allocate_together(s, &reqs[i], 1, &outs[i]);
	}
	s->err = err;
	return 0;
}
