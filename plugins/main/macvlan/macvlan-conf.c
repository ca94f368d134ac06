/* SPDX-License-Identifier: Apache-2.0 */
/* macvlan's config: keys, runtimeConfig.mac, CNI_ARGS MAC; no kernel calls. */
#include <errno.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "macvlan.h"

static const char *const macvlan_keys[] = {
    "master", "mode", "mtu", "mac", "linkInContainer", NULL,
};

static const struct {
	const char *name;
	enum nlw_macvlan_mode mode;
} modes[] = {
    {"bridge", NLW_MACVLAN_BRIDGE},
    {"private", NLW_MACVLAN_PRIVATE},
    {"vepa", NLW_MACVLAN_VEPA},
    {"passthru", NLW_MACVLAN_PASSTHRU},
};

int macvlan_mode_parse(const char *s, enum nlw_macvlan_mode *ret)
{
	if (isempty(s)) {
		*ret = NLW_MACVLAN_BRIDGE;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (streq(s, modes[i].name)) {
			*ret = modes[i].mode;
			return 0;
		}
	return -EINVAL;
}

const char *macvlan_mode_str(enum nlw_macvlan_mode m)
{
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (modes[i].mode == m)
			return modes[i].name;
	return "unknown";
}

int macvlan_check_mtu(struct cni_ctx *ctx, const struct macvlan_conf *c, unsigned master_mtu)
{
	if (c->mtu <= master_mtu)
		return 0;
	return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "mtu: invalid MTU %u, must be [0, master MTU(%u)] of master '%s'", c->mtu,
			  master_mtu, c->master);
}

/* Only the winning source is checked, as the reference parses only it. */
static int parse_mac(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct macvlan_conf *c)
{
	const char *srcs[3] = {"mac", "CNI_ARGS MAC", "runtimeConfig.mac"};
	const char *vals[3] = {NULL};
	const json_t *rc = cni_json_get_ci(ctx->conf.runtime_config, "mac");
	int r = cni_conf_get_string(rd, "mac", &vals[0], NULL);

	if (r < 0)
		return r;
	vals[1] = cni_args_get(&ctx->args, "MAC");
	if (json_is_string(rc))
		vals[2] = json_string_value(rc);
	for (int i = 2; i >= 0; i--) {
		if (isempty(vals[i]))
			continue;
		if (nlw_mac_parse(vals[i], c->mac) < 0)
			return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
						"%s: invalid MAC address '%s'", srcs[i], vals[i]);
		if (c->mac[0] & 1)
			return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
						"%s: '%s' is not a unicast MAC address", srcs[i],
						vals[i]);
		c->has_mac = true;
		c->mac_src = srcs[i];
		return 0;
	}
	return 0;
}

static int parse_master_mode(const struct cni_conf_reader *rd, struct macvlan_conf *c)
{
	const char *master = NULL, *mode = NULL;
	int r;

	r = cni_conf_get_string(rd, "master", &master, NULL);
	if (r < 0)
		return r;
	if (!isempty(master) && !cni_valid_ifname(master))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"master: '%s' is not a valid interface name", master);
	c->master = isempty(master) ? NULL : master;
	r = cni_conf_get_string(rd, "mode", &mode, NULL);
	if (r < 0)
		return r;
	if (macvlan_mode_parse(mode, &c->mode) < 0)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"mode: unknown macvlan mode '%s' (bridge, private, vepa, "
					"passthru)",
					mode);
	c->mode_str = macvlan_mode_str(c->mode);
	return 0;
}

int macvlan_conf_parse(struct cni_ctx *ctx, struct macvlan_conf *ret)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	struct macvlan_conf c = {.mode = NLW_MACVLAN_BRIDGE, .mode_str = "bridge"};
	int r;

	r = cni_conf_check_keys(&rd, macvlan_keys, true);
	if (r >= 0)
		r = parse_master_mode(&rd, &c);
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "mtu", 0, 2147483647, &c.mtu, NULL);
	if (r >= 0)
		r = cni_conf_get_bool(&rd, "linkInContainer", &c.link_in_container, NULL);
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "bcqueuelen", 0, UINT32_MAX, &c.bc_queue_len, NULL);
	if (r >= 0)
		r = parse_mac(ctx, &rd, &c);
	if (r < 0)
		return r;
	c.l3 = !isempty(ctx->conf.ipam_type);
	*ret = c;
	return 0;
}
