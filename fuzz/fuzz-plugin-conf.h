/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The driver shared by the fuzz targets of a plugin's own config parser.
 * Input: the network config; with `args`, a first line that does not start
 * with '{' is CNI_ARGS and the config follows it. The parser runs as in a
 * strict ADD and a lenient DEL (and GC), on a context set up as
 * cni_plugin_main would (no sysfs, no procfs, no kernel calls).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/args.h"
#include "cni/log.h"
#include "cni/plugin.h"

struct fuzz_plugin {
	const char *ifname;
	bool args; /* the first line may be CNI_ARGS */
	bool gc;   /* also parse as GC (lenient) */
	/* Parse ctx's config as the plugin does, check what it promises (abort), free. */
	void (*parse)(struct cni_ctx *ctx);
};

static void fuzz_plugin_one(const struct fuzz_plugin *fp, json_t *root, const char *args,
			    enum cni_command cmd)
{
	struct cni_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = fp->ifname;
	ctx.sysfs_fd = ctx.procfs_fd = -1;
	ctx.args_raw = args;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) >= 0 &&
	    (!args || cni_args_parse(args, &ctx.args, &ctx.err) >= 0))
		fp->parse(&ctx);
	cni_args_done(&ctx.args);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

static int fuzz_plugin_conf(const struct fuzz_plugin *fp, const uint8_t *data, size_t size)
{
	const uint8_t *conf = data, *nl = fp->args ? memchr(data, '\n', size) : NULL;
	struct cni_error err = {0};
	json_t *root = NULL;
	char *args = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
	if (size > 0 && data[0] != '{' && nl) {
		args = strndup((const char *)data, (size_t)(nl - data));
		if (!args)
			return 0;
		conf = nl + 1;
	}
	if (cni_json_loadb((const char *)conf, size - (size_t)(conf - data), "fuzz", &root, &err) >=
	    0) {
		fuzz_plugin_one(fp, root, args, CNI_CMD_ADD);
		fuzz_plugin_one(fp, root, args, CNI_CMD_DEL);
		if (fp->gc)
			fuzz_plugin_one(fp, root, args, CNI_CMD_GC);
		json_decref(root);
	}
	cni_error_done(&err);
	free(args);
	return 0;
}
