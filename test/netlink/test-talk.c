/* SPDX-License-Identifier: Apache-2.0 */
/* The transaction layer through the fake transport: ACK, errors with ext-ack, dumps, DUMP_INTR. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake-nl.h"
#include "nlw/nlw.h"

/* Per-test fixture: a fake transport and an rtnetlink socket on it. */
#define setup fake_fx_setup_route
#define teardown fake_fx_teardown

/* Queue one RTM_NEWADDR 10.0.0.<last>/24 on ifindex into the current datagram. */
static void add_addr_msg(struct fake_nl *f, int ifindex, unsigned char last, uint16_t flags)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWADDR, NLM_F_MULTI | flags);
	struct ifaddrmsg *ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	unsigned char a[4] = {10, 0, 0, last};

	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = 24;
	ifa->ifa_index = (uint32_t)ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, 4, a);
	mnl_attr_put(nlh, IFA_ADDRESS, 4, a);
	fake_nl_msg_end(f);
}

static void test_ack(void **state)
{
	struct fake_fx *x = *state;
	const struct nlmsghdr *req;
	const struct ifinfomsg *ifi;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_up(x->s, 7), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 1);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RTM_SETLINK);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	ifi = mnl_nlmsg_get_payload(req);
	assert_int_equal(ifi->ifi_index, 7);
	assert_int_equal(ifi->ifi_flags, IFF_UP);
	assert_int_equal(ifi->ifi_change, IFF_UP);
	assert_null(nlw_sock_ext_ack(x->s));
	assert_int_equal(fake_nl_pending(x->f), 0);
}

static void test_error_ext_ack(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_veth_params p = {.name = "veth0", .peer_name = "eth0", .peer_netns_fd = -1};

	fake_nl_reply_error(x->f, -EEXIST, "Device name already in use");
	assert_int_equal(nlw_link_add_veth(x->s, &p), -EEXIST);
	assert_string_equal(nlw_sock_ext_ack(x->s), "Device name already in use");
	/* The next request forgets the old text. */
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_down(x->s, 3), 0);
	assert_null(nlw_sock_ext_ack(x->s));
}

static void test_error_without_ext_ack(void **state)
{
	struct fake_fx *x = *state;

	fake_nl_reply_error(x->f, -EPERM, NULL);
	assert_int_equal(nlw_link_set_mtu(x->s, 3, 1400), -EPERM);
	assert_null(nlw_sock_ext_ack(x->s));
}

static void test_multipart_dump(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_addr *a = NULL;
	unsigned n = 0;
	const struct nlmsghdr *req;

	add_addr_msg(x->f, 5, 1, 0);
	add_addr_msg(x->f, 5, 2, 0);
	fake_nl_flush(x->f);
	add_addr_msg(x->f, 6, 9, 0); /* another link: filtered out here too */
	add_addr_msg(x->f, 5, 3, 0);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_addr_list(x->s, 5, AF_INET, &a, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(a[0].prefix.addr.bytes[3], 1);
	assert_int_equal(a[2].prefix.addr.bytes[3], 3);
	assert_int_equal(a[1].prefix.prefixlen, 24);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RTM_GETADDR);
	assert_true(req->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(((const struct ifaddrmsg *)mnl_nlmsg_get_payload(req))->ifa_index, 5);
	free(a);
}

static void test_dump_intr_retried(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_addr *a = NULL;
	unsigned n = 0;

	/* Attempt 1: interrupted in the first datagram; the rest must be drained. */
	add_addr_msg(x->f, 5, 1, 0);
	add_addr_msg(x->f, 5, 2, NLM_F_DUMP_INTR);
	fake_nl_flush(x->f);
	add_addr_msg(x->f, 5, 3, NLM_F_DUMP_INTR);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, NLM_F_DUMP_INTR);
	/* Attempt 2: clean. */
	add_addr_msg(x->f, 5, 7, 0);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_addr_list(x->s, 5, AF_UNSPEC, &a, &n), 0);
	assert_int_equal(n, 1); /* nothing of the interrupted attempt survives */
	assert_int_equal(a[0].prefix.addr.bytes[3], 7);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
	assert_int_equal(fake_nl_pending(x->f), 0);
	free(a);
}

