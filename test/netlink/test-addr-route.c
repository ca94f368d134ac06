/* SPDX-License-Identifier: Apache-2.0 */
/* Address, route and neighbour requests decoded field by field; replies parsed and filtered. */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake-nl.h"
#include "nlw/nlw.h"
#include "nlw/parse.h"

/* Per-test fixture: a fake transport and an rtnetlink socket on it. */
#define setup fake_fx_setup_route
#define teardown fake_fx_teardown

static const struct nlmsghdr *last_req(struct fake_fx *x)
{
	assert_int_equal(fake_nl_pending(x->f), 0);
	return fake_nl_request(x->f, fake_nl_nrequests(x->f) - 1);
}

static struct ip_prefix pfx(const char *s)
{
	struct ip_prefix p;

	assert_int_equal(ip_prefix_parse(s, &p), 0);
	return p;
}

#define IFA_HDR sizeof(struct ifaddrmsg)
#define RTM_HDR sizeof(struct rtmsg)

static void test_addr_add_v4(void **state)
{
	struct fake_fx *x = *state;
	struct ip_prefix p = pfx("10.1.2.3/24");
	const struct nlmsghdr *req;
	const struct ifaddrmsg *ifa;
	const struct nlattr *brd;
	struct nlw_addr a;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_addr_add(x->s, 5, &p, NULL), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, RTM_NEWADDR);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	ifa = mnl_nlmsg_get_payload(req);
	assert_int_equal(ifa->ifa_family, AF_INET);
	assert_int_equal(ifa->ifa_prefixlen, 24);
	assert_int_equal(ifa->ifa_index, 5);
	assert_int_equal(ifa->ifa_scope, 0);
	brd = fake_nl_attr(req, IFA_HDR, IFA_BROADCAST);
	assert_non_null(brd);
	assert_int_equal(ntohl(mnl_attr_get_u32(brd)), 0x0a0102ff);
	assert_null(fake_nl_attr(req, IFA_HDR, IFA_FLAGS));
	/* Decode with our own reply parser (requests share the layout). */
	req = last_req(x);
	{
		struct nlmsghdr *copy = malloc(req->nlmsg_len);

		memcpy(copy, req, req->nlmsg_len);
		copy->nlmsg_type = RTM_NEWADDR;
		assert_int_equal(nlw_addr_parse(copy, &a), 0);
		free(copy);
	}
	assert_true(ip_addr_equal(AF_INET, &a.prefix.addr, &p.addr));
	/* /31 and /32 get no broadcast. */
	p = pfx("10.1.2.3/31");
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_addr_add(x->s, 5, &p, NULL), 0);
	assert_null(fake_nl_attr(last_req(x), IFA_HDR, IFA_BROADCAST));
}

static void test_addr_add_v6_flags(void **state)
{
	struct fake_fx *x = *state;
	struct ip_prefix p = pfx("2001:db8::7/64");
	struct nlw_addr_opts o = {.flags = NLW_ADDR_NODAD | NLW_ADDR_NOPREFIXROUTE,
				  .scope = RT_SCOPE_LINK};
	const struct nlmsghdr *req;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_addr_add(x->s, 5, &p, &o), 0);
	req = last_req(x);
	assert_int_equal(((const struct ifaddrmsg *)mnl_nlmsg_get_payload(req))->ifa_scope,
			 RT_SCOPE_LINK);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, IFA_HDR, IFA_FLAGS)),
			 IFA_F_NODAD | IFA_F_NOPREFIXROUTE);
	assert_int_equal(mnl_attr_get_payload_len(fake_nl_attr(req, IFA_HDR, IFA_ADDRESS)), 16);
	assert_null(fake_nl_attr(req, IFA_HDR, IFA_BROADCAST));

	fake_nl_reply_error(x->f, -EADDRNOTAVAIL, NULL);
	assert_int_equal(nlw_addr_del(x->s, 5, &p), -EADDRNOTAVAIL);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_DELADDR);

	p.family = AF_UNIX;
	assert_int_equal(nlw_addr_add(x->s, 5, &p, NULL), -EINVAL);
	p = pfx("10.0.0.1/8");
	p.prefixlen = 33;
	assert_int_equal(nlw_addr_add(x->s, 5, &p, NULL), -EINVAL);
	assert_int_equal(nlw_addr_add(x->s, 0, &p, NULL), -EINVAL);
}

