/* fuzz-libs: macvlan_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * macvlan's config through macvlan_conf_parse, strict (ADD) and lenient
 * (DEL): master, mode, mtu, mac from its three sources, linkInContainer,
 * ipam presence. Input: the network config; if the first line does not
 * start with '{', it is CNI_ARGS and the config follows. No kernel calls.
 */

#include "fuzz-plugin-conf.h"
#include "macvlan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(struct cni_ctx *ctx)
{
	struct macvlan_conf c;

	if (macvlan_conf_parse(ctx, &c) >= 0 && c.master && !cni_valid_ifname(c.master))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"net1", true, false, parse};
	return fuzz_plugin_conf(&fp, data, size);
}
