/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kfloor: the kernel floor for one pod. Does only the work a bridge+host-local
 * ADD cannot avoid, in one short-lived process, so that pwbench can time it
 * exactly like a plugin:
 *
 *   - create the bridge (with the gateway address, up) if it does not exist;
 *   - one RTM_NEWLINK creating the veth with the peer placed directly in the
 *     pod netns, one setting master + up;
 *   - through a second socket opened in the pod netns: address, link up,
 *     default route;
 *   - a lease file created with O_EXCL.
 *
 * DEL is one RTM_DELLINK of the host end plus unlinking the lease.
 *
 *   kfloor add <netns-path> <host-veth> <bridge> <addr>/<plen>[+<n>] <gw> <lease-file>
 *   kfloor del <host-veth> <lease-file>
 *
 * "+<n>" adds n + 1 to the address, so one template serves every pod index.
 *
 * IPv4 only; exits 0 on success, 1 with a message on stderr otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "base/macro.h"

/* Requests here are tiny; 8 KiB also holds any ACK with extended-ACK text. */
#define NL_BUF 8192

static void mnl_socket_closep(struct mnl_socket **nl)
{
	if (*nl)
		mnl_socket_close(*nl);
}

/* Send one request and wait for its ACK. Returns 0 or a negative errno. */
static int nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh)
{
	char buf[NL_BUF];
	unsigned portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int r;

	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (unsigned)time(NULL);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	r = mnl_cb_run(buf, (size_t)n, nlh->nlmsg_seq, portid, NULL, NULL);
	return r < 0 ? -errno : 0;
}

static struct nlmsghdr *link_msg(char *buf, int type, unsigned flags, int index, unsigned up)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = (unsigned short)type;
	nlh->nlmsg_flags = (unsigned short)flags;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = index;
	ifi->ifi_flags = up;
	ifi->ifi_change = up;
	return nlh;
}

static int bridge_create(struct mnl_socket *nl, const char *name)
{
	char buf[NL_BUF];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0, IFF_UP);
	struct nlattr *info;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	mnl_attr_nest_end(nlh, info);
	return nl_talk(nl, nlh);
}

static int veth_create(struct mnl_socket *nl, const char *host, int netns_fd)
{
	char buf[NL_BUF];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0, 0);
	struct nlattr *info, *data, *peer;
	struct ifinfomsg *pifi;

	mnl_attr_put_strz(nlh, IFLA_IFNAME, host);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	peer = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	pifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*pifi));
	pifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "eth0");
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (unsigned)netns_fd);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return nl_talk(nl, nlh);
}

static int link_set(struct mnl_socket *nl, int index, int master)
{
	char buf[NL_BUF];
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, index, IFF_UP);

	if (master > 0)
		mnl_attr_put_u32(nlh, IFLA_MASTER, (unsigned)master);
	return nl_talk(nl, nlh);
}

static int addr_add(struct mnl_socket *nl, int index, struct in_addr a, unsigned plen)
{
	char buf[NL_BUF];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;

	nlh->nlmsg_type = RTM_NEWADDR;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)plen;
	ifa->ifa_index = (unsigned)index;
	mnl_attr_put(nlh, IFA_LOCAL, sizeof(a), &a);
	mnl_attr_put(nlh, IFA_ADDRESS, sizeof(a), &a);
	return nl_talk(nl, nlh);
}

static int route_default(struct mnl_socket *nl, int index, struct in_addr gw)
{
	char buf[NL_BUF];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtmsg *rtm;

	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	rtm->rtm_family = AF_INET;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	mnl_attr_put(nlh, RTA_GATEWAY, sizeof(gw), &gw);
	mnl_attr_put_u32(nlh, RTA_OIF, (unsigned)index);
	return nl_talk(nl, nlh);
}

static int sock_open(struct mnl_socket **ret)
{
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);

	if (!nl)
		return -errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int r = -errno;

		mnl_socket_close(nl);
		return r;
	}
	*ret = nl;
	return 0;
}

/* Open a socket in @netns_fd and look up eth0 there; back in @host_fd after. */
static int pod_sock_open(int netns_fd, int host_fd, struct mnl_socket **ret, int *ret_index)
{
	struct mnl_socket *nl = NULL;
	int r, index;

	if (setns(netns_fd, CLONE_NEWNET) < 0)
		return -errno;
	r = sock_open(&nl);
	index = (int)if_nametoindex("eth0");
	if (setns(host_fd, CLONE_NEWNET) < 0 && r == 0)
		r = -errno;
	if (r == 0 && index == 0)
		r = -ENODEV;
	if (r < 0) {
		if (nl)
			mnl_socket_close(nl);
		return r;
	}
	*ret = nl;
	*ret_index = index;
	return 0;
}

