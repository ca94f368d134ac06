/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations shared by the files of ipam_common. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ipam/store.h"

/* Longest container ID / ifname the store accepts as a path component. */
#define DISK_ID_MAX 200
#define DISK_IFNAME_MAX 15

/*
 * An empty lease file names no owner: an ADD killed between creating and
 * writing it (a podwire without atomic lease creation, or a filesystem
 * without O_TMPFILE), or a crashed reference plugin. Once it is older than
 * this, DEL of the attachment whose index entry names the address, and GC,
 * treat it as releasable.
 */
#define DISK_OWNERLESS_GRACE_S 5

/* Seconds since the empty regular file name in dirfd was modified; -1 if it is not one. */
long disk_ownerless_age(int dirfd, const char *name);

/* Trim ASCII whitespace at both ends in place. Returns the start. */
char *disk_trim(char *s);
/*
 * Split lease content in place into id and ifname ("id\r\nifname"; a
 * legacy lease has no ifname: *ret_ifname = NULL). Trims first. Returns 0,
 * or -EINVAL when either part is not a valid component.
 */
int disk_parse_owner(char *content, char **ret_id, char **ret_ifname);

/* Read a whole file (at most max bytes, NUL-terminated). Returns length or -errno. */
int disk_read_file(int dirfd, const char *name, size_t max, char **ret);
/* Replace a file atomically (temporary name + rename). */
int disk_replace_file(int dirfd, const char *name, const char *content);

int disk_index_read(int idxfd, const char *id, const char *ifname, struct ipam_addr **ret,
		    size_t *ret_n);
/* Add (add=true) or remove ip from the index of (id, ifname). */
int disk_index_update(int idxfd, const char *id, const char *ifname, const struct ipam_addr *ip,
		      bool add);
int disk_index_remove(int idxfd, const char *id, const char *ifname);

/* Every lease file of the network directory; owners as written (may be invalid). */
int disk_scan(int dirfd, struct ipam_lease **ret, size_t *ret_n);
/* Throw the index away and rebuild it from one scan. */
int disk_rebuild_index(int dirfd, int idxfd);

int disk_unlock(void *data);
