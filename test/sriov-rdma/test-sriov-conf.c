/* SPDX-License-Identifier: Apache-2.0 */
/* sriov-rdma's config parser: defaults, every key, every bad value (code 7 naming key and value).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "common.h"

#define HEAD "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"sriov-rdma\","

static int parse(enum cni_command cmd, const char *json, const char *args, struct sr_conf *c,
		 struct cni_ctx *ctx)
{
	assert_int_equal(test_ctx(ctx, cmd, json, args), 0);
	return sr_conf_parse(ctx, c);
}

static void test_defaults(void **state)
{
	struct cni_ctx ctx;
	struct sr_conf c;

	(void)state;
	assert_int_equal(parse(CNI_CMD_ADD, HEAD "\"deviceID\":\"0000:3B:00.2\"}", NULL, &c, &ctx),
			 0);
	assert_string_equal(c.device_id, "0000:3b:00.2");
	assert_int_equal(c.pf_keys, 0);
	assert_int_equal(c.mtu, 0);
	assert_int_equal(c.rdma, SR_RDMA_AUTO);
	assert_string_equal(c.state_dir, SR_DEFAULT_STATE_DIR);
	assert_string_equal(c.master, "");
	assert_int_equal(c.vf_return_timeout_ms, SR_VF_RETURN_TIMEOUT_MS);
	assert_int_equal(c.vf_return_timeout_ms, 2000);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
}

static void test_all_keys(void **state)
{
	struct cni_ctx ctx;
	struct sr_conf c;

	(void)state;
	assert_int_equal(
	    parse(CNI_CMD_ADD,
		  HEAD
		  "\"deviceID\":\"0000:3b:00.2\",\"vlan\":210,\"vlanQoS\":5,"
		  "\"vlanProto\":\"802.1AD\",\"mac\":\"0A:3B:00:00:02:01\",\"spoofchk\":\"on\","
		  "\"trust\":\"off\",\"link_state\":\"disable\",\"min_tx_rate\":10,"
		  "\"max_tx_rate\":100,\"mtu\":9000,\"rdma\":\"on\",\"stateDir\":\"/tmp/x\","
		  "\"master\":\"ens1f0\",\"vfReturnTimeoutMs\":500}",
		  NULL, &c, &ctx),
	    0);
	assert_int_equal(c.pf_keys, SR_PF_ALL);
	assert_int_equal(c.vlan, 210);
	assert_int_equal(c.qos, 5);
	assert_int_equal(c.vlan_proto, NLW_VLAN_PROTO_8021AD);
	assert_string_equal(c.mac_str, "0a:3b:00:00:02:01");
	assert_true(c.spoofchk);
	assert_false(c.trust);
	assert_int_equal(c.link_state, NLW_VF_LINK_DISABLE);
	assert_int_equal(c.min_tx_rate, 10);
	assert_int_equal(c.max_tx_rate, 100);
	assert_int_equal(c.mtu, 9000);
	assert_int_equal(c.rdma, SR_RDMA_ON);
	assert_string_equal(c.state_dir, "/tmp/x");
	assert_string_equal(c.master, "ens1f0");
	assert_int_equal(c.vf_return_timeout_ms, 500);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
}

/* Precedence: mac < CNI_ARGS MAC < runtimeConfig.mac; runtimeConfig.deviceID wins. */
static void test_precedence(void **state)
{
	struct cni_ctx ctx;
	struct sr_conf c;

	(void)state;
	assert_int_equal(parse(CNI_CMD_ADD,
			       HEAD "\"deviceID\":\"0000:3b:00.2\",\"mac\":\"02:00:00:00:00:01\"}",
			       "IgnoreUnknown=1;MAC=02:00:00:00:00:02", &c, &ctx),
			 0);
	assert_string_equal(c.mac_str, "02:00:00:00:00:02");
	sr_conf_done(&c);
	test_ctx_done(&ctx);
	assert_int_equal(
	    parse(
		CNI_CMD_ADD,
		HEAD
		"\"deviceID\":\"0000:3b:00.2\",\"mac\":\"02:00:00:00:00:01\","
		"\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\",\"deviceID\":\"0000:5e:00.4\"}}",
		"MAC=02:00:00:00:00:02", &c, &ctx),
	    0);
	assert_string_equal(c.mac_str, "02:00:00:00:00:03");
	assert_string_equal(c.device_id, "0000:5e:00.4");
	assert_int_equal(c.pf_keys, SR_PF_MAC);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
}

