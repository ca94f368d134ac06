/* SPDX-License-Identifier: Apache-2.0 */
/* SR-IOV VF requests on the PF and the VF info parser (fake transport only). */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
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

#define IFI_LEN sizeof(struct ifinfomsg)
static const unsigned char MAC[6] = {0x02, 0x10, 0x20, 0x30, 0x40, 0x50};

/* The single IFLA_VF_INFO nest of the last request. */
static const struct nlattr *vf_info(struct fake_fx *x)
{
	const struct nlmsghdr *req;
	const struct nlattr *list;

	assert_int_equal(fake_nl_pending(x->f), 0);
	req = fake_nl_request(x->f, fake_nl_nrequests(x->f) - 1);
	assert_int_equal(req->nlmsg_type, RTM_SETLINK);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_index, 3);
	list = fake_nl_attr(req, IFI_LEN, IFLA_VFINFO_LIST);
	assert_int_equal(fake_nl_nested_count(list, IFLA_VF_INFO), 1);
	return fake_nl_nested(list, IFLA_VF_INFO);
}

static void test_vf_set_all(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_vf_params p = {.vf = 4,
				  .has_mac = true,
				  .has_vlan = true,
				  .vlan = 100,
				  .qos = 3,
				  .has_spoofchk = true,
				  .spoofchk = false,
				  .has_trust = true,
				  .trust = true,
				  .has_rate = true,
				  .min_tx_rate = 10,
				  .max_tx_rate = 1000,
				  .has_link_state = true,
				  .link_state = NLW_VF_LINK_DISABLE};
	const struct nlattr *info, *a;
	const struct ifla_vf_vlan *vl;
	const struct ifla_vf_rate *rt;

	memcpy(p.mac, MAC, 6);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_vf_set(x->s, 3, &p), 0);
	info = vf_info(x);
	a = fake_nl_nested(info, IFLA_VF_MAC);
	assert_int_equal(mnl_attr_get_payload_len(a), sizeof(struct ifla_vf_mac));
	assert_int_equal(((const struct ifla_vf_mac *)mnl_attr_get_payload(a))->vf, 4);
	assert_memory_equal(((const struct ifla_vf_mac *)mnl_attr_get_payload(a))->mac, MAC, 6);
	/* 802.1Q: the legacy attribute, no list (as iproute2). */
	a = fake_nl_nested(info, IFLA_VF_VLAN);
	assert_int_equal(mnl_attr_get_payload_len(a), sizeof(struct ifla_vf_vlan));
	vl = mnl_attr_get_payload(a);
	assert_int_equal(vl->vf, 4);
	assert_int_equal(vl->vlan, 100);
	assert_int_equal(vl->qos, 3);
	assert_null(fake_nl_nested(info, IFLA_VF_VLAN_LIST));
	rt = mnl_attr_get_payload(fake_nl_nested(info, IFLA_VF_RATE));
	assert_int_equal(rt->vf, 4);
	assert_int_equal(rt->min_tx_rate, 10);
	assert_int_equal(rt->max_tx_rate, 1000);
	assert_null(fake_nl_nested(info, IFLA_VF_TX_RATE));
	assert_int_equal(((const struct ifla_vf_spoofchk *)mnl_attr_get_payload(
			      fake_nl_nested(info, IFLA_VF_SPOOFCHK)))
			     ->setting,
			 0);
	assert_int_equal(((const struct ifla_vf_trust *)mnl_attr_get_payload(
			      fake_nl_nested(info, IFLA_VF_TRUST)))
			     ->setting,
			 1);
	assert_int_equal(((const struct ifla_vf_link_state *)mnl_attr_get_payload(
			      fake_nl_nested(info, IFLA_VF_LINK_STATE)))
			     ->link_state,
			 IFLA_VF_LINK_STATE_DISABLE);
}

static void test_vf_vlan_8021ad(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_vf_params p = {
	    .vf = 1, .has_vlan = true, .vlan = 200, .qos = 0, .vlan_proto = NLW_VLAN_PROTO_8021AD};
	const struct nlattr *info, *list, *a;
	const struct ifla_vf_vlan_info *vi;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_vf_set(x->s, 3, &p), 0);
	info = vf_info(x);
	/* Only what was asked for is sent. */
	assert_null(fake_nl_nested(info, IFLA_VF_MAC));
	assert_null(fake_nl_nested(info, IFLA_VF_TRUST));
	assert_null(fake_nl_nested(info, IFLA_VF_VLAN));
	list = fake_nl_nested(info, IFLA_VF_VLAN_LIST);
	assert_non_null(list);
	a = fake_nl_nested(list, IFLA_VF_VLAN_INFO);
	assert_int_equal(mnl_attr_get_payload_len(a), 16); /* the full padded struct */
	vi = mnl_attr_get_payload(a);
	assert_int_equal(vi->vf, 1);
	assert_int_equal(vi->vlan, 200);
	assert_int_equal(vi->vlan_proto, htons(0x88a8));
}

