/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPAM delegation: the binary's in-process IPAM types, anything else (or
 * everything, with PODWIRE_IPAM_EXEC=1) exec'd through CNI_PATH with the
 * caller's environment and stdin, per the spec's delegation rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/invoke.h"
#include "cni/log.h"
#include "podnet/ipam.h"

extern char **environ;

static const struct podnet_ipam_type *inprocess_types;

void podnet_set_ipam_types(const struct podnet_ipam_type *types)
{
	inprocess_types = types;
}

static const struct cni_plugin_ops *builtin_ops(const char *type)
{
	const char *force = getenv("PODWIRE_IPAM_EXEC");

	if (force && streq(force, "1"))
		return NULL;
	for (const struct podnet_ipam_type *t = inprocess_types; t && t->type; t++)
		if (streq(type, t->type))
			return t->ops;
	return NULL;
}

/*
 * Pass an in-process result through the JSON of the config's version, as
 * the exec'd binary's stdout would be, so both paths give the same model
 * (e.g. a 0.2.0 config keeps only what 0.2.0 can say).
 */
static int as_printed(struct cni_ctx *ctx, const struct cni_result *res, struct cni_result **ret)
{
	json_t *doc = NULL;
	int r;

	r = cni_result_to_json(res, ctx->conf.version, &doc, &ctx->err);
	if (r < 0)
		return r;
	r = cni_result_from_json_any(doc, ctx->conf.version, "ipam result", ret, &ctx->err);
	json_decref(doc);
	return r;
}

/* The IPAM's own CNI_ARGS strictness, as its binary's skeleton would apply. */
static int check_args(struct cni_ctx *child)
{
	if (!child->ops->cni_args_keys ||
	    (child->command != CNI_CMD_ADD && child->command != CNI_CMD_CHECK))
		return 0;
	return cni_args_check_known(&child->args, child->ops->cni_args_keys, &child->err);
}

static int run_inprocess(struct cni_ctx *ctx, const struct cni_plugin_ops *ops,
			 enum cni_command cmd, struct cni_result **ret)
{
	int (*fn)(struct cni_ctx *) = cni_plugin_handler(ops, cmd);
	struct cni_ctx child;
	int r;

	cni_ctx_init_child(&child, ctx, cmd);
	child.ops = ops;
	r = check_args(&child);
	if (r >= 0 && fn)
		r = fn(&child);
	if (r >= 0 && cmd == CNI_CMD_ADD) {
		r = child.result ? as_printed(&child, child.result, ret)
				 : cni_errorf(&child.err, CNI_ERR_PLUGIN, -EINVAL,
					      "IPAM %s produced no result", ops->name);
	}
	/* A failed ADD leaves nothing behind; a good one is the caller's to undo. */
	if (r < 0 && cmd == CNI_CMD_ADD)
		cni_undo_run(&child.undo);
	cni_undo_commit(&child.undo);
	if (r < 0) {
		cni_error_from_errno(&child.err, r);
		if (!cni_error_isset(&ctx->err))
			cni_error_move(&ctx->err, &child.err);
	}
	cni_ctx_child_done(&child);
	return r;
}

static int run_exec(struct cni_ctx *ctx, enum cni_command cmd, char **ret_out)
{
	_cleanup_free_ char *path = NULL;
	char cmd_env[32], *overrides[] = {cmd_env, NULL};
	struct cni_exec_request req = {0};
	char **env;
	size_t len = 0;
	int r;

	r = cni_find_plugin(ctx->conf.ipam_type, ctx->path ? ctx->path : "", &path, &ctx->err);
	if (r < 0)
		return r;
	snprintf(cmd_env, sizeof(cmd_env), "CNI_COMMAND=%s", cni_command_str(cmd));
	env = cni_env_build(environ, overrides);
	if (!env)
		return -ENOMEM;
	req.plugin_path = path;
	req.env = env;
	req.stdin_buf = ctx->stdin_buf;
	req.stdin_len = ctx->stdin_len;
	req.timeout_ms = 0; /* as the reference: the runtime's own deadline applies */
	r = cni_exec_plugin(&req, ret_out, &len, &ctx->err);
	cni_env_free(env);
	return r;
}