static void test_dad_decision(void **state)
{
	struct nlw_addr a[3] = {0};

	(void)state;
	a[0].prefix = pfx("10.0.0.1/24");
	a[0].flags = IFA_F_TENTATIVE; /* IPv4 never counts */
	a[1].prefix = pfx("fe80::1/64");
	a[2].prefix = pfx("2001:db8::1/64");
	assert_int_equal(nlw_addr_dad_state_of(a, 3), 0);
	a[2].flags = IFA_F_TENTATIVE;
	assert_int_equal(nlw_addr_dad_state_of(a, 3), 1);
	a[1].flags = IFA_F_TENTATIVE | IFA_F_DADFAILED;
	assert_int_equal(nlw_addr_dad_state_of(a, 3), -EADDRNOTAVAIL);
	assert_int_equal(nlw_addr_dad_state_of(NULL, 0), 0);
}

static void test_route_add_request(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_route r = {.dst = pfx("10.20.0.0/16"),
			      .has_gw = true,
			      .oif = 4,
			      .priority = 50,
			      .mtu = 1400,
			      .advmss = 1360,
			      .flags = NLW_ROUTE_ONLINK};
	const struct nlmsghdr *req;
	const struct rtmsg *rtm;
	const struct nlattr *m;
	struct nlw_route back;

	inet_pton(AF_INET, "10.1.0.1", &r.gw.in);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_add(x->s, &r), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	rtm = mnl_nlmsg_get_payload(req);
	assert_int_equal(rtm->rtm_table, RT_TABLE_MAIN);
	assert_int_equal(rtm->rtm_protocol, RTPROT_BOOT);
	assert_int_equal(rtm->rtm_type, RTN_UNICAST);
	assert_int_equal(rtm->rtm_scope, RT_SCOPE_UNIVERSE);
	assert_int_equal(rtm->rtm_flags, RTNH_F_ONLINK);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, RTM_HDR, RTA_TABLE)), RT_TABLE_MAIN);
	m = fake_nl_attr(req, RTM_HDR, RTA_METRICS);
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(m, RTAX_MTU)), 1400);
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(m, RTAX_ADVMSS)), 1360);
	/* Round trip through the reply parser. */
	assert_int_equal(nlw_route_parse(req, &back), 0);
	assert_int_equal(back.dst.prefixlen, 16);
	assert_true(ip_addr_equal(AF_INET, &back.dst.addr, &r.dst.addr));
	assert_true(back.has_gw && ip_addr_equal(AF_INET, &back.gw, &r.gw));
	assert_int_equal(back.oif, 4);
	assert_int_equal(back.priority, 50);
	assert_int_equal(back.mtu, 1400);
	assert_int_equal(back.advmss, 1360);
	assert_int_equal(back.flags, NLW_ROUTE_ONLINK);

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_replace(x->s, &r), 0);
	assert_int_equal(last_req(x)->nlmsg_flags,
			 NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_append(x->s, &r), 0);
	assert_int_equal(last_req(x)->nlmsg_flags,
			 NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_APPEND);
}

static void test_route_special(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_route r = {
	    .dst = pfx("::/0"), .table = 1000, .protocol = 201, .type = NLW_ROUTE_BLACKHOLE};
	const struct nlmsghdr *req;
	const struct rtmsg *rtm;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_add(x->s, &r), 0);
	req = last_req(x);
	rtm = mnl_nlmsg_get_payload(req);
	assert_int_equal(rtm->rtm_family, AF_INET6);
	assert_int_equal(rtm->rtm_dst_len, 0);
	assert_null(fake_nl_attr(req, RTM_HDR, RTA_DST));  /* default route: no RTA_DST */
	assert_int_equal(rtm->rtm_table, RT_TABLE_UNSPEC); /* > 255: only RTA_TABLE */
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, RTM_HDR, RTA_TABLE)), 1000);
	assert_int_equal(rtm->rtm_type, RTN_BLACKHOLE);
	assert_int_equal(rtm->rtm_protocol, 201);
	assert_null(fake_nl_attr(req, RTM_HDR, RTA_METRICS));

	/* Delete: unset fields are wildcards. */
	r = (struct nlw_route){.dst = pfx("10.0.0.0/8")};
	fake_nl_reply_error(x->f, -ESRCH, NULL);
	assert_int_equal(nlw_route_del(x->s, &r), -ESRCH);
	rtm = mnl_nlmsg_get_payload(last_req(x));
	assert_int_equal(last_req(x)->nlmsg_type, RTM_DELROUTE);
	assert_int_equal(rtm->rtm_scope, RT_SCOPE_NOWHERE);
	assert_int_equal(rtm->rtm_protocol, RTPROT_UNSPEC);
	assert_int_equal(rtm->rtm_type, RTN_UNSPEC);

	/* A blackhole cannot have a gateway or device. */
	r = (struct nlw_route){.dst = pfx("10.0.0.0/8"), .type = NLW_ROUTE_BLACKHOLE, .oif = 3};
	assert_int_equal(nlw_route_add(x->s, &r), -EINVAL);
	r = (struct nlw_route){0};
	assert_int_equal(nlw_route_add(x->s, &r), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
}

