/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Network namespace handles. nlw_netns_run() is the one place in podwire
 * that calls setns(); nlw_sock_open_in_netns() and the _in_netns sysctl
 * helpers go through it.
 */
#pragma once

/*
 * Open a netns by path (/var/run/netns/x, /proc/<pid>/ns/net) with O_CLOEXEC
 * and check that it is a network namespace. *ret_fd is owned by the caller.
 * Errors: -ENOENT (missing), -EINVAL (path is not a network namespace, or
 * path NULL/empty), other open()/ioctl() errnos (-EACCES, ...).
 */
int nlw_netns_open(const char *path, int *ret_fd);

/*
 * Open the calling thread's current netns (/proc/thread-self/ns/net).
 * *ret_fd is owned by the caller. Errors: open() errno.
 */
int nlw_netns_open_self(int *ret_fd);

/*
 * Is fd the calling thread's own netns? Returns >0 yes, 0 no, negative errno
 * (-EBADF, or fstat/open errors) on failure.
 */
int nlw_netns_is_self(int fd);

/*
 * Run fn(arg) with the calling thread inside the netns `fd` (borrowed), then
 * return to the original netns. Returns fn's return value, or a negative
 * errno if the netns could not be entered (-EINVAL not a netns, -EPERM).
 * fn must be short and must not create threads. If returning to the original
 * netns fails the process aborts (see nlw_sock_open_in_netns).
 */
int nlw_netns_run(int fd, int (*fn)(void *arg), void *arg);
