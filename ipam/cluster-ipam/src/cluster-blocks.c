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

struct held {
	struct ip_prefix *v;
	size_t n;
};

static bool in_list(const struct ip_prefix *list, size_t n, const struct ip_prefix *p)
{
	for (size_t i = 0; i < n; i++)
		if (list[i].family == p->family && list[i].prefixlen == p->prefixlen &&
		    ip_addr_equal(p->family, &list[i].addr, &p->addr))
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

/* Decide about one affine block: release it, repair a stale affinity, or keep it. */
static int one_block(struct cipam_session *s, const struct pwetcd_kv *aff, const char *bkey,
		     const struct pwetcd_range_result *rr, const struct ip_prefix *cidr,
		     unsigned grace_s, bool eligible, struct held *held)
{
	struct cipam_bref ref;
	char buf[IP_PREFIX_STRLEN];
	int r;

	if (rr->n_kvs == 0) { /* affinity without block: repair */
		cni_log_warning("affinity '%s' has no block: deleting it", aff->key);
		r = drop_block(s, NULL, 0, aff->key, aff->mod_revision);
		return r < 0 ? r : route_gone(s, cidr);
	}
	r = cipam_bref_load(s, &rr->kvs[0], cidr, &ref);
	if (r < 0)
		return r;
	if (!ref.b.node || strcmp(ref.b.node, s->c->node) != 0) {
		cni_log_warning("affinity '%s': the block belongs to %s: deleting it", aff->key,
				ref.b.node ? ref.b.node : "nobody");
		r = drop_block(s, NULL, 0, aff->key, aff->mod_revision);
		if (r >= 0)
			r = route_gone(s, cidr);
	} else if (eligible && ref.b.n_used == 0 && s->now - ref.b.updated >= (int64_t)grace_s) {
		r = drop_block(s, bkey, ref.b.mod_revision, aff->key, aff->mod_revision);
		if (r == 1) {
			cni_log_info("released empty block %s", ip_prefix_fmt(cidr, buf));
			r = route_gone(s, cidr);
		} else if (r == 0) {
			held->v[held->n++] = *cidr; /* changed meanwhile: still ours */
		}
	} else {
		held->v[held->n++] = *cidr;
	}
	cipam_block_done(&ref.b);
	return r < 0 ? r : 0;
}

static int reconcile_routes(struct cipam_session *s, const struct held *held)
{
	_cleanup_free_ struct ip_prefix *routes = NULL;
	char buf[IP_PREFIX_STRLEN];
	size_t n = 0;
	int r = cipam_route_list(s->c->route_protocol, &routes, &n);

	if (r < 0)
		return cni_errorf(s->err, CNI_ERR_PLUGIN, r, "list routes: %s", strerror(-r));
	for (size_t i = 0; i < held->n; i++) {
		if (in_list(routes, n, &held->v[i]))
			continue;
		cni_log_info("adding missing blackhole %s", ip_prefix_fmt(&held->v[i], buf));
		r = cipam_route_add(&held->v[i], s->c->route_protocol);
		if (r < 0)
			return cni_errorf(s->err, CNI_ERR_PLUGIN, r, "add route blackhole %s: %s",
					  ip_prefix_fmt(&held->v[i], buf), strerror(-r));
	}
	for (size_t i = 0; i < n; i++) {
		if (in_list(held->v, held->n, &routes[i]) ||
		    cipam_pool_find(s->c, routes[i].family, &routes[i].addr) < 0 ||
		    routes[i].prefixlen !=
			s->c->pools[cipam_pool_find(s->c, routes[i].family, &routes[i].addr)]
			    .block_size)
			continue;
		cni_log_info("removing blackhole %s: block not held",
			     ip_prefix_fmt(&routes[i], buf));
		r = route_gone(s, &routes[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int walk_affinities(struct cipam_session *s, const struct pwetcd_range_result *affs,
			   unsigned grace_s, const struct ip_prefix *only, size_t n_only,
			   struct held *held)
{
	size_t dirlen = strlen(s->c->prefix) + strlen("/ipam/affinity/") + strlen(s->c->node) + 1;
	int r = 0;

	for (size_t i = 0; i < affs->n_kvs && r >= 0; i++) {
		const struct pwetcd_kv *aff = &affs->kvs[i];
		struct pwetcd_txn_result res = {0};
		_cleanup_free_ char *bkey = NULL;
		struct ip_prefix cidr;

		if (aff->key_len <= dirlen || cipam_keypart_parse(aff->key + dirlen, &cidr) < 0) {
			cni_log_warning("ignoring malformed affinity key '%s'", aff->key);
			continue;
		}
		bkey = cipam_key_block(s->c->prefix, &cidr);
		if (!bkey)
			return -ENOMEM;
		r = cipam_read_keys(s, &bkey, 1, &res);
		if (r >= 0)
			r = one_block(s, aff, bkey, &res.ops[0].range, &cidr, grace_s,
				      !only || in_list(only, n_only, &cidr), held);
		pwetcd_txn_result_done(&res);
	}
	return r;
}

int cipam_release_empty_blocks(struct cipam_session *s, unsigned grace_s,
			       const struct ip_prefix *only, size_t n_only)
{
	_cleanup_free_ char *dir = cipam_key_dir(s->c->prefix, "affinity", s->c->node);
	struct pwetcd_range_result affs = {0};
	struct pwetcd_range_req rr = {.key = dir, .prefix = true};
	struct held held = {0};
	int r;

	if (!dir)
		return -ENOMEM;
	r = pwetcd_range(s->etcd, &rr, &affs);
	if (r < 0)
		return cipam_etcd_error(s, r, "list affinities");
	held.v = calloc(affs.n_kvs + 1, sizeof(*held.v));
	if (!held.v) {
		pwetcd_range_result_done(&affs);
		return -ENOMEM;
	}
	r = walk_affinities(s, &affs, grace_s, only, n_only, &held);
	if (r >= 0 && !only)
		r = reconcile_routes(s, &held);
	if (r >= 0 && !only) { /* the node cache names what is held now */
		struct cipam_cache cache = {0};

		for (size_t i = 0; i < held.n && cache.n < CIPAM_CACHE_MAX; i++)
			cache.v[cache.n++] = held.v[i];
		cipam_cache_save(s, &cache);
	}
	free(held.v);
	pwetcd_range_result_done(&affs);
	return r;
}