static int die(const char *what, int r)
{
	fprintf(stderr, "kfloor: %s: %s\n", what, strerror(-r));
	return 1;
}

static int lease_write(const char *path)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	if (write(fd, "kfloor\r\neth0", 12) != 12)
		return -EIO;
	return 0;
}

/* Ensure the bridge exists, up, with the gateway address. Returns its index. */
static int bridge_ensure(struct mnl_socket *nl, const char *br, struct in_addr gw, unsigned plen)
{
	int r, index = (int)if_nametoindex(br);

	if (index > 0)
		return index;
	r = bridge_create(nl, br);
	if (r < 0)
		return r;
	index = (int)if_nametoindex(br);
	if (index <= 0)
		return -ENODEV;
	r = addr_add(nl, index, gw, plen);
	return r < 0 ? r : index;
}

/* Parse "a.b.c.d/len[+n]" into an address (plus n + 1) and a prefix length. */
static int parse_addr(char *s, struct in_addr *ret, unsigned *ret_plen)
{
	char *slash = strchr(s, '/'), *plus = strchr(s, '+'), *end;
	unsigned long plen, off = 0;
	struct in_addr a;

	if (!slash)
		return -EINVAL;
	*slash = '\0';
	if (plus) {
		*plus = '\0';
		off = strtoul(plus + 1, &end, 10) + 1;
		if (*end || off > 0xffffff)
			return -EINVAL;
	}
	plen = strtoul(slash + 1, &end, 10);
	if (*end || plen > 32 || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	a.s_addr = htonl(ntohl(a.s_addr) + (unsigned)off);
	*ret = a;
	*ret_plen = (unsigned)plen;
	return 0;
}

static int cmd_add(char **argv)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL, *pod = NULL;
	_cleanup_close_ int netns_fd = -1, host_fd = -1;
	struct in_addr addr, gw;
	int r, br, host, eth0 = 0;
	unsigned plen;

	if (parse_addr(argv[3], &addr, &plen) < 0 || inet_pton(AF_INET, argv[4], &gw) != 1)
		return die("address must be a.b.c.d/len[+n], gateway a.b.c.d", -EINVAL);
	netns_fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (netns_fd < 0 || host_fd < 0)
		return die("open netns", -errno);
	if ((r = sock_open(&nl)) < 0)
		return die("socket", r);
	if ((br = bridge_ensure(nl, argv[2], gw, plen)) < 0)
		return die("bridge", br);
	if ((r = veth_create(nl, argv[1], netns_fd)) < 0)
		return die("create veth", r);
	host = (int)if_nametoindex(argv[1]);
	if (host <= 0 || (r = link_set(nl, host, br)) < 0)
		return die("set master/up", host <= 0 ? -ENODEV : r);
	if ((r = pod_sock_open(netns_fd, host_fd, &pod, &eth0)) < 0)
		return die("pod socket", r);
	if ((r = addr_add(pod, eth0, addr, plen)) < 0 || (r = link_set(pod, eth0, 0)) < 0 ||
	    (r = route_default(pod, eth0, gw)) < 0)
		return die("pod address/up/route", r);
	if ((r = lease_write(argv[5])) < 0)
		return die("lease", r);
	return 0;
}

static int cmd_del(char **argv)
{
	_cleanup_(mnl_socket_closep) struct mnl_socket *nl = NULL;
	char buf[NL_BUF];
	struct nlmsghdr *nlh;
	int r;

	if ((r = sock_open(&nl)) < 0)
		return die("socket", r);
	nlh = link_msg(buf, RTM_DELLINK, 0, 0, 0);
	mnl_attr_put_strz(nlh, IFLA_IFNAME, argv[0]);
	r = nl_talk(nl, nlh);
	if (r < 0 && r != -ENODEV)
		return die("delete veth", r);
	if (unlink(argv[1]) < 0 && errno != ENOENT)
		return die("lease", -errno);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 8 && strcmp(argv[1], "add") == 0)
		return cmd_add(argv + 2);
	if (argc == 4 && strcmp(argv[1], "del") == 0)
		return cmd_del(argv + 2);
	fprintf(
	    stderr,
	    "usage: kfloor add <netns-path> <host-veth> <bridge> <addr>/<plen>[+<n>] <gw> <lease>\n"
	    "       kfloor del <host-veth> <lease>\n");
	return 2;
}
