/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sriov-rdma's own keys (sriov-cni's names, so NetworkAttachmentDefinitions
 * move over unchanged) parsed into struct sr_conf. No kernel calls, no files:
 * every value is checked here, before ADD changes anything.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "sriov-rdma.h"

static const char *const sr_keys[] = {
    "deviceID", "pciBusID", "vlan",	  "vlanQoS",	       "vlanProto",   "mac",
    "spoofchk", "trust",    "link_state", "min_tx_rate",       "max_tx_rate", "mtu",
    "rdma",	"stateDir", "master",	  "vfReturnTimeoutMs", NULL,
};

bool sr_bdf_valid(const char *s)
{
	static const char shape[] = "xxxx:xx:xx.f";

	if (!s || strlen(s) != SR_BDF_LEN - 1)
		return false;
	for (size_t i = 0; shape[i]; i++) {
		char c = ascii_tolower(s[i]);

		if (shape[i] == 'x' && hex_digit(c) < 0)
			return false;
		if (shape[i] == 'f' && !(c >= '0' && c <= '7'))
			return false;
		if ((shape[i] == ':' || shape[i] == '.') && c != shape[i])
			return false;
	}
	return true;
}

const char *sr_pf_key_name(unsigned key)
{
	switch (key) {
	case SR_PF_VLAN:
		return "vlan";
	case SR_PF_MAC:
		return "mac";
	case SR_PF_RATE:
		return "min_tx_rate/max_tx_rate";
	case SR_PF_SPOOFCHK:
		return "spoofchk";
	case SR_PF_TRUST:
		return "trust";
	case SR_PF_LINK_STATE:
		return "link_state";
	default:
		return "?";
	}
}

/* runtimeConfig.deviceID (what multinet passes from the device plugin) wins over deviceID. */
static int parse_device_id(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct sr_conf *c)
{
	const char *key = "deviceID", *v = NULL;
	bool present = false;
	int r;

	if (json_is_object(ctx->conf.runtime_config) &&
	    json_is_string(cni_json_get_ci(ctx->conf.runtime_config, "deviceID"))) {
		v = json_string_value(cni_json_get_ci(ctx->conf.runtime_config, "deviceID"));
		key = "runtimeConfig.deviceID";
		present = true;
	} else {
		r = cni_conf_get_string(rd, "deviceID", &v, &present);
		if (r < 0)
			return r;
	}
	/* STATUS and GC act on the network, not on one VF. */
	if ((!present || isempty(v)) &&
	    (ctx->command == CNI_CMD_STATUS || ctx->command == CNI_CMD_GC))
		return 0;
	if (!present || isempty(v))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"deviceID: missing (the VF's PCI address, e.g. "
					"\"0000:3b:00.2\", normally from the device plugin)");
	if (!sr_bdf_valid(v))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s: \"%s\" is not a PCI address (want dddd:bb:dd.f)", key,
					v);
	for (size_t i = 0; i < SR_BDF_LEN - 1; i++)
		c->device_id[i] = ascii_tolower(v[i]);
	c->device_id[SR_BDF_LEN - 1] = '\0';
	return 0;
}

static int parse_on_off(const struct cni_conf_reader *rd, const char *key, unsigned bit, bool *out,
			struct sr_conf *c)
{
	const char *v = NULL;
	bool present = false;
	int r = cni_conf_get_string(rd, key, &v, &present);

	if (r < 0 || !present)
		return r;
	if (!streq(v, "on") && !streq(v, "off"))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s: \"%s\" is not \"on\" or \"off\"", key, v);
	*out = streq(v, "on");
	c->pf_keys |= bit;
	return 0;
}

static int parse_vlan_proto(const struct cni_conf_reader *rd, struct sr_conf *c, bool *present)
{
	const char *v = NULL;
	int r = cni_conf_get_string(rd, "vlanProto", &v, present);

	if (r < 0 || !*present)
		return r;
	if (ascii_strcaseeq(v, "802.1q"))
		c->vlan_proto = NLW_VLAN_PROTO_8021Q;
	else if (ascii_strcaseeq(v, "802.1ad"))
		c->vlan_proto = NLW_VLAN_PROTO_8021AD;
	else
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"vlanProto: \"%s\" is not \"802.1Q\" or \"802.1ad\"", v);
	return 0;
}

