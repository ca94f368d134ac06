/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route's decisions (route protocol, host route, pod ips and routes,
 * host interface name) and the host route / neighbour requests as the
 * kernel receives them (fake netlink transport).
 */
#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bgp-route.h"
#include "cni/result.h"
#include "fake-nl.h"
#include "nlw/neigh.h"
#include "nlw/route.h"
#include "nlw/types.h"
#include "podnet/name.h"

static struct ip_prefix pfx(const char *s)
{
	struct ip_prefix p;

	assert_int_equal(ip_prefix_parse_full(s, true, &p), 0);
	return p;
}

static const struct bgpr_conf conf = {
    .mtu = 1500,
    .host_if_prefix = "pwr",
    .proto_pod = 80,
    .proto_block = 81,
    .proto_borrowed = 82,
};

static struct nlw_route block(const char *s, unsigned char proto, unsigned char type)
{
	struct nlw_route r = {.dst = pfx(s), .protocol = proto, .type = type};

	return r;
}

static void test_route_proto(void **state)
{
	struct nlw_route blocks[3] = {
	    block("10.244.1.0/26", 81, NLW_ROUTE_BLACKHOLE),
	    block("10.244.9.0/26", 80, NLW_ROUTE_BLACKHOLE), /* not a block: proto 80 */
	    block("10.244.8.0/26", 81, NLW_ROUTE_UNICAST),   /* not a blackhole */
	};
	struct bgpr_conf strict = conf;
	struct ip_prefix in = pfx("10.244.1.5"), out = pfx("10.244.2.5"), v6 = pfx("fd00::5");

	(void)state;
	assert_int_equal(bgpr_route_proto(&conf, &in, blocks, 3), 80);
	assert_int_equal(bgpr_route_proto(&conf, &out, blocks, 3), 82);	    /* borrowed */
	assert_int_equal(bgpr_route_proto(&conf, &out, blocks + 1, 2), 80); /* no block at all */
	assert_int_equal(bgpr_route_proto(&conf, &v6, blocks, 3), 80);	    /* no IPv6 block */
	strict.strict_borrow = true; /* cluster-ipam: no block of ours = borrowed */
	assert_int_equal(bgpr_route_proto(&strict, &v6, blocks, 3), 82);
	assert_int_equal(bgpr_route_proto(&strict, &in, blocks, 3), 80);
}

static void test_host_route(void **state)
{
	struct ip_prefix a4 = pfx("10.244.1.5/24"), a6 = pfx("fd00::5/64");
	struct nlw_route r;

	(void)state;
	bgpr_host_route(&a4, 7, 80, &r);
	assert_int_equal(r.dst.prefixlen, 32);
	assert_int_equal(r.oif, 7);
	assert_int_equal(r.protocol, 80);
	assert_int_equal(r.scope, NLW_SCOPE_LINK);
	assert_int_equal(r.priority, 0);
	assert_true(bgpr_is_pod_route(&conf, &r));
	bgpr_host_route(&a6, 7, 82, &r);
	assert_int_equal(r.dst.prefixlen, 128);
	assert_int_equal(r.priority, BGPR_V6_METRIC);
	assert_true(BGPR_V6_METRIC < 32); /* below BIRD's kernel metric */
	assert_true(bgpr_is_pod_route(&conf, &r));
	r.protocol = 81;
	assert_false(bgpr_is_pod_route(&conf, &r));
}

static struct cni_result *ipam_result(bool v4, bool v6, bool with_route)
{
	struct cni_result *res = cni_result_new(CNI_V100);
	struct cni_ip ip = {.interface = -1};
	struct cni_route rt = {.dst = pfx("10.96.0.0/12")};

	if (v4) {
		ip.address = pfx("10.244.1.5/24");
		ip.has_gateway = true;
		assert_int_equal(ip_addr_parse("10.244.1.1", &(int){0}, &ip.gateway), 0);
		assert_true(cni_result_add_ip(res, &ip) >= 0);
	}
	if (v6) {
		ip.address = pfx("fd00::5/64");
		ip.has_gateway = false;
		assert_true(cni_result_add_ip(res, &ip) >= 0);
	}
	if (with_route) {
		assert_true(cni_result_add_route(res, &rt) >= 0);
		rt.dst = pfx("::/0");
		assert_true(cni_result_add_route(res, &rt) >= 0);
	}
	return res;
}