static void test_vf_invalid(void **state)
{
	struct fake_fx *x = *state;
	static const struct nlw_vf_params bad[] = {
	    {.vf = 0}, /* nothing */
	    {.vf = -1, .has_trust = true},
	    {.vf = 0, .has_vlan = true, .vlan = 4096},
	    {.vf = 0, .has_vlan = true, .vlan = 5, .qos = 8},
	    {.vf = 0, .has_vlan = true, .vlan = 5, .vlan_proto = 0x9100},
	    {.vf = 0, .has_rate = true, .min_tx_rate = 100, .max_tx_rate = 10},
	    {.vf = 0, .has_link_state = true, .link_state = 3},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(nlw_vf_set(x->s, 3, &bad[i]), -EINVAL);
	assert_int_equal(fake_nl_nrequests(x->f), 0);
	/* The driver's refusal comes back with the kernel's text. */
	fake_nl_reply_error(x->f, -EOPNOTSUPP, "VF trust not supported");
	{
		struct nlw_vf_params p = {.vf = 0, .has_trust = true, .trust = true};

		assert_int_equal(nlw_vf_set(x->s, 3, &p), -EOPNOTSUPP);
	}
	assert_string_equal(nlw_sock_ext_ack(x->s), "VF trust not supported");
}

/* A PF reply with two VFs: vf0 legacy VLAN, vf1 802.1ad list + unknown spoofchk. */
static void queue_pf_reply(struct fake_nl *f)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *list, *info, *vl;

	ifi->ifi_index = 3;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "pf0");
	list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
	for (uint32_t vf = 0; vf < 2; vf++) {
		struct ifla_vf_mac m = {.vf = vf};
		struct ifla_vf_vlan v = {.vf = vf, .vlan = vf ? 0 : 42, .qos = vf ? 0 : 2};
		struct ifla_vf_rate r = {vf, 0, vf ? 500 : 0};
		struct ifla_vf_spoofchk s = {vf, vf ? UINT32_MAX : 1};
		struct ifla_vf_trust t = {vf, 0};
		struct ifla_vf_link_state ls = {vf, vf ? IFLA_VF_LINK_STATE_ENABLE : 0};

		memcpy(m.mac, MAC, 6);
		m.mac[5] = (unsigned char)vf;
		info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);
		mnl_attr_put(nlh, IFLA_VF_MAC, sizeof(m), &m);
		mnl_attr_put(nlh, IFLA_VF_VLAN, sizeof(v), &v);
		if (vf == 1) {
			struct ifla_vf_vlan_info vi = {
			    .vf = 1, .vlan = 300, .qos = 1, .vlan_proto = htons(0x88a8)};

			vl = mnl_attr_nest_start(nlh, IFLA_VF_VLAN_LIST);
			mnl_attr_put(nlh, IFLA_VF_VLAN_INFO, sizeof(vi), &vi);
			mnl_attr_nest_end(nlh, vl);
		}
		mnl_attr_put(nlh, IFLA_VF_RATE, sizeof(r), &r);
		mnl_attr_put(nlh, IFLA_VF_SPOOFCHK, sizeof(s), &s);
		mnl_attr_put(nlh, IFLA_VF_TRUST, sizeof(t), &t);
		mnl_attr_put(nlh, IFLA_VF_LINK_STATE, sizeof(ls), &ls);
		mnl_attr_nest_end(nlh, info);
	}
	mnl_attr_nest_end(nlh, list);
	fake_nl_msg_end(f);
	fake_nl_flush(f);
	fake_nl_reply_ack(f);
}

static void test_vf_list_parse(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_vf_info *v = NULL, one;
	const struct nlmsghdr *req;
	unsigned n = 0;

	queue_pf_reply(x->f);
	assert_int_equal(nlw_vf_list(x->s, 3, &v, &n), 0);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RTM_GETLINK);
	assert_false(req->nlmsg_flags & NLM_F_DUMP);
	assert_true(mnl_attr_get_u32(fake_nl_attr(req, IFI_LEN, IFLA_EXT_MASK)) & RTEXT_FILTER_VF);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].vf, 0);
	assert_int_equal(v[0].vlan, 42);
	assert_int_equal(v[0].qos, 2);
	assert_int_equal(v[0].vlan_proto, 0x8100);
	assert_int_equal(v[0].spoofchk, 1);
	assert_int_equal(v[0].trust, 0);
	assert_int_equal(v[0].link_state, NLW_VF_LINK_AUTO);
	assert_int_equal(v[1].vf, 1);
	assert_int_equal(v[1].mac[5], 1);
	assert_int_equal(v[1].vlan, 300); /* the list form wins */
	assert_int_equal(v[1].vlan_proto, 0x88a8);
	assert_int_equal(v[1].spoofchk, -1); /* driver reports ~0: unknown */
	assert_int_equal(v[1].max_tx_rate, 500);
	assert_int_equal(v[1].link_state, NLW_VF_LINK_ENABLE);
	free(v);

	queue_pf_reply(x->f);
	assert_int_equal(nlw_vf_get(x->s, 3, 1, &one), 0);
	assert_int_equal(one.vlan, 300);
	queue_pf_reply(x->f);
	assert_int_equal(nlw_vf_get(x->s, 3, 7, &one), -ENOENT);
}

static void test_vf_parse_malformed(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *list, *info;
	struct nlw_vf_info *v = NULL;
	unsigned n = 0;
	uint32_t shortmac[2] = {0, 0};

	(void)ifi;
	list = mnl_attr_nest_start(nlh, IFLA_VFINFO_LIST);
	info = mnl_attr_nest_start(nlh, IFLA_VF_INFO);
	mnl_attr_put(nlh, IFLA_VF_MAC, sizeof(shortmac), shortmac); /* 8 bytes, needs 36 */
	mnl_attr_nest_end(nlh, info);
	mnl_attr_nest_end(nlh, list);
	assert_int_equal(nlw_vf_parse(nlh, &v, &n), -EBADMSG);
	assert_null(v);
	/* No VF list at all: zero VFs, not an error (virtio-style PFs). */
	nlh = fake_nl_msg_begin(x->f, RTM_NEWLINK, 0);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg));
	assert_int_equal(nlw_vf_parse(nlh, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_vf_set_all),	   T(test_vf_vlan_8021ad),     T(test_vf_invalid),
	    T(test_vf_list_parse), T(test_vf_parse_malformed),
#undef T
	};

	return cmocka_run_group_tests_name("nlw-vf", tests, NULL, NULL);
}
