/* SPDX-License-Identifier: Apache-2.0 */
/* loopback's requests and their answers (lo-nl.c) on the fake netlink transport. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include "fake-nl.h"
#include "loopback.h"
#include "nlw/sock.h"

/* The one request sent: its header and its ifinfomsg. */
static const struct ifinfomsg *link_request(struct fake_fx *x, uint16_t type)
{
	const struct nlmsghdr *nlh = fake_nl_request(x->f, 0);

	assert_int_equal(fake_nl_nrequests(x->f), 1);
	assert_int_equal(nlh->nlmsg_type, type);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(nlh->nlmsg_len, NLMSG_LENGTH(sizeof(struct ifinfomsg)));
	return mnl_nlmsg_get_payload(nlh);
}

static void test_set_up_and_down(void **state)
{
	struct fake_fx *x = *state;
	const struct ifinfomsg *ifi;

	fake_nl_reply_ack(x->f);
	assert_int_equal(lo_set_up(x->s, true), 0);
	ifi = link_request(x, RTM_NEWLINK);
	assert_int_equal(ifi->ifi_family, AF_UNSPEC);
	assert_int_equal(ifi->ifi_index, LO_IFINDEX);
	assert_int_equal(ifi->ifi_flags, IFF_UP);
	assert_int_equal(ifi->ifi_change, IFF_UP);
	fake_nl_clear_requests(x->f);
	fake_nl_reply_error(x->f, -EPERM, "not allowed");
	assert_int_equal(lo_set_up(x->s, false), -EPERM);
	ifi = link_request(x, RTM_NEWLINK);
	assert_int_equal(ifi->ifi_flags, 0);
	assert_int_equal(ifi->ifi_change, IFF_UP);
	assert_string_equal(nlw_sock_ext_ack(x->s), "not allowed");
}

/* An RTM_NEWADDR of the dump: IFA_LOCAL (IPv4) or IFA_ADDRESS (IPv6) of alen bytes. */
static void reply_addr(struct fake_nl *f, int family, int ifindex, const void *addr, size_t alen,
		       unsigned plen)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWADDR, NLM_F_MULTI);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));

	ifa->ifa_family = (unsigned char)family;
	ifa->ifa_index = (unsigned)ifindex;
	ifa->ifa_prefixlen = (unsigned char)plen;
	mnl_attr_put(nlh, family == AF_INET ? IFA_LOCAL : IFA_ADDRESS, alen, addr);
	fake_nl_msg_end(f);
}

static const uint8_t v4[4] = {127, 0, 0, 1}, other[4] = {10, 1, 2, 3};
static const uint8_t v6[16] = {[15] = 1};

static void test_addrs(void **state)
{
	struct fake_fx *x = *state;
	const struct nlmsghdr *nlh;
	struct lo_addrs a = {0};

	reply_addr(x->f, AF_INET, 1, v4, 4, 8);
	reply_addr(x->f, AF_INET, 2, other, 4, 24); /* another interface: skipped */
	fake_nl_flush(x->f);
	reply_addr(x->f, AF_INET6, 1, v6, 16, 128);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(lo_addrs_get(x->s, &a), 0);
	nlh = fake_nl_request(x->f, 0);
	assert_int_equal(nlh->nlmsg_type, RTM_GETADDR);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(((const struct ifaddrmsg *)mnl_nlmsg_get_payload(nlh))->ifa_family,
			 AF_UNSPEC);
	assert_int_equal(a.n_v4, 1);
	assert_int_equal(a.n_v6, 1);
	assert_int_equal(a.v4[0].prefixlen, 8);
	assert_memory_equal(a.v4[0].addr.bytes, v4, 4);
	assert_int_equal(a.v6[0].prefixlen, 128);
	assert_true(lo_addr_is_loopback(&a.v4[0]));
	assert_true(lo_addr_is_loopback(&a.v6[0]));
	assert_int_equal(fake_nl_pending(x->f), 0);
}

static void test_addrs_malformed(void **state)
{
	struct fake_fx *x = *state;
	struct lo_addrs a = {0};

	/* A 4-byte address claiming /33. */
	reply_addr(x->f, AF_INET, 1, v4, 4, 33);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(lo_addrs_get(x->s, &a), -EBADMSG);
	assert_int_equal(fake_nl_pending(x->f), 0); /* the dump was read to its end */
	/* An IPv6 address of 4 bytes. */
	reply_addr(x->f, AF_INET6, 1, v4, 4, 128);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(lo_addrs_get(x->s, &a), -EBADMSG);
}

/* The kernel's answer to RTM_GETLINK of lo, then its ACK. */
static void reply_link(struct fake_nl *f, int ifindex, unsigned flags)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	fake_nl_msg_end(f);
	fake_nl_flush(f);
	fake_nl_reply_ack(f);
}

static void test_is_up(void **state)
{
	struct fake_fx *x = *state;
	const struct ifinfomsg *ifi;

	reply_link(x->f, 1, IFF_UP | IFF_LOOPBACK);
	assert_int_equal(lo_is_up(x->s), 1);
	ifi = link_request(x, RTM_GETLINK);
	assert_int_equal(ifi->ifi_index, LO_IFINDEX);
	assert_int_equal(ifi->ifi_change, 0);
	reply_link(x->f, 1, IFF_LOOPBACK);
	assert_int_equal(lo_is_up(x->s), 0);
	reply_link(x->f, 2, IFF_UP); /* not lo: not an answer about lo */
	assert_int_equal(lo_is_up(x->s), 0);
	fake_nl_reply_error(x->f, -ENODEV, NULL);
	assert_int_equal(lo_is_up(x->s), -ENODEV);
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
	    cmocka_unit_test_setup_teardown(test_set_up_and_down, fake_fx_setup_route,
					    fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_addrs, fake_fx_setup_route, fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_addrs_malformed, fake_fx_setup_route,
					    fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_is_up, fake_fx_setup_route, fake_fx_teardown),
	    cmocka_unit_test(test_is_loopback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
