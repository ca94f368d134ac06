/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parse and validate the bridge plugin's config into struct bridge_conf.
 * No kernel calls: every rule here is unit-tested (test/plugins-bridge).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/macro.h"
#include "bridge.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "nlw/link.h"

const char *const bridge_cni_args_keys[] = {"MAC", NULL};

static const char *const known_keys[] = {
    "bridge",
    "isGateway",
    "isDefaultGateway",
    "forceAddress",
    "ipMasqBackend",
    "mtu",
    "hairpinMode",
    "promiscMode",
    "vlan",
    "vlanTrunk",
    "preserveDefaultVlan",
    "enabledad",
    "macspoofchk",
    "disableContainerInterface",
    "portIsolation",
    "mac",
    NULL,
};

struct bool_key {
	const char *key;
	size_t off;
};

#define BOOL_KEY(k, field)                                                                         \
	{                                                                                          \
		k, offsetof(struct bridge_conf, field)                                             \
	}

static const struct bool_key bool_keys[] = {
    BOOL_KEY("isGateway", is_gateway),
    BOOL_KEY("isDefaultGateway", is_default_gateway),
    BOOL_KEY("forceAddress", force_address),
    BOOL_KEY("hairpinMode", hairpin_mode),
    BOOL_KEY("promiscMode", promisc_mode),
    BOOL_KEY("preserveDefaultVlan", preserve_default_vlan),
    BOOL_KEY("enabledad", enable_dad),
    BOOL_KEY("macspoofchk", macspoofchk),
    BOOL_KEY("disableContainerInterface", disable_container_interface),
    BOOL_KEY("portIsolation", port_isolation),
};

static int parse_bools(const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(bool_keys); i++) {
		bool *field = (bool *)((char *)c + bool_keys[i].off);
		bool present = false;
		int r = cni_conf_get_bool(rd, bool_keys[i].key, field, &present);

		if (r < 0)
			return r;
		if (i == 0)
			c->has_is_gateway = present;
	}
	return 0;
}

static int parse_bridge_name(const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	const char *name = NULL;
	int r = cni_conf_get_string(rd, "bridge", &name, NULL);

	if (r < 0)
		return r;
	if (name && !cni_valid_ifname(name)) {
		/* Say which rule it breaks ("ASCII only", "longer than 15 bytes", ...). */
		r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				     "bridge: not a valid interface name (%s): '%s'",
				     cni_ifname_problem(name), name);
		if (r < 0)
			return r;
		name = NULL;
	}
	snprintf(c->bridge, sizeof(c->bridge), "%s", name ? name : BRIDGE_DEFAULT_NAME);
	return 0;
}

static int parse_mtu(const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	unsigned mtu = 0;
	bool present = false;
	int r;

	/* 0 (the reference's default) means "kernel default". */
	r = cni_conf_get_uint(rd, "mtu", 0, BRIDGE_MTU_MAX, &mtu, &present);
	if (r < 0)
		return r;
	if (present && mtu != 0 && mtu < BRIDGE_MTU_MIN) {
		r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				     "mtu: must be 0 (default) or from %d to %d, got %u",
				     BRIDGE_MTU_MIN, BRIDGE_MTU_MAX, mtu);
		if (r < 0)
			return r;
		mtu = 0;
	}
	c->mtu = mtu;
	return 0;
}

/* An integer key that may be negative in the input (for the reference's messages). */
static int get_int(const json_t *v, json_int_t *ret)
{
	return cni_json_whole_number(v, ret) ? 0 : -EINVAL;
}

static int parse_vlan(const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	const json_t *v = json_object_get(rd->obj, "vlan");
	json_int_t id;

	if (!v || json_is_null(v))
		return 0;
	if (get_int(v, &id) < 0)
		return cni_conf_bad_value(rd, "vlan", v, "expected an integer from 0 to 4094");
	if (id < 0 || id > 4094)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"vlan: invalid VLAN ID %lld (must be between 0 and 4094)",
					(long long)id);
	c->vlan = (unsigned)id;
	return 0;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* A trunk id field: 1..4094. */
static bool trunk_id(const json_t *v, json_int_t *ret)
{
	return get_int(v, ret) == 0 && *ret > 0 && *ret <= 4094;
}

