/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge-plan.c: gateways and default routes, ensureAddr's
 * conflict rule, port VLAN plans and the netlink request they become (fake
 * transport: this kernel has no bridge VLAN filtering).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/if_bridge.h>
#include <linux/rtnetlink.h>

#include "bridge.h"
#include "cni/plugin.h"
#include "cni/result.h"
#include "fake-nl.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "podnet/name.h"

static struct cni_result *ipam_result(const char *const *addrs, size_t n)
{
	struct cni_result *r = cni_result_new(CNI_V110);

	assert_non_null(r);
	for (size_t i = 0; i < n; i++) {
		struct cni_ip ip = {.interface = -1};

		assert_int_equal(ip_prefix_parse(addrs[i], &ip.address), 0);
		assert_true(cni_result_add_ip(r, &ip) >= 0);
	}
	return r;
}

static void assert_prefix(const struct ip_prefix *p, const char *want)
{
	char buf[IP_PREFIX_STRLEN];

	assert_string_equal(ip_prefix_fmt(p, buf), want);
}

static void test_plan_default_gateway_dual_stack(void **state)
{
	static const char *const addrs[] = {"10.1.2.5/24", "fd00::5/64", "fd01::7/64"};
	struct bridge_conf c = {.is_gateway = true, .is_default_gateway = true};
	struct cni_result *r = ipam_result(addrs, 3);
	struct bridge_gw gws[BRIDGE_MAX_GWS];
	char buf[INET6_ADDRSTRLEN];
	int n;

	(void)state;
	n = bridge_plan_l3(&c, r, gws, BRIDGE_MAX_GWS);
	assert_int_equal(n, 3);
	assert_prefix(&gws[0].addr, "10.1.2.1/24");
	assert_prefix(&gws[1].addr, "fd00::1/64");
	assert_prefix(&gws[2].addr, "fd01::1/64");
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(r->ips[i].interface, 2);
		assert_true(r->ips[i].has_gateway);
	}
	/* one default route per family, via the first IP's gateway */
	assert_int_equal(r->n_routes, 2);
	assert_int_equal(r->routes[0].dst.family, AF_INET);
	assert_int_equal(r->routes[0].dst.prefixlen, 0);
	assert_string_equal(ip_addr_fmt(AF_INET, &r->routes[0].gw, buf), "10.1.2.1");
	assert_int_equal(r->routes[1].dst.family, AF_INET6);
	assert_string_equal(ip_addr_fmt(AF_INET6, &r->routes[1].gw, buf), "fd00::1");
	cni_result_free(r);
}

static void test_plan_keeps_ipam_gateway_and_default_route(void **state)
{
	static const char *const addrs[] = {"10.1.2.5/24"};
	struct bridge_conf c = {.is_gateway = true, .is_default_gateway = true};
	struct cni_result *r = ipam_result(addrs, 1);
	struct bridge_gw gws[BRIDGE_MAX_GWS];
	struct cni_route rt = {.dst.family = AF_INET}; /* 0.0.0.0/0 without gw */

	(void)state;
	assert_int_equal(ip_addr_parse("10.1.2.254", &(int){0}, &r->ips[0].gateway), 0);
	r->ips[0].has_gateway = true;
	assert_true(cni_result_add_route(r, &rt) >= 0);
	assert_int_equal(bridge_plan_l3(&c, r, gws, BRIDGE_MAX_GWS), 1);
	assert_prefix(&gws[0].addr, "10.1.2.254/24");
	/* a gw-less IPAM default route counts as found (no duplicate default) */
	assert_int_equal(r->n_routes, 1);
	cni_result_free(r);
}

static void test_plan_not_gateway(void **state)
{
	static const char *const addrs[] = {"10.1.2.5/24", "10.1.2.6/24"};
	struct bridge_conf c = {.is_gateway = false};
	struct cni_result *r = ipam_result(addrs, 2);
	struct bridge_gw gws[BRIDGE_MAX_GWS];

	(void)state;
	assert_int_equal(bridge_plan_l3(&c, r, gws, BRIDGE_MAX_GWS), 0);
	assert_false(r->ips[0].has_gateway);
	assert_int_equal(r->n_routes, 0);
	assert_int_equal(r->ips[1].interface, 2);
	cni_result_free(r);

	/* same subnet twice: one gateway address */
	c.is_gateway = true;
	r = ipam_result(addrs, 2);
	assert_int_equal(bridge_plan_l3(&c, r, gws, BRIDGE_MAX_GWS), 1);
	cni_result_free(r);
}

static bool conflicts(const char *existing, const char *want)
{
	struct ip_prefix e, w;

	assert_int_equal(ip_prefix_parse(existing, &e), 0);
	assert_int_equal(ip_prefix_parse(want, &w), 0);
	return bridge_addr_conflicts(&e, &w);
}

/* The reference's ensureAddr cases (bridge_test.go). */
static void test_addr_conflicts(void **state)
{
	(void)state;
	assert_true(conflicts("10.0.0.1/8", "10.1.2.3/16"));
	assert_true(conflicts("192.168.0.1/24", "10.1.2.1/24")); /* IPv4: any other address */
	assert_false(conflicts("10.1.2.1/24", "10.1.2.1/24"));
	assert_true(conflicts("2001:db8:1::1/48", "2001:db8:1:2::1/64"));
	assert_true(conflicts("2001:db8:1:2::1/64", "2001:db8:1::1/48"));
	assert_false(conflicts("2001:db8:1:2::1/64", "fd00:1234::1/64"));
	assert_false(conflicts("10.0.0.1/8", "fd00::1/64")); /* other family */
}

