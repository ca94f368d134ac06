/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam internals: pending releases. A DEL that cannot reach etcd
 * records its release in <dataDir>/pending/<containerID>:<ifname> (one
 * file per handle: "handle <etcd key>\nid <handle id>\n", written
 * atomically, directory fsync()ed) and succeeds; the next call of the node
 * that holds the node lock and reaches etcd (ADD, DEL, GC) replays them and
 * removes each entry whose release succeeded.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cluster-store.h"

/* Longest entry name: a container ID (path component) ':' an ifname. */
#define CIPAM_PENDING_NAME_MAX 255

/*
 * Does a DEL whose release failed with CNI code `code` (errno r) record a
 * pending release and succeed? Yes for what says etcd (or the node lock)
 * could not be had in time: code 11. No for the rest (code 100: etcd
 * refused the request, TLS verification, out of memory), which a retry
 * cannot fix and which must be seen.
 */
bool cipam_pending_wanted(unsigned code, int r);

/* "<containerID>:<ifname>" in buf; -ENAMETOOLONG or -EINVAL (not a valid pair). */
int cipam_pending_name(const char *container_id, const char *ifname, char *buf, size_t len);

/* The entry's text, and the handle key parsed back from it (-EBADMSG). */
char *cipam_pending_format(const char *handle_key, const char *handle_id);
int cipam_pending_parse(const char *text, char **ret_key);

/*
 * Record the release of handle_key: <data_dir>/pending (created with its
 * parents, 0700) / <name>, atomically, then fsync() of the directory.
 * 0 or -errno. *ret_path, when given, is the entry's path (caller frees).
 */
int cipam_pending_record(const char *data_dir, const char *container_id, const char *ifname,
			 const char *handle_key, const char *handle_id, char **ret_path);
/* Is there an entry for the handle? */
bool cipam_pending_exists(const char *data_dir, const char *container_id, const char *ifname);
/* Remove the handle's entry (absent: 0). */
int cipam_pending_remove(const char *data_dir, const char *container_id, const char *ifname);

/*
 * One release of a replay: 0 done (released, or the handle was gone), or a
 * negative errno with *code the CNI code of the failure.
 */
typedef int (*cipam_pending_release_fn)(void *arg, const char *handle_key, unsigned *code);

struct cipam_pending_stats {
	size_t done, kept, bad;
};
/*
 * Replay every entry of <data_dir>/pending (names starting with '.' are
 * temporaries, skipped): release it; an entry whose release succeeded is
 * removed, one that failed is kept; a failure with code 11 (etcd
 * unreachable) stops the replay, the others go on with the next entry. An
 * unreadable entry is kept and counted in bad. Returns 0, or -errno when
 * the directory cannot be read (-ENOENT: none).
 */
int cipam_pending_replay_with(const char *data_dir, cipam_pending_release_fn release, void *arg,
			      struct cipam_pending_stats *ret);
/*
 * The same with the session (which must hold the node lock), its errors
 * logged and never left in s->err. Nothing is done without the lock.
 */
void cipam_pending_replay(struct cipam_session *s);
