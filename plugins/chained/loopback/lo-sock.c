/* SPDX-License-Identifier: Apache-2.0 */
/* The one netlink socket of loopback, and entering the pod's netns. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "loopback.h"

/* Large enough for any reply loopback asks for, including extended ACKs. */
#define LO_RBUF 16384

int lo_netns_open(const char *path, int *ret_fd)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

bool lo_netns_is_own(int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat("/proc/self/ns/net", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int lo_netns_enter(int fd)
{
	return setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
}

/* No bind(): the kernel assigns the port id on the first send. */
int lo_sock_open(int *ret_fd)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);

	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int lo_sock_transact(int fd, const void *req, size_t len, struct lo_reply *st)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	union {
		struct nlmsghdr nlh;
		char buf[LO_RBUF];
	} rbuf;
	ssize_t n;
	int r;

	n = sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	while (!st->done) {
		n = recv(fd, rbuf.buf, sizeof(rbuf.buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;
		r = lo_reply_parse(rbuf.buf, (size_t)n, st);
		if (r < 0)
			return r;
	}
	return 0;
}
