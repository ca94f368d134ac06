/* SPDX-License-Identifier: Apache-2.0 */
/*
 * noop: a test-double plugin that records each invocation (config key
 * "recordFile") and on ADD prints the config's "result", else prevResult,
 * else an empty result.
 */
#include "double.h"

static int noop_any(struct cni_ctx *ctx)
{
	cni_conf_warn_unknown_keys(ctx->conf.root, "", double_keys, true);
	return double_succeed(ctx);
}

static const struct cni_plugin_ops ops = {
    .name = "noop",
    .about = "podwire test double: records invocations, echoes results",
    .add = noop_any,
    .del = noop_any,
    .check = noop_any,
    .gc = noop_any,
    .status = noop_any,
};

int main(int argc, char **argv)
{
	return cni_plugin_main(&ops, argc, argv);
}
