/* SPDX-License-Identifier: Apache-2.0 */
/* tuning's config: keys, args.cni, runtimeConfig, CNI_ARGS; no kernel calls. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "tuning.h"

static const char *const tuning_keys[] = {
    "dataDir", "sysctl", "mac", "promisc", "mtu", "allmulti", "txQLen", NULL,
};

bool tuning_conf_has_link_attrs(const struct tuning_conf *c)
{
	return c->has_mac || c->promisc || c->mtu || c->has_allmulti || c->has_txqlen;
}

/* sysctl(8): dots separate unless a '/' comes first; then '.' and '/' swap. */
static void normalize_separators(const char *key, char *out)
{
	size_t slash = strcspn(key, "/"), dot = strcspn(key, ".");
	bool swap = dot < slash;

	for (; *key; key++, out++) {
		if (swap && *key == '.')
			*out = '/';
		else if (swap && *key == '/')
			*out = '.';
		else
			*out = *key;
	}
	*out = '\0';
}

/* filepath.Clean on a relative path: "." and "" drop, ".." pops. -EINVAL above the root. */
static int clean_path(char *p)
{
	char *w = p, *r = p;
	size_t depth = 0;

	while (*r) {
		size_t n = strcspn(r, "/");

		if (n == 0 || (n == 1 && r[0] == '.')) {
			/* nothing */
		} else if (n == 2 && r[0] == '.' && r[1] == '.') {
			if (depth == 0)
				return -EINVAL;
			depth--;
			while (w > p && *--w != '/')
				;
		} else {
			if (w > p)
				*w++ = '/';
			memmove(w, r, n);
			w += n;
			depth++;
		}
		r += n;
		if (*r == '/')
			r++;
	}
	*w = '\0';
	return 0;
}

static int substitute_ifname(char *buf, size_t len, const char *ifname)
{
	char *at = strstr(buf, "IFNAME");
	size_t tail, ilen;

	if (!at || !ifname)
		return 0;
	ilen = strlen(ifname);
	tail = strlen(at + 6);
	if ((size_t)(at - buf) + ilen + tail + 1 > len)
		return -ENAMETOOLONG;
	memmove(at + ilen, at + 6, tail + 1);
	memcpy(at, ifname, ilen);
	return 0;
}

static bool printable_no_space(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

int tuning_sysctl_path(const char *key, const char *ifname, char *buf, size_t len)
{
	int r;

	if (!key || !buf || len == 0)
		return -EINVAL;
	if (strlen(key) >= len)
		return -ENAMETOOLONG;
	normalize_separators(key, buf);
	r = substitute_ifname(buf, len, ifname);
	if (r < 0)
		return r;
	if (!printable_no_space(buf) || clean_path(buf) < 0)
		return -EINVAL;
	/* The reference's rule: the file must be below /proc/sys/net/. */
	if (strncmp(buf, "net/", 4) != 0 || buf[4] == '\0')
		return -EINVAL;
	return 0;
}

int tuning_mac_parse(const char *s, unsigned char mac[TUNING_MAC_LEN])
{
	unsigned char m[TUNING_MAC_LEN];

	if (!s)
		return -EINVAL;
	if (strlen(s) == 17 && (s[2] == ':' || s[2] == '-')) {
		for (size_t i = 0; i < TUNING_MAC_LEN; i++)
			if (hex_decode(s + 3 * i, 1, &m[i]) < 0 || (i < 5 && s[3 * i + 2] != s[2]))
				return -EINVAL;
	} else if (strlen(s) == 14 && s[4] == '.' && s[9] == '.') {
		for (size_t i = 0; i < 3; i++)
			if (hex_decode(s + 5 * i, 2, &m[2 * i]) < 0)
				return -EINVAL;
	} else {
		return -EINVAL;
	}
	memcpy(mac, m, sizeof(m));
	return 0;
}

static struct tuning_sysctl *sysctl_slot(struct tuning_conf *c, const char *key)
{
	struct tuning_sysctl *n;

	for (size_t i = 0; i < c->n_sysctls; i++)
		if (streq(c->sysctls[i].key, key))
			return &c->sysctls[i];
	n = reallocarray_safe(c->sysctls, c->n_sysctls + 1, sizeof(*n));
	if (!n)
		return NULL;
	c->sysctls = n;
	return &c->sysctls[c->n_sysctls++];
}

/* Add or replace (same key: the later map wins, as the reference's merge). */
static int sysctl_put(const struct cni_conf_reader *rd, const char *ifname, struct tuning_conf *c,
		      const char *key, const json_t *v)
{
	const char *where = *rd->path ? "args.cni.sysctl" : "sysctl";
	char path[TUNING_SYSCTL_PATH_MAX];
	struct tuning_sysctl *s;

	if (!json_is_string(v))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s: value of '%s' must be a string", where, key);
	if (tuning_sysctl_path(key, ifname, path, sizeof(path)) < 0)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s: invalid net sysctl key '%s' (value '%s'): only keys "
					"below net. are allowed",
					where, key, json_string_value(v));
	if (c->n_sysctls == TUNING_SYSCTL_MAX)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG, "%s: more than %u sysctls",
					where, TUNING_SYSCTL_MAX);
	s = sysctl_slot(c, key);
	if (!s)
		return -ENOMEM;
	s->key = key;
	s->value = json_string_value(v);
	memcpy(s->path, path, sizeof(path));
	return 0;
}

