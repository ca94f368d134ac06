/* SPDX-License-Identifier: Apache-2.0 */
/* Link, bridge and bridge-port requests decoded attribute by attribute; link replies parsed. */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
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

/* Per-test fixture: a fake transport and an rtnetlink socket on it. */
#define setup fake_fx_setup_route
#define teardown fake_fx_teardown

static const unsigned char MAC1[6] = {0x02, 1, 2, 3, 4, 5};
static const unsigned char MAC2[6] = {0x02, 9, 8, 7, 6, 5};
#define IFI_LEN sizeof(struct ifinfomsg)

/* Send one request answered by ACK and return it. */
static const struct nlmsghdr *last_req(struct fake_fx *x)
{
	assert_int_equal(fake_nl_pending(x->f), 0);
	return fake_nl_request(x->f, fake_nl_nrequests(x->f) - 1);
}

static const struct nlattr *info_data(const struct nlmsghdr *nlh)
{
	const struct nlattr *li = fake_nl_attr(nlh, IFI_LEN, IFLA_LINKINFO);

	assert_non_null(li);
	return fake_nl_nested(li, IFLA_INFO_DATA);
}

static void test_veth_request(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_veth_params p = {.name = "vethab12",
				    .mtu = 1450,
				    .mac = MAC1,
				    .master = 4,
				    .up = true,
				    .peer_name = "eth0",
				    .peer_netns_fd = 17,
				    .peer_mac = MAC2};
	const struct nlmsghdr *req;
	const struct nlattr *peer, *attr;
	struct nlw_link l;
	unsigned peer_mtu = 0;
	int nsfd = -1;
	const char *pname = NULL;
	const void *pmac = NULL;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_veth(x->s, &p), 0);
	req = last_req(x);
	assert_int_equal(fake_nl_nrequests(x->f), 1); /* ONE request */
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	/* Our own parser reads a create request like a reply. */
	assert_int_equal(nlw_link_parse(req, &l), 0);
	assert_string_equal(l.name, "vethab12");
	assert_string_equal(l.kind, "veth");
	assert_int_equal(l.mtu, 1450);
	assert_memory_equal(l.mac, MAC1, 6);
	assert_int_equal(l.master, 4);
	assert_int_equal(l.flags, IFF_UP);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_change,
			 IFF_UP);
	peer = fake_nl_nested(info_data(req), VETH_INFO_PEER);
	assert_non_null(peer);
	/* VETH_INFO_PEER = struct ifinfomsg + the peer's attributes */
	mnl_attr_for_each_payload (
	    (const void *)((const char *)mnl_attr_get_payload(peer) + IFI_LEN),
	    mnl_attr_get_payload_len(peer) - IFI_LEN) {
		switch (mnl_attr_get_type(attr)) {
		case IFLA_IFNAME:
			pname = mnl_attr_get_str(attr);
			break;
		case IFLA_MTU:
			peer_mtu = mnl_attr_get_u32(attr);
			break;
		case IFLA_NET_NS_FD:
			nsfd = (int)mnl_attr_get_u32(attr);
			break;
		case IFLA_ADDRESS:
			pmac = mnl_attr_get_payload(attr);
			break;
		default:
			fail_msg("unexpected peer attribute %u", mnl_attr_get_type(attr));
		}
	}
	assert_string_equal(pname, "eth0");
	assert_int_equal(peer_mtu, 1450); /* peer_mtu 0 = same as mtu */
	assert_int_equal(nsfd, 17);
	assert_non_null(pmac);
	assert_memory_equal(pmac, MAC2, 6);
}

