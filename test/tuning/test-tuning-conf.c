/* SPDX-License-Identifier: Apache-2.0 */
/* tuning's parsers and decisions: sysctl paths, MACs, precedence, allow list, backup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cni/args.h"
#include "cni/conf.h"
#include "cni/plugin.h"
#include "tuning.h"

static void test_sysctl_paths(void **state)
{
	static const struct {
		const char *key, *ifname, *want; /* want NULL: refused */
	} cases[] = {
	    {"net.core.somaxconn", "eth0", "net/core/somaxconn"},
	    {"net.ipv4.conf.IFNAME.arp_filter", "eth0", "net/ipv4/conf/eth0/arp_filter"},
	    /* dotted notation: '/' stands for a dot inside a component */
	    {"net.ipv4.conf.eth0/100.arp_filter", "x", "net/ipv4/conf/eth0.100/arp_filter"},
	    /* slash notation: dots are literal; IFNAME with a dot survives */
	    {"net/ipv4/conf/IFNAME/arp_filter", "eth0.100", "net/ipv4/conf/eth0.100/arp_filter"},
	    {"net.ipv4.conf.IFNAME.arp_filter", "eth0.100", "net/ipv4/conf/eth0.100/arp_filter"},
	    /* only the first IFNAME, as the reference */
	    {"net.IFNAME.IFNAME", "a", "net/a/IFNAME"},
	    /* cleaned like filepath.Clean */
	    {"net/core/../ipv4/ip_forward", "x", "net/ipv4/ip_forward"},
	    {"net..core.somaxconn", "x", "net/core/somaxconn"},
	    {"/net/core/somaxconn", "x", "net/core/somaxconn"},
	    /* escapes and non-net keys: refused */
	    {"kernel.hostname", "x", NULL},
	    {"net/../kernel/hostname", "x", NULL},
	    {"net/../../etc/passwd", "x", NULL},
	    {"../net/core/somaxconn", "x", NULL},
	    {"net", "x", NULL},
	    {"net.", "x", NULL},
	    {"network.x", "x", NULL},
	    {"", "x", NULL},
	    {"net.core.some thing", "x", NULL},
	    {"net.core.\x7f", "x", NULL},
	};
	char buf[TUNING_SYSCTL_PATH_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = tuning_sysctl_path(cases[i].key, cases[i].ifname, buf, sizeof(buf));

		if (cases[i].want) {
			if (r != 0)
				fail_msg("%s: refused (%d)", cases[i].key, r);
			assert_string_equal(buf, cases[i].want);
		} else if (r == 0) {
			fail_msg("%s: accepted as %s", cases[i].key, buf);
		}
	}
	assert_int_equal(tuning_sysctl_path("net.core.somaxconn", "x", buf, 8), -ENAMETOOLONG);
}

static void test_mac_parse(void **state)
{
	static const unsigned char want[6] = {0xc2, 0x11, 0x22, 0x33, 0x44, 0x55};
	static const char *const good[] = {"c2:11:22:33:44:55", "C2:11:22:33:44:55",
					   "c2-11-22-33-44-55", "c211.2233.4455"};
	static const char *const bad[] = {"c2:11:22:33:44",
					  "c2:11:22:33:44:5g",
					  "c2:11-22:33:44:55",
					  "c2:11:22:33:44:55:66",
					  "zz",
					  "",
					  "c2112233.4455",
					  "c2:11:22:33:44:55 "};
	unsigned char m[6];

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(tuning_mac_parse(good[i], m), 0);
		assert_memory_equal(m, want, 6);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (tuning_mac_parse(bad[i], m) == 0)
			fail_msg("accepted '%s'", bad[i]);
}

/* Parse `json` as stdin of cmd with CNI_ARGS args and ifname eth0. */
static int parse(const char *json, const char *args, enum cni_command cmd, struct cni_ctx *ctx,
		 struct tuning_conf *c)
{
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, NULL);

	memset(ctx, 0, sizeof(*ctx));
	ctx->command = cmd;
	ctx->ifname = "eth0";
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	assert_non_null(root);
	assert_int_equal(cni_conf_parse(root, &ctx->conf, &ctx->err), 0);
	json_decref(root);
	assert_int_equal(cni_args_parse(args, &ctx->args, &ctx->err), 0);
	memset(c, 0, sizeof(*c));
	return tuning_conf_parse(ctx, c);
}

static void done(struct cni_ctx *ctx, struct tuning_conf *c)
{
	tuning_conf_done(c);
	cni_conf_done(&ctx->conf);
	cni_args_done(&ctx->args);
	cni_error_done(&ctx->err);
}

#define BASE "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"tuning\""

static void test_defaults(void **state)
{
	struct cni_ctx ctx;
	struct tuning_conf c;

	(void)state;
	assert_int_equal(parse(BASE "}", NULL, CNI_CMD_ADD, &ctx, &c), 0);
	assert_string_equal(c.data_dir, TUNING_DEFAULT_DATA_DIR);
	assert_false(tuning_conf_has_link_attrs(&c));
	assert_int_equal(c.n_sysctls, 0);
	done(&ctx, &c);
}

