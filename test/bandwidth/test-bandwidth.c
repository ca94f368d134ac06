/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bandwidth: config parsing (static keys win, runtimeConfig case-insensitive,
 * the reference's rate/burst rules), tbf arithmetic against the reference's
 * formulas, the IFB name, and the tc requests nlw builds (fake transport).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>

#include "bandwidth.h"
#include "cni/conf.h"
#include "cni/plugin.h"
#include "fake-nl.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "nlw/tc.h"

static int parse(const char *json, enum cni_command cmd, struct cni_ctx *ctx,
		 struct bandwidth_conf *c)
{
	json_error_t jerr;
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);

	memset(ctx, 0, sizeof(*ctx));
	ctx->command = cmd;
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	assert_non_null(root);
	assert_int_equal(cni_conf_parse(root, &ctx->conf, &ctx->err), 0);
	json_decref(root);
	memset(c, 0, sizeof(*c));
	return bandwidth_conf_parse(ctx, c);
}

static void done(struct cni_ctx *ctx, struct bandwidth_conf *c)
{
	bandwidth_conf_done(c);
	cni_conf_done(&ctx->conf);
	cni_error_done(&ctx->err);
}

#define BASE "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"bandwidth\""

static const struct {
	const char *json, *substr;
} bad_cases[] = {
    {BASE ",\"ingressRate\":1000}",
     "ingressBurst: if ingressRate is set, ingressBurst must also be set"},
    {BASE ",\"ingressBurst\":1000}",
     "ingressRate: if ingressBurst is set, ingressRate must also be set"},
    {BASE ",\"egressRate\":1000,\"egressBurst\":34359738360}",
     "egressBurst: cannot be more than 4GB"},
    {BASE ",\"egressRate\":1000,\"egressBurst\":34359738367}", "got 34359738367 bits"},
    {BASE ",\"egressRate\":-1,\"egressBurst\":8}",
     "egressRate: expected a non-negative integer, got -1"},
    {BASE ",\"egressRate\":\"1M\",\"egressBurst\":8}",
     "egressRate: expected a non-negative integer"},
    {BASE ",\"runtimeConfig\":{\"bandwidth\":{\"IngressRate\":1000}}}",
     "runtimeConfig.bandwidth.ingressBurst: if ingressRate is set"},
    {BASE ",\"unshapedSubnets\":[\"10.0.0.0/8\"],\"shapedSubnets\":[\"10.1.0.0/16\"]}",
     "cannot both be set"},
    {BASE ",\"shapedSubnets\":[\"10.0.0.1\"]}", "shapedSubnets[0]: must be a CIDR"},
    {BASE ",\"unshapedSubnets\":\"10.0.0.0/8\"}", "unshapedSubnets"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct cni_ctx ctx;
		struct bandwidth_conf c;
		int r = parse(bad_cases[i].json, CNI_CMD_ADD, &ctx, &c);

		if (r >= 0 || !ctx.err.msg || !strstr(ctx.err.msg, bad_cases[i].substr))
			fail_msg("case %zu: r=%d msg=%s", i, r,
				 ctx.err.msg ? ctx.err.msg : "(none)");
		assert_int_equal(ctx.err.code, 7);
		done(&ctx, &c);
	}
}