static void add_route_msg(struct fake_nl *f, int family, const char *dst, uint8_t len,
			  uint32_t table, uint8_t proto, int oif, unsigned flags)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWROUTE, NLM_F_MULTI);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	unsigned char a[16];

	rtm->rtm_family = (uint8_t)family;
	rtm->rtm_dst_len = len;
	rtm->rtm_table = table < 256 ? (uint8_t)table : 0;
	rtm->rtm_protocol = proto;
	rtm->rtm_type = RTN_UNICAST;
	rtm->rtm_flags = flags;
	if (dst) {
		inet_pton(family, dst, a);
		mnl_attr_put(nlh, RTA_DST, family == AF_INET ? 4 : 16, a);
	}
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (oif)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)oif);
	fake_nl_msg_end(f);
}

static void test_route_list_filter(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_route_filter f = {.table = 254, .protocol = 77};
	struct nlw_route *v = NULL;
	const struct nlmsghdr *req;
	unsigned n = 0;

	add_route_msg(x->f, AF_INET, "10.1.0.0", 16, 254, 77, 3, 0);
	add_route_msg(x->f, AF_INET, "10.2.0.0", 16, 254, RTPROT_KERNEL, 3, 0);	   /* other proto */
	add_route_msg(x->f, AF_INET6, "2001:db8::", 64, 254, 77, 3, RTM_F_CLONED); /* cache */
	add_route_msg(x->f, AF_INET6, NULL, 0, 254, 77, 4, 0);
	add_route_msg(x->f, AF_INET, "10.3.0.0", 16, 1000, 77, 3, 0); /* other table */
	fake_nl_flush(x->f);
	{
		/* An AF_UNSPEC dump may carry other families: skipped, not an error. */
		struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, RTM_NEWROUTE, NLM_F_MULTI);
		struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

		rtm->rtm_family = 128; /* RTNL_FAMILY_IPMR */
		fake_nl_msg_end(x->f);
		fake_nl_flush(x->f);
	}
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_route_list(x->s, &f, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].dst.family, AF_INET);
	assert_int_equal(v[0].oif, 3);
	assert_int_equal(v[1].dst.family, AF_INET6);
	assert_int_equal(v[1].dst.prefixlen, 0);
	free(v);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, RTM_GETROUTE);
	assert_true(req->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(((const struct rtmsg *)mnl_nlmsg_get_payload(req))->rtm_protocol, 77);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, RTM_HDR, RTA_TABLE)), 254);
	assert_null(fake_nl_attr(req, RTM_HDR, RTA_OIF));
}

static void test_route_list_type(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_route_filter f = {
	    .family = AF_INET, .protocol = 81, .type = NLW_ROUTE_BLACKHOLE};
	struct nlw_route *v = NULL;
	const struct rtmsg *rtm;
	unsigned n = 0;

	add_route_msg(x->f, AF_INET, "10.1.0.0", 26, 254, 81, 3, 0); /* unicast: filtered out */
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_route_list(x->s, &f, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
	rtm = mnl_nlmsg_get_payload(last_req(x));
	assert_int_equal(rtm->rtm_type, RTN_BLACKHOLE); /* asked of the kernel too */
	assert_int_equal(rtm->rtm_family, AF_INET);
}

static void test_route_del_proto(void **state)
{
	struct fake_fx *x = *state;
	const unsigned char protos[2] = {80, 82};
	struct ip_prefix dst = pfx("10.244.1.7/32");
	const struct nlmsghdr *req;
	const struct rtmsg *rtm;

	/* The first protocol has no such route, the second has: two requests, 1. */
	fake_nl_reply_error(x->f, -ESRCH, NULL);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 9, protos, 2), 1);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
	for (size_t i = 0; i < 2; i++) {
		req = fake_nl_request(x->f, i);
		rtm = mnl_nlmsg_get_payload(req);
		assert_int_equal(req->nlmsg_type, RTM_DELROUTE);
		assert_int_equal(rtm->rtm_protocol, protos[i]);
		assert_int_equal(rtm->rtm_dst_len, 32);
		assert_int_equal(rtm->rtm_type, RTN_UNICAST);
		assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, RTM_HDR, RTA_OIF)), 9);
		assert_null(fake_nl_attr(req, RTM_HDR, RTA_PRIORITY)); /* any metric */
	}
	/* Found at the first protocol: one request. */
	fake_nl_clear_requests(x->f);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 9, protos, 2), 1);
	assert_int_equal(fake_nl_nrequests(x->f), 1);
	/* None: 0, after one request per protocol. */
	fake_nl_clear_requests(x->f);
	fake_nl_reply_error(x->f, -ESRCH, NULL);
	fake_nl_reply_error(x->f, -ESRCH, NULL);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 9, protos, 2), 0);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
	/* Another error stops at once. */
	fake_nl_clear_requests(x->f);
	fake_nl_reply_error(x->f, -EPERM, NULL);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 9, protos, 2), -EPERM);
	assert_int_equal(fake_nl_nrequests(x->f), 1);
	/* Bad arguments send nothing; protocol 0 would be a wildcard. */
	fake_nl_clear_requests(x->f);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 0, protos, 2), -EINVAL);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 9, protos, 0), -EINVAL);
	assert_int_equal(nlw_route_del_proto(x->s, &dst, 9, (const unsigned char[]){0}, 1),
			 -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 0);
}

