/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loopback-floor: the exec floor of the loopback plugin. A C program that
 * does only what a loopback ADD cannot avoid: open CNI_NETNS, enter it, and
 * set lo up with ONE netlink message (RTM_NEWLINK, IFF_UP, with ACK). No
 * JSON is read; a fixed minimal CNI result is printed so that pwbench
 * accepts the call as an ADD. Built like any small C program: dynamically
 * linked against libc only, -O2.
 *
 * Exit 0 on success, 1 with a message on stderr otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what, int err)
{
	fprintf(stderr, "loopback-floor: %s: %s\n", what, strerror(err));
	return 1;
}

int main(void)
{
	const char *netns = getenv("CNI_NETNS");
	struct {
		struct nlmsghdr nlh;
		struct ifinfomsg ifi;
	} req = {
	    .nlh = {.nlmsg_len = sizeof(req),
		    .nlmsg_type = RTM_NEWLINK,
		    .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		    .nlmsg_seq = 1},
	    .ifi = {.ifi_family = AF_UNSPEC,
		    .ifi_index = 1,
		    .ifi_flags = IFF_UP,
		    .ifi_change = IFF_UP},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	char buf[1024];
	struct nlmsgerr *e = NLMSG_DATA((struct nlmsghdr *)buf);
	int fd;

	fd = open(netns ? netns : "", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open CNI_NETNS", errno);
	if (setns(fd, CLONE_NEWNET) < 0)
		return fail("setns", errno);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return fail("socket", errno);
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return fail("send", errno);
	if (recv(fd, buf, sizeof(buf), 0) < (ssize_t)NLMSG_LENGTH(sizeof(*e)))
		return fail("recv", EBADMSG);
	if (e->error)
		return fail("RTM_NEWLINK", -e->error);
	fputs("{\"cniVersion\":\"1.0.0\"}\n", stdout);
	return 0;
}
