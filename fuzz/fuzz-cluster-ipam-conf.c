/* fuzz-libs: ipam_cluster cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam network configs from stdin: the IPAM parser in strict (ADD,
 * with requested IPs and routes) and lenient (DEL, GC) mode. Nothing is
 * touched: parsing opens no file and no connection.
 */
#include <stdint.h>
#include <string.h>

#include "cni/log.h"
#include "cni/plugin.h"
#include "ipam/cluster-ipam.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(json_t *root, enum cni_command cmd)
{
	struct cni_ctx ctx;
	struct cipam_conf c;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = &ipam_cluster_ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = "eth0";
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) >= 0 &&
	    cipam_conf_parse(&ctx, &c) >= 0)
		cipam_conf_done(&c);
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
	one(root, CNI_CMD_GC);
	json_decref(root);
	return 0;
}
