/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lease storage behind an ops table, so the allocator is shared by
 * host-local (files, store-disk.c) and later stores (etcd for cluster-ipam,
 * an in-memory fake for tests).
 *
 * A lease is one address held by an attachment (container ID, ifname).
 * Leases written by old reference versions carry only the container ID
 * (ifname NULL, "legacy").
 *
 * Every operation except lock/unlock must run between lock() and unlock().
 * All return 0 (or a count) on success and a negative errno on failure;
 * they record no CNI error, the caller words it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ipam/range.h"

struct ipam_lease {
	struct ipam_addr ip;
	char *id;     /* owned */
	char *ifname; /* owned; NULL for a legacy lease */
};

struct ipam_store_ops {
	/* Take / drop the store's exclusive lock (blocking). */
	int (*lock)(void *store);
	int (*unlock)(void *store);
	/*
	 * Reserve ip for (id, ifname) and remember it as the last reservation
	 * of range set range_id. Returns 1 reserved, 0 already taken, <0 error.
	 */
	int (*reserve)(void *store, const char *id, const char *ifname, const struct ipam_addr *ip,
		       unsigned range_id);
	/*
	 * Release every address of (id, ifname); when it holds none, the
	 * legacy leases of id alone. Returns the number released (0 is fine).
	 */
	int (*release_by_id)(void *store, const char *id, const char *ifname);
	/* Release one address whoever holds it. 0, or -ENOENT when free. */
	int (*release_ip)(void *store, const struct ipam_addr *ip);
	/*
	 * Addresses held by (id, ifname), or by the legacy id alone when it
	 * holds none. *ret (owned, free()) may be NULL when *ret_n is 0.
	 */
	int (*get_by_id)(void *store, const char *id, const char *ifname, struct ipam_addr **ret,
			 size_t *ret_n);
	/* Last reservation of range set range_id; -ENOENT when none recorded. */
	int (*last_reserved)(void *store, unsigned range_id, struct ipam_addr *ret);
	/* 1 when nobody holds ip, 0 when taken, <0 error. */
	int (*is_free)(void *store, const struct ipam_addr *ip);
	/* Every lease (for GC). Free with ipam_leases_free(). */
	int (*list)(void *store, struct ipam_lease **ret, size_t *ret_n);
};

struct ipam_store {
	const struct ipam_store_ops *ops;
	void *data;
};

void ipam_leases_free(struct ipam_lease *leases, size_t n);
