/* SPDX-License-Identifier: Apache-2.0 */
/* loopback's netlink requests and reply parser (lo-nl.c), no kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "loopback.h"

static void test_up_dump_request(void **state)
{
	char buf[256];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf, *dump;
	const struct ifinfomsg *ifi;
	const struct ifaddrmsg *ifa;
	int len;

	(void)state;
	len = lo_req_up_dump(buf, sizeof(buf), 7);
	assert_int_equal(len, NLMSG_ALIGN(NLMSG_LENGTH(sizeof(*ifi))) + NLMSG_LENGTH(sizeof(*ifa)));
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(nlh->nlmsg_seq, 7);
	ifi = NLMSG_DATA(nlh);
	assert_int_equal(ifi->ifi_index, LO_IFINDEX);
	assert_int_equal(ifi->ifi_flags, IFF_UP);
	assert_int_equal(ifi->ifi_change, IFF_UP);
	dump = (const struct nlmsghdr *)(buf + NLMSG_ALIGN(nlh->nlmsg_len));
	assert_int_equal(dump->nlmsg_type, RTM_GETADDR);
	assert_int_equal(dump->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(dump->nlmsg_seq, 8);
	ifa = NLMSG_DATA(dump);
	assert_int_equal(ifa->ifa_family, AF_UNSPEC);
	/* Too small a buffer is refused, never overrun. */
	assert_int_equal(lo_req_up_dump(buf, 40, 1), -ENOBUFS);
	assert_int_equal(lo_req_setflags(buf, 8, 1, true), -ENOBUFS);
}

static void test_down_and_get(void **state)
{
	char buf[64];
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const struct ifinfomsg *ifi = NLMSG_DATA(nlh);

	(void)state;
	assert_true(lo_req_setflags(buf, sizeof(buf), 1, false) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_int_equal(ifi->ifi_flags, 0);
	assert_int_equal(ifi->ifi_change, IFF_UP);
	assert_true(lo_req_getlink(buf, sizeof(buf), 3) > 0);
	assert_int_equal(nlh->nlmsg_type, RTM_GETLINK);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(ifi->ifi_index, LO_IFINDEX);
}

/* A tiny datagram builder for replies. */
struct dgram {
	union {
		struct nlmsghdr align;
		char buf[2048];
	};
	size_t len;
};

static void *put(struct dgram *d, uint16_t type, uint16_t flags, uint32_t seq, size_t payload)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(d->buf + d->len);

	memset(nlh, 0, NLMSG_ALIGN(NLMSG_LENGTH(payload)));
	nlh->nlmsg_len = (uint32_t)NLMSG_LENGTH(payload);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	d->len += NLMSG_ALIGN(nlh->nlmsg_len);
	return NLMSG_DATA(nlh);
}

static void put_ack(struct dgram *d, uint32_t seq, int error)
{
	struct nlmsgerr *e = put(d, NLMSG_ERROR, 0, seq, sizeof(*e));

	e->error = error;
}

static void put_addr(struct dgram *d, int family, int ifindex, const void *addr, unsigned plen)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct ifaddrmsg *ifa =
	    put(d, RTM_NEWADDR, NLM_F_MULTI, 2, NLMSG_ALIGN(sizeof(*ifa)) + RTA_SPACE(alen));
	struct rtattr *rta = (struct rtattr *)((char *)ifa + NLMSG_ALIGN(sizeof(*ifa)));

	ifa->ifa_family = (unsigned char)family;
	ifa->ifa_index = (unsigned)ifindex;
	ifa->ifa_prefixlen = (unsigned char)plen;
	rta->rta_type = family == AF_INET ? IFA_LOCAL : IFA_ADDRESS;
	rta->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(rta), addr, alen);
}

static void test_reply_addrs(void **state)
{
	static const uint8_t v4[4] = {127, 0, 0, 1}, other[4] = {10, 1, 2, 3};
	static const uint8_t v6[16] = {[15] = 1};
	struct lo_addrs a = {0};
	struct lo_reply st = {.seq_last = 2, .link_up = -1, .addrs = &a};
	struct dgram d = {.len = 0};

	(void)state;
	put_ack(&d, 1, 0);
	assert_int_equal(lo_reply_parse(d.buf, d.len, &st), 0);
	assert_false(st.done); /* the ACK of the first request does not end the exchange */
	d.len = 0;
	put_addr(&d, AF_INET, 1, v4, 8);
	put_addr(&d, AF_INET, 2, other, 24); /* another interface: ignored */
	put_addr(&d, AF_INET6, 1, v6, 128);
	put(&d, NLMSG_DONE, NLM_F_MULTI, 2, sizeof(int));
	assert_int_equal(lo_reply_parse(d.buf, d.len, &st), 0);
	assert_true(st.done);
	assert_int_equal(a.n_v4, 1);
	assert_int_equal(a.n_v6, 1);
	assert_int_equal(a.v4[0].prefixlen, 8);
	assert_memory_equal(a.v4[0].addr.bytes, v4, 4);
	assert_int_equal(a.v6[0].prefixlen, 128);
	assert_true(lo_addr_is_loopback(&a.v4[0]));
	assert_true(lo_addr_is_loopback(&a.v6[0]));
}

static void test_reply_errors(void **state)
{
	struct lo_reply st = {.seq_last = 1, .link_up = -1};
	struct dgram d = {.len = 0};
	struct ifinfomsg *ifi;

	(void)state;
	put_ack(&d, 1, -EPERM);
	assert_int_equal(lo_reply_parse(d.buf, d.len, &st), -EPERM);
	/* Truncated message: never read past the datagram. */
	d.len = 0;
	put_ack(&d, 1, 0);
	assert_int_equal(lo_reply_parse(d.buf, d.len - 2, &st), -EBADMSG);
	/* A GET's answer comes alone. */
	d.len = 0;
	ifi = put(&d, RTM_NEWLINK, 0, 1, sizeof(*ifi));
	ifi->ifi_index = 1;
	ifi->ifi_flags = IFF_UP | IFF_LOOPBACK;
	st = (struct lo_reply){.seq_last = 1, .link_up = -1};
	assert_int_equal(lo_reply_parse(d.buf, d.len, &st), 0);
	assert_true(st.done);
	assert_int_equal(st.link_up, 1);
}

static void test_is_loopback(void **state)
{
	struct ip_prefix p = {.family = AF_INET};

	(void)state;
	p.addr.bytes[0] = 127;
	p.addr.bytes[3] = 53;
	assert_true(lo_addr_is_loopback(&p));
	p.addr.bytes[0] = 128;
	assert_false(lo_addr_is_loopback(&p));
	p = (struct ip_prefix){.family = AF_INET6};
	p.addr.bytes[15] = 2;
	assert_false(lo_addr_is_loopback(&p));
	p.addr.bytes[15] = 1;
	assert_true(lo_addr_is_loopback(&p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_up_dump_request), cmocka_unit_test(test_down_and_get),
	    cmocka_unit_test(test_reply_addrs),	    cmocka_unit_test(test_reply_errors),
	    cmocka_unit_test(test_is_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
