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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/args.h"
#include "cni/log.h"
#include "cni/plugin.h"
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

static void one(json_t *root, const char *args, enum cni_command cmd)
{
	struct cni_ctx ctx;
	struct sr_conf c;

	memset(&ctx, 0, sizeof(ctx));
	ctx.ops = &sriov_rdma_ops;
	ctx.command = cmd;
	ctx.command_str = cni_command_str(cmd);
	ctx.container_id = "fuzz";
	ctx.ifname = "net1";
	ctx.sysfs_fd = ctx.procfs_fd = -1;
	ctx.args_raw = args;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) < 0)
		goto out;
	if (args && cni_args_parse(args, &ctx.args, &ctx.err) < 0)
		goto out;
	if (sr_conf_parse(&ctx, &c) >= 0) {
		check(&c, cmd == CNI_CMD_ADD);
		sr_conf_done(&c);
	}
out:
	cni_args_done(&ctx.args);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *conf = data, *nl;
	struct cni_error err = {0};
	json_t *root = NULL;
	char *args = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
	nl = memchr(data, '\n', size);
	if (size > 0 && data[0] != '{' && nl) {
		args = strndup((const char *)data, (size_t)(nl - data));
		if (!args)
			return 0;
		conf = nl + 1;
	}
	if (cni_json_loadb((const char *)conf, size - (size_t)(conf - data), "fuzz", &root, &err) <
	    0)
		goto out;
	one(root, args, CNI_CMD_ADD);
	one(root, args, CNI_CMD_DEL);
	json_decref(root);
out:
	cni_error_done(&err);
	free(args);
	return 0;
}
