/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run the bridge plugin's config parser (ADD strictness) over example
 * conflists, so the documented examples cannot drift from the code: every
 * "bridge" plugin object must parse without an error and without a warning
 * (an unknown key in an example is a documentation bug).
 *
 * Usage: check-bridge-conf FILE.conflist...   Exit 0 when all pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bridge.h"
#include "cni/args.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cni/plugin.h"

static unsigned warnings;

static void sink(enum cni_log_level level, const char *line, void *userdata)
{
	(void)userdata;
	fprintf(stderr, "  %s\n", line);
	if (level <= CNI_LOG_WARNING)
		warnings++;
}

/* The per-plugin request a runtime builds: the object plus name and cniVersion. */
static int check_plugin(const char *file, size_t i, json_t *plugin, const json_t *list)
{
	struct cni_ctx ctx = {.command = CNI_CMD_ADD, .sysfs_fd = -1, .procfs_fd = -1};
	struct bridge_conf c;
	json_t *req = json_deep_copy(plugin);
	int r;

	if (!req)
		return -ENOMEM;
	json_object_set(req, "name", json_object_get(list, "name"));
	json_object_set(req, "cniVersion", json_object_get(list, "cniVersion"));
	warnings = 0;
	r = cni_conf_parse(req, &ctx.conf, &ctx.err);
	if (r >= 0)
		r = bridge_conf_parse(&ctx, &c);
	if (r >= 0)
		bridge_conf_done(&c);
	if (r < 0)
		fprintf(stderr, "%s: plugins[%zu]: code %u: %s\n", file, i, ctx.err.code,
			ctx.err.msg ? ctx.err.msg : strerror(-r));
	else if (warnings)
		fprintf(stderr, "%s: plugins[%zu]: %u warning(s)\n", file, i, warnings);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
	json_decref(req);
	return r < 0 ? r : warnings ? -EINVAL : 1;
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
		const char *type = json_string_value(json_object_get(p, "type"));
		int r;

		if (!type || strcmp(type, "bridge") != 0)
			continue;
		r = check_plugin(file, i, p, list);
		checked += r > 0;
		failed += r < 0;
	}
	json_decref(list);
	if (!failed && !checked)
		fprintf(stderr, "%s: no bridge plugin in the list\n", file);
	return failed || !checked ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	int failed = 0;

	cni_log_set_sink(sink, NULL);
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