/* The "sysctl" map of rd's object (the root, or args.cni). */
static int parse_sysctl_map(const struct cni_conf_reader *rd, const char *ifname,
			    struct tuning_conf *c)
{
	const json_t *map = NULL;
	const char *key;
	json_t *v;
	int r;

	r = cni_conf_get_object(rd, "sysctl", &map, NULL);
	if (r < 0 || !map)
		return r;
	json_object_foreach ((json_t *)map, key, v) {
		r = sysctl_put(rd, ifname, c, key, v);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One MAC source; a later call with a value overrides. empty_clears: args.cni.mac "". */
static int mac_source(const struct cni_conf_reader *rd, struct tuning_conf *c, const char *src,
		      const char *s, bool empty_clears)
{
	if (!s || (!*s && !empty_clears))
		return 0;
	if (!*s) {
		c->has_mac = false;
		return 0;
	}
	if (tuning_mac_parse(s, c->mac) < 0) {
		c->has_mac = false;
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG, "%s: invalid MAC address '%s'",
					src, s);
	}
	if ((c->mac[0] & 1) || !memcmp(c->mac, "\0\0\0\0\0\0", TUNING_MAC_LEN)) {
		c->has_mac = false;
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s: '%s' is not a unicast MAC address", src, s);
	}
	c->has_mac = true;
	c->mac_src = src;
	return 0;
}

/*
 * Lowest to highest: "mac", CNI_ARGS MAC, runtimeConfig.mac, args.cni.mac.
 * Only the winner is validated (as the reference, which parses only it).
 */
static int parse_mac(struct cni_ctx *ctx, const struct cni_conf_reader *root,
		     const struct cni_conf_reader *args_cni, struct tuning_conf *c)
{
	const char *srcs[4] = {"mac", "CNI_ARGS MAC", "runtimeConfig.mac", "args.cni.mac"};
	const char *vals[4] = {NULL};
	const json_t *rc = cni_json_get_ci(ctx->conf.runtime_config, "mac");
	int r = cni_conf_get_string(root, "mac", &vals[0], NULL);

	if (r >= 0)
		vals[1] = cni_args_get(&ctx->args, "MAC");
	if (r >= 0 && json_is_string(rc))
		vals[2] = json_string_value(rc);
	if (r >= 0)
		r = cni_conf_get_string(args_cni, "mac", &vals[3], NULL);
	if (r < 0)
		return r;
	for (int i = 3; i >= 0; i--)
		if (vals[i] && (*vals[i] || i == 3))
			return mac_source(root, c, srcs[i], vals[i], i == 3);
	return 0;
}

/* mtu, promisc, allmulti, txQLen from rd's object (the root, then args.cni over it). */
static int parse_link_keys(const struct cni_conf_reader *rd, struct tuning_conf *c)
{
	bool present = false, b = false;
	int r;

	r = cni_conf_get_uint(rd, "mtu", 0, 2147483647, &c->mtu, NULL);
	if (r >= 0)
		r = cni_conf_get_bool(rd, "promisc", &b, &present);
	if (r >= 0 && present)
		c->promisc = b;
	if (r >= 0)
		r = cni_conf_get_bool(rd, "allmulti", &c->allmulti, &present);
	if (r >= 0 && present)
		c->has_allmulti = true;
	if (r >= 0)
		r = cni_conf_get_uint(rd, "txQLen", 0, UINT32_MAX, &c->txqlen, &present);
	if (r >= 0 && present)
		c->has_txqlen = true;
	return r;
}

int tuning_conf_parse(struct cni_ctx *ctx, struct tuning_conf *ret)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	const struct cni_conf_reader args = cni_ctx_reader(ctx, ctx->conf.args, "args");
	struct tuning_conf c = {.data_dir = TUNING_DEFAULT_DATA_DIR};
	struct cni_conf_reader args_cni;
	const json_t *obj = NULL;
	const char *dir = NULL;
	int r;

	r = cni_conf_check_keys(&rd, tuning_keys, true);
	if (r >= 0)
		r = cni_conf_get_string(&rd, "dataDir", &dir, NULL);
	if (r >= 0 && !isempty(dir))
		c.data_dir = dir;
	if (r >= 0)
		r = cni_conf_get_object(&args, "cni", &obj, NULL);
	args_cni = cni_conf_at(&rd, obj, "args.cni");
	if (r >= 0)
		r = parse_sysctl_map(&rd, ctx->ifname, &c);
	if (r >= 0)
		r = parse_sysctl_map(&args_cni, ctx->ifname, &c);
	if (r >= 0)
		r = parse_link_keys(&rd, &c);
	if (r >= 0)
		r = parse_link_keys(&args_cni, &c);
	if (r >= 0)
		r = parse_mac(ctx, &rd, &args_cni, &c);
	if (r < 0) {
		tuning_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void tuning_conf_done(struct tuning_conf *c)
{
	c->sysctls = mfree(c->sysctls);
	c->n_sysctls = 0;
}