/* 0 clears the VLAN; rates: either present programs both; min with no max is no limit. */
static void test_edges(void **state)
{
	struct cni_ctx ctx;
	struct sr_conf c;

	(void)state;
	assert_int_equal(parse(CNI_CMD_ADD,
			       HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":0,\"max_tx_rate\":5,"
				    "\"mtu\":68}",
			       NULL, &c, &ctx),
			 0);
	assert_int_equal(c.pf_keys, SR_PF_VLAN | SR_PF_RATE);
	assert_int_equal(c.vlan, 0);
	assert_int_equal(c.vlan_proto, NLW_VLAN_PROTO_8021Q);
	assert_int_equal(c.min_tx_rate, 0);
	assert_int_equal(c.max_tx_rate, 5);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
	assert_int_equal(parse(CNI_CMD_ADD,
			       HEAD
			       "\"deviceID\":\"0000:3b:00.2\",\"min_tx_rate\":7,\"mtu\":65535}",
			       NULL, &c, &ctx),
			 0);
	assert_int_equal(c.min_tx_rate, 7);
	assert_int_equal(c.max_tx_rate, 0);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
}

static const struct bad {
	const char *members; /* after "deviceID" unless it starts with '!' (no deviceID) */
	const char *want[2];
} bad[] = {
    {"!\"vlan\":1", {"deviceID: missing", NULL}},
    {"!\"deviceID\":\"\"", {"deviceID: missing", NULL}},
    {"!\"deviceID\":\"3b:00.2\"", {"deviceID: \"3b:00.2\"", "not a PCI address"}},
    {"!\"deviceID\":\"0000:3b:00.8\"", {"deviceID: \"0000:3b:00.8\"", NULL}},
    {"!\"deviceID\":\"0000:3g:00.1\"", {"\"0000:3g:00.1\"", NULL}},
    {"!\"deviceID\":\"0000-3b-00.1\"", {"\"0000-3b-00.1\"", NULL}},
    {"!\"deviceID\":7", {"deviceID", "7"}},
    {"!\"runtimeConfig\":{\"deviceID\":\"x\"}", {"runtimeConfig.deviceID: \"x\"", NULL}},
    {"\"vlan\":4095", {"vlan", "4095"}},
    {"\"vlan\":-1", {"vlan", "-1"}},
    {"\"vlan\":\"10\"", {"vlan", "\"10\""}},
    {"\"vlan\":1,\"vlanQoS\":8", {"vlanQoS", "8"}},
    {"\"vlanQoS\":1", {"vlanQoS: set without vlan", NULL}},
    {"\"vlan\":0,\"vlanQoS\":2", {"vlanQoS: 2 needs a non-zero vlan", NULL}},
    {"\"vlanProto\":\"802.1ad\"", {"vlanProto: set without vlan", NULL}},
    {"\"vlan\":0,\"vlanProto\":\"802.1ad\"",
     {"vlanProto: \"802.1ad\" needs a non-zero vlan", NULL}},
    {"\"vlan\":3,\"vlanProto\":\"qinq\"", {"vlanProto: \"qinq\"", NULL}},
    {"\"min_tx_rate\":200,\"max_tx_rate\":100",
     {"min_tx_rate: 200 is above max_tx_rate 100", NULL}},
    {"\"max_tx_rate\":-5", {"max_tx_rate", "-5"}},
    {"\"mtu\":67", {"mtu", "67"}},
    {"\"mtu\":65536", {"mtu", "65536"}},
    {"\"mtu\":1500.5", {"mtu", "1500.5"}},
    {"\"spoofchk\":\"yes\"", {"spoofchk: \"yes\"", NULL}},
    {"\"spoofchk\":true", {"spoofchk", "true"}},
    {"\"trust\":\"ON\"", {"trust: \"ON\"", NULL}},
    {"\"link_state\":\"up\"", {"link_state: \"up\"", NULL}},
    {"\"rdma\":\"yes\"", {"rdma: \"yes\"", NULL}},
    {"\"mac\":\"01:00:5e:00:00:01\"", {"mac: \"01:00:5e:00:00:01\" is not a unicast", NULL}},
    {"\"mac\":\"00:00:00:00:00:00\"", {"mac: \"00:00:00:00:00:00\"", NULL}},
    {"\"mac\":\"zz\"", {"mac: \"zz\"", NULL}},
    {"\"runtimeConfig\":{\"mac\":\"nope\"}", {"runtimeConfig.mac: \"nope\"", NULL}},
    {"\"stateDir\":\"var/lib\"", {"stateDir: \"var/lib\"", NULL}},
    {"\"runtimeConfig\":{\"CNIDeviceInfoFile\":\"rel.json\"}",
     {"runtimeConfig.CNIDeviceInfoFile: rel.json", NULL}},
    {"\"runtimeConfig\":{\"CNIDeviceInfoFile\":7}", {"CNIDeviceInfoFile", NULL}},
    {"\"stateDir\":\"/a/../b\"", {"stateDir: \"/a/../b\"", NULL}},
    {"\"master\":\"a/b\"", {"master: \"a/b\"", NULL}},
    {"\"vfReturnTimeoutMs\":60001", {"vfReturnTimeoutMs", "60001"}},
    {"\"vfReturnTimeoutMs\":-1", {"vfReturnTimeoutMs", "-1"}},
    {"\"vfReturnTimeoutMs\":\"500\"", {"vfReturnTimeoutMs", "\"500\""}},
    {"\"vfReturnTimeoutMs\":2.5", {"vfReturnTimeoutMs", "2.5"}},
    {"\"vfReturnTimeoutMs\":true", {"vfReturnTimeoutMs", "true"}},
};

