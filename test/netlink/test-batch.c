/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nlw_batch through the fake transport: queued requests go out in one send,
 * answers are matched by sequence number, errors land at their request's
 * index; what cannot wait for an answer is refused. Also the requests of
 * nlw_link_set_conf, nlw_neigh_set_proxy_delay and nlw_netconf_get_forwarding
 * and the IFLA_AF_SPEC part of the link parser.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/neighbour.h>
#include <linux/netconf.h>
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
#include "nlw/parse.h"

#define setup fake_fx_setup_route
#define teardown fake_fx_teardown

static struct nlw_route route4(unsigned char last)
{
	struct nlw_route r = {.dst = {.family = AF_INET, .prefixlen = 32},
			      .oif = 4,
			      .scope = NLW_SCOPE_LINK,
			      .protocol = 80};

	r.dst.addr.bytes[0] = 10;
	r.dst.addr.bytes[3] = last;
	return r;
}

/* Script the answer to request i of the batch: a datagram of its own, its seq. */
static void answer(struct fake_fx *x, const struct nlw_batch *b, unsigned i, int err,
		   const char *ext_ack)
{
	fake_nl_fix_seq(x->f, b->seq[i], 0);
	if (err)
		fake_nl_reply_error(x->f, err, ext_ack);
	else
		fake_nl_reply_ack(x->f);
}

static void test_one_send_errors_by_index(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_route r[3] = {route4(1), route4(2), route4(3)};
	struct nlw_batch b;

	nlw_batch_begin(&b, x->s);
	for (int i = 0; i < 3; i++)
		assert_int_equal(nlw_route_add(x->s, &r[i]), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 0); /* nothing sent yet */
	assert_int_equal(b.n, 3);
	assert_true(b.seq[0] != b.seq[1] && b.seq[1] != b.seq[2]);
	answer(x, &b, 0, 0, NULL);
	answer(x, &b, 1, -EEXIST, "File exists (route 2)");
	answer(x, &b, 2, -ENETUNREACH, "second failure: not kept");
	assert_int_equal(nlw_batch_run(&b), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 3); /* one datagram, three requests */
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(fake_nl_request(x->f, i)->nlmsg_type, RTM_NEWROUTE);
	assert_int_equal(b.err[0], 0);
	assert_int_equal(b.err[1], -EEXIST);
	assert_int_equal(b.err[2], -ENETUNREACH);
	assert_int_equal(nlw_batch_first_error(&b), 1);
	assert_string_equal(nlw_sock_ext_ack(x->s), "File exists (route 2)");
	assert_null(x->s->batch);
	assert_int_equal(fake_nl_pending(x->f), 0);
}

static void test_answers_in_one_datagram(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_route r[2] = {route4(1), route4(2)};
	struct nlw_batch b;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_route_add(x->s, &r[0]), 0);
	assert_int_equal(nlw_route_add(x->s, &r[1]), 0);
	/* Both ACKs in one datagram, stamped with their own seqs. */
	for (unsigned i = 0; i < 2; i++) {
		nlh = fake_nl_msg_begin(x->f, NLMSG_ERROR, NLM_F_CAPPED);
		e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
		e->error = 0;
		nlh->nlmsg_seq = b.seq[i];
		fake_nl_msg_end(x->f);
	}
	fake_nl_keep_seq(x->f);
	fake_nl_flush(x->f);
	assert_int_equal(nlw_batch_run(&b), 0);
	assert_int_equal(b.err[0], 0);
	assert_int_equal(b.err[1], 0);
}

static void test_stray_answer(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_batch b;

	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_link_set_up(x->s, 1), 0);
	assert_int_equal(nlw_link_set_up(x->s, 2), 0);
	answer(x, &b, 0, 0, NULL);
	fake_nl_fix_seq(x->f, b.seq[1] + 100, 0); /* answers no request of the batch */
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_batch_run(&b), -EPROTO);
	assert_int_equal(b.err[0], 0);
	assert_int_equal(b.err[1], -EPROTO);
	/* Answered twice is as wrong. */
	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_link_set_up(x->s, 1), 0);
	assert_int_equal(nlw_link_set_up(x->s, 2), 0);
	answer(x, &b, 0, 0, NULL);
	answer(x, &b, 0, 0, NULL);
	assert_int_equal(nlw_batch_run(&b), -EPROTO);
	/* A wrong port id. */
	fake_nl_set_portid(x->f, 77);
	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_link_set_up(x->s, 1), 0);
	fake_nl_fix_seq(x->f, b.seq[0], 78);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_batch_run(&b), -ESRCH);
}

