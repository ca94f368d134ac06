/* fuzz-libs: bandwidth_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bandwidth plugin's keys (and runtimeConfig.bandwidth) through
 * bandwidth_conf_parse, strict (ADD) and lenient (DEL). Input: the network
 * config. No kernel calls are made.
 */

#include "fuzz-plugin-conf.h"
#include "bandwidth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(struct cni_ctx *ctx)
{
	struct bandwidth_conf c;

	if (bandwidth_conf_parse(ctx, &c) >= 0)
		bandwidth_conf_done(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"eth0", false, false, parse};
	return fuzz_plugin_conf(&fp, data, size);
}