static void test_dump_intr_gives_up(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_addr *a = (struct nlw_addr *)1;
	unsigned n = 42;

	for (int i = 0; i < 5; i++) {
		add_addr_msg(x->f, 5, 1, NLM_F_DUMP_INTR);
		fake_nl_flush(x->f);
		fake_nl_reply_done(x->f, NLM_F_DUMP_INTR);
	}
	fake_nl_reply_done(x->f, 0); /* a 6th attempt would succeed: must not happen */
	assert_int_equal(nlw_addr_list(x->s, 5, AF_INET, &a, &n), -EAGAIN);
	assert_int_equal(fake_nl_nrequests(x->f), 5);
	assert_int_equal(fake_nl_pending(x->f), 1);
	assert_int_equal(n, 42); /* outputs untouched on failure */
}

static void test_parse_error_drains(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_addr *a = NULL;
	struct nlmsghdr *nlh;
	unsigned n = 0;

	add_addr_msg(x->f, 5, 1, 0);
	/* An IPv4 address message without any address attribute: our parser refuses it. */
	nlh = fake_nl_msg_begin(x->f, RTM_NEWADDR, NLM_F_MULTI);
	((struct ifaddrmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifaddrmsg)))
	    ->ifa_family = AF_INET;
	fake_nl_msg_end(x->f);
	fake_nl_flush(x->f);
	add_addr_msg(x->f, 5, 2, 0);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	fake_nl_reply_ack(x->f); /* for the next request */
	assert_int_equal(nlw_addr_list(x->s, 5, AF_INET, &a, &n), -EBADMSG);
	assert_null(a);
	/* The rest of the dump was drained: the next request reads its own ACK. */
	assert_int_equal(fake_nl_pending(x->f), 1);
	assert_int_equal(nlw_link_set_up(x->s, 5), 0);
}

static void test_get_parse_error_drains_ack(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, RTM_NEWLINK, 0);
	struct nlw_link l;

	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg)); /* no IFLA_IFNAME */
	fake_nl_msg_end(x->f);
	fake_nl_flush(x->f);
	fake_nl_reply_ack(x->f);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_get_by_index(x->s, 3, &l), -EBADMSG);
	assert_int_equal(nlw_link_set_up(x->s, 3), 0);
	assert_int_equal(fake_nl_pending(x->f), 0);
}

static void test_done_with_error(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh;
	struct nlw_addr *a = NULL;
	unsigned n = 0;
	int *err;

	add_addr_msg(x->f, 5, 1, 0);
	fake_nl_flush(x->f);
	nlh = fake_nl_msg_begin(x->f, NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS);
	err = mnl_nlmsg_put_extra_header(nlh, sizeof(int));
	*err = -EMSGSIZE;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "dump failed");
	fake_nl_msg_end(x->f);
	fake_nl_flush(x->f);
	assert_int_equal(nlw_addr_list(x->s, 5, AF_INET, &a, &n), -EMSGSIZE);
	assert_string_equal(nlw_sock_ext_ack(x->s), "dump failed");
}

static void test_bad_seq(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	fake_nl_reply_ack(x->f);
	nlh = fake_nl_msg_begin(x->f, NLMSG_ERROR, NLM_F_CAPPED);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = 0;
	fake_nl_msg_end(x->f);
	fake_nl_fix_seq(x->f, x->s->seq + 77, 0);
	fake_nl_flush(x->f);
	/* The first reply is a good ACK for request 1. */
	assert_int_equal(nlw_link_set_up(x->s, 2), 0);
	/* The second carries a sequence number we never sent. */
	assert_int_equal(nlw_link_set_up(x->s, 2), -EPROTO);
}

static void test_bad_portid(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	fake_nl_set_portid(x->f, 4242);
	nlh = fake_nl_msg_begin(x->f, NLMSG_ERROR, NLM_F_CAPPED);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = 0;
	fake_nl_msg_end(x->f);
	fake_nl_fix_seq(x->f, x->s->seq + 1, 999);
	fake_nl_flush(x->f);
	assert_int_equal(nlw_link_set_up(x->s, 2), -ESRCH);
}

static void test_big_reply_grows_buffer(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_addr *a = NULL;
	unsigned n = 0;

	/* ~1000 messages of ~40 bytes in ONE datagram: larger than the initial 32 KiB. */
	for (int i = 0; i < 1000; i++)
		add_addr_msg(x->f, 5, (unsigned char)(i % 250), 0);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_addr_list(x->s, 5, AF_INET, &a, &n), 0);
	assert_int_equal(n, 1000);
	assert_true(x->s->rbuf_len > 32768);
	free(a);
}