static void test_veth_minimal_and_invalid(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_veth_params p = {.name = "v0", .peer_name = "v1", .peer_netns_fd = -1};
	const struct nlmsghdr *req;
	const struct nlattr *peer;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_veth(x->s, &p), 0);
	req = last_req(x);
	assert_null(fake_nl_attr(req, IFI_LEN, IFLA_MTU));
	assert_null(fake_nl_attr(req, IFI_LEN, IFLA_ADDRESS));
	assert_null(fake_nl_attr(req, IFI_LEN, IFLA_MASTER));
	peer = fake_nl_nested(info_data(req), VETH_INFO_PEER);
	assert_int_equal(mnl_attr_get_payload_len(peer), IFI_LEN + MNL_ATTR_HDRLEN + 4);
	p.peer_name = "much-too-long-name";
	assert_int_equal(nlw_link_add_veth(x->s, &p), -EINVAL);
	p.peer_name = NULL;
	assert_int_equal(nlw_link_add_veth(x->s, &p), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 1);
}

static void test_bridge_request(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_bridge_params p = {.name = "cni0",
				      .mtu = 9000,
				      .has_vlan_filtering = true,
				      .vlan_filtering = true,
				      .up = true};
	const struct nlattr *d;
	struct nlw_link l;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_bridge(x->s, &p), 0);
	assert_int_equal(nlw_link_parse(last_req(x), &l), 0);
	assert_string_equal(l.kind, "bridge");
	assert_string_equal(l.name, "cni0");
	assert_int_equal(l.mtu, 9000);
	assert_true(l.has_vlan_filtering && l.vlan_filtering);
	/* Without has_vlan_filtering the attribute is not sent at all. */
	p.has_vlan_filtering = false;
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_bridge(x->s, &p), 0);
	d = info_data(last_req(x));
	assert_null(fake_nl_nested(d, IFLA_BR_VLAN_FILTERING));
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_bridge_set_vlan_filtering(x->s, 12, false), 0);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_NEWLINK);
	assert_false(last_req(x)->nlmsg_flags & NLM_F_CREATE);
	assert_int_equal(nlw_link_parse(last_req(x), &l), -EBADMSG); /* no IFLA_IFNAME */
	assert_int_equal(
	    mnl_attr_get_u8(fake_nl_nested(info_data(last_req(x)), IFLA_BR_VLAN_FILTERING)), 0);
}

/* Golden bytes for the simplest builder: RTM_SETLINK master. */
static void test_set_master_golden(void **state)
{
	struct fake_fx *x = *state;
	static const unsigned char golden[] = {
	    /* nlmsghdr: len 40, RTM_SETLINK (19), REQUEST|ACK, seq (masked), pid 0 */
	    40,
	    0,
	    0,
	    0,
	    19,
	    0,
	    5,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    /* ifinfomsg: AF_UNSPEC, index 7, flags 0, change 0 */
	    0,
	    0,
	    0,
	    0,
	    7,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	    /* IFLA_MASTER (10) = 3 */
	    8,
	    0,
	    10,
	    0,
	    3,
	    0,
	    0,
	    0,
	};
	unsigned char got[sizeof(golden)];

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_master(x->s, 7, 3), 0);
	assert_int_equal(last_req(x)->nlmsg_len, sizeof(golden));
	memcpy(got, last_req(x), sizeof(got));
	memset(got + 8, 0, 4); /* sequence number */
	assert_memory_equal(got, golden, sizeof(golden));
}

