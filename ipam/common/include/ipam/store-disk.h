/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The file store of host-local, compatible with the reference's layout:
 *
 *   <dataDir>/<network>/<ip>                 "<containerID>\r\n<ifname>", 0600
 *   <dataDir>/<network>/last_reserved_ip.<n> the last address of range set n
 *   <dataDir>/<network>/lock                 flock()ed by every operation
 *
 * plus podwire's own index, which the reference ignores:
 *
 *   <dataDir>/<network>/.podwire/@<id>:<ifname>  addresses of one attachment
 *   <dataDir>/<network>/.podwire/@<id>           legacy (ID-only) leases
 *   <dataDir>/<network>/.podwire/state           the network directory's
 *                                                mtime/ctime/size/inode when
 *                                                podwire last changed it
 *
 * The index makes lookup and release by attachment O(1). It is trusted only
 * while the network directory looks exactly as podwire left it; any other
 * change (the reference added or removed a lease, an admin deleted files)
 * makes the next locked operation rebuild every index with one scan. Index
 * entries are also verified against the lease file before use, so a stale
 * entry can never release someone else's address.
 *
 * The network directory is created 0700 (the reference uses 0755; the
 * leases name containers, and nothing but the plugins reads them).
 */
#pragma once

#include <stdbool.h>

#include "ipam/store.h"

struct ipam_disk_store;

extern const struct ipam_store_ops ipam_disk_store_ops;

/*
 * True if s can be one path component of the store: 1..max bytes, not "."
 * or "..", not starting with '.', no '/', ':' or control characters.
 */
bool ipam_disk_valid_component(const char *s, size_t max);

/*
 * Open (creating as needed) <data_dir>/<network>. data_dir must be an
 * absolute path; missing parents are created 0755, the network directory
 * 0700, and it may not be a symlink. Returns 0 and *ret, -EINVAL for a bad
 * data_dir or network name, or the -errno of the failing call.
 */
int ipam_disk_store_open(const char *data_dir, const char *network, struct ipam_disk_store **ret);
/*
 * As ipam_disk_store_open() but never creates anything: -ENOENT when
 * dataDir or the network directory does not exist (nothing was ever
 * allocated there). For DEL, CHECK and GC.
 */
int ipam_disk_store_open_existing(const char *data_dir, const char *network,
				  struct ipam_disk_store **ret);
/* Close (and unlock). Accepts NULL; returns NULL. */
struct ipam_disk_store *ipam_disk_store_free(struct ipam_disk_store *s);
static inline void ipam_disk_store_freep(struct ipam_disk_store **s)
{
	if (*s)
		ipam_disk_store_free(*s);
}

/* The generic handle for the allocator. */
static inline struct ipam_store ipam_disk_store_handle(struct ipam_disk_store *s)
{
	return (struct ipam_store){.ops = &ipam_disk_store_ops, .data = s};
}

/*
 * Prove the network directory is writable by creating and removing a probe
 * file (caller holds the lock). Returns 0 or the -errno of the failure.
 */
int ipam_disk_store_probe(struct ipam_disk_store *s);

/* Number of index rebuilds this handle performed (for tests). */
unsigned ipam_disk_store_rebuilds(const struct ipam_disk_store *s);
