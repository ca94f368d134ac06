/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loopback's three requests on netlink/'s socket (nlw_core, no libmnl): lo
 * up or down, its addresses, its IFF_UP.
 */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>

#include "loopback.h"
#include "nlw/msg.h"
#include "nlw/sock.h"

/* RTM_NEWLINK (flags under change) or RTM_GETLINK of lo, with ACK. */
static struct nlmsghdr *link_req(union nlw_req *req, uint16_t type, unsigned flags)
{
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh = nlw_req_init(req, type, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = LO_IFINDEX;
	if (type == RTM_NEWLINK) {
		ifi->ifi_flags = flags;
		ifi->ifi_change = IFF_UP;
	}
	return nlh;
}

int lo_set_up(struct nlw_sock *s, bool up)
{
	union nlw_req req;

	return nlw_talk(s, link_req(&req, RTM_NEWLINK, up ? IFF_UP : 0), NULL, NULL);
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nlh);

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -EBADMSG;
	if (ifi->ifi_index == LO_IFINDEX)
		*(int *)data = (ifi->ifi_flags & IFF_UP) != 0;
	return 0;
}

int lo_is_up(struct nlw_sock *s)
{
	union nlw_req req;
	int up = 0;
	int r = nlw_talk(s, link_req(&req, RTM_GETLINK, 0), link_cb, &up);

	return r < 0 ? r : up;
}

bool lo_addr_is_loopback(const struct ip_prefix *p)
{
	if (p->family == AF_INET)
		return p->addr.bytes[0] == 127;
	return p->family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&p->addr.in6);
}

static const struct nlw_policy addr_policy[IFA_MAX + 1] = {
    [IFA_ADDRESS] = {NLW_ATTR_BINARY, 0, 0},
    [IFA_LOCAL] = {NLW_ATTR_BINARY, 0, 0},
};

/* One RTM_NEWADDR of the dump: an address of lo is kept, in dump order. */
int lo_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nlh);
	const struct nlattr *tb[IFA_MAX + 1], *a;
	struct lo_addrs *addrs = data;
	struct ip_prefix p = {0};
	size_t *n;

	if (nlh->nlmsg_type != RTM_NEWADDR)
		return 0;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return -EBADMSG;
	p.family = ifa->ifa_family;
	if (ifa->ifa_index != LO_IFINDEX || (p.family != AF_INET && p.family != AF_INET6))
		return 0;
	if (nlw_attr_parse(nlh, sizeof(*ifa), addr_policy, IFA_MAX, tb) < 0)
		return -EBADMSG;
	/* IFA_LOCAL is the address for IPv4 (IFA_ADDRESS is the peer on p2p links). */
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!a)
		return 0;
	if (nlw_attr_len(a) != ip_addr_len(p.family) ||
	    ifa->ifa_prefixlen > ip_family_bits(p.family))
		return -EBADMSG;
	memcpy(p.addr.bytes, nlw_attr_data(a), ip_addr_len(p.family));
	p.prefixlen = ifa->ifa_prefixlen;
	n = p.family == AF_INET ? &addrs->n_v4 : &addrs->n_v6;
	if (*n == LO_MAX_ADDRS) {
		addrs->truncated = true;
		return 0;
	}
	(p.family == AF_INET ? addrs->v4 : addrs->v6)[(*n)++] = p;
	return 0;
}

static void addrs_reset(void *data)
{
	memset(data, 0, sizeof(struct lo_addrs));
}

/*
 * After lo went up: the kernel has added 127.0.0.1/8 and ::1/128 by then.
 * The dump is filtered here, not by the kernel.
 */
int lo_addrs_get(struct nlw_sock *s, struct lo_addrs *addrs)
{
	union nlw_req req;
	struct ifaddrmsg *ifa;
	struct nlmsghdr *nlh =
	    nlw_req_init(&req, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa), (void **)&ifa);

	ifa->ifa_family = AF_UNSPEC;
	return nlw_dump(s, nlh, lo_addr_cb, addrs_reset, addrs);
}