static void test_port_vlans(void **state)
{
	uint16_t trunk[] = {1, 101, 200, 201, 202, 300};
	struct bridge_conf c = {.vlan = 100};
	struct nlw_bridge_vlan v[16];
	unsigned n;

	(void)state;
	n = bridge_plan_port_vlans(&c, v, 16);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].vid, 100);
	assert_int_equal(v[0].flags, NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED);

	/* trunk without vlan: native VID 1, tagged ranges of consecutive ids */
	c = (struct bridge_conf){.trunk = trunk, .n_trunk = 6, .has_trunk = true};
	n = bridge_plan_port_vlans(&c, v, 16);
	assert_int_equal(n, 4);
	assert_int_equal(v[0].vid, 1);
	assert_int_equal(v[0].flags, NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED);
	assert_int_equal(v[1].vid, 101);
	assert_int_equal(v[1].vid_end, 0);
	assert_int_equal(v[2].vid, 200);
	assert_int_equal(v[2].vid_end, 202);
	assert_int_equal(v[2].flags, 0);
	assert_int_equal(v[3].vid, 300);

	/* trunk with vlan 100: native 100, VID 1 tagged */
	c.vlan = 100;
	n = bridge_plan_port_vlans(&c, v, 16);
	assert_int_equal(n, 5);
	assert_int_equal(v[0].vid, 100);
	assert_int_equal(v[1].vid, 1);
	assert_int_equal(v[1].flags, 0);

	c = (struct bridge_conf){0};
	assert_int_equal(bridge_plan_port_vlans(&c, v, 16), 0);
}

/* The plan becomes one RTM_SETLINK (AF_BRIDGE) with IFLA_BRIDGE_VLAN_INFO entries. */
static void test_port_vlan_request(void **state)
{
	uint16_t trunk[] = {200, 201, 202, 300};
	struct bridge_conf c = {.vlan = 100, .trunk = trunk, .n_trunk = 4, .has_trunk = true};
	struct fake_nl *f = fake_nl_new();
	struct nlw_sock *s = NULL;
	struct nlw_bridge_vlan v[16];
	const struct nlmsghdr *req;
	const struct nlattr *spec, *a;
	unsigned n, seen = 0, pvid = 0;

	(void)state;
	assert_int_equal(fake_nl_sock(f, NETLINK_ROUTE, &s), 0);
	fake_nl_reply_ack(f);
	n = bridge_plan_port_vlans(&c, v, 16);
	assert_int_equal(nlw_bridge_vlan_add(s, 7, v, n), 0);
	assert_int_equal(fake_nl_nrequests(f), 1);
	req = fake_nl_request(f, 0);
	assert_int_equal(req->nlmsg_type, RTM_SETLINK);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_index, 7);
	spec = fake_nl_attr(req, sizeof(struct ifinfomsg), IFLA_AF_SPEC);
	assert_non_null(spec);
	mnl_attr_for_each_nested (a, spec) {
		const struct bridge_vlan_info *vi;

		if (mnl_attr_get_type(a) != IFLA_BRIDGE_VLAN_INFO)
			continue;
		vi = mnl_attr_get_payload(a);
		seen++;
		if (vi->flags & BRIDGE_VLAN_INFO_PVID) {
			pvid = vi->vid;
			assert_true(vi->flags & BRIDGE_VLAN_INFO_UNTAGGED);
		}
	}
	/* 100 (PVID), 200-202 as a begin/end pair, 300 */
	assert_int_equal(seen, 4);
	assert_int_equal(pvid, 100);
	nlw_sock_free(s);
	fake_nl_free(f);
}

/* DEL/CHECK find the host veth and pod MAC in prevResult, else derive the name. */
static void test_find_attachment(void **state)
{
	static const unsigned char want_mac[6] = {0x02, 0, 0, 0, 0, 0x07};
	struct bridge_conf c = {.bridge = "br0"};
	struct cni_ctx ctx = {.container_id = "c1", .ifname = "eth0"};
	char name[IFNAMSIZ], derived[IFNAMSIZ];
	unsigned char mac[6];
	bool has_mac = true;

	(void)state;
	podnet_host_ifname(BRIDGE_VETH_PREFIX, BRIDGE_VETH_HEX, "c1", "eth0", 0, derived);
	bridge_find_attachment(&ctx, &c, name, mac, &has_mac);
	assert_string_equal(name, derived);
	assert_false(has_mac);

	ctx.prev_result = cni_result_new(CNI_V110);
	assert_true(cni_result_add_iface(ctx.prev_result, "br0", "02:00:00:00:00:01", NULL) >= 0);
	assert_true(
	    cni_result_add_iface(ctx.prev_result, "veth0badc0de", "02:00:00:00:00:02", NULL) >= 0);
	assert_true(cni_result_add_iface(ctx.prev_result, "eth1", "02:00:00:00:00:05", "/ns") >= 0);
	assert_true(cni_result_add_iface(ctx.prev_result, "eth0", "02:00:00:00:00:07", "/ns") >= 0);
	assert_true(cni_result_add_iface(ctx.prev_result, "br0.100", "02:00:00:00:00:09", NULL) >=
		    0);
	bridge_find_attachment(&ctx, &c, name, mac, &has_mac);
	assert_string_equal(name, "veth0badc0de"); /* a reference-made random name works too */
	assert_true(has_mac);
	assert_memory_equal(mac, want_mac, 6);
	cni_result_free(ctx.prev_result);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_default_gateway_dual_stack),
	    cmocka_unit_test(test_plan_keeps_ipam_gateway_and_default_route),
	    cmocka_unit_test(test_plan_not_gateway),
	    cmocka_unit_test(test_addr_conflicts),
	    cmocka_unit_test(test_port_vlans),
	    cmocka_unit_test(test_port_vlan_request),
	    cmocka_unit_test(test_find_attachment),
	};

	return cmocka_run_group_tests_name("bridge-plan", tests, NULL, NULL);
}
