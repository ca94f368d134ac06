/* SPDX-License-Identifier: Apache-2.0 */
/* Parse and validate the bandwidth config; token-bucket arithmetic. Pure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bandwidth.h"
#include "base/codec.h"
#include "base/sha512.h"
#include "base/macro.h"
#include "cni/log.h"

static const char *const known_keys[] = {
    "ingressRate",     "ingressBurst",	"egressRate", "egressBurst",
    "unshapedSubnets", "shapedSubnets", NULL,
};

static const char *const rate_keys[] = {"ingressRate", "ingressBurst", "egressRate", "egressBurst"};

/* The four values from rd's object; *any tells whether one was present. */
static int get_rates(const struct cni_conf_reader *rd, struct bandwidth_conf *c, bool *any)
{
	uint64_t *fields[] = {&c->ingress_rate, &c->ingress_burst, &c->egress_rate,
			      &c->egress_burst};

	*any = false;
	for (size_t i = 0; i < ARRAY_SIZE(rate_keys); i++) {
		bool present = false;
		int r = cni_conf_get_u64(rd, rate_keys[i], fields[i], &present);

		if (r < 0)
			return r;
		*any = *any || present;
	}
	return 0;
}

static int check_pair(const struct cni_conf_reader *rd, const char *dir, uint64_t rate,
		      uint64_t burst)
{
	char p[64]; /* the key's path up to "Rate" or "Burst" */

	snprintf(p, sizeof(p), "%s%s%s", rd->path, *rd->path ? "." : "", dir);
	if (burst == 0 && rate != 0)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%sBurst: if %sRate is set, %sBurst must also be set, got "
					"%sRate %llu and %sBurst 0",
					p, dir, dir, dir, (unsigned long long)rate, dir);
	if (rate == 0 && burst != 0)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%sRate: if %sBurst is set, %sRate must also be set, got "
					"%sBurst %llu and %sRate 0",
					p, dir, dir, dir, (unsigned long long)burst, dir);
	if (burst / 8 >= UINT32_MAX)
		return cni_conf_invalid(
		    rd, CNI_ERR_INVALID_CONFIG,
		    "%sBurst: cannot be more than 4GB (%u bytes), got %llu bits", p, UINT32_MAX,
		    (unsigned long long)burst);
	if (rate != 0 && rate < 8)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%sRate: must be at least 8 bits/s, got %llu", p,
					(unsigned long long)rate);
	return 0;
}

static int parse_subnets(const struct cni_conf_reader *rd, struct bandwidth_conf *c)
{
	const json_t *un = NULL, *sh = NULL, *list;
	const char *key;
	bool has_un = false, has_sh = false;
	size_t i;
	json_t *v;
	int r;

	r = cni_conf_get_array(rd, "unshapedSubnets", BANDWIDTH_MAX_SUBNETS, &un, &has_un);
	if (r >= 0)
		r = cni_conf_get_array(rd, "shapedSubnets", BANDWIDTH_MAX_SUBNETS, &sh, &has_sh);
	if (r < 0)
		return r;
	has_un = has_un && json_array_size(un) > 0;
	has_sh = has_sh && json_array_size(sh) > 0;
	if (has_un && has_sh)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"unshapedSubnets and shapedSubnets cannot both be set, got "
					"%zu and %zu entries",
					json_array_size(un), json_array_size(sh));
	if (!has_un && !has_sh)
		return 0;
	list = has_un ? un : sh;
	key = has_un ? "unshapedSubnets" : "shapedSubnets";
	c->subnets_shaped = has_sh;
	c->subnets = calloc(json_array_size(list), sizeof(*c->subnets));
	if (!c->subnets)
		return cni_errorf(rd->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	json_array_foreach (list, i, v) {
		const char *s = json_is_string(v) ? json_string_value(v) : NULL;

		if (s && ip_prefix_parse(s, &c->subnets[c->n_subnets]) >= 0) {
			ip_prefix_mask(&c->subnets[c->n_subnets++]);
			continue;
		}
		_cleanup_free_ char *repr = cni_json_repr(v);
		r = cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
				     "%s[%zu]: must be a CIDR like \"10.0.0.0/8\", got %s", key, i,
				     repr ? repr : "?");
		if (r < 0)
			return r;
	}
	return 0;
}

