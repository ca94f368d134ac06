/* fuzz-libs: ipam_host_local ipam_static cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPAM configs from stdin: host-local's parser (ranges, legacy range,
 * runtimeConfig.ipRanges in both shapes, requested addresses, routes,
 * dataDir) in strict (ADD) and lenient (DEL) mode, and static's result
 * builder. Nothing touches the filesystem.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cni/log.h"
#include "cni/plugin.h"
#include "ipam/host-local.h"
#include "ipam/static.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(json_t *root, enum cni_command cmd, const struct cni_plugin_ops *ops)
{
	struct cni_ctx ctx;
	struct host_local_conf c;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = "eth0";
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) < 0)
		goto out;
	if (ops == &ipam_static_ops) {
		struct cni_result *r = NULL;

		if (static_build_result(&ctx, &r) >= 0)
			cni_result_free(r);
		goto out;
	}
	if (host_local_conf_parse(&ctx, cmd == CNI_CMD_ADD ? 3u : 0u, &c) >= 0)
		host_local_conf_done(&c);
out:
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	json_t *root = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
	if (cni_json_loadb((const char *)data, size, "fuzz", &root, &err) < 0) {
		cni_error_done(&err);
		return 0;
	}
	one(root, CNI_CMD_ADD, &ipam_host_local_ops);
	one(root, CNI_CMD_DEL, &ipam_host_local_ops);
	one(root, CNI_CMD_ADD, &ipam_static_ops);
	json_decref(root);
	return 0;
}
