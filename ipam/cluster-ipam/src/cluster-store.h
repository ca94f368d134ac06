/* SPDX-License-Identifier: Apache-2.0 */
/* cluster-ipam internals: one session against etcd, shared by the handlers. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cni/error.h"
#include "ipam/cluster-ipam.h"
#include "pwetcd/etcd.h"

#define CIPAM_MAX_ATTEMPTS 64

struct cipam_session {
	const struct cipam_conf *c;
	struct pwetcd_client *etcd;
	struct cni_error *err;
	int64_t now; /* wall clock, seconds */
	/*
	 * CLOCK_MONOTONIC ms: the call's bound (start + timeoutMs). The lock
	 * wait, the queue and every etcd request, retry and endpoint end by then.
	 */
	uint64_t deadline_ms;
	int lock_fd;
	char *lock_path;
	bool locked;	    /* lock_fd holds the flock */
	int queue_fd;	    /* <dataDir>/queue, or -1 */
	unsigned conflicts; /* txn compares that failed (retries) */
};

/* A block read from etcd (or about to be created) and what this call does to it. */
struct cipam_bref {
	struct cipam_block b;
	bool exists, dirty, claimed;
};

/*
 * Start the call's clock (deadline_ms = now + timeoutMs), lock
 * dataDir/lock (creating dataDir and its parents 0700) within it, then
 * open the etcd client on the same deadline: one bound for the whole call.
 * Errors: code 11 (lock busy), 5 (dataDir), 7 (etcd client).
 */
int cipam_session_open(struct cipam_session *s, const struct cipam_conf *c, bool lock,
		       struct cni_error *err);

struct cipam_add_req;
struct cipam_add_out;
/* An ADD that may be served by the node's current lock holder (cluster-queue.h). */
struct cipam_join {
	const char *key; /* batch key, NULL: never queued */
	const struct cipam_add_req *req;
	struct cipam_add_out *out; /* a leader's answer */
	int r;			   /* ... and its result (error in the session's err) */
	char tag[48];
	bool submitted;
};
/*
 * ADD's session: 0 with the lock held and the client open (this process
 * leads: it serves the queue), 1 when a leader answered j (j->out, j->r),
 * or an error as cipam_session_open.
 */
int cipam_session_open_add(struct cipam_session *s, const struct cipam_conf *c,
			   struct cipam_join *j, struct cni_error *err);
void cipam_session_close(struct cipam_session *s);
/* Record an etcd failure r of step `what` (code 11, or 100 for rejected requests). */
int cipam_etcd_error(struct cipam_session *s, int r, const char *what);
/* Sleep a little before retrying after conflict number `attempt` (never past the deadline). */
void cipam_backoff(const struct cipam_session *s, unsigned attempt);
/*
 * Bring the call's deadline forward to deadline_ms (a queued ADD this
 * leader serves must have its answer by its own deadline); a later one is
 * ignored.
 */
void cipam_session_limit(struct cipam_session *s, uint64_t deadline_ms);

/* Read keys in one txn (no compares): results in the order given. */
int cipam_read_keys(struct cipam_session *s, char *const *keys, size_t n,
		    struct pwetcd_txn_result *ret);
/* Parse the kv of a block read; a malformed value is code 11 naming the key. */
int cipam_bref_load(struct cipam_session *s, const struct pwetcd_kv *kv,
		    const struct ip_prefix *cidr, struct cipam_bref *ret);
/* Blocks already read by an earlier txn: their prefixes and range results. */
struct cipam_preread {
	const struct ip_prefix *cidr;
	const struct pwetcd_op_result *res;
	size_t n;
};
#define CIPAM_READ_MAX 128
/*
 * The range result rr[i] of each block cidr[i] (n <= CIPAM_READ_MAX): from
 * pr when read there, the others read now in one txn (*res, owned by the
 * caller). Returns how many were read now, or an error.
 */
int cipam_read_blocks(struct cipam_session *s, const struct cipam_preread *pr,
		      const struct ip_prefix *cidr, size_t n, const struct pwetcd_range_result **rr,
		      struct pwetcd_txn_result *res);
/* Read block cidr: 1 loaded into *ret, 0 absent (*ret zeroed), or an error. */
int cipam_read_block(struct cipam_session *s, const struct ip_prefix *cidr, struct cipam_bref *ret);
/* Every key of this node under <prefix>/ipam/<what>/<node>/; `step` names it in errors. */
int cipam_list_node(struct cipam_session *s, const char *what, const char *step,
		    struct pwetcd_range_result *ret);
/* The block keys of pool p, with the flags of rr (count_only, keys_only). */
int cipam_list_pool(struct cipam_session *s, const struct cipam_pool *p,
		    struct pwetcd_range_req *rr, struct pwetcd_range_result *ret);

/*
 * Release the handle at key (every IP it lists) in one txn, retrying on
 * conflict. *released tells whether it existed. Blocks stay claimed.
 */
int cipam_release_handle(struct cipam_session *s, const char *key, bool *released);
/*
 * Release blocks of this node that are empty and older than grace_s (0:
 * any empty block), removing their blackholes; then make the node's
 * blackholes match the blocks it holds. `only`, when non-NULL, limits the
 * release to these n blocks (ADD's rollback) and skips the reconcile.
 */
int cipam_release_empty_blocks(struct cipam_session *s, unsigned grace_s,
			       const struct ip_prefix *only, size_t n_only);

/*
 * Node cache (<dataDir>/blocks): what this node saw at its last write,
 * one line each: "p <f>/<hex>-<len> <mod_revision> <value>" per pool,
 * "b <f>/<hex>-<len> <mod_revision> <value>" per block it holds (or just
 * "<f>/<hex>-<len>" when only the name is known: GC writes those). A hint:
 * ADD allocates from it without reading, in a txn that compares the
 * mod_revision of every pool and block it relies on and reads the real
 * state in its failure branch; a wrong or missing file costs one round
 * trip, never an address. Read and written under the node lock.
 */
#define CIPAM_CACHE_MAX 64
struct cipam_cache_kv {
	struct ip_prefix cidr;
	int64_t mod;
	char *value; /* NULL: the name only */
};
struct cipam_cache {
	struct ip_prefix v[CIPAM_CACHE_MAX]; /* blocks */
	int64_t mod[CIPAM_CACHE_MAX];
	char *val[CIPAM_CACHE_MAX]; /* owned; NULL: the name only */
	size_t n;
	struct cipam_cache_kv pools[CIPAM_MAX_POOLS]; /* values owned */
	size_t n_pools;
};
void cipam_cache_load(struct cipam_session *s, struct cipam_cache *ret);
void cipam_cache_save(struct cipam_session *s, const struct cipam_cache *c);
void cipam_cache_done(struct cipam_cache *c);