static void test_sources(void **state)
{
	struct cni_ctx ctx;
	struct bandwidth_conf c;

	(void)state;
	/* containerd's casing, and its 4294967295 bursts */
	assert_int_equal(parse(BASE ",\"runtimeConfig\":{\"bandwidth\":{\"IngressRate\":1000000,"
				    "\"IngressBurst\":4294967295,\"EgressRate\":2000000,"
				    "\"EgressBurst\":4294967295}}}",
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_true(c.from_runtime_config);
	assert_int_equal(c.ingress_rate, 1000000);
	assert_int_equal(c.egress_burst, 4294967295u);
	assert_true(bandwidth_ingress(&c) && bandwidth_egress(&c));
	done(&ctx, &c);
	/* a static key present: the static keys win (reference 1.1) */
	assert_int_equal(parse(BASE ",\"egressRate\":800,\"egressBurst\":80,\"runtimeConfig\":"
				    "{\"bandwidth\":{\"ingressRate\":1000,\"ingressBurst\":100}}}",
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_false(c.from_runtime_config);
	assert_false(bandwidth_ingress(&c));
	assert_true(bandwidth_egress(&c));
	done(&ctx, &c);
	assert_int_equal(parse(BASE ",\"unshapedSubnets\":[\"10.1.2.3/16\",\"fd00::/64\"]}",
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.n_subnets, 2);
	assert_false(c.subnets_shaped);
	assert_int_equal(c.subnets[0].addr.bytes[2], 0); /* masked */
	done(&ctx, &c);
	/* DEL never fails on a bad value */
	assert_int_equal(parse(BASE ",\"ingressRate\":1000}", CNI_CMD_DEL, &ctx, &c), 0);
	done(&ctx, &c);
}

static void test_tbf_math(void **state)
{
	struct nlw_tbf t;

	(void)state;
	/* 10 Mbit/s, 80000 bits: 1250000 B/s, 10000 B = 8000 us = 125000 ticks, limit 31250 + 10000
	 */
	bandwidth_tbf(10000000, 80000, &t);
	assert_int_equal(t.rate, 1250000);
	assert_int_equal(t.buffer, 125000);
	assert_int_equal(t.limit, 41250);
	/* containerd's rate-only annotation: burst 4294967295 bits (536870911 B) */
	bandwidth_tbf(1000000, 4294967295u, &t);
	assert_int_equal(t.rate, 125000);
	assert_int_equal(t.buffer, UINT32_MAX); /* 4294967288 us does not fit in ticks */
	assert_int_equal(t.limit, 3125 + 536870911u);
	bandwidth_tbf(8, 8, &t);
	assert_int_equal(t.rate, 1);
	assert_int_equal(t.buffer, 15625000);
}

static void test_ifb_name(void **state)
{
	char name[IFNAMSIZ];

	(void)state;
	/* python3: hashlib.sha512(b"bwnetcid1").hexdigest()[:12] */
	assert_int_equal(bandwidth_ifb_name("bwnet", "cid1", name), 0);
	assert_string_equal(name, "bwp9aa1ffe1e8dd");
}

static void test_ifb_alias(void **state)
{
	char buf[NLW_ALIAS_MAX], cid[64];

	(void)state;
	assert_int_equal(bandwidth_ifb_alias("bwnet", "cid1", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "podwire-bandwidth:bwnet/cid1");
	assert_int_equal(bandwidth_ifb_alias_parse(buf, "bwnet", cid, sizeof(cid)), 0);
	assert_string_equal(cid, "cid1");
	assert_int_equal(bandwidth_ifb_alias_parse(buf, "bw", cid, sizeof(cid)), -EINVAL);
	assert_int_equal(bandwidth_ifb_alias_parse(buf, "bwnet2", cid, sizeof(cid)), -EINVAL);
	assert_int_equal(
	    bandwidth_ifb_alias_parse("podwire-bandwidth:bwnet/", "bwnet", cid, sizeof(cid)),
	    -EINVAL);
	assert_int_equal(bandwidth_ifb_alias_parse("something else", "bwnet", cid, sizeof(cid)),
			 -EINVAL);
	assert_int_equal(bandwidth_ifb_alias("n", "c", buf, 4), -ENAMETOOLONG);
}

#define TCM_LEN sizeof(struct tcmsg)

static const struct nlmsghdr *sent(struct fake_fx *x)
{
	assert_int_equal(fake_nl_pending(x->f), 0);
	return fake_nl_request(x->f, fake_nl_nrequests(x->f) - 1);
}

static void test_tbf_request(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_tbf t = {.rate = 1250000, .buffer = 125000, .limit = 41250};
	const struct nlmsghdr *req;
	const struct tcmsg *tcm;
	const struct nlattr *opts, *parms;
	const struct tc_tbf_qopt *q;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_qdisc_add_tbf(x->s, 7, NLW_TC_HANDLE(1, 0), NLW_TC_H_ROOT, &t), 0);
	req = sent(x);
	assert_int_equal(req->nlmsg_type, RTM_NEWQDISC);
	assert_true(req->nlmsg_flags & NLM_F_CREATE);
	assert_true(req->nlmsg_flags & NLM_F_EXCL);
	tcm = mnl_nlmsg_get_payload(req);
	assert_int_equal(tcm->tcm_ifindex, 7);
	assert_int_equal(tcm->tcm_handle, 0x10000);
	assert_int_equal(tcm->tcm_parent, TC_H_ROOT);
	assert_string_equal(mnl_attr_get_str(fake_nl_attr(req, TCM_LEN, TCA_KIND)), "tbf");
	opts = fake_nl_attr(req, TCM_LEN, TCA_OPTIONS);
	parms = fake_nl_nested(opts, TCA_TBF_PARMS);
	assert_int_equal(mnl_attr_get_payload_len(parms), sizeof(*q));
	q = mnl_attr_get_payload(parms);
	assert_int_equal(q->rate.rate, 1250000);
	assert_int_equal(q->buffer, 125000);
	assert_int_equal(q->limit, 41250);
	assert_null(fake_nl_nested(opts, TCA_TBF_RATE64));
	/* 40 Gbit/s does not fit the 32-bit rate: RATE64 carries it */
	t.rate = 5000000000ull;
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_qdisc_add_tbf(x->s, 7, NLW_TC_HANDLE(1, 0), NLW_TC_H_ROOT, &t), 0);
	opts = fake_nl_attr(sent(x), TCM_LEN, TCA_OPTIONS);
	assert_int_equal(mnl_attr_get_u64(fake_nl_nested(opts, TCA_TBF_RATE64)), 5000000000ull);
	t.rate = 0;
	assert_int_equal(nlw_qdisc_add_tbf(x->s, 7, 0x10000, TC_H_ROOT, &t), -EINVAL);
}

static void test_redirect_request(void **state)
{
	struct fake_fx *x = *state;
	const struct nlmsghdr *req;
	const struct tcmsg *tcm;
	const struct nlattr *opts, *acts, *act, *aopts, *sel_attr;
	const struct tc_u32_sel *sel;
	const struct tc_mirred *m;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_filter_add_redirect(x->s, 7, NLW_TC_HANDLE(0xffff, 0), 1, 9), 0);
	req = sent(x);
	assert_int_equal(req->nlmsg_type, RTM_NEWTFILTER);
	tcm = mnl_nlmsg_get_payload(req);
	assert_int_equal(tcm->tcm_parent, 0xffff0000u);
	assert_int_equal(tcm->tcm_info, (1u << 16) | htons(ETH_P_ALL));
	assert_string_equal(mnl_attr_get_str(fake_nl_attr(req, TCM_LEN, TCA_KIND)), "u32");
	opts = fake_nl_attr(req, TCM_LEN, TCA_OPTIONS);
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(opts, TCA_U32_CLASSID)), 0x10001);
	sel_attr = fake_nl_nested(opts, TCA_U32_SEL);
	sel = mnl_attr_get_payload(sel_attr);
	assert_int_equal(sel->nkeys, 1);
	assert_int_equal(sel->flags, TC_U32_TERMINAL);
	assert_int_equal(sel->keys[0].mask, 0);
	acts = fake_nl_nested(opts, TCA_U32_ACT);
	act = fake_nl_nested(acts, 1);
	assert_string_equal(mnl_attr_get_str(fake_nl_nested(act, TCA_ACT_KIND)), "mirred");
	aopts = fake_nl_nested(act, TCA_ACT_OPTIONS);
	m = mnl_attr_get_payload(fake_nl_nested(aopts, TCA_MIRRED_PARMS));
	assert_int_equal(m->eaction, TCA_EGRESS_REDIR);
	assert_int_equal(m->action, TC_ACT_STOLEN);
	assert_int_equal(m->ifindex, 9);
}

static void test_prefix_filter_request(void **state)
{
	struct fake_fx *x = *state;
	struct ip_prefix p;
	const struct nlattr *opts;
	const struct tc_u32_sel *sel;

	assert_int_equal(ip_prefix_parse("10.1.2.3/16", &p), 0);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_filter_add_prefix(
			     x->s, 7, &(struct nlw_prefix_filter){0x10000, 16, &p, false, 0x10002}),
			 0);
	opts = fake_nl_attr(sent(x), TCM_LEN, TCA_OPTIONS);
	sel = mnl_attr_get_payload(fake_nl_nested(opts, TCA_U32_SEL));
	assert_int_equal(sel->nkeys, 1);
	assert_int_equal(sel->keys[0].off, 16);
	assert_int_equal(sel->keys[0].mask, htonl(0xffff0000u));
	assert_int_equal(sel->keys[0].val, htonl(0x0a010000u));
	assert_int_equal(mnl_attr_get_u32(fake_nl_nested(opts, TCA_U32_CLASSID)), 0x10002);
	/* IPv6 /64 as source: two keys from offset 8 */
	assert_int_equal(ip_prefix_parse("fd00:1:2:3::/64", &p), 0);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_filter_add_prefix(
			     x->s, 7, &(struct nlw_prefix_filter){0x10000, 17, &p, true, 0x10002}),
			 0);
	opts = fake_nl_attr(sent(x), TCM_LEN, TCA_OPTIONS);
	sel = mnl_attr_get_payload(fake_nl_nested(opts, TCA_U32_SEL));
	assert_int_equal(sel->nkeys, 2);
	assert_int_equal(sel->keys[0].off, 8);
	assert_int_equal(sel->keys[1].off, 12);
	assert_int_equal(sel->keys[1].mask, 0xffffffffu);
}

static void test_kernel_error(void **state)
{
	struct fake_fx *x = *state;

	fake_nl_reply_error(x->f, -EEXIST, "Exclusivity flag on, cannot modify");
	assert_int_equal(nlw_qdisc_add_ingress(x->s, 7), -EEXIST);
	assert_string_equal(nlw_sock_ext_ack(x->s), "Exclusivity flag on, cannot modify");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_sources),
	    cmocka_unit_test(test_tbf_math),
	    cmocka_unit_test(test_ifb_name),
	    cmocka_unit_test(test_ifb_alias),
	    cmocka_unit_test_setup_teardown(test_tbf_request, fake_fx_setup_route,
					    fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_redirect_request, fake_fx_setup_route,
					    fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_prefix_filter_request, fake_fx_setup_route,
					    fake_fx_teardown),
	    cmocka_unit_test_setup_teardown(test_kernel_error, fake_fx_setup_route,
					    fake_fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
