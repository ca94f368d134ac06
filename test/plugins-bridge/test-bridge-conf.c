/* SPDX-License-Identifier: Apache-2.0 */
/* bridge-conf.c: table of configs -> parsed values or the exact error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bridge.h"
#include "cni/args.h"
#include "cni/conf.h"
#include "cni/plugin.h"

/* Parse `json` as stdin of `cmd` with CNI_ARGS `args`; returns bridge_conf_parse's r. */
static int parse(const char *json, const char *args, enum cni_command cmd, struct cni_ctx *ctx,
		 struct bridge_conf *c)
{
	json_error_t jerr;
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);
	int r;

	memset(ctx, 0, sizeof(*ctx));
	ctx->command = cmd;
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	assert_non_null(root);
	assert_int_equal(cni_conf_parse(root, &ctx->conf, &ctx->err), 0);
	json_decref(root);
	assert_int_equal(cni_args_parse(args, &ctx->args, &ctx->err), 0);
	memset(c, 0, sizeof(*c));
	r = bridge_conf_parse(ctx, c);
	return r;
}

static void done(struct cni_ctx *ctx, struct bridge_conf *c)
{
	bridge_conf_done(c);
	cni_conf_done(&ctx->conf);
	cni_args_done(&ctx->args);
	cni_error_done(&ctx->err);
}

#define BASE "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"bridge\""
#define L3 ",\"ipam\":{\"type\":\"host-local\"}"

struct bad_case {
	const char *json;
	const char *args;
	unsigned code;
	const char *substr;
};

static const struct bad_case bad_cases[] = {
    {BASE ",\"vlan\":-100}", NULL, 7, "invalid VLAN ID -100 (must be between 0 and 4094)"},
    {BASE ",\"vlan\":5000}", NULL, 7, "invalid VLAN ID 5000 (must be between 0 and 4094)"},
    {BASE ",\"vlan\":\"100\"}", NULL, 7, "vlan: expected an integer"},
    {BASE ",\"vlanTrunk\":[{\"minID\":100}]}", NULL, 7,
     "vlanTrunk[0]: minID and maxID should be configured simultaneously, maxID is missing"},
    {BASE ",\"vlanTrunk\":[{\"maxID\":100}]}", NULL, 7,
     "minID and maxID should be configured simultaneously, minID is missing"},
    {BASE ",\"vlanTrunk\":[{\"minID\":0,\"maxID\":10}]}", NULL, 7,
     "incorrect trunk minID parameter 0"},
    {BASE ",\"vlanTrunk\":[{\"minID\":1,\"maxID\":5000}]}", NULL, 7,
     "incorrect trunk maxID parameter 5000"},
    {BASE ",\"vlanTrunk\":[{\"id\":1},{\"id\":4095}]}", NULL, 7,
     "vlanTrunk[1]: incorrect trunk id parameter 4095"},
    {BASE ",\"vlanTrunk\":[{\"minID\":110,\"maxID\":2E80}]}", NULL, 7,
     "incorrect trunk maxID parameter 2e80"},
    {BASE ",\"vlan\":-2e80}", NULL, 7, "vlan: expected an integer from 0 to 4094, got -2e80"},
    {BASE ",\"vlanTrunk\":[{\"minID\":20,\"maxID\":10}]}", NULL, 7,
     "minID is greater than maxID in trunk parameter (20 > 10)"},
    {BASE ",\"vlanTrunk\":[5]}", NULL, 7, "vlanTrunk[0]: expected an object"},
    {BASE ",\"vlanTrunk\":{}}", NULL, 7, "vlanTrunk: expected a list"},
    {BASE ",\"hairpinMode\":true,\"promiscMode\":true}", NULL, 7,
     "hairpinMode and promiscMode cannot both be true"},
    {BASE ",\"disableContainerInterface\":true" L3 "}", NULL, 7,
     "cannot use IPAM (ipam.type 'host-local') when disableContainerInterface is true"},
    {BASE ",\"isGateway\":\"true\"}", NULL, 7, "isGateway: expected true or false, got \"true\""},
    {BASE ",\"portIsolation\":\"true\"}", NULL, 7, "portIsolation: expected true or false"},
    {BASE ",\"bridge\":\"a-very-long-bridge-name\"}", NULL, 7,
     "bridge: not a valid interface name"},
    {BASE ",\"bridge\":\"br/0\"}", NULL, 7, "'br/0'"},
    {BASE ",\"bridge\":\"br\u00e90\"}", NULL, 7, "bridge: not a valid interface name (ASCII only)"},
    {BASE ",\"bridge\":7}", NULL, 7, "bridge: expected a string, got 7"},
    {BASE ",\"mtu\":20}", NULL, 7, "mtu: must be 0 (default) or from 68 to 65535, got 20"},
    {BASE ",\"mtu\":70000}", NULL, 7, "mtu: expected an integer from 0 to 65535, got 70000"},
    {BASE ",\"mtu\":-1}", NULL, 7, "mtu: expected an integer"},
    {BASE ",\"ipMasqBackend\":\"pf\"}", NULL, 7, "ipMasqBackend: unknown ipmasq backend 'pf'"},
    {BASE ",\"mac\":\"zz:00:00:00:00:00\"}", NULL, 7,
     "mac: not a MAC address (aa:bb:cc:dd:ee:ff): 'zz:00:00:00:00:00'"},
    {BASE ",\"mac\":\"01:00:5e:00:00:01\"}", NULL, 7, "mac: multicast MAC address not allowed"},
    {BASE "}", "MAC=02:00:00:00:00", 4, "CNI_ARGS MAC: not a MAC address"},
    {BASE ",\"args\":{\"cni\":{\"mac\":\"x\"}}}", NULL, 7,
     "args.cni.mac: not a MAC address (aa:bb:cc:dd:ee:ff): 'x'"},
    {BASE ",\"runtimeConfig\":{\"mac\":3}}", NULL, 7,
     "runtimeConfig.mac: expected a string, got 3"},
};

