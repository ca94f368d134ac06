/* fuzz-libs: ipam_cluster cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam network configs from stdin: the IPAM parser in strict (ADD,
 * with requested IPs and routes) and lenient (DEL, GC) mode. Nothing is
 * touched: parsing opens no file and no connection.
 */
#include "fuzz-plugin-conf.h"
#include "ipam/cluster-ipam.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(struct cni_ctx *ctx)
{
	struct cipam_conf c;

	if (cipam_conf_parse(ctx, &c) >= 0)
		cipam_conf_done(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"eth0", false, true, parse};

	return fuzz_plugin_conf(&fp, data, size);
}
