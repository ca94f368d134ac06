/* fuzz-libs: bridge_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge plugin's own keys (bridge, the booleans, mtu, vlan, vlanTrunk,
 * ipMasqBackend, mac from the key, runtimeConfig.mac, args.cni.mac and
 * CNI_ARGS MAC) through bridge_conf_parse, strict (ADD) and lenient (DEL).
 *
 * Input: the network config; if the first line does not start with '{',
 * it is CNI_ARGS and the config follows it. No kernel calls are made.
 */

#include "fuzz-plugin-conf.h"
#include "bridge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(struct cni_ctx *ctx)
{
	struct bridge_conf c;

	if (bridge_conf_parse(ctx, &c) >= 0)
		bridge_conf_done(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"eth0", true, false, parse};
	return fuzz_plugin_conf(&fp, data, size);
}
