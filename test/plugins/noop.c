/* SPDX-License-Identifier: Apache-2.0 */
/*
 * noop: a test-double plugin that records each invocation (config key
 * "recordFile") and on ADD prints the config's "result", else prevResult,
 * else an empty result.
 */
#include "double.h"

static int noop_any(struct cni_ctx *ctx)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	int r = cni_conf_check_keys(&rd, double_keys, true);

	return r < 0 ? r : double_succeed(ctx);
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
