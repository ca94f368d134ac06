/* fuzz-libs: bandwidth_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bandwidth plugin's keys (and runtimeConfig.bandwidth) through
 * bandwidth_conf_parse, strict (ADD) and lenient (DEL). Input: the network
 * config. No kernel calls are made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "cni/log.h"
#include "cni/plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(json_t *root, enum cni_command cmd)
{
	struct cni_ctx ctx;
	struct bandwidth_conf c;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = &bandwidth_ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = "eth0";
	ctx.sysfs_fd = ctx.procfs_fd = -1;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) >= 0 &&
	    bandwidth_conf_parse(&ctx, &c) >= 0)
		bandwidth_conf_done(&c);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	json_t *root = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
	if (cni_json_loadb((const char *)data, size, "fuzz", &root, &err) >= 0) {
		one(root, CNI_CMD_ADD);
		one(root, CNI_CMD_DEL);
		json_decref(root);
	}
	cni_error_done(&err);
	return 0;
}
