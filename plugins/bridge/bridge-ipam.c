/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPAM delegation for the bridge. With podwire's ipam_delegate library
 * (HAVE_IPAM_DELEGATE) podwire's own IPAM types run in-process and others are
 * exec'd by it; without it every IPAM plugin is exec'd through CNI_PATH with
 * the plugin's own environment and stdin (SPEC.md section 4).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/macro.h"
#include "bridge.h"
#include "cni/invoke.h"
#include "cni/plugin.h"

#ifdef HAVE_IPAM_DELEGATE
#include "ipam/delegate.h"

int bridge_ipam_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	return ipam_delegate_add(ctx, ret);
}

int bridge_ipam_run(struct cni_ctx *ctx, enum cni_command cmd)
{
	switch (cmd) {
	case CNI_CMD_DEL:
		return ipam_delegate_del(ctx);
	case CNI_CMD_CHECK:
		return ipam_delegate_check(ctx);
	case CNI_CMD_GC:
		return ipam_delegate_gc(ctx);
	case CNI_CMD_STATUS:
		return ipam_delegate_status(ctx);
	default:
		return -EINVAL;
	}
}
#else

/* IPAM delegates get no more than this (host-local answers in a few ms). */
#define IPAM_TIMEOUT_MS 60000

extern char **environ;

static int exec_ipam(struct cni_ctx *ctx, enum cni_command cmd, char **ret_out,
		     struct cni_error *err)
{
	_cleanup_free_ char *path = NULL, *cmd_env = NULL;
	char **env = NULL;
	size_t len = 0;
	int r;

	r = cni_find_plugin(ctx->conf.ipam_type, ctx->path ? ctx->path : "", &path, err);
	if (r < 0)
		return r;
	if (asprintf(&cmd_env, "CNI_COMMAND=%s", cni_command_str(cmd)) < 0)
		return -ENOMEM;
	env = cni_env_build(environ, (char *const[]){ cmd_env, NULL });
	if (!env)
		return -ENOMEM;
	r = cni_exec_plugin(&(struct cni_exec_request){ .plugin_path = path,
							.env = env,
							.stdin_buf = ctx->stdin_buf,
							.stdin_len = ctx->stdin_len,
							.timeout_ms = IPAM_TIMEOUT_MS },
			    ret_out, &len, err);
	cni_env_free(env);
	return r;
}

int bridge_ipam_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	_cleanup_free_ char *out = NULL;
	struct cni_result *res = NULL;
	json_t *doc = NULL;
	int r;

	r = exec_ipam(ctx, CNI_CMD_ADD, &out, &ctx->err);
	if (r < 0)
		return r;
	r = cni_json_loadb(out, strlen(out), "IPAM result", &doc, &ctx->err);
	if (r < 0)
		return r;
	r = cni_result_from_json_any(doc, ctx->conf.version, "ipam result", &res, &ctx->err);
	json_decref(doc);
	if (r < 0)
		return r;
	*ret = res;
	return 0;
}

int bridge_ipam_run(struct cni_ctx *ctx, enum cni_command cmd)
{
	_cleanup_free_ char *out = NULL;

	return exec_ipam(ctx, cmd, &out, &ctx->err);
}
#endif
