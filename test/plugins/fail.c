/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fail: a test-double plugin that returns a configured error ("code",
 * default 100; "msg"; "details") for the commands in "failOn" (default: all
 * but VERSION), optionally after sleeping "hangSeconds". Other commands
 * behave like noop.
 */
#include <errno.h>
#include <unistd.h>

#include "base/parse.h"
#include "double.h"

static bool fails_on(struct cni_ctx *ctx, const json_t *list)
{
	size_t i;
	const json_t *v;

	if (!list)
		return true;
	json_array_foreach (list, i, v)
		if (streq(json_string_value(v), ctx->command_str))
			return true;
	return false;
}

static int fail_any(struct cni_ctx *ctx)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	unsigned code = CNI_ERR_PLUGIN, hang = 0;
	const char *msg = "injected failure", *details = NULL;
	const json_t *fail_on = NULL;

	if (cni_conf_get_uint(&rd, "code", 1, 999, &code, NULL) < 0 ||
	    cni_conf_get_string(&rd, "msg", &msg, NULL) < 0 ||
	    cni_conf_get_string(&rd, "details", &details, NULL) < 0 ||
	    cni_conf_get_array(&rd, "failOn", 8, &fail_on, NULL) < 0 ||
	    cni_conf_get_uint(&rd, "hangSeconds", 0, 3600, &hang, NULL) < 0)
		return -EINVAL;
	if (!fails_on(ctx, fail_on))
		return double_succeed(ctx);
	double_record(ctx);
	if (hang)
		sleep(hang);
	cni_errorf(&ctx->err, code, -EINVAL, "%s", msg);
	if (details)
		cni_error_add_detail(&ctx->err, details);
	return -EINVAL;
}

static const struct cni_plugin_ops ops = {
    .name = "fail",
    .about = "podwire test double: fails with a configured error",
    .add = fail_any,
    .del = fail_any,
    .check = fail_any,
    .gc = fail_any,
    .status = fail_any,
};

int main(int argc, char **argv)
{
	return cni_plugin_main(&ops, argc, argv);
}