static void test_setters(void **state)
{
	struct fake_fx *x = *state;
	const struct nlmsghdr *req;
	const struct nlattr *a;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_alias(x->s, 3, "pod/x"), 0);
	a = fake_nl_attr(last_req(x), IFI_LEN, IFLA_IFALIAS);
	assert_int_equal(mnl_attr_get_payload_len(a), 5); /* no NUL */
	assert_memory_equal(mnl_attr_get_payload(a), "pod/x", 5);

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_netns(x->s, 3, 9, "net1"), 0);
	req = last_req(x);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, IFI_LEN, IFLA_NET_NS_FD)), 9);
	assert_string_equal(mnl_attr_get_str(fake_nl_attr(req, IFI_LEN, IFLA_IFNAME)), "net1");

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_promisc(x->s, 3, true), 0);
	req = last_req(x);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_flags,
			 IFF_PROMISC);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_change,
			 IFF_PROMISC);

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_set_mac(x->s, 3, MAC1), 0);
	a = fake_nl_attr(last_req(x), IFI_LEN, IFLA_ADDRESS);
	assert_memory_equal(mnl_attr_get_payload(a), MAC1, 6);

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_del_by_name(x->s, "veth1"), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, RTM_DELLINK);
	assert_string_equal(mnl_attr_get_str(fake_nl_attr(req, IFI_LEN, IFLA_IFNAME)), "veth1");

	/* Bad arguments are refused before any request. */
	assert_int_equal(nlw_link_set_mtu(x->s, 3, 0), -EINVAL);
	assert_int_equal(nlw_link_set_name(x->s, 3, "a b"), -EINVAL);
	assert_int_equal(nlw_link_set_master(x->s, 0, 1), -EINVAL);
	assert_int_equal(nlw_link_del(x->s, -1), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 5);
}

static void test_brport_request(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_brport_params p = {
	    .has_hairpin = true, .hairpin = true, .has_isolated = true, .isolated = false};
	const struct nlmsghdr *req;
	const struct nlattr *pi;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_bridge_port_set(x->s, 8, &p), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, RTM_SETLINK);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_family,
			 AF_BRIDGE);
	pi = fake_nl_attr(req, IFI_LEN, IFLA_PROTINFO);
	assert_non_null(pi);
	assert_true(pi->nla_type & NLA_F_NESTED); /* the bridge ignores the old flat format */
	assert_int_equal(mnl_attr_get_u8(fake_nl_nested(pi, IFLA_BRPORT_MODE)), 1);
	assert_int_equal(mnl_attr_get_u8(fake_nl_nested(pi, IFLA_BRPORT_ISOLATED)), 0);
	assert_null(fake_nl_nested(pi, IFLA_BRPORT_LEARNING));
	p = (struct nlw_brport_params){0};
	assert_int_equal(nlw_bridge_port_set(x->s, 8, &p), -EINVAL);
}

static void test_vlan_requests(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_bridge_vlan v[] = {
	    {.vid = 10, .flags = NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED},
	    {.vid = 20, .vid_end = 22},
	};
	struct nlw_bridge_vlan self = {.vid = 10, .flags = NLW_BRVLAN_SELF};
	const struct bridge_vlan_info *vi[3];
	const struct nlattr *spec, *a;
	unsigned n = 0;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_bridge_vlan_add(x->s, 8, v, 2), 0);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_SETLINK);
	spec = fake_nl_attr(last_req(x), IFI_LEN, IFLA_AF_SPEC);
	assert_null(fake_nl_nested(spec, IFLA_BRIDGE_FLAGS));
	mnl_attr_for_each_nested (a, spec) {
		assert_int_equal(mnl_attr_get_type(a), IFLA_BRIDGE_VLAN_INFO);
		assert_int_equal(mnl_attr_get_payload_len(a), sizeof(struct bridge_vlan_info));
		assert_true(n < 3);
		vi[n++] = mnl_attr_get_payload(a);
	}
	assert_int_equal(n, 3);
	assert_int_equal(vi[0]->vid, 10);
	assert_int_equal(vi[0]->flags, BRIDGE_VLAN_INFO_PVID | BRIDGE_VLAN_INFO_UNTAGGED);
	assert_int_equal(vi[1]->vid, 20);
	assert_int_equal(vi[1]->flags, BRIDGE_VLAN_INFO_RANGE_BEGIN);
	assert_int_equal(vi[2]->vid, 22);
	assert_int_equal(vi[2]->flags, BRIDGE_VLAN_INFO_RANGE_END);

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_bridge_vlan_del(x->s, 3, &self, 1), 0);
	assert_int_equal(last_req(x)->nlmsg_type, RTM_DELLINK);
	spec = fake_nl_attr(last_req(x), IFI_LEN, IFLA_AF_SPEC);
	assert_int_equal(mnl_attr_get_u16(fake_nl_nested(spec, IFLA_BRIDGE_FLAGS)),
			 BRIDGE_FLAGS_SELF);

	{
		static const struct nlw_bridge_vlan bad[] = {
		    {.vid = 0},
		    {.vid = 4095},
		    {.vid = 10, .vid_end = 5},
		    {.vid = 10, .vid_end = 4095},
		    {.vid = 5, .vid_end = 9, .flags = NLW_BRVLAN_PVID},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			assert_int_equal(nlw_bridge_vlan_add(x->s, 8, &bad[i], 1), -EINVAL);
	}
	assert_int_equal(nlw_bridge_vlan_add(x->s, 8, v, 0), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 2);
}

