/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The three netlink requests loopback sends and the parser of their replies.
 * Pure functions (no I/O), so unit tests and the fuzzer drive them directly.
 */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>

#include "loopback.h"

#define NLMSG_HDR_ALIGNED NLMSG_ALIGN(sizeof(struct nlmsghdr))

/* Append one message with a zeroed family header of hdr_len bytes at buf+off. */
static void *msg_put(void *buf, size_t len, size_t *off, uint16_t type, uint16_t flags,
		     unsigned seq, size_t hdr_len)
{
	size_t msg_len = NLMSG_LENGTH(hdr_len);
	struct nlmsghdr *nlh;

	if (*off + NLMSG_ALIGN(msg_len) > len)
		return NULL;
	nlh = (struct nlmsghdr *)((char *)buf + *off);
	memset(nlh, 0, NLMSG_ALIGN(msg_len));
	nlh->nlmsg_len = (uint32_t)msg_len;
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = (uint16_t)(flags | NLM_F_REQUEST);
	nlh->nlmsg_seq = seq;
	*off += NLMSG_ALIGN(msg_len);
	return NLMSG_DATA(nlh);
}

static int put_link_msg(void *buf, size_t len, size_t *off, uint16_t type, uint16_t flags,
			unsigned seq, unsigned ifi_flags, unsigned ifi_change)
{
	struct ifinfomsg *ifi = msg_put(buf, len, off, type, flags, seq, sizeof(*ifi));

	if (!ifi)
		return -ENOBUFS;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = LO_IFINDEX;
	ifi->ifi_flags = ifi_flags;
	ifi->ifi_change = ifi_change;
	return 0;
}

int lo_req_setflags(void *buf, size_t len, unsigned seq, bool up)
{
	size_t off = 0;
	int r = put_link_msg(buf, len, &off, RTM_NEWLINK, NLM_F_ACK, seq, up ? IFF_UP : 0, IFF_UP);

	return r < 0 ? r : (int)off;
}

int lo_req_getlink(void *buf, size_t len, unsigned seq)
{
	size_t off = 0;
	int r = put_link_msg(buf, len, &off, RTM_GETLINK, 0, seq, 0, 0);

	return r < 0 ? r : (int)off;
}

/*
 * Two messages in one datagram: the kernel handles them in order, so the
 * dump sees lo already up, with the 127.0.0.1/8 and ::1/128 the kernel adds
 * when lo goes up. The dump is filtered here, not by the kernel (no strict
 * checking needed, one setsockopt less).
 */
int lo_req_up_dump(void *buf, size_t len, unsigned seq)
{
	struct ifaddrmsg *ifa;
	size_t off = 0;
	int r = put_link_msg(buf, len, &off, RTM_NEWLINK, NLM_F_ACK, seq, IFF_UP, IFF_UP);

	if (r < 0)
		return r;
	ifa = msg_put(buf, len, &off, RTM_GETADDR, NLM_F_DUMP, seq + 1, sizeof(*ifa));
	if (!ifa)
		return -ENOBUFS;
	ifa->ifa_family = AF_UNSPEC;
	return (int)off;
}

bool lo_addr_is_loopback(const struct ip_prefix *p)
{
	if (p->family == AF_INET)
		return p->addr.bytes[0] == 127;
	return p->family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&p->addr.in6);
}

/* IFA_LOCAL is the address for IPv4 (IFA_ADDRESS is the peer on p2p links). */
static const struct rtattr *addr_attr(const struct nlmsghdr *nlh, const struct ifaddrmsg *ifa)
{
	const struct rtattr *addr = NULL, *local = NULL;
	int rem = (int)IFA_PAYLOAD(nlh);

	for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, rem); a = RTA_NEXT(a, rem)) {
		if (a->rta_type == IFA_ADDRESS)
			addr = a;
		else if (a->rta_type == IFA_LOCAL)
			local = a;
	}
	return local ? local : addr;
}

static int parse_addr(const struct nlmsghdr *nlh, struct lo_addrs *addrs)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nlh);
	const struct rtattr *a;
	struct ip_prefix p = {0};
	size_t *n;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return -EBADMSG;
	if (!addrs || ifa->ifa_index != LO_IFINDEX ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return 0;
	a = addr_attr(nlh, ifa);
	if (!a)
		return 0;
	p.family = ifa->ifa_family;
	if (RTA_PAYLOAD(a) != ip_addr_len(p.family) ||
	    ifa->ifa_prefixlen > ip_family_bits(p.family))
		return -EBADMSG;
	memcpy(p.addr.bytes, RTA_DATA(a), ip_addr_len(p.family));
	p.prefixlen = ifa->ifa_prefixlen;
	n = p.family == AF_INET ? &addrs->n_v4 : &addrs->n_v6;
	if (*n == LO_MAX_ADDRS) {
		addrs->truncated = true;
		return 0;
	}
	(p.family == AF_INET ? addrs->v4 : addrs->v6)[(*n)++] = p;
	return 0;
}

static int parse_link(const struct nlmsghdr *nlh, struct lo_reply *st)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -EBADMSG;
	if (ifi->ifi_index == LO_IFINDEX)
		st->link_up = (ifi->ifi_flags & IFF_UP) ? 1 : 0;
	return 0;
}

static int parse_error(const struct nlmsghdr *nlh, struct lo_reply *st)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(e->error)))
		return -EBADMSG;
	if (e->error < 0)
		return e->error;
	/* An ACK ends the exchange only when it answers the last request. */
	if (nlh->nlmsg_seq == st->seq_last)
		st->done = true;
	return 0;
}

static int parse_one(const struct nlmsghdr *nlh, struct lo_reply *st)
{
	switch (nlh->nlmsg_type) {
	case NLMSG_ERROR:
		return parse_error(nlh, st);
	case NLMSG_DONE:
		st->done = true;
		return 0;
	case RTM_NEWADDR:
		return parse_addr(nlh, st->addrs);
	case RTM_NEWLINK:
		if (parse_link(nlh, st) < 0)
			return -EBADMSG;
		if (nlh->nlmsg_seq == st->seq_last && !(nlh->nlmsg_flags & NLM_F_MULTI))
			st->done = true; /* a GET's answer comes alone, without ACK */
		return 0;
	default:
		return 0;
	}
}

int lo_reply_parse(const void *buf, size_t len, struct lo_reply *st)
{
	size_t off = 0;

	while (len - off >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)buf + off);
		int r;

		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len - off)
			return -EBADMSG;
		r = parse_one(nlh, st);
		if (r < 0)
			return r;
		off += NLMSG_ALIGN(nlh->nlmsg_len);
		if (off > len)
			break; /* the last message's padding may be missing */
	}
	return off >= len ? 0 : -EBADMSG;
}
