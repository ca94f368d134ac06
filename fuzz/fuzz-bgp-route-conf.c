/* fuzz-libs: bgp_route_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route network configs from stdin: the protocol keys, then bgp-route's
 * own keys in strict (ADD) and lenient (DEL) mode. No kernel calls.
 */
#include "bgp-route.h"
#include "fuzz-plugin-conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(struct cni_ctx *ctx)
{
	struct bgpr_conf c;

	(void)bgpr_conf_parse(ctx, &c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"eth0", false, false, parse};

	return fuzz_plugin_conf(&fp, data, size);
}