static int exec_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	_cleanup_free_ char *out = NULL;
	json_t *doc = NULL;
	int r;

	r = run_exec(ctx, CNI_CMD_ADD, &out);
	if (r < 0)
		return r;
	r = cni_json_loadb(out, strlen(out), "IPAM plugin output", &doc, &ctx->err);
	if (r >= 0)
		r = cni_result_from_json_any(doc, ctx->conf.version, "ipam result", ret, &ctx->err);
	json_decref(doc);
	if (r >= 0)
		return 0;
	/* The delegate allocated but we cannot use its answer: give it back. */
	{
		struct cni_error keep = {0};

		cni_error_move(&keep, &ctx->err);
		(void)podnet_ipam_run(ctx, CNI_CMD_DEL);
		cni_error_done(&ctx->err);
		cni_error_move(&ctx->err, &keep);
	}
	return r;
}

static int no_ipam(struct cni_ctx *ctx)
{
	if (!ctx->conf.ipam)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "IPAM config missing 'ipam' key");
	return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "ipam.type: missing (no IPAM plugin configured)");
}

/* The configured type's in-process ops, or NULL when it is exec'd; no type is an error. */
static int ipam_ops(struct cni_ctx *ctx, const struct cni_plugin_ops **ret)
{
	if (!ctx->conf.ipam_type)
		return no_ipam(ctx);
	*ret = builtin_ops(ctx->conf.ipam_type);
	return 0;
}

static int delegate_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	const struct cni_plugin_ops *ops = NULL;
	int r = ipam_ops(ctx, &ops);

	if (r < 0)
		return r;
	return ops ? run_inprocess(ctx, ops, CNI_CMD_ADD, ret) : exec_add(ctx, ret);
}

int podnet_ipam_add_to(struct cni_ctx *ctx, struct cni_result *dst)
{
	struct cni_result *ipam = NULL;
	int r = podnet_ipam_add(ctx, &ipam);

	if (r >= 0)
		cni_result_take_ipam(dst, ipam);
	cni_result_free(ipam);
	return r;
}

/*
 * DEL and GC: an IPAM plugin that cannot be found or run (code 104) is only
 * logged, so a removed IPAM binary never wedges clean-up; any other failure
 * is the caller's, for a retry.
 */
static int tolerate_missing_ipam(struct cni_ctx *ctx, enum cni_command cmd, int r)
{
	if (r >= 0 || (cmd != CNI_CMD_DEL && cmd != CNI_CMD_GC) ||
	    ctx->err.code != CNI_ERR_DELEGATE)
		return r;
	cni_log_warning("ipam: %s, going on without the IPAM's %s", ctx->err.msg,
			cni_command_str(cmd));
	cni_error_done(&ctx->err);
	return 0;
}

int podnet_ipam_run(struct cni_ctx *ctx, enum cni_command cmd)
{
	_cleanup_free_ char *out = NULL;
	const struct cni_plugin_ops *ops = NULL;
	int r = ipam_ops(ctx, &ops);

	if (r < 0)
		return r;
	if (ops)
		return run_inprocess(ctx, ops, cmd, NULL);
	return tolerate_missing_ipam(ctx, cmd, run_exec(ctx, cmd, &out));
}

static int undo_ipam(void *arg)
{
	return podnet_ipam_run(arg, CNI_CMD_DEL);
}

int podnet_ipam_add(struct cni_ctx *ctx, struct cni_result **ret)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	int r;

	r = delegate_add(ctx, &res);
	if (r < 0)
		return r;
	r = cni_undo_push(&ctx->undo, "IPAM DEL", undo_ipam, ctx, NULL);
	if (r < 0) {
		(void)podnet_ipam_run(ctx, CNI_CMD_DEL);
		return r;
	}
	if (res->n_ips == 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EINVAL,
				  "IPAM plugin returned missing IP config");
	/*
	 * A route "10.9.9.9/16" is installed as 10.9.0.0/16: say so in the
	 * result too, instead of echoing what the kernel does not have.
	 */
	for (size_t i = 0; i < res->n_routes; i++)
		ip_prefix_mask(&res->routes[i].dst);
	*ret = TAKE_PTR(res);
	return 0;
}
