/* SPDX-License-Identifier: Apache-2.0 */
/* The one netlink socket of loopback, and entering the pod's netns. */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/macro.h"
#include "loopback.h"

/* Large enough for any reply loopback asks for, including extended ACKs. */
#define LO_RBUF 16384

int lo_enter_netns(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET) < 0)
		return -errno;
	return 0;
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
