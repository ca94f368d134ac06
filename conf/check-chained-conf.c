/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run the parsers of loopback, tuning and macvlan (ADD strictness) over
 * example conflists, so the documented examples cannot drift: every plugin
 * object of those types must parse without an error and without a warning.
 *
 * Usage: check-chained-conf FILE.conflist...   Exit 0 when all pass.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cni/conf.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "macvlan.h"
#include "tuning.h"

static unsigned warnings;

static void count_warnings(enum cni_log_level level, const char *line, void *userdata)
{
	(void)userdata;
	fprintf(stderr, "  %s\n", line);
	if (level <= CNI_LOG_WARNING)
		warnings++;
}

/* Returns 1 when checked, 0 when not one of ours, negative on failure. */
static int parse_ours(struct cni_ctx *ctx, const char *type)
{
	struct tuning_conf t;
	struct macvlan_conf m;
	int r;

	if (strcmp(type, "loopback") == 0)
		return 1; /* no keys of its own: the protocol parse is the check */
	if (strcmp(type, "tuning") == 0) {
		r = tuning_conf_parse(ctx, &t);
		if (r >= 0)
			tuning_conf_done(&t);
		return r < 0 ? r : 1;
	}
	if (strcmp(type, "macvlan") == 0) {
		r = macvlan_conf_parse(ctx, &m);
		return r < 0 ? r : 1;
	}
	return 0;
}

static int check_plugin(const char *file, size_t i, const json_t *plugin, const json_t *list)
{
	struct cni_ctx ctx = {
	    .command = CNI_CMD_ADD, .ifname = "eth0", .sysfs_fd = -1, .procfs_fd = -1};
	const char *type = json_string_value(json_object_get(plugin, "type"));
	json_t *req = json_deep_copy(plugin);
	int r;

	if (!req || !type)
		return req ? (json_decref(req), 0) : -ENOMEM;
	json_object_set(req, "name", json_object_get(list, "name"));
	json_object_set(req, "cniVersion", json_object_get(list, "cniVersion"));
	warnings = 0;
	r = cni_conf_parse(req, &ctx.conf, &ctx.err);
	if (r >= 0)
		r = parse_ours(&ctx, type);
	if (r < 0)
		fprintf(stderr, "%s: plugins[%zu] (%s): code %u: %s\n", file, i, type, ctx.err.code,
			ctx.err.msg ? ctx.err.msg : strerror(-r));
	else if (r > 0 && warnings)
		fprintf(stderr, "%s: plugins[%zu] (%s): %u warning(s)\n", file, i, type, warnings);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
	json_decref(req);
	return r < 0 ? r : r > 0 && warnings ? -EINVAL : r;
}

static int check_file(const char *file)
{
	json_error_t jerr;
	json_t *list = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr), *p;
	int checked = 0, failed = 0;
	size_t i;

	if (!list) {
		fprintf(stderr, "%s:%d:%d: %s\n", file, jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	json_array_foreach (json_object_get(list, "plugins"), i, p) {
		int r = check_plugin(file, i, p, list);

		checked += r > 0;
		failed += r < 0;
	}
	json_decref(list);
	if (!failed && !checked)
		fprintf(stderr, "%s: no loopback, tuning or macvlan plugin in the list\n", file);
	return failed || !checked ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	int failed = 0;

	cni_log_set_sink(count_warnings, NULL);
	cni_log_set_level(CNI_LOG_INFO);
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE.conflist...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		int r = check_file(argv[i]);

		printf("%s %s\n", r < 0 ? "FAIL" : "ok  ", argv[i]);
		failed += r < 0;
	}
	return failed ? 1 : 0;
}
