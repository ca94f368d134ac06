/* SPDX-License-Identifier: Apache-2.0 */
/*
 * static IPAM. Address sources, with the reference's precedence:
 * ipam.addresses plus CNI_ARGS IP=a,b, both replaced by args.cni.ips, all
 * replaced by runtimeConfig.ips. The same address (and prefix) given twice
 * is one address. CNI_ARGS GATEWAY=g,h then sets the gateway of each address
 * whose subnet holds it. Every address is a CIDR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "ipam/conf-util.h"
#include "ipam/static.h"

#define PATH_LEN 96

static const char *const static_keys[] = {"type", "addresses", "routes", "dns", NULL};
static const char *const address_keys[] = {"address", "gateway", NULL};
static const char *const static_args[] = {"IP", "GATEWAY", NULL};

static bool have_address(const struct cni_result *res, const struct ip_prefix *p)
{
	for (size_t i = 0; i < res->n_ips; i++) {
		const struct ip_prefix *q = &res->ips[i].address;

		if (q->family == p->family && q->prefixlen == p->prefixlen &&
		    ip_addr_equal(p->family, &q->addr, &p->addr))
			return true;
	}
	return false;
}

/* Appends s unless the same address and prefix is already in res. */
static int add_address(struct cni_ctx *ctx, struct cni_result *res, const char *what, const char *s,
		       unsigned code)
{
	struct cni_ip ip = {.interface = -1};

	if (!s || ip_prefix_parse(s, &ip.address) < 0)
		return cni_errorf(&ctx->err, code, -EINVAL,
				  "%s: '%s' is expected to be in CIDR notation", what,
				  s ? s : "(not a string)");
	if (have_address(res, &ip.address))
		return 0;
	if (res->n_ips >= CNI_RESULT_MAX_ENTRIES)
		return cni_errorf(&ctx->err, code, -E2BIG, "%s: too many addresses", what);
	return cni_result_add_ip(res, &ip) < 0 ? -ENOMEM : 0;
}

static int set_gateway(struct cni_ctx *ctx, struct cni_ip *ip, const char *path, const char *gw)
{
	int family;

	if (ip_addr_parse(gw, &family, &ip->gateway) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.gateway: not an IP address: '%s'", path, gw);
	if (family != ip->address.family)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.gateway: '%s' is not of the address's family", path, gw);
	ip->has_gateway = true;
	return 0;
}

static int conf_addresses(struct cni_ctx *ctx, const json_t *ipam, struct cni_result *res)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	const json_t *arr = NULL, *o;
	char p[PATH_LEN];
	size_t i;

	if (cni_conf_get_array(&rd, "addresses", CNI_RESULT_MAX_ENTRIES, &arr, NULL) < 0)
		return -EINVAL;
	json_array_foreach (arr, i, o) {
		const struct cni_conf_reader entry = cni_conf_at(&rd, o, p);
		const char *addr = NULL, *gw = NULL;

		snprintf(p, sizeof(p), "ipam.addresses[%zu]", i);
		if (!json_is_object(o))
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "%s: expected an object {address, gateway}", p);
		if (cni_conf_check_keys(&entry, address_keys, false) < 0 ||
		    cni_conf_get_string(&entry, "address", &addr, NULL) < 0 ||
		    cni_conf_get_string(&entry, "gateway", &gw, NULL) < 0)
			return -EINVAL;
		strncat(p, ".address", sizeof(p) - strlen(p) - 1);
		if (add_address(ctx, res, p, addr, CNI_ERR_INVALID_CONFIG) < 0)
			return -EINVAL;
		p[strlen(p) - strlen(".address")] = '\0';
		if (gw && set_gateway(ctx, &res->ips[res->n_ips - 1], p, gw) < 0)
			return -EINVAL;
	}
	return 0;
}

static void drop_ips(struct cni_ctx *ctx, struct cni_result *res, const char *by)
{
	const char *env_ip = cni_args_get(&ctx->args, "IP");

	if (env_ip && res->n_ips > 0)
		cni_log_warning("CNI_ARGS IP=%s ignored: %s given", env_ip, by);
	res->ips = mfree(res->ips);
	res->n_ips = 0;
}

/* args.cni.ips then runtimeConfig.ips: each replaces what came before. */
static int override_addresses(struct cni_ctx *ctx, struct cni_result *res)
{
	const json_t *rc = ctx->conf.runtime_config, *ips = rc ? cni_json_get_ci(rc, "ips") : NULL;
	char p[PATH_LEN];
	size_t i;
	json_t *v;

	if (ctx->conf.n_args_cni_ips > 0)
		drop_ips(ctx, res, "args.cni.ips");
	for (i = 0; i < ctx->conf.n_args_cni_ips; i++) {
		snprintf(p, sizeof(p), "args.cni.ips[%zu]", i);
		if (add_address(ctx, res, p, ctx->conf.args_cni_ips[i], CNI_ERR_INVALID_CONFIG) < 0)
			return -EINVAL;
	}
	if (!ips || json_is_null(ips))
		return 0;
	if (!json_is_array(ips))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "runtimeConfig.ips: expected a list of CIDR strings");
	if (json_array_size(ips) > 0)
		drop_ips(ctx, res, "runtimeConfig.ips");
	json_array_foreach (ips, i, v) {
		snprintf(p, sizeof(p), "runtimeConfig.ips[%zu]", i);
		if (add_address(ctx, res, p, json_string_value(v), CNI_ERR_INVALID_CONFIG) < 0)
			return -EINVAL;
	}
	return 0;
}

