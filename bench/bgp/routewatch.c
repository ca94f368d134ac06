/* SPDX-License-Identifier: Apache-2.0 */
/*
 * routewatch: print every IPv4 route change of the current netns as it
 * happens (bench/bgp/run.sh runs one per node).
 *
 *   routewatch [--ipv6]
 *
 * One line per RTM_NEWROUTE / RTM_DELROUTE with a destination:
 * "<realtime ns> new|del <dst>/<len> <proto>", the time taken when the
 * message was read. A netlink socket subscribed to the IPv4 route group
 * (--ipv6: the IPv6 group too), no polling; "ready" once subscribed; one
 * write per read, so the file is complete whenever it is killed. C, not
 * Python: every pod's route wakes one monitor per peer on the machine that
 * also runs the plugin being timed, and a Python monitor cost about 200 us
 * of CPU per wake-up there.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RCVBUF (8 << 20)

static char buf[1 << 20] __attribute__((aligned(8))); /* netlink messages */
static char out[1 << 16];

static size_t put_route(const struct nlmsghdr *h, long long now, char *o, size_t room)
{
	const struct rtmsg *rt = NLMSG_DATA(h);
	const struct rtattr *a = RTM_RTA(rt);
	int len = (int)RTM_PAYLOAD(h);
	char dst[INET6_ADDRSTRLEN];
	int n;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
		return 0;
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == RTA_DST)
			break;
	if (!RTA_OK(a, len) || !inet_ntop(rt->rtm_family, RTA_DATA(a), dst, sizeof(dst)))
		return 0;
	n = snprintf(o, room, "%lld %s %s/%u %u\n", now,
		     h->nlmsg_type == RTM_NEWROUTE ? "new" : "del", dst, rt->rtm_dst_len,
		     rt->rtm_protocol);
	return n > 0 && (size_t)n < room ? (size_t)n : 0;
}

static int write_all(const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_IPV4_ROUTE};
	int fd, sz = RCVBUF;

	if (argc > 1 && strcmp(argv[1], "--ipv6") == 0)
		sa.nl_groups |= RTMGRP_IPV6_ROUTE;
	else if (argc > 1) {
		fprintf(stderr, "usage: %s [--ipv6]\n", argv[0]);
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0 ||
	    (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0 &&
	     setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) < 0) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("routewatch: netlink socket");
		return 1;
	}
	if (write_all("ready\n", 6) < 0)
		return 1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct timespec ts;
		long long now;
		size_t o = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			fprintf(stderr, "routewatch: netlink overrun, events lost\n");
			continue;
		}
		if (n < 0) {
			perror("routewatch: recv");
			return 1;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		/* NLMSG_OK/NLMSG_NEXT compare an int with __u32 (clang -Wsign-compare). */
		for (size_t off = 0; off + sizeof(struct nlmsghdr) <= (size_t)n;) {
			struct nlmsghdr *h = (struct nlmsghdr *)(buf + off);

			if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > (size_t)n - off)
				break;
			off += NLMSG_ALIGN(h->nlmsg_len);
			if (h->nlmsg_type != RTM_NEWROUTE && h->nlmsg_type != RTM_DELROUTE)
				continue;
			if (sizeof(out) - o < 128) {
				if (write_all(out, o) < 0)
					return 1;
				o = 0;
			}
			o += put_route(h, now, out + o, sizeof(out) - o);
		}
		if (o > 0 && write_all(out, o) < 0)
			return 1;
	}
}
