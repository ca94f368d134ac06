/* fuzz-libs: bgp_route_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route network configs from stdin: the protocol keys, then bgp-route's
 * own keys in strict (ADD) and lenient (DEL) mode. No kernel calls.
 */
#include <stdint.h>
#include <string.h>

#include "bgp-route.h"
#include "cni/log.h"
#include "cni/plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(json_t *root, enum cni_command cmd)
{
	struct bgpr_conf c;
	struct cni_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = &bgpr_ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.sysfs_fd = ctx.procfs_fd = -1;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) >= 0)
		(void)bgpr_conf_parse(&ctx, &c);
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
	one(root, CNI_CMD_ADD);
	one(root, CNI_CMD_DEL);
	json_decref(root);
	return 0;
}