/*
 * Validate one trunk entry like the reference; on success [*lo, *hi]. On an
 * error writes the reason (with the value) into msg and returns false.
 */
static bool trunk_entry_ok(const json_t *e, json_int_t *lo, json_int_t *hi, char *msg, size_t len)
{
	const json_t *id = json_object_get(e, "id"), *mn = json_object_get(e, "minID"),
		     *mx = json_object_get(e, "maxID");
	_cleanup_free_ char *repr = NULL;
	json_int_t idv = 0;

	if (!json_is_object(e) || (!id && !mn && !mx)) {
		snprintf(msg, len, "expected an object with \"id\" or \"minID\" and \"maxID\"");
		return false;
	}
	if (!!mn != !!mx) {
		snprintf(msg, len,
			 "minID and maxID should be configured simultaneously, %s is missing",
			 mn ? "maxID" : "minID");
		return false;
	}
	if (mn && !trunk_id(mn, lo)) {
		repr = cni_json_repr(mn);
		snprintf(msg, len, "incorrect trunk minID parameter %s (1-4094)",
			 repr ? repr : "?");
		return false;
	}
	if (mx && !trunk_id(mx, hi)) {
		repr = cni_json_repr(mx);
		snprintf(msg, len, "incorrect trunk maxID parameter %s (1-4094)",
			 repr ? repr : "?");
		return false;
	}
	if (mn && *lo > *hi) {
		snprintf(msg, len, "minID is greater than maxID in trunk parameter (%lld > %lld)",
			 (long long)*lo, (long long)*hi);
		return false;
	}
	if (id && !trunk_id(id, &idv)) {
		repr = cni_json_repr(id);
		snprintf(msg, len, "incorrect trunk id parameter %s (1-4094)", repr ? repr : "?");
		return false;
	}
	if (id && !mn)
		*lo = *hi = idv;
	/* An entry with both id and a range contributes both. */
	return true;
}

static int parse_trunk(const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	bool seen[4095] = {false};
	const json_t *arr = NULL;
	size_t i, n = 0;
	const json_t *e;
	int r;

	r = cni_conf_get_array(rd, "vlanTrunk", BRIDGE_TRUNK_MAX, &arr, NULL);
	if (r < 0 || !arr)
		return r;
	json_array_foreach (arr, i, e) {
		json_int_t lo = 0, hi = 0, id = 0;
		char msg[160];

		if (!trunk_entry_ok(e, &lo, &hi, msg, sizeof(msg))) {
			r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG, "vlanTrunk[%zu]: %s", i,
					     msg);
			if (r < 0)
				return r;
			continue;
		}
		for (json_int_t v = lo; v <= hi; v++)
			seen[v] = true;
		if (json_object_get(e, "id") && json_object_get(e, "minID") &&
		    trunk_id(json_object_get(e, "id"), &id))
			seen[id] = true;
	}
	for (unsigned v = 1; v <= 4094; v++)
		n += seen[v];
	if (n == 0)
		return 0;
	c->trunk = calloc(n, sizeof(*c->trunk));
	if (!c->trunk)
		return -ENOMEM;
	for (unsigned v = 1; v <= 4094; v++)
		if (seen[v])
			c->trunk[c->n_trunk++] = (uint16_t)v;
	qsort(c->trunk, c->n_trunk, sizeof(*c->trunk), cmp_u16);
	c->has_trunk = true;
	return 0;
}

static int parse_backend(const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	const char *b = NULL;
	int r = cni_conf_get_string(rd, "ipMasqBackend", &b, NULL);

	if (r < 0 || !b)
		return r;
	if (strcmp(b, "nftables") == 0)
		c->masq_backend = BRIDGE_MASQ_NFTABLES;
	else if (strcmp(b, "iptables") == 0)
		c->masq_backend = BRIDGE_MASQ_IPTABLES;
	else
		return cni_conf_invalid(
		    rd, CNI_ERR_INVALID_CONFIG,
		    "ipMasqBackend: unknown ipmasq backend '%s' (use \"nftables\" "
		    "or \"iptables\")",
		    b);
	return 0;
}