static void test_bad(void **state)
{
	char json[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cni_ctx ctx;
		struct sr_conf c;
		const char *m = bad[i].members;

		if (m[0] == '!')
			snprintf(json, sizeof(json), HEAD "%s}", m + 1);
		else
			snprintf(json, sizeof(json), HEAD "\"deviceID\":\"0000:3b:00.2\",%s}", m);
		assert_int_equal(parse(CNI_CMD_ADD, json, NULL, &c, &ctx), -EINVAL);
		assert_int_equal(ctx.err.code, CNI_ERR_INVALID_CONFIG);
		for (int k = 0; k < 2 && bad[i].want[k]; k++)
			if (!strstr(ctx.err.msg, bad[i].want[k]))
				fail_msg("%s: message '%s' lacks '%s'", json, ctx.err.msg,
					 bad[i].want[k]);
		test_ctx_done(&ctx);
	}
}

/* DEL never fails on config: a bad or missing deviceID leaves it "" (state found by attachment). */
static void test_del_lenient(void **state)
{
	struct cni_ctx ctx;
	struct sr_conf c;

	(void)state;
	assert_int_equal(parse(CNI_CMD_DEL,
			       HEAD "\"deviceID\":\"junk\",\"vlan\":9999,\"stateDir\":\"/s\"}",
			       NULL, &c, &ctx),
			 0);
	assert_string_equal(c.device_id, "");
	assert_string_equal(c.state_dir, "/s");
	assert_false(cni_error_isset(&ctx.err));
	sr_conf_done(&c);
	test_ctx_done(&ctx);
}

/* vfReturnTimeoutMs: the edges are accepted; on DEL and GC a bad value is the default. */
static void test_return_timeout(void **state)
{
	static const enum cni_command lenient[] = {CNI_CMD_DEL, CNI_CMD_GC};
	struct cni_ctx ctx;
	struct sr_conf c;

	(void)state;
	assert_int_equal(parse(CNI_CMD_ADD,
			       HEAD "\"deviceID\":\"0000:3b:00.2\",\"vfReturnTimeoutMs\":0}", NULL,
			       &c, &ctx),
			 0);
	assert_int_equal(c.vf_return_timeout_ms, 0);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
	assert_int_equal(parse(CNI_CMD_CHECK,
			       HEAD "\"deviceID\":\"0000:3b:00.2\",\"vfReturnTimeoutMs\":60000}",
			       NULL, &c, &ctx),
			 0);
	assert_int_equal(c.vf_return_timeout_ms, SR_VF_RETURN_TIMEOUT_MAX);
	sr_conf_done(&c);
	test_ctx_done(&ctx);
	assert_int_equal(parse(CNI_CMD_CHECK,
			       HEAD "\"deviceID\":\"0000:3b:00.2\",\"vfReturnTimeoutMs\":70000}",
			       NULL, &c, &ctx),
			 -EINVAL);
	assert_int_equal(ctx.err.code, CNI_ERR_INVALID_CONFIG);
	assert_non_null(strstr(ctx.err.msg, "vfReturnTimeoutMs"));
	assert_non_null(strstr(ctx.err.msg, "70000"));
	test_ctx_done(&ctx);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(parse(lenient[i],
				       HEAD "\"deviceID\":\"0000:3b:00.2\","
					    "\"vfReturnTimeoutMs\":-5}",
				       NULL, &c, &ctx),
				 0);
		assert_int_equal(c.vf_return_timeout_ms, SR_VF_RETURN_TIMEOUT_MS);
		assert_false(cni_error_isset(&ctx.err));
		sr_conf_done(&c);
		test_ctx_done(&ctx);
	}
}

static void test_bdf(void **state)
{
	(void)state;
	assert_true(sr_bdf_valid("0000:00:00.0"));
	assert_true(sr_bdf_valid("ffff:FF:1f.7"));
	assert_false(sr_bdf_valid("0000:00:00.0 "));
	assert_false(sr_bdf_valid("0000:00:00"));
	assert_false(sr_bdf_valid("../../../etc"));
	assert_false(sr_bdf_valid(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),   cmocka_unit_test(test_all_keys),
	    cmocka_unit_test(test_precedence), cmocka_unit_test(test_edges),
	    cmocka_unit_test(test_bad),	       cmocka_unit_test(test_del_lenient),
	    cmocka_unit_test(test_bdf),	       cmocka_unit_test(test_return_timeout),
	};

	cni_log_set_level(CNI_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
