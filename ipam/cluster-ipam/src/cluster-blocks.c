/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam: releasing a node's empty blocks (GC, ADD's rollback) and
 * keeping its blackhole routes equal to the blocks it holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "cluster-store.h"

/* A walk over the node's affinities, and the blocks it still holds afterwards. */
struct walk {
	struct cipam_session *s;
	unsigned grace_s;
	const struct ip_prefix *only; /* release only these (NULL: any) */
	size_t n_only;
	struct ip_prefix *held;
	size_t n_held;
};

static bool in_list(const struct ip_prefix *list, size_t n, const struct ip_prefix *p)
{
	for (size_t i = 0; i < n; i++)
		if (ip_prefix_equal(&list[i], p))
			return true;
	return false;
}

/* Delete block + affinity (compare both revisions). 1 done, 0 lost a race. */
static int drop_block(struct cipam_session *s, const char *bkey, int64_t brev, const char *akey,
		      int64_t arev)
{
	_cleanup_(pwetcd_txn_freep) struct pwetcd_txn *t = pwetcd_txn_new();
	struct pwetcd_txn_result res = {0};
	int r;

	if (!t)
		return -ENOMEM;
	if (bkey) {
		pwetcd_txn_cmp(t, bkey, PWETCD_TARGET_MOD, PWETCD_EQUAL, brev);
		pwetcd_txn_delete(t, PWETCD_SUCCESS, bkey, false);
	}
	pwetcd_txn_cmp(t, akey, PWETCD_TARGET_MOD, PWETCD_EQUAL, arev);
	pwetcd_txn_delete(t, PWETCD_SUCCESS, akey, false);
	r = pwetcd_txn_commit(s->etcd, t, &res);
	if (r < 0)
		return cipam_etcd_error(s, r, "release block");
	r = res.succeeded ? 1 : 0;
	pwetcd_txn_result_done(&res);
	return r;
}

static int route_gone(struct cipam_session *s, const struct ip_prefix *p)
{
	char buf[IP_PREFIX_STRLEN];
	int r = cipam_route_del(p, s->c->route_protocol);

	if (r < 0)
		return cni_errorf(s->err, CNI_ERR_PLUGIN, r,
				  "delete route blackhole %s proto %u: %s", ip_prefix_fmt(p, buf),
				  s->c->route_protocol, strerror(-r));
	return 0;
}

/* An affinity whose block is gone or another node's: deleted, with its blackhole. */
static int drop_affinity(struct walk *w, const struct pwetcd_kv *aff, const struct ip_prefix *cidr)
{
	int r = drop_block(w->s, NULL, 0, aff->key, aff->mod_revision);

	return r < 0 ? r : route_gone(w->s, cidr);
}

/* The block b of affinity aff: released when ours, eligible, empty and old enough, else held. */
static int own_block(struct walk *w, const struct pwetcd_kv *aff, const struct cipam_block *b)
{
	_cleanup_free_ char *bkey = NULL;
	char buf[IP_PREFIX_STRLEN];
	int r = 0;

	if (!b->node || strcmp(b->node, w->s->c->node) != 0) {
		cni_log_warning("affinity '%s': the block belongs to %s: deleting it", aff->key,
				b->node ? b->node : "nobody");
		return drop_affinity(w, aff, &b->cidr);
	}
	if ((!w->only || in_list(w->only, w->n_only, &b->cidr)) && b->n_used == 0 &&
	    w->s->now - b->updated >= (int64_t)w->grace_s) {
		bkey = cipam_key_block(w->s->c->prefix, &b->cidr);
		r = bkey ? drop_block(w->s, bkey, b->mod_revision, aff->key, aff->mod_revision)
			 : -ENOMEM;
		if (r == 1) {
			cni_log_info("released empty block %s", ip_prefix_fmt(&b->cidr, buf));
			return route_gone(w->s, &b->cidr);
		}
	}
	if (r == 0) /* kept, or changed meanwhile: still ours */
		w->held[w->n_held++] = b->cidr;
	return r;
}