/* CNI_ARGS IP=cidr[,cidr...] appends to ipam.addresses. */
static int env_addresses(struct cni_ctx *ctx, struct cni_result *res)
{
	const char *ips = cni_args_get(&ctx->args, "IP");
	_cleanup_free_ char *a = ips ? strdup(ips) : NULL;
	char *save = NULL, *tok;

	if (ips && !a)
		return -ENOMEM;
	for (tok = a ? strtok_r(a, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save))
		if (add_address(ctx, res, "CNI_ARGS IP", tok, CNI_ERR_INVALID_ENV) < 0)
			return -EINVAL;
	return 0;
}

/* CNI_ARGS GATEWAY=ip[,ip...] fills the addresses whose subnet holds it. */
static int env_gateways(struct cni_ctx *ctx, struct cni_result *res)
{
	const char *gws = cni_args_get(&ctx->args, "GATEWAY");
	_cleanup_free_ char *g = gws ? strdup(gws) : NULL;
	char *save = NULL, *tok;

	if (gws && !g)
		return -ENOMEM;
	for (tok = g ? strtok_r(g, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		union ip_addr gw;
		int family;

		if (ip_addr_parse(tok, &family, &gw) < 0)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
					  "CNI_ARGS GATEWAY: not an IP address: '%s'", tok);
		for (size_t i = 0; i < res->n_ips; i++)
			if (ip_prefix_contains(&res->ips[i].address, family, &gw)) {
				res->ips[i].gateway = gw;
				res->ips[i].has_gateway = true;
			}
	}
	return 0;
}

static int check_families(struct cni_ctx *ctx, const struct cni_result *res)
{
	unsigned n4 = 0, n6 = 0;

	for (size_t i = 0; i < res->n_ips; i++) {
		if (res->ips[i].address.family == AF_INET)
			n4++;
		else
			n6++;
	}
	if (cni_version_is_legacy(ctx->conf.version) && (n4 > 1 || n6 > 1))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "CNI version %s does not support more than 1 address per family",
				  cni_version_str(ctx->conf.version));
	return 0;
}

static int conf_extras(struct cni_ctx *ctx, const json_t *ipam, struct cni_result *res)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	const json_t *routes = NULL, *dns = NULL;

	if (cni_conf_get_array(&rd, "routes", CNI_RESULT_MAX_ENTRIES, &routes, NULL) < 0 ||
	    cni_conf_get_object(&rd, "dns", &dns, NULL) < 0)
		return -EINVAL;
	if (ipam_parse_routes(routes, "ipam", res, &ctx->err) < 0)
		return -EINVAL;
	if (dns && cni_dns_from_json(dns, "ipam.dns", &res->dns, &ctx->err) < 0)
		return -EINVAL;
	return 0;
}

int static_build_result(struct cni_ctx *ctx, struct cni_result **ret)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	const json_t *ipam = ctx->conf.ipam;
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	int r;

	if (!ipam)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "IPAM config missing 'ipam' key");
	res = cni_result_new(ctx->conf.version);
	if (!res)
		return -ENOMEM;
	r = cni_conf_check_keys(&rd, static_keys, false);
	if (r >= 0)
		r = conf_addresses(ctx, ipam, res);
	if (r >= 0)
		r = env_addresses(ctx, res);
	if (r >= 0)
		r = override_addresses(ctx, res);
	if (r >= 0)
		r = env_gateways(ctx, res);
	if (r >= 0)
		r = check_families(ctx, res);
	if (r >= 0)
		r = conf_extras(ctx, ipam, res);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(res);
	return 0;
}

static int static_add(struct cni_ctx *ctx)
{
	return static_build_result(ctx, &ctx->result);
}

/* Nothing was allocated, so there is nothing to release. */
static int static_del(struct cni_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static const struct cni_ip *find_prev(const struct cni_result *prev, const struct cni_ip *ip)
{
	for (size_t i = 0; i < prev->n_ips; i++) {
		const struct cni_ip *p = &prev->ips[i];

		if (p->address.family == ip->address.family &&
		    p->address.prefixlen == ip->address.prefixlen &&
		    ip_addr_equal(ip->address.family, &p->address.addr, &ip->address.addr))
			return p;
	}
	return NULL;
}

/* Every address static would assign must be in prevResult, with the same gateway. */
static int static_check(struct cni_ctx *ctx)
{
	_cleanup_(cni_result_freep) struct cni_result *want = NULL;
	char buf[IP_PREFIX_STRLEN];
	int r;

	if (!ctx->prev_result)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "Required prevResult missing");
	r = static_build_result(ctx, &want);
	if (r < 0)
		return r;
	for (size_t i = 0; i < want->n_ips; i++) {
		const struct cni_ip *ip = &want->ips[i], *p = find_prev(ctx->prev_result, ip);

		if (!p)
			return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -ENOENT,
					  "static: address %s missing from prevResult",
					  ip_prefix_fmt(&ip->address, buf));
		if (ip->has_gateway &&
		    (!p->has_gateway ||
		     !ip_addr_equal(ip->address.family, &ip->gateway, &p->gateway)))
			return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
					  "static: gateway of %s differs from prevResult",
					  ip_prefix_fmt(&ip->address, buf));
	}
	return 0;
}

const struct cni_plugin_ops ipam_static_ops = {
    .name = "static",
    .about = "podwire static IPAM",
    .cni_args_keys = static_args,
    .add = static_add,
    .del = static_del,
    .check = static_check,
};