static void test_route_parse_rejects(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, RTM_NEWROUTE, 0);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
	unsigned char six[6] = {0};
	struct nlw_route r;

	rtm->rtm_family = AF_INET;
	rtm->rtm_dst_len = 24;
	mnl_attr_put(nlh, RTA_DST, 6, six); /* IPv4 with a 6-byte address */
	assert_int_equal(nlw_route_parse(nlh, &r), -EBADMSG);
	rtm->rtm_dst_len = 40;
	assert_int_equal(nlw_route_parse(nlh, &r), -EBADMSG);
	nlh->nlmsg_type = RTM_NEWLINK;
	assert_int_equal(nlw_route_parse(nlh, &r), -EBADMSG);
}

static void test_neigh_requests(void **state)
{
	struct fake_fx *x = *state;
	static const unsigned char mac[6] = {2, 0, 0, 0, 0, 9};
	const struct nlmsghdr *req;
	const struct ndmsg *nd;
	union ip_addr ip;
	unsigned char got[6];
	unsigned st;

	inet_pton(AF_INET6, "2001:db8::9", &ip.in6);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_neigh_add_permanent(x->s, 6, AF_INET6, &ip, mac), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, RTM_NEWNEIGH);
	assert_int_equal(req->nlmsg_flags,
			 NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE);
	nd = mnl_nlmsg_get_payload(req);
	assert_int_equal(nd->ndm_family, AF_INET6);
	assert_int_equal(nd->ndm_ifindex, 6);
	assert_int_equal(nd->ndm_state, NUD_PERMANENT);
	assert_memory_equal(mnl_attr_get_payload(fake_nl_attr(req, sizeof(*nd), NDA_DST)), &ip, 16);
	assert_memory_equal(mnl_attr_get_payload(fake_nl_attr(req, sizeof(*nd), NDA_LLADDR)), mac,
			    6);
	/* GET answered by a reply, then ACK. */
	{
		struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, RTM_NEWNEIGH, 0);
		struct ndmsg *r = mnl_nlmsg_put_extra_header(nlh, sizeof(*r));

		r->ndm_family = AF_INET6;
		r->ndm_state = NUD_PERMANENT;
		mnl_attr_put(nlh, NDA_DST, 16, &ip);
		mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
		fake_nl_msg_end(x->f);
		fake_nl_flush(x->f);
		fake_nl_reply_ack(x->f);
	}
	assert_int_equal(nlw_neigh_get(x->s, 6, AF_INET6, &ip, got, &st), 0);
	assert_int_equal(st, NUD_PERMANENT);
	assert_memory_equal(got, mac, 6);
	fake_nl_reply_error(x->f, -ENOENT, NULL);
	assert_int_equal(nlw_neigh_del(x->s, 6, AF_INET6, &ip), -ENOENT);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_DELNEIGH);
	assert_int_equal(nlw_neigh_add_permanent(x->s, 6, AF_PACKET, &ip, mac), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_addr_add_v4),
	    T(test_addr_add_v6_flags),
	    cmocka_unit_test(test_dad_decision),
	    T(test_route_add_request),
	    T(test_route_special),
	    T(test_route_list_filter),
	    T(test_route_list_type),
	    T(test_route_del_proto),
	    T(test_route_parse_rejects),
	    T(test_neigh_requests),
#undef T
	};

	return cmocka_run_group_tests_name("nlw-addr-route", tests, NULL, NULL);
}
