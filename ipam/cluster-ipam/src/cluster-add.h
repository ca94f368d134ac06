/* SPDX-License-Identifier: Apache-2.0 */
/* cluster-ipam internals: the allocation of ADD. */
#pragma once

#include "cluster-store.h"

struct cipam_add_req {
	const char *handle_key, *handle_id;
	const char *container_id, *ifname, *network, *pod; /* pod may be NULL */
};

struct cipam_add_out {
	bool existing; /* the handle was there: its addresses, nothing written */
	struct ip_prefix ips[2];
	size_t n_ips;
	bool borrowed[2];
	struct ip_prefix claimed[2]; /* blocks claimed by this call (need a blackhole) */
	size_t n_claimed;
	int r;		      /* batch only: this request's own failure (err set), else 0 */
	struct cni_error err; /* ... owned: cni_error_done() it */
};

/*
 * Allocate one address per configured family (or the requested ones) for
 * each of the n (1..CIPAM_MAX_BATCH) requests, all in one txn; retries on
 * conflict. When one request of a batch cannot be planned (e.g. no address
 * left), every request is served alone and gets its own outs[i].r/err.
 * A negative return is the failure of the whole call (s->err set), e.g.
 * etcd unreachable. Errors: 7 (pool disagrees with etcd), 101 exhausted,
 * 102 requested IP taken, 11 etcd.
 */
int cipam_allocate(struct cipam_session *s, const struct cipam_add_req *reqs, size_t n,
		   struct cipam_add_out *outs);
/* First free block number at or after start (wrapping) among sorted used[]; -ENOSPC. */
int cipam_free_index(const cipam_u128 *used, size_t n, cipam_u128 total, cipam_u128 start,
		     cipam_u128 *ret);
