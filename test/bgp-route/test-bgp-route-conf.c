/* SPDX-License-Identifier: Apache-2.0 */
/* bgp-route-conf.c: table of configs -> parsed values or the exact error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bgp-route.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cni/plugin.h"

static int parse(const char *json, enum cni_command cmd, struct cni_ctx *ctx, struct bgpr_conf *c)
{
	json_error_t jerr;
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);

	memset(ctx, 0, sizeof(*ctx));
	ctx->command = cmd;
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	assert_non_null(root);
	assert_int_equal(cni_conf_parse(root, &ctx->conf, &ctx->err), 0);
	json_decref(root);
	return bgpr_conf_parse(ctx, c);
}

static void done(struct cni_ctx *ctx)
{
	cni_conf_done(&ctx->conf);
	cni_error_done(&ctx->err);
}

#define BASE "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"bgp-route\""
#define IPAM ",\"ipam\":{\"type\":\"host-local\"}"

struct bad_case {
	const char *json;
	const char *substr;
};

static const struct bad_case bad_cases[] = {
    {BASE "}", "ipam: required"},
    {BASE ",\"ipam\":{}}", "ipam: required"},
    {BASE IPAM ",\"mtu\":\"1500\"}", "mtu"},
    {BASE IPAM ",\"mtu\":67}", "mtu"},
    {BASE IPAM ",\"mtu\":65536}", "mtu"},
    {BASE IPAM ",\"hostIfPrefix\":\"\"}", "hostIfPrefix: '' must be 1-4 characters"},
    {BASE IPAM ",\"hostIfPrefix\":\"abcde\"}", "hostIfPrefix: 'abcde' must be 1-4"},
    {BASE IPAM ",\"hostIfPrefix\":\"a/b\"}", "hostIfPrefix: 'a/b'"},
    {BASE IPAM ",\"hostIfPrefix\":7}", "hostIfPrefix"},
    {BASE IPAM ",\"routeProtocols\":[]}", "routeProtocols"},
    {BASE IPAM ",\"routeProtocols\":{\"pod\":4}}", "routeProtocols.pod"},
    {BASE IPAM ",\"routeProtocols\":{\"block\":256}}", "routeProtocols.block"},
    {BASE IPAM ",\"routeProtocols\":{\"borrowed\":12}}", "12 is BIRD's own protocol"},
    {BASE IPAM ",\"routeProtocols\":{\"pod\":81}}", "pod, block and borrowed must differ"},
    {BASE IPAM ",\"birdSocket\":true}", "birdSocket"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct bgpr_conf c;
		struct cni_ctx ctx;
		int r = parse(bad_cases[i].json, CNI_CMD_ADD, &ctx, &c);

		if (r >= 0 || ctx.err.code != CNI_ERR_INVALID_CONFIG ||
		    !strstr(ctx.err.msg, bad_cases[i].substr)) {
			print_error("case %zu: %s: r=%d code=%u msg=%s\n", i, bad_cases[i].json, r,
				    ctx.err.code, ctx.err.msg ? ctx.err.msg : "(none)");
			fail();
		}
		done(&ctx);
		/* DEL never fails on a bad key: defaults are used. */
		assert_int_equal(parse(bad_cases[i].json, CNI_CMD_DEL, &ctx, &c), 0);
		assert_false(cni_error_isset(&ctx.err));
		done(&ctx);
	}
}

static void test_defaults(void **state)
{
	struct bgpr_conf c;
	struct cni_ctx ctx;

	(void)state;
	assert_int_equal(parse(BASE IPAM "}", CNI_CMD_ADD, &ctx, &c), 0);
	assert_int_equal(c.mtu, 1500);
	assert_string_equal(c.host_if_prefix, "pwr");
	assert_int_equal(c.proto_pod, 80);
	assert_int_equal(c.proto_block, 81);
	assert_int_equal(c.proto_borrowed, 82);
	assert_null(c.bird_socket);
	assert_false(c.strict_borrow);
	done(&ctx);
}

static void test_values(void **state)
{
	struct bgpr_conf c;
	struct cni_ctx ctx;

	(void)state;
	assert_int_equal(parse(BASE ",\"ipam\":{\"type\":\"cluster-ipam\"},\"mtu\":9000,"
				    "\"hostIfPrefix\":\"cali\",\"birdSocket\":\"/run/b.ctl\","
				    "\"routeProtocols\":{\"pod\":90,\"block\":91,\"borrowed\":92}}",
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(c.mtu, 9000);
	assert_string_equal(c.host_if_prefix, "cali");
	assert_int_equal(c.proto_pod, 90);
	assert_int_equal(c.proto_block, 91);
	assert_int_equal(c.proto_borrowed, 92);
	assert_string_equal(c.bird_socket, "/run/b.ctl");
	assert_true(c.strict_borrow);
	done(&ctx);
}

static unsigned warnings;

static void count_sink(enum cni_log_level level, const char *line, void *userdata)
{
	(void)userdata;
	if (level <= CNI_LOG_WARNING) {
		print_error("  %s\n", line);
		warnings++;
	}
}

/* conf/bgp-route*.conflist: each bgp-route object parses, without a warning. */
static void test_examples(void **state)
{
	const char *names[] = {"bgp-route-host-local.conflist", "bgp-route-cluster-ipam.conflist"};
	const char *src = getenv("PODWIRE_SRC");

	(void)state;
	assert_non_null(src);
	cni_log_set_sink(count_sink, NULL);
	cni_log_set_level(CNI_LOG_WARNING);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[4096];
		json_error_t jerr;
		json_t *list, *req;
		struct bgpr_conf c;
		struct cni_ctx ctx;
		char *text;

		snprintf(path, sizeof(path), "%s/conf/%s", src, names[i]);
		list = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
		assert_non_null(list);
		req = json_deep_copy(json_array_get(json_object_get(list, "plugins"), 0));
		json_object_set(req, "name", json_object_get(list, "name"));
		json_object_set(req, "cniVersion", json_object_get(list, "cniVersion"));
		text = json_dumps(req, 0);
		warnings = 0;
		if (parse(text, CNI_CMD_ADD, &ctx, &c) < 0 || warnings)
			print_error("%s: %s\n", path, ctx.err.msg ? ctx.err.msg : "warnings");
		assert_int_equal(warnings, 0);
		assert_false(cni_error_isset(&ctx.err));
		done(&ctx);
		free(text);
		json_decref(req);
		json_decref(list);
	}
	cni_log_reset();
	cni_log_set_level(CNI_LOG_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_examples),
	};

	cni_log_set_level(CNI_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