/* A bridge dump message for ifindex with the given VLANs. */
static void add_brvlan_msg(struct fake_nl *f, int ifindex, const uint16_t *vids, unsigned n)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWLINK, NLM_F_MULTI);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *spec;

	ifi->ifi_family = AF_BRIDGE;
	ifi->ifi_index = ifindex;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "p");
	spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	for (unsigned i = 0; i < n; i++) {
		struct bridge_vlan_info vi = {.vid = vids[i],
					      .flags = i == 0 ? BRIDGE_VLAN_INFO_PVID : 0};

		mnl_attr_put(nlh, IFLA_BRIDGE_VLAN_INFO, sizeof(vi), &vi);
	}
	mnl_attr_nest_end(nlh, spec);
	fake_nl_msg_end(f);
}

static void test_vlan_list(void **state)
{
	struct fake_fx *x = *state;
	static const uint16_t a[] = {1, 5}, b[] = {7, 100, 200};
	struct nlw_bridge_vlan *v = NULL;
	const struct nlmsghdr *req;
	unsigned n = 0;

	add_brvlan_msg(x->f, 4, a, 2);
	add_brvlan_msg(x->f, 9, b, 3);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_bridge_vlan_list(x->s, 9, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].vid, 7);
	assert_int_equal(v[0].flags, NLW_BRVLAN_PVID);
	assert_int_equal(v[2].vid, 200);
	assert_int_equal(v[2].flags, 0);
	free(v);
	req = last_req(x);
	assert_true(req->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_family,
			 AF_BRIDGE);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, IFI_LEN, IFLA_EXT_MASK)),
			 RTEXT_FILTER_BRVLAN);
}

static void test_macvlan_vxlan_requests(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_macvlan_params mp = {.name = "mv0", .parent = 2, .netns_fd = 11};
	struct nlw_vxlan_params vp = {.name = "vx0",
				      .vni = 4242,
				      .family = AF_INET6,
				      .has_group = true,
				      .dev = 2,
				      .port = 4789};
	const struct nlattr *d;
	struct nlw_link l;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_macvlan(x->s, &mp), 0);
	assert_int_equal(nlw_link_parse(last_req(x), &l), 0);
	assert_string_equal(l.kind, "macvlan");
	assert_int_equal(l.link, 2);
	assert_int_equal(l.macvlan_mode, NLW_MACVLAN_BRIDGE); /* default */
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(last_req(x), IFI_LEN, IFLA_NET_NS_FD)), 11);
	mp.mode = 3;
	assert_int_equal(nlw_link_add_macvlan(x->s, &mp), -EINVAL);

	vp.group[0] = 0xff;
	vp.group[1] = 0x05;
	vp.group[15] = 1;
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_vxlan(x->s, &vp), 0);
	assert_int_equal(nlw_link_parse(last_req(x), &l), 0);
	assert_int_equal(l.vxlan_id, 4242);
	assert_int_equal(l.vxlan_port, 4789);
	d = info_data(last_req(x));
	assert_int_equal(mnl_attr_get_u16(fake_nl_nested(d, IFLA_VXLAN_PORT)), htons(4789));
	assert_int_equal(mnl_attr_get_payload_len(fake_nl_nested(d, IFLA_VXLAN_GROUP6)), 16);
	assert_memory_equal(mnl_attr_get_payload(fake_nl_nested(d, IFLA_VXLAN_GROUP6)), vp.group,
			    16);
	assert_null(fake_nl_nested(d, IFLA_VXLAN_LOCAL));
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(d, IFLA_VXLAN_LINK)), 2);
	vp.family = 0;
	assert_int_equal(nlw_link_add_vxlan(x->s, &vp), -EINVAL);
}