/* Read the block of affinity aff and decide: release it, repair the affinity, or keep it. */
static int one_block(struct walk *w, const struct pwetcd_kv *aff, const struct ip_prefix *cidr)
{
	struct cipam_bref ref;
	int r = cipam_read_block(w->s, cidr, &ref);

	if (r == 0) {
		cni_log_warning("affinity '%s' has no block: deleting it", aff->key);
		r = drop_affinity(w, aff, cidr);
	} else if (r > 0) {
		r = own_block(w, aff, &ref.b);
	}
	cipam_block_done(&ref.b);
	return r;
}

/* The node's blackholes inside the pools (of their block size) made equal to the blocks held. */
static int reconcile_routes(const struct walk *w)
{
	struct cipam_session *s = w->s;
	_cleanup_free_ struct ip_prefix *routes = NULL;
	char buf[IP_PREFIX_STRLEN];
	size_t n = 0;
	int r = cipam_route_list(s->c->route_protocol, &routes, &n);

	if (r < 0)
		return cni_errorf(s->err, CNI_ERR_PLUGIN, r, "list routes: %s", strerror(-r));
	for (size_t i = 0; i < w->n_held; i++) {
		if (in_list(routes, n, &w->held[i]))
			continue;
		cni_log_info("adding missing blackhole %s", ip_prefix_fmt(&w->held[i], buf));
		r = cipam_route_add(&w->held[i], s->c->route_protocol);
		if (r < 0)
			return cni_errorf(s->err, CNI_ERR_PLUGIN, r, "add route blackhole %s: %s",
					  ip_prefix_fmt(&w->held[i], buf), strerror(-r));
	}
	for (size_t i = 0; i < n && r >= 0; i++) {
		int p = cipam_pool_find(s->c, routes[i].family, &routes[i].addr);

		if (in_list(w->held, w->n_held, &routes[i]) || p < 0 ||
		    routes[i].prefixlen != s->c->pools[p].block_size)
			continue;
		cni_log_info("removing blackhole %s: block not held",
			     ip_prefix_fmt(&routes[i], buf));
		r = route_gone(s, &routes[i]);
	}
	return r;
}

static int walk_affinities(struct walk *w, const struct pwetcd_range_result *affs)
{
	const struct cipam_conf *c = w->s->c;
	size_t dirlen = strlen(c->prefix) + strlen("/ipam/affinity/") + strlen(c->node) + 1;
	int r = 0;

	for (size_t i = 0; i < affs->n_kvs && r >= 0; i++) {
		const struct pwetcd_kv *aff = &affs->kvs[i];
		struct ip_prefix cidr;

		if (aff->key_len <= dirlen || cipam_keypart_parse(aff->key + dirlen, &cidr) < 0)
			cni_log_warning("ignoring malformed affinity key '%s'", aff->key);
		else
			r = one_block(w, aff, &cidr);
	}
	return r;
}

int cipam_release_empty_blocks(struct cipam_session *s, unsigned grace_s,
			       const struct ip_prefix *only, size_t n_only)
{
	struct pwetcd_range_result affs = {0};
	struct walk w = {.s = s, .grace_s = grace_s, .only = only, .n_only = n_only};
	int r = cipam_list_node(s, "affinity", "list affinities", &affs);

	if (r < 0)
		return r;
	w.held = calloc(affs.n_kvs + 1, sizeof(*w.held));
	r = w.held ? walk_affinities(&w, &affs) : -ENOMEM;
	if (r >= 0 && !only)
		r = reconcile_routes(&w);
	if (r >= 0 && !only) { /* the node cache names what is held now */
		struct cipam_cache cache = {0};

		for (size_t i = 0; i < w.n_held && cache.n < CIPAM_CACHE_MAX; i++)
			cache.v[cache.n++] = w.held[i];
		cipam_cache_save(s, &cache);
	}
	free(w.held);
	pwetcd_range_result_done(&affs);
	return r;
}
