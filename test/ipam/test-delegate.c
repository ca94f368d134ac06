/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Delegation: a parent plugin whose handlers call podnet_ipam_*. The
 * host-local and static tables run twice, in-process and exec'd
 * (PODWIRE_IPAM_EXEC=1 against the built binaries in PODWIRE_BIN), and
 * every output must be byte-identical. Plus: a foreign type's error code
 * is preserved, a missing one is CNI_ERR_DELEGATE, and a parent ADD that
 * fails after IPAM releases the lease through its undo list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipam-table.h"
#include "ipam/host-local.h"
#include "ipam/static.h"
#include "podnet/ipam.h"
#include "static-table.h"

extern char **environ;

static int parent_add(struct cni_ctx *ctx)
{
	return podnet_ipam_add(ctx, &ctx->result);
}

static int parent_del(struct cni_ctx *ctx)
{
	return podnet_ipam_run(ctx, CNI_CMD_DEL);
}

static int parent_check(struct cni_ctx *ctx)
{
	return podnet_ipam_run(ctx, CNI_CMD_CHECK);
}

static int parent_gc(struct cni_ctx *ctx)
{
	return podnet_ipam_run(ctx, CNI_CMD_GC);
}

static int parent_status(struct cni_ctx *ctx)
{
	return podnet_ipam_run(ctx, CNI_CMD_STATUS);
}

static const struct cni_plugin_ops parent_ops = {
    .name = "parent",
    .add = parent_add,
    .del = parent_del,
    .check = parent_check,
    .gc = parent_gc,
    .status = parent_status,
};

/* ADD that gets an address (podnet pushes the IPAM DEL on its undo list), then fails. */
static int failing_add(struct cni_ctx *ctx)
{
	int r = podnet_ipam_add(ctx, &ctx->result);

	if (r < 0)
		return r;
	return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EIO, "later step failed");
}

static const struct cni_plugin_ops failing_ops = {
    .name = "failing",
    .add = failing_add,
    .del = parent_del,
};

static char *mkdir_tmp(void)
{
	char *d = strdup("/tmp/pw-delegate.XXXXXX");
	FILE *f;
	char path[128];

	assert_non_null(mkdtemp(d));
	snprintf(path, sizeof(path), "%s/resolv.conf", d);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("nameserver 192.0.2.3\n", f);
	fclose(f);
	return d;
}

static void rm_tmp(char *d)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(d);
}

static void both_ways(const struct ipam_case *cases, size_t n)
{
	char **in = calloc(n * IPAM_MAX_STEPS, sizeof(char *));
	char **ex = calloc(n * IPAM_MAX_STEPS, sizeof(char *));
	char *dir = mkdir_tmp();

	assert_non_null(getenv("PODWIRE_BIN"));
	unsetenv("PODWIRE_IPAM_EXEC");
	ipam_table_run(cases, n, &parent_ops, dir, in);
	setenv("PODWIRE_IPAM_EXEC", "1", 1);
	ipam_table_run(cases, n, &parent_ops, dir, ex);
	unsetenv("PODWIRE_IPAM_EXEC");
	for (size_t i = 0; i < n * IPAM_MAX_STEPS; i++) {
		if ((in[i] == NULL) != (ex[i] == NULL) || (in[i] && strcmp(in[i], ex[i]) != 0))
			fail_msg("case '%s' step %zu differs:\n in-process: %s\n exec'd:     %s",
				 cases[i / IPAM_MAX_STEPS].name, i % IPAM_MAX_STEPS, in[i], ex[i]);
		free(in[i]);
		free(ex[i]);
	}
	free(in);
	free(ex);
	rm_tmp(dir);
}

static void test_host_local_both_ways(void **state)
{
	(void)state;
	both_ways(host_local_cases, sizeof(host_local_cases) / sizeof(host_local_cases[0]));
}

static void test_static_both_ways(void **state)
{
	(void)state;
	both_ways(static_cases, sizeof(static_cases) / sizeof(static_cases[0]));
}

/* Run the parent once with a given CNI_PATH; returns exit code and output. */
static int run(const struct cni_plugin_ops *ops, const char *cmd, const char *path,
	       const char *conf, char **out)
{
	size_t len = 0;
	FILE *mem = open_memstream(out, &len);
	int rc;

	setenv("CNI_COMMAND", cmd, 1);
	setenv("CNI_CONTAINERID", "c1", 1);
	setenv("CNI_IFNAME", "eth0", 1);
	setenv("CNI_NETNS", "/proc/self/ns/net", 1);
	setenv("CNI_NETNS_OVERRIDE", "1", 1);
	setenv("CNI_ARGS", "", 1);
	setenv("CNI_PATH", path, 1);
	rc = cni_plugin_run(ops, environ, conf, strlen(conf), mem);
	fclose(mem);
	return rc;
}

static void test_foreign_type(void **state)
{
	const char *tb = getenv("PODWIRE_TEST_BIN");
	const char *conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"parent\","
			   "\"code\":117,\"msg\":\"from the delegate\","
			   "\"ipam\":{\"type\":\"fail\"}}";
	char *out = NULL;

	(void)state;
	assert_non_null(tb);
	assert_int_equal(run(&parent_ops, "ADD", tb, conf, &out), 1);
	assert_non_null(strstr(out, "\"code\": 117"));
	assert_non_null(strstr(out, "from the delegate"));
	free(out);
	assert_int_equal(run(&parent_ops, "DEL", tb, conf, &out), 1);
	assert_non_null(strstr(out, "\"code\": 117"));
	free(out);
	assert_int_equal(run(&parent_ops, "ADD", "/nonexistent", conf, &out), 1);
	assert_non_null(strstr(out, "\"code\": 104"));
	free(out);
}

static void undo_case(bool exec)
{
	char *dir = mkdir_tmp(), conf[512], path[256], *out = NULL;

	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\":\"1.1.0\",\"name\":\"mynet\",\"type\":\"failing\","
		 "\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"%s\","
		 "\"ranges\":[[{\"subnet\":\"10.7.0.0/24\"}]]}}",
		 dir);
	if (exec)
		setenv("PODWIRE_IPAM_EXEC", "1", 1);
	assert_int_equal(run(&failing_ops, "ADD", getenv("PODWIRE_BIN"), conf, &out), 1);
	unsetenv("PODWIRE_IPAM_EXEC");
	assert_non_null(strstr(out, "later step failed"));
	free(out);
	snprintf(path, sizeof(path), "%s/mynet/10.7.0.2", dir);
	assert_int_equal(access(path, F_OK), -1); /* the lease was taken, then released */
	snprintf(path, sizeof(path), "%s/mynet/last_reserved_ip.0", dir);
	assert_int_equal(access(path, F_OK), 0);
	rm_tmp(dir);
}

static void test_undo_releases_lease(void **state)
{
	(void)state;
	undo_case(false);
	undo_case(true);
}

static const struct podnet_ipam_type ipam_types[] = {
    {"host-local", &ipam_host_local_ops},
    {"static", &ipam_static_ops},
    {NULL, NULL},
};

int main(void)
{
	podnet_set_ipam_types(ipam_types);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_local_both_ways),
	    cmocka_unit_test(test_static_both_ways),
	    cmocka_unit_test(test_foreign_type),
	    cmocka_unit_test(test_undo_releases_lease),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