/* vlan 0..4094 (0 clears), vlanQoS 0..7 and vlanProto only with vlan, both need vlan != 0. */
static int parse_vlan(const struct cni_conf_reader *rd, struct sr_conf *c)
{
	unsigned vlan = 0, qos = 0;
	bool has_vlan = false, has_qos = false, has_proto = false;
	int r;

	c->vlan_proto = NLW_VLAN_PROTO_8021Q;
	r = cni_conf_get_uint(rd, "vlan", 0, 4094, &vlan, &has_vlan);
	if (r >= 0)
		r = cni_conf_get_uint(rd, "vlanQoS", 0, 7, &qos, &has_qos);
	if (r >= 0)
		r = parse_vlan_proto(rd, c, &has_proto);
	if (r < 0)
		return r;
	if ((has_qos || has_proto) && !has_vlan)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG, "%s: set without vlan",
					has_qos ? "vlanQoS" : "vlanProto");
	if (has_qos && qos && !vlan)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"vlanQoS: %u needs a non-zero vlan (vlan is 0)", qos);
	if (c->vlan_proto == NLW_VLAN_PROTO_8021AD && !vlan)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"vlanProto: \"802.1ad\" needs a non-zero vlan (vlan is 0)");
	if (has_vlan)
		c->pf_keys |= SR_PF_VLAN;
	c->vlan = (uint16_t)vlan;
	c->qos = (uint8_t)qos;
	return 0;
}

/* Either rate present programs both (the missing one is 0 = no limit); min <= max. */
static int parse_rates(const struct cni_conf_reader *rd, struct sr_conf *c)
{
	unsigned lo = 0, hi = 0;
	bool has_lo = false, has_hi = false;
	int r;

	r = cni_conf_get_uint(rd, "min_tx_rate", 0, UINT32_MAX, &lo, &has_lo);
	if (r >= 0)
		r = cni_conf_get_uint(rd, "max_tx_rate", 0, UINT32_MAX, &hi, &has_hi);
	if (r < 0 || !(has_lo || has_hi))
		return r;
	if (hi && lo > hi)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"min_tx_rate: %u is above max_tx_rate %u", lo, hi);
	c->min_tx_rate = lo;
	c->max_tx_rate = hi;
	c->pf_keys |= SR_PF_RATE;
	return 0;
}

static int parse_link_state(const struct cni_conf_reader *rd, struct sr_conf *c)
{
	const char *v = NULL;
	bool present = false;
	int r = cni_conf_get_string(rd, "link_state", &v, &present);

	if (r < 0 || !present)
		return r;
	if (streq(v, "auto"))
		c->link_state = NLW_VF_LINK_AUTO;
	else if (streq(v, "enable"))
		c->link_state = NLW_VF_LINK_ENABLE;
	else if (streq(v, "disable"))
		c->link_state = NLW_VF_LINK_DISABLE;
	else
		return cni_conf_invalid(
		    rd, CNI_ERR_INVALID_CONFIG,
		    "link_state: \"%s\" is not \"auto\", \"enable\" or \"disable\"", v);
	c->pf_keys |= SR_PF_LINK_STATE;
	return 0;
}

static int take_mac(const struct cni_conf_reader *rd, const char *what, const char *v,
		    struct sr_conf *c)
{
	unsigned char mac[6];
	static const unsigned char zero[6];

	if (nlw_mac_parse(v, mac) < 0 || (mac[0] & 1) || !memcmp(mac, zero, 6))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s: \"%s\" is not a unicast MAC address", what, v);
	memcpy(c->mac, mac, 6);
	nlw_mac_fmt(mac, c->mac_str);
	c->pf_keys |= SR_PF_MAC;
	return 0;
}

/* Lowest to highest precedence (as sriov-cni): mac, CNI_ARGS MAC, runtimeConfig.mac. */
static int parse_mac(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct sr_conf *c)
{
	const char *v = NULL, *env = cni_args_get(&ctx->args, "MAC");
	const json_t *rt = NULL;
	bool present = false;
	int r = cni_conf_get_string(rd, "mac", &v, &present);

	if (r >= 0 && present)
		r = take_mac(rd, "mac", v, c);
	if (r >= 0 && env)
		r = take_mac(rd, "CNI_ARGS MAC", env, c);
	if (json_is_object(ctx->conf.runtime_config))
		rt = cni_json_get_ci(ctx->conf.runtime_config, "mac");
	if (r >= 0 && rt) {
		if (!json_is_string(rt))
			return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
						"runtimeConfig.mac: not a string");
		r = take_mac(rd, "runtimeConfig.mac", json_string_value(rt), c);
	}
	return r;
}