static void test_reply_data_batchable(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_batch b;
	struct nlmsghdr *nlh;
	struct netconfmsg *ncm;
	int fwd = 5;

	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_link_set_up(x->s, 3), 0);
	assert_int_equal(nlw_netconf_get_forwarding(x->s, AF_INET, NLW_NETCONF_ALL, &fwd), 0);
	assert_int_equal(fwd, -1); /* until the batch runs */
	/* Requests that need their answer inside the call are refused, nothing queued. */
	assert_int_equal(nlw_link_get_by_index(x->s, 3, &(struct nlw_link){0}), -EBUSY);
	assert_int_equal(b.n, 2);
	answer(x, &b, 0, 0, NULL);
	nlh = fake_nl_msg_begin(x->f, RTM_NEWNETCONF, 0);
	ncm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ncm));
	ncm->ncm_family = AF_INET;
	mnl_attr_put_u32(nlh, NETCONFA_IFINDEX, (uint32_t)NETCONFA_IFINDEX_ALL);
	mnl_attr_put_u32(nlh, NETCONFA_FORWARDING, 1);
	fake_nl_msg_end(x->f);
	fake_nl_fix_seq(x->f, b.seq[1], 0);
	fake_nl_flush(x->f);
	answer(x, &b, 1, 0, NULL);
	assert_int_equal(nlw_batch_run(&b), 0);
	assert_int_equal(b.err[0], 0);
	assert_int_equal(b.err[1], 0);
	assert_int_equal(fwd, 1);
	nlh = (struct nlmsghdr *)fake_nl_request(x->f, 1);
	assert_int_equal(nlh->nlmsg_type, RTM_GETNETCONF);
	assert_int_equal((int)mnl_attr_get_u32(fake_nl_attr(nlh, sizeof(*ncm), NETCONFA_IFINDEX)),
			 NETCONFA_IFINDEX_ALL);
}

static void test_full_abort_empty(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_batch b;

	nlw_batch_begin(&b, x->s);
	for (unsigned i = 0; i < NLW_BATCH_MAX; i++)
		assert_int_equal(nlw_link_set_up(x->s, (int)i + 1), 0);
	assert_int_equal(nlw_link_set_up(x->s, 99), -ENOBUFS);
	assert_int_equal(nlw_link_set_up(x->s, -1), -EINVAL); /* checked before queueing */
	nlw_batch_abort(&b);
	assert_null(x->s->batch);
	assert_int_equal(fake_nl_nrequests(x->f), 0);
	/* Detached: a request is sent at once again. */
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_up(x->s, 7), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 1);
	/* An empty batch sends nothing. */
	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_batch_run(&b), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 1);
	assert_int_equal(nlw_batch_first_error(&b), -1);
}

static void test_unanswered_gets_receive_error(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_batch b;

	nlw_batch_begin(&b, x->s);
	assert_int_equal(nlw_link_set_up(x->s, 1), 0);
	assert_int_equal(nlw_link_set_up(x->s, 2), 0);
	answer(x, &b, 0, 0, NULL);
	/* No answer for request 1: the fake's empty queue reads as -EAGAIN. */
	assert_true(nlw_batch_run(&b) < 0);
	assert_int_equal(b.err[0], 0);
	assert_true(b.err[1] < 0);
}

