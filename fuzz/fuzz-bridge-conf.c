/* fuzz-libs: bridge_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge plugin's own keys (bridge, the booleans, mtu, vlan, vlanTrunk,
 * ipMasqBackend, mac from the key, runtimeConfig.mac, args.cni.mac and
 * CNI_ARGS MAC) through bridge_conf_parse, strict (ADD) and lenient (DEL).
 *
 * Input: the network config; if the first line does not start with '{',
 * it is CNI_ARGS and the config follows it. No kernel calls are made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "cni/args.h"
#include "cni/log.h"
#include "cni/plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(json_t *root, const char *args, enum cni_command cmd)
{
	struct cni_ctx ctx;
	struct bridge_conf c;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = &bridge_ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = "eth0";
	ctx.sysfs_fd = ctx.procfs_fd = -1;
	ctx.args_raw = args;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) < 0)
		goto out;
	if (args && cni_args_parse(args, &ctx.args, &ctx.err) < 0)
		goto out;
	if (bridge_conf_parse(&ctx, &c) >= 0)
		bridge_conf_done(&c);
out:
	cni_args_done(&ctx.args);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *conf = data, *nl;
	struct cni_error err = {0};
	json_t *root = NULL;
	char *args = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
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