static int parse_rdma(const struct cni_conf_reader *rd, struct sr_conf *c)
{
	const char *v = NULL;
	bool present = false;
	int r = cni_conf_get_string(rd, "rdma", &v, &present);

	if (r < 0 || !present)
		return r;
	if (streq(v, "auto"))
		c->rdma = SR_RDMA_AUTO;
	else if (streq(v, "on"))
		c->rdma = SR_RDMA_ON;
	else if (streq(v, "off"))
		c->rdma = SR_RDMA_OFF;
	else
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"rdma: \"%s\" is not \"auto\", \"on\" or \"off\"", v);
	return 0;
}

static int parse_paths(const struct cni_conf_reader *rd, struct sr_conf *c)
{
	const char *dir = NULL, *master = NULL;
	bool has_dir = false, has_master = false;
	int r = cni_conf_get_string(rd, "stateDir", &dir, &has_dir);

	if (r >= 0)
		r = cni_conf_get_string(rd, "master", &master, &has_master);
	if (r < 0)
		return r;
	if (has_dir && (dir[0] != '/' || strstr(dir, "/../") || strlen(dir) > 3000)) {
		r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				     "stateDir: \"%s\" is not an absolute path", dir);
		if (r < 0)
			return r;
		has_dir = false; /* DEL, GC: the default */
	}
	c->state_dir = strdup(has_dir ? dir : SR_DEFAULT_STATE_DIR);
	if (!c->state_dir)
		return -ENOMEM;
	if (has_master) {
		if (!cni_valid_ifname(master))
			return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
						"master: \"%s\" is not an interface name", master);
		strcpy(c->master, master);
	}
	return 0;
}

/* runtimeConfig.CNIDeviceInfoFile: where Multus-style runtimes want the device info. */
static int parse_devinfo(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct sr_conf *c)
{
	const json_t *v = NULL;
	const char *p;

	if (json_is_object(ctx->conf.runtime_config))
		v = cni_json_get_ci(ctx->conf.runtime_config, "CNIDeviceInfoFile");
	if (!v || json_is_null(v))
		return 0;
	p = json_string_value(v);
	if (!p || p[0] != '/' || strstr(p, "/../") || strlen(p) > 3000 || p[strlen(p) - 1] == '/')
		return cni_conf_invalid(
		    rd, CNI_ERR_INVALID_CONFIG,
		    "runtimeConfig.CNIDeviceInfoFile: %s is not an absolute file "
		    "path",
		    p ? p : "(not a string)");
	c->devinfo_file = strdup(p);
	return c->devinfo_file ? 0 : -ENOMEM;
}

int sr_conf_parse(struct cni_ctx *ctx, struct sr_conf *ret)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	struct sr_conf c = {.vf_return_timeout_ms = SR_VF_RETURN_TIMEOUT_MS};
	int r;

	r = cni_conf_check_keys(&rd, sr_keys, true);
	if (r >= 0)
		r = parse_paths(&rd, &c);
	if (r >= 0)
		r = parse_device_id(ctx, &rd, &c);
	if (r >= 0)
		r = parse_vlan(&rd, &c);
	if (r >= 0)
		r = parse_mac(ctx, &rd, &c);
	if (r >= 0)
		r = parse_on_off(&rd, "spoofchk", SR_PF_SPOOFCHK, &c.spoofchk, &c);
	if (r >= 0)
		r = parse_on_off(&rd, "trust", SR_PF_TRUST, &c.trust, &c);
	if (r >= 0)
		r = parse_link_state(&rd, &c);
	if (r >= 0)
		r = parse_rates(&rd, &c);
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "mtu", SR_MTU_MIN, SR_MTU_MAX, &c.mtu, NULL);
	if (r >= 0)
		r = parse_rdma(&rd, &c);
	if (r >= 0)
		r = parse_devinfo(ctx, &rd, &c);
	/* vfReturnTimeoutMs: how long DEL waits for a VF netdev the kernel has not returned. */
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "vfReturnTimeoutMs", 0, SR_VF_RETURN_TIMEOUT_MAX,
				      &c.vf_return_timeout_ms, NULL);
	if (r < 0) {
		sr_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void sr_conf_done(struct sr_conf *c)
{
	c->state_dir = mfree(c->state_dir);
	c->devinfo_file = mfree(c->devinfo_file);
}
