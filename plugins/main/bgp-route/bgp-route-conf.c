/* SPDX-License-Identifier: Apache-2.0 */
/* bgp-route-conf.c: bgp-route's own keys -> struct bgpr_conf (no kernel calls). */
#include <errno.h>
#include <string.h>

#include "base/parse.h"
#include "bgp-route.h"
#include "cni/conf.h"

static const char *const bgpr_keys[] = {
    "mtu", "hostIfPrefix", "routeProtocols", "birdSocket", NULL,
};
static const char *const proto_keys[] = {"pod", "block", "borrowed", NULL};

static bool valid_prefix(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n + BGPR_HOST_HEX >= IFNAMSIZ)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ascii_isalnum(s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static int parse_prefix(const struct cni_conf_reader *rd, struct bgpr_conf *c)
{
	const char *s = NULL;
	bool present = false;
	int r;

	r = cni_conf_get_string(rd, "hostIfPrefix", &s, &present);
	if (r < 0)
		return r;
	if (present && !valid_prefix(s))
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"hostIfPrefix: '%s' must be 1-%u characters [a-zA-Z0-9_-]",
					s, IFNAMSIZ - 1 - BGPR_HOST_HEX);
	if (present && valid_prefix(s))
		snprintf(c->host_if_prefix, sizeof(c->host_if_prefix), "%s", s);
	return 0;
}

/* 0-4 are the kernel's own (BIRD never learns them), 12 is BIRD's. */
static int parse_protos(const struct cni_conf_reader *rd, struct bgpr_conf *c)
{
	unsigned v[3] = {c->proto_pod, c->proto_block, c->proto_borrowed};
	struct cni_conf_reader protos;
	const json_t *o = NULL;
	bool present = false;
	int r;

	r = cni_conf_get_object(rd, "routeProtocols", &o, &present);
	if (r < 0 || !present)
		return r;
	protos = cni_conf_at(rd, o, "routeProtocols");
	r = cni_conf_check_keys(&protos, proto_keys, false);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 3; i++) {
		r = cni_conf_get_uint(&protos, proto_keys[i], 5, 255, &v[i], NULL);
		if (r < 0)
			return r;
		if (v[i] == 12)
			return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
						"routeProtocols.%s: 12 is BIRD's own protocol",
						proto_keys[i]);
	}
	if (v[0] == v[1] || v[0] == v[2] || v[1] == v[2])
		return cni_conf_invalid(
		    rd, CNI_ERR_INVALID_CONFIG,
		    "routeProtocols: pod, block and borrowed must differ (%u, %u, %u)", v[0], v[1],
		    v[2]);
	c->proto_pod = (unsigned char)v[0];
	c->proto_block = (unsigned char)v[1];
	c->proto_borrowed = (unsigned char)v[2];
	return 0;
}

static int parse_ipam(struct cni_ctx *ctx, const struct cni_conf_reader *rd, struct bgpr_conf *c)
{
	if (!ctx->conf.ipam_type)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"ipam: required (bgp-route routes the pod's addresses)");
	c->strict_borrow = streq(ctx->conf.ipam_type, "cluster-ipam");
	return 0;
}

int bgpr_conf_parse(struct cni_ctx *ctx, struct bgpr_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	int r;

	memset(c, 0, sizeof(*c));
	c->mtu = BGPR_MTU_DEFAULT;
	snprintf(c->host_if_prefix, sizeof(c->host_if_prefix), "%s", BGPR_PREFIX_DEFAULT);
	c->proto_pod = 80;
	c->proto_block = 81;
	c->proto_borrowed = 82;
	r = cni_conf_check_keys(&rd, bgpr_keys, true);
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "mtu", BGPR_MTU_MIN, BGPR_MTU_MAX, &c->mtu, NULL);
	if (r >= 0)
		r = parse_prefix(&rd, c);
	if (r >= 0)
		r = parse_protos(&rd, c);
	if (r >= 0)
		r = cni_conf_get_string(&rd, "birdSocket", &c->bird_socket, NULL);
	if (r >= 0)
		r = parse_ipam(ctx, &rd, c);
	return r;
}