static void test_get_reply_parsed(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *li, *sd;
	const struct nlmsghdr *req;
	struct nlw_link l;

	ifi->ifi_index = 12;
	ifi->ifi_flags = IFF_UP | IFF_PROMISC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "veth12");
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, MAC1);
	mnl_attr_put_u32(nlh, IFLA_MASTER, 3);
	mnl_attr_put_u32(nlh, IFLA_LINK, 2);
	mnl_attr_put_u32(nlh, IFLA_LINK_NETNSID, 0);
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, 6 /* IF_OPER_UP */);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	mnl_attr_put_strz(nlh, IFLA_INFO_SLAVE_KIND, "bridge");
	sd = mnl_attr_nest_start(nlh, IFLA_INFO_SLAVE_DATA);
	mnl_attr_put_u8(nlh, IFLA_BRPORT_MODE, 1);
	mnl_attr_put_u8(nlh, IFLA_BRPORT_LEARNING, 1);
	mnl_attr_put_u8(nlh, IFLA_BRPORT_ISOLATED, 0);
	mnl_attr_nest_end(nlh, sd);
	mnl_attr_nest_end(nlh, li);
	fake_nl_msg_end(x->f);
	fake_nl_flush(x->f);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_get_by_name(x->s, "veth12", &l), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, RTM_GETLINK);
	assert_false(req->nlmsg_flags & NLM_F_DUMP); /* a single GET, never a dump */
	assert_string_equal(mnl_attr_get_str(fake_nl_attr(req, IFI_LEN, IFLA_IFNAME)), "veth12");
	assert_int_equal(l.ifindex, 12);
	assert_true(l.promisc);
	assert_int_equal(l.operstate, 6 /* IF_OPER_UP */);
	assert_int_equal(l.master, 3);
	assert_int_equal(l.link, 2);
	assert_int_equal(l.link_netnsid, 0);
	assert_true(l.has_brport);
	assert_true(l.hairpin);
	assert_true(l.learning);
	assert_false(l.isolated);
	/* A GET answered with ACK only (no message) is "no such device". */
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_get_by_index(x->s, 12, &l), -ENODEV);
}

static void test_mac_helpers(void **state)
{
	unsigned char m[6];
	char buf[18];

	(void)state;
	assert_int_equal(nlw_mac_parse("02:AB:cd:00:11:ff", m), 0);
	assert_string_equal(nlw_mac_fmt(m, buf), "02:ab:cd:00:11:ff");
	assert_int_equal(nlw_mac_parse("02:ab:cd:00:11", m), -EINVAL);
	assert_int_equal(nlw_mac_parse("02-ab-cd-00-11-ff", m), -EINVAL);
	assert_int_equal(nlw_mac_parse("02:ab:cd:00:11:fg", m), -EINVAL);
	assert_int_equal(nlw_mac_parse(NULL, m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_veth_request),
	    T(test_veth_minimal_and_invalid),
	    T(test_bridge_request),
	    T(test_set_master_golden),
	    T(test_setters),
	    T(test_brport_request),
	    T(test_vlan_requests),
	    T(test_vlan_list),
	    T(test_macvlan_vxlan_requests),
	    T(test_get_reply_parsed),
	    cmocka_unit_test(test_mac_helpers),
#undef T
	};

	return cmocka_run_group_tests_name("nlw-link-req", tests, NULL, NULL);
}
