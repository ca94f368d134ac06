/* fuzz-libs: tuning_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tuning's config through tuning_conf_parse, strict (ADD) and lenient (DEL):
 * the sysctl map and args.cni.sysctl (every key normalized, IFNAME
 * substituted, checked to stay below net/), mac from its four sources,
 * mtu, promisc, allmulti, txQLen, dataDir; and the backup file parser on
 * the same bytes.
 *
 * Input: the network config; if the first line does not start with '{',
 * it is CNI_ARGS and the config follows it. No kernel calls are made.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/args.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "tuning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A ".." component (not a name that merely starts with dots) would escape. */
static bool has_dotdot(const char *p)
{
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

static void check_paths(const struct tuning_conf *c)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (strncmp(c->sysctls[i].path, "net/", 4) != 0 || has_dotdot(c->sysctls[i].path))
			abort(); /* a sysctl outside net/ must never reach the kernel */
}

static void one(json_t *root, const char *args, enum cni_command cmd)
{
	struct cni_ctx ctx;
	struct tuning_conf c;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = &tuning_ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = "eth0.100";
	ctx.sysfs_fd = ctx.procfs_fd = -1;
	ctx.args_raw = args;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) < 0)
		goto out;
	if (args && cni_args_parse(args, &ctx.args, &ctx.err) < 0)
		goto out;
	if (tuning_conf_parse(&ctx, &c) >= 0) {
		check_paths(&c);
		tuning_conf_done(&c);
	}
out:
	cni_args_done(&ctx.args);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *conf = data, *nl;
	struct cni_error err = {0};
	struct tuning_backup b;
	json_t *root = NULL;
	char *args = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
	(void)tuning_backup_parse((const char *)data, size, &b);
	nl = memchr(data, '\n', size);
	if (size > 0 && data[0] != '{' && nl) {
		args = strndup((const char *)data, (size_t)(nl - data));
		if (!args)
			return 0;
		conf = nl + 1;
	}
	if (cni_json_loadb((const char *)conf, size - (size_t)(conf - data), "fuzz", &root, &err) <
	    0)
		goto out;
	one(root, args, CNI_CMD_ADD);
	one(root, args, CNI_CMD_DEL);
	json_decref(root);
out:
	cni_error_done(&err);
	free(args);
	return 0;
}