static void test_bad_configs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *t = &bad_cases[i];
		struct cni_ctx ctx;
		struct bridge_conf c;
		int r = parse(t->json, t->args, CNI_CMD_ADD, &ctx, &c);

		if (r >= 0 || ctx.err.code != t->code || !ctx.err.msg ||
		    !strstr(ctx.err.msg, t->substr))
			fail_msg("case %zu %s: r=%d code=%u msg='%s', want code %u with '%s'", i,
				 t->json, r, ctx.err.code, ctx.err.msg ? ctx.err.msg : "", t->code,
				 t->substr);
		done(&ctx, &c);
	}
}

/* On DEL the same bad values are logged and defaults used: DEL is never wedged. */
static void test_bad_configs_lenient_on_del(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct cni_ctx ctx;
		struct bridge_conf c;

		if (bad_cases[i].code != 7)
			continue;
		assert_int_equal(parse(bad_cases[i].json, bad_cases[i].args, CNI_CMD_DEL, &ctx, &c),
				 0);
		assert_int_equal(ctx.err.code, 0);
		done(&ctx, &c);
	}
}

static void test_defaults(void **state)
{
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(parse(BASE "}", NULL, CNI_CMD_ADD, &ctx, &c), 0);
	assert_string_equal(c.bridge, "cni0");
	assert_false(c.is_gateway);
	assert_false(c.is_default_gateway);
	assert_false(c.ip_masq);
	assert_int_equal(c.mtu, 0);
	assert_int_equal(c.vlan, 0);
	assert_false(c.has_trunk);
	assert_false(c.preserve_default_vlan);
	assert_false(c.enable_dad);
	assert_false(c.is_layer3);
	assert_int_equal(c.mac_source, BRIDGE_MAC_NONE);
	done(&ctx, &c);
}

static void test_all_keys(void **state)
{
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(
	    parse(BASE ",\"bridge\":\"br9\",\"isDefaultGateway\":true,\"forceAddress\":true,"
		       "\"ipMasq\":true,\"ipMasqBackend\":\"iptables\",\"mtu\":1400,"
		       "\"hairpinMode\":true,\"vlan\":100,\"preserveDefaultVlan\":true,"
		       "\"enabledad\":true,\"macspoofchk\":true,\"portIsolation\":true,"
		       "\"dns\":{\"nameservers\":[\"10.0.0.53\"]}" L3 "}",
		  NULL, CNI_CMD_ADD, &ctx, &c),
	    0);
	assert_string_equal(c.bridge, "br9");
	assert_true(c.is_default_gateway);
	assert_true(c.is_gateway); /* implied */
	assert_false(c.has_is_gateway);
	assert_true(c.force_address);
	assert_true(c.ip_masq);
	assert_int_equal(c.masq_backend, BRIDGE_MASQ_IPTABLES);
	assert_int_equal(c.mtu, 1400);
	assert_true(c.hairpin_mode);
	assert_int_equal(c.vlan, 100);
	assert_true(c.preserve_default_vlan);
	assert_true(c.enable_dad);
	assert_true(c.macspoofchk);
	assert_true(c.port_isolation);
	assert_true(c.is_layer3);
	done(&ctx, &c);
}

