/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sysctl under /proc/sys and sysfs reads, both relative to a root directory
 * fd so tests can point them at a fixture tree.
 *
 * Note: a file under /proc/sys/net belongs to the netns of the task that
 * OPENS it, so to write in another netns call nlw_sysctl_set_in_netns (which
 * opens inside nlw_netns_run).
 */
#pragma once

#include <stddef.h>

/*
 * Validate a sysctl path like "net/ipv4/ip_forward" or
 * "net/ipv6/conf/eth0/accept_dad": relative, starts with "net/", no "..",
 * no "." or empty components, no leading or trailing '/', printable ASCII
 * without spaces (interface names may hold "." "-" "@"). 0 or -EINVAL.
 */
int nlw_sysctl_path_valid(const char *path);

/*
 * Write value to <procfs_root>/sys/<path>. procfs_root_fd is a directory fd
 * of /proc (or a fixture); -1 means "/proc". Errors: -EINVAL (path), -ENOENT
 * (no such sysctl), -EACCES/-EPERM, write errnos.
 */
int nlw_sysctl_set(int procfs_root_fd, const char *path, const char *value);

/*
 * Read <procfs_root>/sys/<path> into buf (trailing newline stripped).
 * Errors: as nlw_sysctl_set, -ENOBUFS (value longer than len-1).
 */
int nlw_sysctl_get(int procfs_root_fd, const char *path, char *buf, size_t len);

/* As nlw_sysctl_set/get but opened inside netns_fd (borrowed). */
int nlw_sysctl_set_in_netns(int netns_fd, int procfs_root_fd, const char *path, const char *value);
int nlw_sysctl_get_in_netns(int netns_fd, int procfs_root_fd, const char *path, char *buf,
			    size_t len);

/*
 * A batch of sysctl writes done in one visit of a netns (sysctl-batch.c):
 * entering a netns costs two setns() calls, so a plugin collects the pod
 * interface's sysctls and writes them together. Best effort per entry:
 * err[i] holds each write's result.
 */
#define NLW_SYSCTL_BATCH_MAX 8
#define NLW_SYSCTL_PATH_MAX 96

struct nlw_sysctl_batch {
	int procfs_fd; /* as for nlw_sysctl_set */
	size_t n;
	char path[NLW_SYSCTL_BATCH_MAX][NLW_SYSCTL_PATH_MAX];
	const char *value[NLW_SYSCTL_BATCH_MAX]; /* borrowed: must outlive the write */
	int err[NLW_SYSCTL_BATCH_MAX];
};

void nlw_sysctl_batch_init(struct nlw_sysctl_batch *b, int procfs_fd);
/* Queue path (printf format) = value. 0, or -ENOBUFS (batch full, path too long). */
int nlw_sysctl_batch_put(struct nlw_sysctl_batch *b, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * Write every entry inside netns_fd (borrowed; -1: the current netns).
 * Returns 0 with err[] filled, or the error of entering the netns.
 */
int nlw_sysctl_batch_write(struct nlw_sysctl_batch *b, int netns_fd);

/*
 * Read the file root_fd/relpath into buf, trailing newline stripped.
 * relpath must be relative without ".." (-EINVAL). Errors: -ENOENT,
 * -ENOBUFS (does not fit len-1), read errnos.
 */
int nlw_sysfs_read_str(int root_fd, const char *relpath, char *buf, size_t len);

/* Read an unsigned decimal file. Errors: as above, -EINVAL/-ERANGE (content). */
int nlw_sysfs_read_u32(int root_fd, const char *relpath, unsigned *ret);

/*
 * readlink root_fd/relpath into buf (NUL-terminated). Errors: -EINVAL
 * (path, or not a link), -ENOENT, -ENOBUFS.
 */
int nlw_sysfs_read_link(int root_fd, const char *relpath, char *buf, size_t len);

/* Like nlw_sysfs_read_link but returns only the last path component. */
int nlw_sysfs_read_link_base(int root_fd, const char *relpath, char *buf, size_t len);
