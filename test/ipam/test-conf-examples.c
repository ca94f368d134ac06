/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every conf/host-local*.conf and conf/static*.conf example goes through the
 * IPAM's own parser as an ADD would; an error or any warning (unknown key,
 * gateway outside its subnet, ...) fails, so the examples cannot drift.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cni/log.h"
#include "ipam/host-local.h"
#include "ipam/static.h"

static int warnings;

static void sink(enum cni_log_level level, const char *line, void *userdata)
{
	(void)userdata;
	if (level <= CNI_LOG_WARNING) {
		fprintf(stderr, "%s\n", line);
		warnings++;
	}
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static void check_one(const char *path, bool is_static)
{
	struct cni_ctx ctx;
	struct host_local_conf c;
	struct cni_result *res = NULL;
	json_t *root = NULL;
	size_t len;
	char *buf = slurp(path, &len);
	int r;

	memset(&ctx, 0, sizeof(ctx));
	ctx.command = CNI_CMD_ADD;
	ctx.command_str = "ADD";
	ctx.container_id = "example";
	ctx.ifname = "eth0";
	warnings = 0;
	assert_int_equal(cni_json_loadb(buf, len, path, &root, &ctx.err), 0);
	assert_int_equal(cni_conf_parse(root, &ctx.conf, &ctx.err), 0);
	if (is_static) {
		r = static_build_result(&ctx, &res);
		cni_result_free(res);
	} else {
		r = host_local_conf_parse(&ctx, HOST_LOCAL_PARSE_RANGES | HOST_LOCAL_PARSE_REQUESTS,
					  &c);
		if (r >= 0)
			host_local_conf_done(&c);
	}
	if (r < 0 || warnings)
		fail_msg("%s: %s (%d warnings)", path, ctx.err.msg ? ctx.err.msg : "", warnings);
	json_decref(root);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
	free(buf);
}

static void test_examples(void **state)
{
	const char *src = getenv("PODWIRE_SRC");
	char dirpath[512], path[1024];
	struct dirent *de;
	int n = 0;
	DIR *d;

	(void)state;
	assert_non_null(src);
	snprintf(dirpath, sizeof(dirpath), "%s/conf", src);
	d = opendir(dirpath);
	assert_non_null(d);
	cni_log_set_sink(sink, NULL);
	while ((de = readdir(d))) {
		bool hl = strncmp(de->d_name, "host-local", 10) == 0;
		bool st = strncmp(de->d_name, "static", 6) == 0;

		if ((!hl && !st) || !strstr(de->d_name, ".conf"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dirpath, de->d_name);
		check_one(path, st);
		n++;
	}
	closedir(d);
	cni_log_set_sink(NULL, NULL);
	assert_true(n >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
