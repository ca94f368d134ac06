/* fuzz-libs: sriov_rdma_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sriov-rdma's own keys (deviceID and runtimeConfig.deviceID, vlan/vlanQoS/
 * vlanProto, mac from the key, CNI_ARGS MAC and runtimeConfig.mac, spoofchk,
 * trust, link_state, rates, mtu, rdma, stateDir, master) through
 * sr_conf_parse, strict (ADD) and lenient (DEL). A config that parses must
 * hold only values ADD can send: a valid BDF, vlan <= 4094, qos <= 7, a
 * known protocol, min <= max rate, mtu in range, an absolute stateDir.
 *
 * Input: the network config; if the first line does not start with '{', it
 * is CNI_ARGS and the config follows it. No kernel calls, no files.
 */

#include "fuzz-plugin-conf.h"
#include "sriov-rdma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct sr_conf *c, bool strict)
{
	if (strict && !sr_bdf_valid(c->device_id))
		abort();
	if (c->vlan > 4094 || c->qos > 7 ||
	    (c->vlan_proto != NLW_VLAN_PROTO_8021Q && c->vlan_proto != NLW_VLAN_PROTO_8021AD))
		abort();
	if (c->max_tx_rate && c->min_tx_rate > c->max_tx_rate)
		abort();
	if (c->mtu && (c->mtu < SR_MTU_MIN || c->mtu > SR_MTU_MAX))
		abort();
	if (!c->state_dir || c->state_dir[0] != '/' || (c->pf_keys & ~SR_PF_ALL))
		abort();
}

static void parse(struct cni_ctx *ctx)
{
	struct sr_conf c;

	if (sr_conf_parse(ctx, &c) >= 0) {
		check(&c, ctx->command == CNI_CMD_ADD);
		sr_conf_done(&c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"net1", true, false, parse};
	return fuzz_plugin_conf(&fp, data, size);
}