static void test_no_reply_is_an_error(void **state)
{
	struct fake_fx *x = *state;

	assert_int_equal(nlw_link_set_up(x->s, 2), -ETIMEDOUT);
}

static void test_get_link_enodev_mapping(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_link l;

	fake_nl_reply_error(x->f, -EINVAL, NULL);
	assert_int_equal(nlw_link_get_by_name(x->s, "nope0", &l), -ENODEV);
	fake_nl_reply_error(x->f, -ENODEV, NULL);
	assert_int_equal(nlw_link_get_by_index(x->s, 99, &l), -ENODEV);
	/* Invalid names never reach the kernel. */
	assert_int_equal(nlw_link_get_by_name(x->s, "a/b", &l), -EINVAL);
	assert_int_equal(nlw_link_get_by_name(x->s, "0123456789abcdef", &l), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
}

/* Three ACK-requested messages in one datagram, as nft sends a batch: their sequence numbers. */
static uint32_t send_three(struct fake_fx *x)
{
	union {
		struct nlmsghdr nlh;
		char buf[3 * NLMSG_HDRLEN];
	} d = {0};
	uint32_t first = 0;

	fake_nl_clear_requests(x->f);
	for (int i = 0; i < 3; i++) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(d.buf + i * NLMSG_HDRLEN);

		nlh->nlmsg_len = NLMSG_HDRLEN;
		nlh->nlmsg_type = NLMSG_MIN_TYPE;
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		nlh->nlmsg_seq = nlw_sock_next_seq(x->s);
		if (i == 0)
			first = nlh->nlmsg_seq;
	}
	assert_int_equal(nlw_sock_send(x->s, d.buf, sizeof(d.buf)), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 3);
	return first;
}

/* Queue an ACK (err 0) or an error answering seq, a datagram of its own. */
static void answer(struct fake_nl *f, uint32_t seq, int err, const char *ext_ack)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, NLMSG_ERROR, NLM_F_CAPPED);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = err;
	e->msg.nlmsg_len = sizeof(struct nlmsghdr);
	if (ext_ack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, ext_ack);
	}
	fake_nl_msg_end(f);
	fake_nl_fix_seq(f, seq, 0);
	fake_nl_flush(f);
}

static void test_recv_until_acks(void **state)
{
	struct fake_fx *x = *state;
	uint32_t first = send_three(x);

	for (uint32_t i = 0; i < 3; i++)
		answer(x->f, first + i, 0, NULL);
	answer(x->f, first + 3, 0, NULL); /* the next exchange's: left queued */
	assert_int_equal(nlw_sock_recv_until(x->s, first, first + 2, NULL, NULL), 0);
	assert_int_equal(fake_nl_pending(x->f), 1);
}

/* An error answering an earlier request: what is queued is read, nothing is waited for. */
static void test_recv_until_error_reads_queued(void **state)
{
	struct fake_fx *x = *state;
	uint32_t first = send_three(x);

	answer(x->f, first, 0, NULL);
	answer(x->f, first + 1, -EEXIST, "clash");
	/* The third request gets no answer (a kernel that gave up on the batch). */
	assert_int_equal(nlw_sock_recv_until(x->s, first, first + 2, NULL, NULL), -EEXIST);
	assert_string_equal(nlw_sock_ext_ack(x->s), "clash");
	/* A second error: the first one's extended ACK stays. */
	first = send_three(x);
	answer(x->f, first, -EEXIST, "clash");
	answer(x->f, first + 1, -ENOENT, "other");
	assert_int_equal(nlw_sock_recv_until(x->s, first, first + 2, NULL, NULL), -EEXIST);
	assert_string_equal(nlw_sock_ext_ack(x->s), "clash");
	assert_int_equal(fake_nl_pending(x->f), 0);
	/* An answer outside first..last is refused. */
	first = send_three(x);
	answer(x->f, first + 3, 0, NULL);
	assert_int_equal(nlw_sock_recv_until(x->s, first, first + 2, NULL, NULL), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_ack, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_error_ext_ack, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_error_without_ext_ack, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_multipart_dump, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dump_intr_retried, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dump_intr_gives_up, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_done_with_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_parse_error_drains, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_get_parse_error_drains_ack, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_seq, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_portid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_big_reply_grows_buffer, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_reply_is_an_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_get_link_enodev_mapping, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recv_until_acks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recv_until_error_reads_queued, setup, teardown),
	};

	return cmocka_run_group_tests_name("nlw-talk", tests, NULL, NULL);
}