/* A MAC from one source; bad values are errors of `code` naming `what`. */
static int take_mac(const struct cni_conf_reader *rd, const char *s, unsigned code,
		    const char *what, enum bridge_mac_source src, struct bridge_conf *c)
{
	unsigned char mac[6];

	if (nlw_mac_parse(s, mac) < 0)
		return cni_conf_invalid(rd, code, "%s: not a MAC address (aa:bb:cc:dd:ee:ff): '%s'",
					what, s);
	if (mac[0] & 1)
		return cni_conf_invalid(rd, code, "%s: multicast MAC address not allowed: '%s'",
					what, s);
	memcpy(c->mac, mac, sizeof(mac));
	c->mac_source = src;
	return 0;
}

static int mac_from_json(const struct cni_conf_reader *rd, const json_t *v, const char *what,
			 enum bridge_mac_source src, struct bridge_conf *c)
{
	const struct cni_conf_reader at = cni_conf_at(rd, NULL, what);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return cni_conf_bad_value(&at, NULL, v, "expected a string");
	return take_mac(rd, json_string_value(v), CNI_ERR_INVALID_CONFIG, what, src, c);
}

/* Lowest to highest precedence: key, CNI_ARGS MAC, args.cni.mac, runtimeConfig.mac. */
static int parse_mac(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	const json_t *cni_obj =
	    json_is_object(ctx->conf.args) ? json_object_get(ctx->conf.args, "cni") : NULL;
	const char *env_mac = cni_args_get(&ctx->args, "MAC");
	int r;

	r = mac_from_json(rd, json_object_get(rd->obj, "mac"), "mac", BRIDGE_MAC_KEY, c);
	if (r >= 0 && env_mac)
		r = take_mac(rd, env_mac, CNI_ERR_INVALID_ENV, "CNI_ARGS MAC", BRIDGE_MAC_CNI_ARGS,
			     c);
	if (r >= 0 && json_is_object(cni_obj))
		r = mac_from_json(rd, json_object_get(cni_obj, "mac"), "args.cni.mac",
				  BRIDGE_MAC_ARGS, c);
	if (r >= 0 && json_is_object(ctx->conf.runtime_config))
		r = mac_from_json(rd, cni_json_get_ci(ctx->conf.runtime_config, "mac"),
				  "runtimeConfig.mac", BRIDGE_MAC_RUNTIME_CONFIG, c);
	return r;
}

/* Cross-key rules and implied values (the reference's loadNetConf/cmdAdd prologue). */
static int validate(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct bridge_conf *c)
{
	int r;

	c->is_layer3 = ctx->conf.ipam_type != NULL;
	c->ip_masq = ctx->conf.has_ip_masq && ctx->conf.ip_masq;
	if (c->is_default_gateway)
		c->is_gateway = true;
	if (c->hairpin_mode && c->promisc_mode) {
		r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				     "hairpinMode and promiscMode cannot both be true");
		if (r < 0)
			return r;
	}
	if (c->is_layer3 && c->disable_container_interface) {
		r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				     "disableContainerInterface: cannot use IPAM (ipam.type '%s') "
				     "when disableContainerInterface is true",
				     ctx->conf.ipam_type);
		if (r < 0)
			return r;
	}
	if (c->masq_backend == BRIDGE_MASQ_IPTABLES && c->ip_masq)
		cni_log_info("ipMasqBackend \"iptables\": podwire masquerades with nftables");
	return 0;
}

/* The key parsers, in this order. */
static int (*const parsers[])(const struct cni_conf_reader *, struct bridge_conf *) = {
    parse_bridge_name, parse_bools, parse_mtu, parse_vlan, parse_trunk, parse_backend,
};

int bridge_conf_parse(struct cni_ctx *ctx, struct bridge_conf *ret)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	struct bridge_conf c = {.mac_source = BRIDGE_MAC_NONE};
	int r = 0;

	r = cni_conf_check_keys(&rd, known_keys, true);
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(parsers); i++)
		r = parsers[i](&rd, &c);
	if (r >= 0)
		r = parse_mac(ctx, &rd, &c);
	if (r >= 0)
		r = validate(ctx, &rd, &c);
	if (r < 0) {
		bridge_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void bridge_conf_done(struct bridge_conf *c)
{
	c->trunk = mfree(c->trunk);
	c->n_trunk = 0;
}