static void test_pod_ips_routes(void **state)
{
	struct cni_result *res = ipam_result(true, true, false);
	char buf[IP_PREFIX_STRLEN], gw[INET6_ADDRSTRLEN];
	union ip_addr ll;

	(void)state;
	/* the EUI-64 link-local of ee:ee:ee:ee:ee:ee, as the kernel makes it */
	bgpr_host_ll(&ll);
	assert_string_equal(ip_addr_fmt(AF_INET6, &ll, gw), "fe80::ecee:eeff:feee:eeee");
	bgpr_pod_ips(res);
	assert_string_equal(ip_prefix_fmt(&res->ips[0].address, buf), "10.244.1.5/32");
	assert_string_equal(ip_prefix_fmt(&res->ips[1].address, buf), "fd00::5/128");
	assert_false(res->ips[0].has_gateway);
	assert_int_equal(res->ips[0].interface, 1);
	assert_int_equal(bgpr_pod_routes(res, &ll), 0);
	assert_int_equal(res->n_routes, 2);
	assert_string_equal(ip_prefix_fmt(&res->routes[0].dst, buf), "0.0.0.0/0");
	assert_string_equal(ip_addr_fmt(AF_INET, &res->routes[0].gw, gw), "169.254.1.1");
	assert_string_equal(ip_prefix_fmt(&res->routes[1].dst, buf), "::/0");
	assert_string_equal(ip_addr_fmt(AF_INET6, &res->routes[1].gw, gw),
			    "fe80::ecee:eeff:feee:eeee");
	cni_result_free(res);
	/* IPAM routes are kept via our gateways; a default of a family the pod lacks goes. */
	res = ipam_result(true, false, true);
	assert_int_equal(bgpr_pod_routes(res, &ll), 0);
	assert_int_equal(res->n_routes, 2);
	assert_string_equal(ip_prefix_fmt(&res->routes[0].dst, buf), "10.96.0.0/12");
	assert_string_equal(ip_addr_fmt(AF_INET, &res->routes[0].gw, gw), "169.254.1.1");
	assert_string_equal(ip_prefix_fmt(&res->routes[1].dst, buf), "0.0.0.0/0");
	cni_result_free(res);
}

static void test_host_ifname(void **state)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];

	(void)state;
	assert_int_equal(podnet_host_ifname("pwr", BGPR_HOST_HEX, "cid1", "eth0", 0, a), 0);
	assert_int_equal(strlen(a), 14);
	assert_int_equal(strncmp(a, "pwr", 3), 0);
	assert_int_equal(podnet_host_ifname("pwr", BGPR_HOST_HEX, "cid1", "eth0", 0, b), 0);
	assert_string_equal(a, b); /* deterministic: DEL needs no state */
	assert_int_equal(podnet_host_ifname("pwr", BGPR_HOST_HEX, "cid1", "eth1", 0, b), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(podnet_host_ifname("cali", BGPR_HOST_HEX, "cid1", "eth0", 0, b), 0);
	assert_int_equal(strlen(b), 15);
}

static const struct nlmsghdr *last_req(struct fake_fx *x)
{
	return fake_nl_request(x->f, fake_nl_nrequests(x->f) - 1);
}

/* The host routes as the kernel gets them: protocol, scope, oif, metric. */
static void test_host_route_request(void **state)
{
	struct fake_fx *x = *state;
	struct ip_prefix a4 = pfx("10.244.1.5"), a6 = pfx("fd00::5");
	const struct rtmsg *rtm;
	const struct nlattr *at;
	struct nlw_route r;

	bgpr_host_route(&a4, 9, 82, &r);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_add(x->s, &r), 0);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_NEWROUTE);
	rtm = mnl_nlmsg_get_payload(last_req(x));
	assert_int_equal(rtm->rtm_family, AF_INET);
	assert_int_equal(rtm->rtm_dst_len, 32);
	assert_int_equal(rtm->rtm_protocol, 82);
	assert_int_equal(rtm->rtm_scope, RT_SCOPE_LINK);
	assert_int_equal(rtm->rtm_type, RTN_UNICAST);
	at = fake_nl_attr(last_req(x), sizeof(*rtm), RTA_OIF);
	assert_non_null(at);
	assert_int_equal(mnl_attr_get_u32(at), 9);
	assert_null(fake_nl_attr(last_req(x), sizeof(*rtm), RTA_GATEWAY));
	bgpr_host_route(&a6, 9, 80, &r);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_route_add(x->s, &r), 0);
	rtm = mnl_nlmsg_get_payload(last_req(x));
	assert_int_equal(rtm->rtm_dst_len, 128);
	assert_int_equal(rtm->rtm_protocol, 80);
	at = fake_nl_attr(last_req(x), sizeof(*rtm), RTA_PRIORITY);
	assert_non_null(at);
	assert_int_equal(mnl_attr_get_u32(at), BGPR_V6_METRIC);
}

/* The pod's gateway neighbour: PERMANENT, 169.254.1.1 -> ee:ee:ee:ee:ee:ee. */
static void test_neighbour_request(void **state)
{
	struct fake_fx *x = *state;
	const struct ndmsg *nd;
	const struct nlattr *at;
	union ip_addr gw;

	assert_int_equal(ip_addr_parse(BGPR_GW4, &(int){0}, &gw), 0);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_neigh_add_permanent(x->s, 3, AF_INET, &gw, bgpr_host_mac), 0);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_NEWNEIGH);
	nd = mnl_nlmsg_get_payload(last_req(x));
	assert_int_equal(nd->ndm_state, NUD_PERMANENT);
	assert_int_equal(nd->ndm_ifindex, 3);
	at = fake_nl_attr(last_req(x), sizeof(*nd), NDA_LLADDR);
	assert_non_null(at);
	assert_memory_equal(mnl_attr_get_payload(at), bgpr_host_mac, 6);
	at = fake_nl_attr(last_req(x), sizeof(*nd), NDA_DST);
	assert_non_null(at);
	assert_memory_equal(mnl_attr_get_payload(at), &gw, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_route_proto),
	    cmocka_unit_test(test_host_route),
	    cmocka_unit_test(test_pod_ips_routes),
	    cmocka_unit_test(test_host_ifname),
	    cmocka_unit_test_setup_teardown(test_host_route_request, fake_fx_setup_route,
					    fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_neighbour_request, fake_fx_setup_route,
					    fake_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
