/* SPDX-License-Identifier: Apache-2.0 */
/* Network namespace handles and the one place that enters another netns. */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "nlw/netns.h"

#define SELF_NETNS "/proc/thread-self/ns/net"

/* 0 if fd is a network namespace, -EINVAL if it is something else. */
static int check_netns_fd(int fd)
{
	int t = ioctl(fd, NS_GET_NSTYPE);

	if (t < 0)
		/* ENOTTY: not an nsfs file at all (a regular file, a directory). */
		return errno == ENOTTY ? -EINVAL : negative_errno();
	return t == CLONE_NEWNET ? 0 : -EINVAL;
}

int nlw_netns_open(const char *path, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (!path || !*path || !ret_fd)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = check_netns_fd(fd);
	if (r < 0)
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int nlw_netns_open_self(int *ret_fd)
{
	int fd = open(SELF_NETNS, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return negative_errno();
	*ret_fd = fd;
	return 0;
}

int nlw_netns_is_self(int fd)
{
	struct stat a, b;

	if (fd < 0)
		return -EBADF;
	if (fstat(fd, &a) < 0)
		return negative_errno();
	if (stat(SELF_NETNS, &b) < 0)
		return negative_errno();
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int nlw_netns_run(int fd, int (*fn)(void *arg), void *arg)
{
	_cleanup_close_ int self = -1;
	int r, ret;

	if (fd < 0 || !fn)
		return -EINVAL;
	r = nlw_netns_open_self(&self);
	if (r < 0)
		return r;
	if (setns(fd, CLONE_NEWNET) < 0)
		return negative_errno();
	ret = fn(arg);
	/*
	 * Staying in the wrong netns would make every later request configure
	 * the wrong network, silently. There is no safe way to continue.
	 */
	if (setns(self, CLONE_NEWNET) < 0)
		abort();
	return ret;
}
