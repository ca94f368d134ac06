/* SPDX-License-Identifier: Apache-2.0 */
/* Shared fixtures of the sriov-rdma unit tests. */
#pragma once

#include <string.h>

#include "cni/args.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "sriov-rdma.h"

/* A context as the skeleton would make it for cmd, from config text (and CNI_ARGS). */
static inline int test_ctx(struct cni_ctx *ctx, enum cni_command cmd, const char *json,
			   const char *args)
{
	json_t *root;

	static struct cni_plugin_ops ops;

	ops.name = sriov_rdma_ops.name;
	ops.cni_args_keys = sriov_rdma_ops.cni_args_keys;
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = &ops; /* as podnet_plugin_run hands the skeleton */
	ctx->command = cmd;
	ctx->command_str = cni_command_str(cmd);
	ctx->container_id = "ctr1";
	ctx->ifname = "net1";
	ctx->netns = "/var/run/netns/x";
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	if (cni_json_loadb(json, strlen(json), "test", &root, &ctx->err) < 0)
		return -1;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(ctx), &ctx->conf, &ctx->err) < 0) {
		json_decref(root);
		return -1;
	}
	json_decref(root);
	if (args && cni_args_parse(args, &ctx->args, &ctx->err) < 0)
		return -1;
	return 0;
}

static inline void test_ctx_done(struct cni_ctx *ctx)
{
	cni_args_done(&ctx->args);
	cni_conf_done(&ctx->conf);
	cni_error_done(&ctx->err);
	cni_result_free(ctx->result);
	cni_undo_commit(&ctx->undo);
}