static void expect_mac(const char *json, const char *args, const char *src, unsigned last)
{
	struct cni_ctx ctx;
	struct tuning_conf c;

	assert_int_equal(parse(json, args, CNI_CMD_ADD, &ctx, &c), 0);
	assert_true(c.has_mac);
	assert_string_equal(c.mac_src, src);
	assert_int_equal(c.mac[5], last);
	done(&ctx, &c);
}

/* conf < CNI_ARGS MAC < runtimeConfig.mac < args.cni.mac */
static void test_mac_precedence(void **state)
{
	(void)state;
	expect_mac(BASE ",\"mac\":\"02:00:00:00:00:01\"}", NULL, "mac", 1);
	expect_mac(BASE ",\"mac\":\"02:00:00:00:00:01\"}", "MAC=02:00:00:00:00:02", "CNI_ARGS MAC",
		   2);
	expect_mac(BASE ",\"mac\":\"02:00:00:00:00:01\",\"runtimeConfig\":{\"mac\":"
			"\"02:00:00:00:00:03\"}}",
		   "MAC=02:00:00:00:00:02", "runtimeConfig.mac", 3);
	expect_mac(BASE ",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\"},\"args\":{\"cni\":{"
			"\"mac\":\"02:00:00:00:00:04\"}}}",
		   "MAC=02:00:00:00:00:02", "args.cni.mac", 4);
	/* Only the winner is validated: a bad lower-precedence MAC does not matter. */
	expect_mac(BASE ",\"mac\":\"bogus\",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\"}}",
		   NULL, "runtimeConfig.mac", 3);
}

static void test_args_override(void **state)
{
	struct cni_ctx ctx;
	struct tuning_conf c;

	(void)state;
	assert_int_equal(
	    parse(BASE ",\"mtu\":1400,\"promisc\":true,\"allmulti\":false,\"txQLen\":100,"
		       "\"sysctl\":{\"net.core.somaxconn\":\"500\",\"net.ipv4.conf.IFNAME."
		       "arp_filter\":\"1\"},"
		       "\"args\":{\"cni\":{\"mtu\":1300,\"promisc\":false,\"allmulti\":true,"
		       "\"txQLen\":0,\"sysctl\":{\"net.core.somaxconn\":\"600\",\"net.ipv4."
		       "ip_forward\":\"1\"}}}}",
		  NULL, CNI_CMD_ADD, &ctx, &c),
	    0);
	assert_int_equal(c.mtu, 1300);
	assert_false(c.promisc);
	assert_true(c.has_allmulti && c.allmulti);
	assert_true(c.has_txqlen);
	assert_int_equal(c.txqlen, 0);
	assert_int_equal(c.n_sysctls, 3);
	assert_string_equal(c.sysctls[0].path, "net/core/somaxconn");
	assert_string_equal(c.sysctls[0].value, "600");
	assert_string_equal(c.sysctls[1].path, "net/ipv4/conf/eth0/arp_filter");
	assert_string_equal(c.sysctls[2].path, "net/ipv4/ip_forward");
	done(&ctx, &c);
}

struct bad_case {
	const char *json, *args;
	const char *substr;
};