int bandwidth_conf_parse(struct cni_ctx *ctx, struct bandwidth_conf *ret)
{
	const struct cni_conf_reader root = cni_ctx_reader(ctx, ctx->conf.root, "");
	struct cni_conf_reader rd = root;
	struct bandwidth_conf c = {0};
	const json_t *bw;
	bool any = false;
	int r;

	r = cni_conf_check_keys(&root, known_keys, true);
	if (r >= 0)
		r = get_rates(&root, &c, &any);
	bw = cni_json_get_ci(ctx->conf.runtime_config, "bandwidth");
	if (r >= 0 && !any && json_is_object(bw)) {
		rd = cni_conf_at(&root, bw, "runtimeConfig.bandwidth");
		rd.ci = true;
		c.from_runtime_config = true;
		r = get_rates(&rd, &c, &any);
	}
	if (r >= 0)
		r = check_pair(&rd, "ingress", c.ingress_rate, c.ingress_burst);
	if (r >= 0)
		r = check_pair(&rd, "egress", c.egress_rate, c.egress_burst);
	if (r >= 0)
		r = parse_subnets(&root, &c);
	if (r < 0) {
		bandwidth_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void bandwidth_conf_done(struct bandwidth_conf *c)
{
	free(c->subnets);
	c->subnets = NULL;
	c->n_subnets = 0;
}

/* Kernel psched clock: 1000 ns per us over 64 ns per tick (/proc/net/psched). */
#define TICKS_PER_USEC 15.625
#define USEC_PER_SEC 1000000.0
#define LATENCY_USEC 25000.0

static uint32_t clamp_u32(double v)
{
	return v >= (double)UINT32_MAX ? UINT32_MAX : v <= 0 ? 0 : (uint32_t)v;
}

void bandwidth_tbf(uint64_t rate_bits, uint64_t burst_bits, struct nlw_tbf *ret)
{
	uint64_t rate = rate_bits / 8, burst = burst_bits / 8;
	uint32_t usec = rate ? clamp_u32((double)burst * USEC_PER_SEC / (double)rate) : 0;
	double limit = (double)rate * LATENCY_USEC / USEC_PER_SEC;

	ret->rate = rate;
	ret->buffer = clamp_u32((double)usec * TICKS_PER_USEC);
	ret->limit = clamp_u32((double)(uint64_t)limit + (double)(uint32_t)burst);
}

int bandwidth_ifb_name(const char *network, const char *container_id, char buf[IFNAMSIZ])
{
	uint8_t digest[SHA512_DIGEST_SIZE];
	size_t nl = strlen(network), cl = strlen(container_id);
	char *in = malloc(nl + cl + 1);
	size_t o = sizeof(BANDWIDTH_IFB_PREFIX) - 1;

	if (!in)
		return -ENOMEM;
	memcpy(buf, BANDWIDTH_IFB_PREFIX, o);
	memcpy(in, network, nl);
	memcpy(in + nl, container_id, cl);
	sha512(in, nl + cl, digest);
	free(in);
	*hex_encode(buf + o, digest, (IFNAMSIZ - 1 - o) / 2) = '\0';
	return 0;
}

int bandwidth_ifb_alias(const char *network, const char *container_id, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s/%s", BANDWIDTH_IFB_ALIAS_PREFIX, network, container_id);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int bandwidth_ifb_alias_parse(const char *alias, const char *network, char *cid, size_t len)
{
	size_t pl = sizeof(BANDWIDTH_IFB_ALIAS_PREFIX) - 1, nl = strlen(network);
	const char *rest;

	if (strncmp(alias, BANDWIDTH_IFB_ALIAS_PREFIX, pl) != 0 ||
	    strncmp(alias + pl, network, nl) != 0 || alias[pl + nl] != '/')
		return -EINVAL;
	rest = alias + pl + nl + 1;
	if (!rest[0] || strchr(rest, '/') || strlen(rest) >= len)
		return -EINVAL;
	memcpy(cid, rest, strlen(rest) + 1);
	return 0;
}