static void test_l2_empty_ipam(void **state)
{
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(parse(BASE ",\"ipam\":{},\"disableContainerInterface\":true}", NULL,
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_false(c.is_layer3);
	assert_true(c.disable_container_interface);
	done(&ctx, &c);
}

static void test_trunk_merge_sort(void **state)
{
	static const uint16_t want[] = {10, 100, 101, 102, 103, 104, 105};
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(parse(BASE ",\"vlanTrunk\":[{\"minID\":100,\"maxID\":105},{\"id\":10},"
				    "{\"id\":103}]}",
			       NULL, CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_true(c.has_trunk);
	assert_int_equal(c.n_trunk, 7);
	assert_memory_equal(c.trunk, want, sizeof(want));
	done(&ctx, &c);

	assert_int_equal(parse(BASE ",\"vlanTrunk\":[]}", NULL, CNI_CMD_ADD, &ctx, &c), 0);
	assert_false(c.has_trunk);
	assert_int_equal(c.n_trunk, 0);
	done(&ctx, &c);

	/* id and a range in one entry contribute both */
	assert_int_equal(parse(BASE ",\"vlanTrunk\":[{\"id\":7,\"minID\":200,\"maxID\":201}]}",
			       NULL, CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.n_trunk, 3);
	assert_int_equal(c.trunk[0], 7);
	assert_int_equal(c.trunk[2], 201);
	done(&ctx, &c);
}

/* CNI_ARGS MAC < args.cni.mac < runtimeConfig.mac; the "mac" key is lowest. */
static void test_mac_precedence(void **state)
{
	static const unsigned char m1[] = {2, 0, 0, 0, 0, 1}, m2[] = {2, 0, 0, 0, 0, 2},
				   m3[] = {2, 0, 0, 0, 0, 3}, m4[] = {2, 0, 0, 0, 0, 4};
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(parse(BASE ",\"mac\":\"02:00:00:00:00:04\"}", NULL, CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.mac_source, BRIDGE_MAC_KEY);
	assert_memory_equal(c.mac, m4, 6);
	done(&ctx, &c);

	assert_int_equal(parse(BASE ",\"mac\":\"02:00:00:00:00:04\"}", "MAC=02:00:00:00:00:01",
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.mac_source, BRIDGE_MAC_CNI_ARGS);
	assert_memory_equal(c.mac, m1, 6);
	done(&ctx, &c);

	assert_int_equal(parse(BASE ",\"args\":{\"cni\":{\"mac\":\"02:00:00:00:00:02\"}}}",
			       "MAC=02:00:00:00:00:01", CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.mac_source, BRIDGE_MAC_ARGS);
	assert_memory_equal(c.mac, m2, 6);
	done(&ctx, &c);

	/* containerd capitalizes capability keys: matched case-insensitively */
	assert_int_equal(parse(BASE ",\"args\":{\"cni\":{\"mac\":\"02:00:00:00:00:02\"}},"
				    "\"runtimeConfig\":{\"Mac\":\"02:00:00:00:00:03\"}}",
			       "MAC=02:00:00:00:00:01", CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.mac_source, BRIDGE_MAC_RUNTIME_CONFIG);
	assert_memory_equal(c.mac, m3, 6);
	done(&ctx, &c);
}

static void test_ipmasq_from_protocol_key(void **state)
{
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(parse(BASE ",\"ipMasq\":false,\"ipMasqBackend\":\"nftables\"}", NULL,
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_false(c.ip_masq);
	assert_int_equal(c.masq_backend, BRIDGE_MASQ_NFTABLES);
	done(&ctx, &c);
}

/* Unknown keys (typos, other tools' keys) are not errors: drop-in compatibility. */
static void test_unknown_keys_ignored(void **state)
{
	struct cni_ctx ctx;
	struct bridge_conf c;

	(void)state;
	assert_int_equal(
	    parse(BASE ",\"isGatway\":true,\"someOtherTool\":{}}", NULL, CNI_CMD_ADD, &ctx, &c), 0);
	assert_false(c.is_gateway);
	done(&ctx, &c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad_configs),
	    cmocka_unit_test(test_bad_configs_lenient_on_del),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_all_keys),
	    cmocka_unit_test(test_l2_empty_ipam),
	    cmocka_unit_test(test_trunk_merge_sort),
	    cmocka_unit_test(test_mac_precedence),
	    cmocka_unit_test(test_ipmasq_from_protocol_key),
	    cmocka_unit_test(test_unknown_keys_ignored),
	};

	return cmocka_run_group_tests_name("bridge-conf", tests, NULL, NULL);
}