static const struct bad_case bad_cases[] = {
    {BASE ",\"sysctl\":{\"kernel.hostname\":\"x\"}}", NULL,
     "sysctl: invalid net sysctl key 'kernel.hostname' (value 'x')"},
    {BASE ",\"sysctl\":{\"net/../kernel/hostname\":\"x\"}}", NULL,
     "invalid net sysctl key 'net/../kernel/hostname'"},
    {BASE ",\"args\":{\"cni\":{\"sysctl\":{\"vm.swappiness\":\"1\"}}}}", NULL,
     "args.cni.sysctl: invalid net sysctl key 'vm.swappiness' (value '1')"},
    {BASE ",\"sysctl\":{\"net.core.somaxconn\":500}}", NULL,
     "sysctl: value of 'net.core.somaxconn' must be a string"},
    {BASE ",\"sysctl\":[]}", NULL, "sysctl"},
    {BASE ",\"mac\":\"zz:11:22:33:44:55\"}", NULL, "mac: invalid MAC address 'zz:11:22:33:44:55'"},
    {BASE "}", "MAC=nope", "CNI_ARGS MAC: invalid MAC address 'nope'"},
    {BASE ",\"runtimeConfig\":{\"mac\":\"01:00:5e:00:00:01\"}}", NULL,
     "runtimeConfig.mac: '01:00:5e:00:00:01' is not a unicast MAC address"},
    {BASE ",\"mtu\":-1}", NULL, "mtu"},
    {BASE ",\"mtu\":\"1500\"}", NULL, "mtu"},
    {BASE ",\"txQLen\":-5}", NULL, "txQLen"},
    {BASE ",\"promisc\":\"yes\"}", NULL, "promisc"},
    {BASE ",\"dataDir\":5}", NULL, "dataDir"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct cni_ctx ctx;
		struct tuning_conf c;
		int r = parse(bad_cases[i].json, bad_cases[i].args, CNI_CMD_ADD, &ctx, &c);

		if (r >= 0)
			fail_msg("accepted: %s", bad_cases[i].json);
		assert_int_equal(ctx.err.code, 7);
		if (!strstr(ctx.err.msg, bad_cases[i].substr))
			fail_msg("'%s' lacks '%s'", ctx.err.msg, bad_cases[i].substr);
		done(&ctx, &c);
		/* DEL never fails on config: the bad key is skipped. */
		assert_int_equal(parse(bad_cases[i].json, bad_cases[i].args, CNI_CMD_DEL, &ctx, &c),
				 0);
		for (size_t k = 0; k < c.n_sysctls; k++)
			assert_int_equal(strncmp(c.sysctls[k].path, "net/", 4), 0);
		done(&ctx, &c);
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_allowlist(void **state)
{
	char dir[] = "/tmp/test-tuning-XXXXXX", file[64];
	struct cni_ctx ctx;
	struct tuning_conf c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/allowlist.conf", dir);
	assert_int_equal(parse(BASE ",\"sysctl\":{\"net.core.somaxconn\":\"5\","
				    "\"net.ipv4.conf.IFNAME.arp_filter\":\"1\"}}",
			       NULL, CNI_CMD_ADD, &ctx, &c),
			 0);
	/* No file: everything below net. is allowed. */
	assert_int_equal(tuning_allowlist_check(&ctx, &c, file), 0);
	write_file(file,
		   "  ^net\\.core\\.somaxconn$  \n\n^net\\.ipv4\\.conf\\.IFNAME\\.[a-z_]+$\n");
	assert_int_equal(tuning_allowlist_check(&ctx, &c, file), 0);
	write_file(file, "^net\\.core\\.\n");
	assert_true(tuning_allowlist_check(&ctx, &c, file) < 0);
	assert_int_equal(ctx.err.code, 7);
	assert_non_null(strstr(ctx.err.msg, "'net.ipv4.conf.IFNAME.arp_filter' (value '1') is not "
					    "allowed"));
	cni_error_done(&ctx.err);
	write_file(file, "net.core(\n");
	assert_true(tuning_allowlist_check(&ctx, &c, file) < 0);
	assert_non_null(strstr(ctx.err.msg, "invalid regular expression"));
	done(&ctx, &c);
	unlink(file);
	rmdir(dir);
}

static void test_backup_roundtrip(void **state)
{
	struct tuning_backup b = {.has_mac = true,
				  .mac = {0xfe, 1, 2, 3, 4, 5},
				  .has_promisc = true,
				  .promisc = false,
				  .mtu = 1500,
				  .has_allmulti = true,
				  .allmulti = true,
				  .has_txqlen = true,
				  .txqlen = 0};
	static const char ref[] = "{\n \"mac\": \"fe:01:02:03:04:05\",\n \"mtu\": 1400\n}";
	struct tuning_backup p;
	char *s = tuning_backup_format(&b), path[64];

	(void)state;
	assert_non_null(s);
	assert_non_null(strstr(s, "\"mac\": \"fe:01:02:03:04:05\""));
	assert_int_equal(tuning_backup_parse(s, strlen(s), &p), 0);
	assert_true(p.has_mac && p.has_promisc && !p.promisc && p.has_allmulti && p.allmulti);
	assert_memory_equal(p.mac, b.mac, 6);
	assert_int_equal(p.mtu, 1500);
	assert_true(p.has_txqlen);
	assert_int_equal(p.txqlen, 0);
	free(s);
	/* The reference's file (no txQLen, MAC as Go prints it) reads the same. */
	assert_int_equal(tuning_backup_parse(ref, strlen(ref), &p), 0);
	assert_true(p.has_mac && !p.has_promisc && !p.has_txqlen);
	assert_int_equal(p.mtu, 1400);
	assert_int_equal(tuning_backup_parse("{\"mtu\":\"x\"}", 11, &p), -EINVAL);
	assert_int_equal(tuning_backup_parse("[]", 2, &p), -EINVAL);
	assert_int_equal(tuning_backup_path("/run/cni/tuning", "cid", "eth0", path, sizeof(path)),
			 0);
	assert_string_equal(path, "/run/cni/tuning/cid_eth0.json");
	assert_int_equal(tuning_backup_path("/x", "cid", "eth0", path, 8), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sysctl_paths),  cmocka_unit_test(test_mac_parse),
	    cmocka_unit_test(test_defaults),	  cmocka_unit_test(test_mac_precedence),
	    cmocka_unit_test(test_args_override), cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_allowlist),	  cmocka_unit_test(test_backup_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