static void test_link_set_conf_request(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_link_conf c = {
	    .alias = "podwire:n/c/eth0",
	    .n_inet = 2,
	    .inet = {{IPV4_DEVCONF_PROXY_ARP, 1}, {IPV4_DEVCONF_RP_FILTER, 1}},
	    .inet6_addr_gen_mode = 0};
	const struct nlmsghdr *req;
	const struct nlattr *spec, *v4, *conf, *v6, *a;
	const struct ifinfomsg *ifi;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_conf(x->s, 9, &c), 0);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RTM_SETLINK);
	ifi = mnl_nlmsg_get_payload(req);
	assert_int_equal(ifi->ifi_index, 9);
	assert_int_equal(ifi->ifi_change, 0); /* never the flags: the link stays down */
	a = fake_nl_attr(req, sizeof(*ifi), IFLA_IFALIAS);
	assert_non_null(a);
	assert_int_equal(mnl_attr_get_payload_len(a), strlen(c.alias));
	spec = fake_nl_attr(req, sizeof(*ifi), IFLA_AF_SPEC);
	assert_non_null(spec);
	v4 = fake_nl_nested(spec, AF_INET);
	conf = v4 ? fake_nl_nested(v4, IFLA_INET_CONF) : NULL;
	assert_non_null(conf);
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(conf, IPV4_DEVCONF_PROXY_ARP)), 1);
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(conf, IPV4_DEVCONF_RP_FILTER)), 1);
	assert_null(fake_nl_nested(conf, IPV4_DEVCONF_FORWARDING));
	v6 = fake_nl_nested(spec, AF_INET6);
	assert_non_null(v6);
	assert_int_equal(mnl_attr_get_u8(fake_nl_nested(v6, IFLA_INET6_ADDR_GEN_MODE)), 0);
	/* Only the families asked for; nothing to change is refused. */
	c = (struct nlw_link_conf){.inet6_addr_gen_mode = -1, .alias = "x"};
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_conf(x->s, 9, &c), 0);
	assert_null(fake_nl_attr(fake_nl_request(x->f, 1), sizeof(*ifi), IFLA_AF_SPEC));
	c = (struct nlw_link_conf){.inet6_addr_gen_mode = -1};
	assert_int_equal(nlw_link_set_conf(x->s, 9, &c), -EINVAL);
	c = (struct nlw_link_conf){.n_inet = 1, .inet = {{0, 1}}, .inet6_addr_gen_mode = -1};
	assert_int_equal(nlw_link_set_conf(x->s, 9, &c), -EINVAL);
	c = (struct nlw_link_conf){.n_inet = NLW_INET_CONF_MAX + 1, .inet6_addr_gen_mode = -1};
	assert_int_equal(nlw_link_set_conf(x->s, 9, &c), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
}

static void test_proxy_delay_request(void **state)
{
	struct fake_fx *x = *state;
	const struct nlmsghdr *req;
	const struct nlattr *parms, *a;
	uint64_t ms;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_neigh_set_proxy_delay(x->s, AF_INET, 12, 0), 0);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RTM_SETNEIGHTBL);
	a = fake_nl_attr(req, sizeof(struct ndtmsg), NDTA_NAME);
	assert_string_equal(mnl_attr_get_str(a), "arp_cache");
	parms = fake_nl_attr(req, sizeof(struct ndtmsg), NDTA_PARMS);
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(parms, NDTPA_IFINDEX)), 12);
	a = fake_nl_nested(parms, NDTPA_PROXY_DELAY);
	assert_int_equal(mnl_attr_get_payload_len(a), sizeof(ms));
	memcpy(&ms, mnl_attr_get_payload(a), sizeof(ms));
	assert_int_equal(ms, 0);
	assert_int_equal(nlw_neigh_set_proxy_delay(x->s, AF_PACKET, 12, 0), -EINVAL);
}

/* A GETLINK answer's IFLA_AF_SPEC: the IPv6 settings bgp-route reads instead of /proc. */
static void test_parse_af_spec(void **state)
{
	unsigned char buf[1024] = {0};
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct nlattr *spec, *af;
	int32_t conf[DEVCONF_DISABLE_IPV6 + 4] = {0};
	struct nlw_link l;

	(void)state;
	nlh->nlmsg_type = RTM_NEWLINK;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 5;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "pwr0");
	assert_int_equal(nlw_link_parse(nlh, &l), 0);
	assert_false(l.has_inet6_conf);
	assert_int_equal(l.inet6_addr_gen_mode, -1);
	conf[DEVCONF_FORWARDING] = 1;
	conf[DEVCONF_ACCEPT_DAD] = 1;
	conf[DEVCONF_DISABLE_IPV6] = 0;
	spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	af = mnl_attr_nest_start(nlh, AF_INET);
	mnl_attr_put_u32(nlh, 1, 0); /* skipped: IPv4 is not read */
	mnl_attr_nest_end(nlh, af);
	af = mnl_attr_nest_start(nlh, AF_INET6);
	mnl_attr_put(nlh, IFLA_INET6_CONF, sizeof(conf), conf);
	mnl_attr_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE, 3);
	mnl_attr_nest_end(nlh, af);
	mnl_attr_nest_end(nlh, spec);
	assert_int_equal(nlw_link_parse(nlh, &l), 0);
	assert_true(l.has_inet6_conf);
	assert_int_equal(l.inet6_forwarding, 1);
	assert_int_equal(l.inet6_accept_dad, 1);
	assert_int_equal(l.inet6_disable_ipv6, 0);
	assert_int_equal(l.inet6_addr_gen_mode, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_one_send_errors_by_index, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_answers_in_one_datagram, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stray_answer, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reply_data_batchable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_full_abort_empty, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unanswered_gets_receive_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_set_conf_request, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_proxy_delay_request, setup, teardown),
	    cmocka_unit_test(test_parse_af_spec),
	};

	return cmocka_run_group_tests_name("nlw-batch", tests, NULL, NULL);
}
