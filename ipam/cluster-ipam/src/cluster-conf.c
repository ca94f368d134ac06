/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam config: parsed and validated into a plain struct; nothing
 * is touched. Keys and defaults are listed in README.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "cni/log.h"
#include "ipam/cluster-ipam.h"
#include "ipam/conf-util.h"

#define PATH_LEN 96

static const char *const ipam_keys[] = {
    "type",
    "nodeName",
    "etcd",
    "etcdPrefix",
    "pools",
    "dataDir",
    "maxBlocksPerNode",
    "strictAffinity",
    "routes",
    "blockRouteProtocol",
    "blockReleaseGraceSeconds",
    NULL,
};
static const char *const etcd_keys[] = {"endpoints", "caFile",	  "certFile",
					"keyFile",   "timeoutMs", NULL};
static const char *const pool_keys[] = {"cidr", "blockSize", NULL};

static int bad(struct cni_ctx *ctx, const char *path, const char *want, const json_t *v)
{
	_cleanup_free_ char *repr = v ? cni_json_repr(v) : NULL;

	return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: expected %s, got %s",
			  path, want, repr ? repr : "nothing");
}

/* Keys that decide what is touched: checked on every command, DEL and GC too. */
static struct cni_conf_reader hard(struct cni_ctx *ctx, const json_t *obj, const char *path)
{
	return (struct cni_conf_reader){.err = &ctx->err, .obj = obj, .path = path};
}

static int hard_string(const struct cni_conf_reader *rd, const char *key, const char **ret)
{
	const json_t *v = json_object_get(rd->obj, key);

	if (json_is_string(v) &&
	    (json_string_length(v) == 0 || strlen(json_string_value(v)) != json_string_length(v)))
		return cni_conf_bad_value(rd, key, v, "expected a non-empty string");
	return cni_conf_get_string(rd, key, ret, NULL);
}

static int endpoint_ok(const char *s)
{
	if (!strncmp(s, "http://", 7) || !strncmp(s, "https://", 8))
		return s[strcspn(s, ":") + 3] != '\0';
	if (!strncmp(s, "unix:///", 8))
		return s[8] != '\0';
	return 0;
}

static int parse_endpoints(struct cni_ctx *ctx, const json_t *e, struct cipam_etcd_conf *ret)
{
	const json_t *arr = json_object_get(e, "endpoints");
	char p[PATH_LEN];
	size_t i;
	json_t *v;

	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > PWETCD_MAX_ENDPOINTS)
		return bad(ctx, "ipam.etcd.endpoints", "a list of 1 to 16 URLs", arr);
	json_array_foreach (arr, i, v) {
		snprintf(p, sizeof(p), "ipam.etcd.endpoints[%zu]", i);
		if (!json_is_string(v) || !endpoint_ok(json_string_value(v)))
			return bad(ctx, p, "http://HOST:PORT, https://HOST:PORT or unix:///PATH",
				   v);
		ret->endpoints[i] = strdup(json_string_value(v));
		if (!ret->endpoints[i])
			return -ENOMEM;
		ret->n_endpoints = i + 1;
	}
	return 0;
}

static int dup_opt(const char *s, char **ret)
{
	if (!s)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* ipam.etcd: checked on every command (it decides what is touched). */
static int parse_etcd(struct cni_ctx *ctx, const json_t *ipam, struct cipam_etcd_conf *ret)
{
	const json_t *e = json_object_get(ipam, "etcd");
	const struct cni_conf_reader rd = hard(ctx, e, "ipam.etcd");
	const struct cni_conf_reader keys = cni_ctx_reader(ctx, e, rd.path);
	const char *ca = NULL, *cert = NULL, *key = NULL;
	int r;

	if (!json_is_object(e))
		return bad(ctx, rd.path, "an object with endpoints", e);
	r = cni_conf_check_keys(&keys, etcd_keys, false);
	if (r >= 0)
		r = parse_endpoints(ctx, e, ret);
	if (r >= 0)
		r = hard_string(&rd, "caFile", &ca);
	if (r >= 0)
		r = hard_string(&rd, "certFile", &cert);
	if (r >= 0)
		r = hard_string(&rd, "keyFile", &key);
	if (r >= 0 && !cert != !key)
		r = cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			       "%s: certFile and keyFile go together (got only %s)", rd.path,
			       cert ? "certFile" : "keyFile");
	ret->timeout_ms = PWETCD_DEFAULT_TIMEOUT_MS;
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "timeoutMs", 10, 600000, &ret->timeout_ms, NULL);
	if (r >= 0)
		r = dup_opt(ca, &ret->ca_file);
	if (r >= 0)
		r = dup_opt(cert, &ret->cert_file);
	if (r >= 0)
		r = dup_opt(key, &ret->key_file);
	return r;
}

static void etcd_conf_done(struct cipam_etcd_conf *c)
{
	for (size_t i = 0; i < c->n_endpoints; i++)
		free(c->endpoints[i]);
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	memset(c, 0, sizeof(*c));
}

int cipam_etcd_open(const struct cipam_etcd_conf *c, const char *session_dir,
		    struct pwetcd_client **ret)
{
	const char *eps[PWETCD_MAX_ENDPOINTS];
	struct pwetcd_config cfg = {
	    .endpoints = eps,
	    .n_endpoints = c->n_endpoints,
	    .ca_file = c->ca_file,
	    .cert_file = c->cert_file,
	    .key_file = c->key_file,
	    .timeout_ms = c->timeout_ms,
	    .session_dir = session_dir,
	};

	for (size_t i = 0; i < c->n_endpoints; i++)
		eps[i] = c->endpoints[i];
	return pwetcd_open(&cfg, ret);
}

static bool name_ok(const char *s)
{
	/* one key component: no '/', no control characters, bounded */
	if (!s[0] || strlen(s) > 253)
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x21 || *s == 0x7f)
			return false;
	return true;
}

static int parse_node(struct cni_ctx *ctx, const json_t *ipam, struct cipam_conf *c)
{
	const struct cni_conf_reader rd = hard(ctx, ipam, "ipam");
	const char *node = NULL;
	char host[256];

	if (hard_string(&rd, "nodeName", &node) < 0)
		return -EINVAL;
	if (!node) {
		if (gethostname(host, sizeof(host)) < 0)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -errno,
					  "ipam.nodeName: not set and the hostname is unknown");
		host[sizeof(host) - 1] = '\0';
		node = host;
	}
	if (!name_ok(node))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "ipam.nodeName: not a node name (no '/', no spaces): '%s'", node);
	c->node = strdup(node);
	return c->node ? 0 : -ENOMEM;
}

static int parse_prefix(struct cni_ctx *ctx, const json_t *ipam, struct cipam_conf *c)
{
	const struct cni_conf_reader rd = hard(ctx, ipam, "ipam");
	const char *prefix = CIPAM_DEFAULT_PREFIX, *dir = CIPAM_DEFAULT_DATA_DIR;
	size_t n;

	if (hard_string(&rd, "etcdPrefix", &prefix) < 0 || hard_string(&rd, "dataDir", &dir) < 0)
		return -EINVAL;
	if (prefix[0] != '/' || strstr(prefix, "//"))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "ipam.etcdPrefix: expected a key prefix starting with '/': '%s'",
				  prefix);
	if (dir[0] != '/')
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "ipam.dataDir: not an absolute path: '%s'", dir);
	n = strlen(prefix);
	while (n > 1 && prefix[n - 1] == '/')
		n--;
	c->prefix = strndup(prefix, n == 1 ? 0 : n); /* "/" -> "" (keys start with "/ipam") */
	c->data_dir = strdup(dir);
	return c->prefix && c->data_dir ? 0 : -ENOMEM;
}

static int parse_block_size(struct cni_ctx *ctx, const json_t *o, const char *path,
			    struct cipam_pool *p)
{
	const json_t *v = json_object_get(o, "blockSize");
	unsigned bits = ip_family_bits(p->cidr.family), lo = bits - 12;
	json_int_t n = p->cidr.family == AF_INET6 ? CIPAM_DEFAULT_BLOCK_V6 : CIPAM_DEFAULT_BLOCK_V4;
	char msg[PATH_LEN + 64];

	if (v && !json_is_null(v) && !cni_json_whole_number(v, &n))
		return bad(ctx, path, "a prefix length", v);
	if (n < (json_int_t)lo || n > (json_int_t)bits || n < p->cidr.prefixlen ||
	    n - p->cidr.prefixlen > 120) {
		snprintf(msg, sizeof(msg),
			 "a prefix length in %u..%u, not shorter than the pool's /%u", lo, bits,
			 p->cidr.prefixlen);
		return v ? bad(ctx, path, msg, v)
			 : cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				      "%s: the default /%lld does not fit the pool", path,
				      (long long)n);
	}
	p->block_size = (unsigned)n;
	return 0;
}

static int parse_pool(struct cni_ctx *ctx, const json_t *o, size_t i, struct cipam_pool *p)
{
	const json_t *cidr = json_object_get(o, "cidr");
	char path[PATH_LEN], bpath[PATH_LEN + 12];
	const struct cni_conf_reader keys = cni_ctx_reader(ctx, o, path);

	snprintf(path, sizeof(path), "ipam.pools[%zu]", i);
	if (!json_is_object(o))
		return bad(ctx, path, "an object {cidr, blockSize}", o);
	if (cni_conf_check_keys(&keys, pool_keys, false) < 0)
		return -EINVAL;
	snprintf(bpath, sizeof(bpath), "%s.cidr", path);
	if (!json_is_string(cidr) || ip_prefix_parse(json_string_value(cidr), &p->cidr) < 0)
		return bad(ctx, bpath, "a CIDR", cidr);
	if (!ip_prefix_is_network(&p->cidr))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: has host bits set: '%s'", bpath, json_string_value(cidr));
	snprintf(bpath, sizeof(bpath), "%s.blockSize", path);
	return parse_block_size(ctx, o, bpath, p);
}

static bool pools_overlap(const struct cipam_pool *a, const struct cipam_pool *b)
{
	const struct cipam_pool *wide = a->cidr.prefixlen <= b->cidr.prefixlen ? a : b;
	const struct cipam_pool *narrow = wide == a ? b : a;

	return ip_prefix_contains(&wide->cidr, narrow->cidr.family, &narrow->cidr.addr);
}

static int parse_pools(struct cni_ctx *ctx, const json_t *ipam, struct cipam_conf *c)
{
	const json_t *arr = json_object_get(ipam, "pools");
	char a[IP_PREFIX_STRLEN], b[IP_PREFIX_STRLEN];
	size_t i;
	json_t *v;

	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > CIPAM_MAX_POOLS)
		return bad(ctx, "ipam.pools", "a list of 1 to 16 pools", arr);
	json_array_foreach (arr, i, v) {
		if (parse_pool(ctx, v, i, &c->pools[i]) < 0)
			return -EINVAL;
		for (size_t k = 0; k < i; k++)
			if (pools_overlap(&c->pools[k], &c->pools[i]))
				return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
						  "ipam.pools[%zu]: %s overlaps ipam.pools[%zu] %s",
						  i, ip_prefix_fmt(&c->pools[i].cidr, a), k,
						  ip_prefix_fmt(&c->pools[k].cidr, b));
		c->n_pools = i + 1;
	}
	return 0;
}

static int push_requested(struct cni_ctx *ctx, struct cipam_conf *c, const char *what,
			  const char *s)
{
	struct ip_prefix p;

	if (!s || ipam_parse_requested(s, &p) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: not an IP address: '%s'", what, s ? s : "(not a string)");
	if (cipam_pool_find(c, p.family, &p.addr) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: %s is in none of ipam.pools", what, s);
	if (c->n_requested >= CIPAM_MAX_REQUESTED)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -E2BIG,
				  "%s: more than %d requested addresses", what,
				  CIPAM_MAX_REQUESTED);
	for (size_t i = 0; i < c->n_requested; i++)
		if (c->requested[i].family == p.family)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "%s: a second IPv%c address requested: '%s' (one per "
					  "family)",
					  what, p.family == AF_INET6 ? '6' : '4', s);
	c->requested[c->n_requested++] = p;
	return 0;
}

/* args.cni.ips, then runtimeConfig.ips (at most one address per family). */
static int parse_requested(struct cni_ctx *ctx, struct cipam_conf *c)
{
	const json_t *rc = ctx->conf.runtime_config, *ips = rc ? cni_json_get_ci(rc, "ips") : NULL;
	char p[2 * PATH_LEN];
	size_t i;
	json_t *v;

	for (i = 0; i < ctx->conf.n_args_cni_ips; i++) {
		snprintf(p, sizeof(p), "args.cni.ips[%zu]", i);
		if (push_requested(ctx, c, p, ctx->conf.args_cni_ips[i]) < 0)
			return -EINVAL;
	}
	if (ctx->conf.n_args_cni_ips > 0)
		return 0;
	if (ips && !json_is_null(ips) && !json_is_array(ips))
		return bad(ctx, "runtimeConfig.ips", "a list of addresses", ips);
	json_array_foreach (ips, i, v) {
		snprintf(p, sizeof(p), "runtimeConfig.ips[%zu]", i);
		if (push_requested(ctx, c, p, json_string_value(v)) < 0)
			return -EINVAL;
	}
	return 0;
}

static int parse_numbers(struct cni_ctx *ctx, const json_t *ipam, struct cipam_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	unsigned proto = CIPAM_DEFAULT_ROUTE_PROTO;

	c->max_blocks = CIPAM_DEFAULT_MAX_BLOCKS;
	c->grace_s = CIPAM_DEFAULT_GRACE_S;
	if (cni_conf_get_uint(&rd, "maxBlocksPerNode", 0, 100000, &c->max_blocks, NULL) < 0 ||
	    cni_conf_get_uint(&rd, "blockReleaseGraceSeconds", 0, 86400 * 365, &c->grace_s, NULL) <
		0 ||
	    cni_conf_get_bool(&rd, "strictAffinity", &c->strict_affinity, NULL) < 0)
		return -EINVAL;
	/* the protocol decides which routes GC removes: checked on every command */
	{
		const json_t *v = json_object_get(ipam, "blockRouteProtocol");
		json_int_t n;

		if (v && !json_is_null(v)) {
			if (!cni_json_whole_number(v, &n) || n < 1 || n > 255 || n == 2 || n == 12)
				return bad(
				    ctx, "ipam.blockRouteProtocol",
				    "a route protocol number in 1..255 (not 2 kernel, 12 bird)", v);
			proto = (unsigned)n;
		}
	}
	c->route_protocol = proto;
	return 0;
}

static int parse_routes(struct cni_ctx *ctx, const json_t *ipam, struct cipam_conf *c)
{
	const json_t *routes = json_object_get(ipam, "routes");

	if (!routes || json_is_null(routes))
		return 0;
	c->routes = cni_result_new(ctx->conf.version);
	if (!c->routes)
		return -ENOMEM;
	return ipam_parse_routes(routes, "ipam", c->routes, &ctx->err);
}

int cipam_conf_parse(struct cni_ctx *ctx, struct cipam_conf *ret)
{
	const json_t *ipam = ctx->conf.ipam;
	const struct cni_conf_reader keys = cni_ctx_reader(ctx, ipam, "ipam");
	struct cipam_conf c = {0};
	bool strict = cni_ctx_strict(ctx);
	int r;

	if (!json_is_object(ipam))
		return bad(ctx, "ipam", "an object", ipam);
	r = cni_conf_check_keys(&keys, ipam_keys, false);
	if (r >= 0)
		r = parse_node(ctx, ipam, &c);
	if (r >= 0)
		r = parse_prefix(ctx, ipam, &c);
	if (r >= 0)
		r = parse_etcd(ctx, ipam, &c.etcd);
	if (r >= 0)
		r = parse_numbers(ctx, ipam, &c);
	if (r >= 0 && (strict || json_object_get(ipam, "pools"))) {
		r = parse_pools(ctx, ipam, &c);
		if (r < 0 && !strict) { /* DEL/GC never need the pools */
			cni_log_warning("%s, ignored", ctx->err.msg ? ctx->err.msg : "ipam.pools");
			cni_error_done(&ctx->err);
			c.n_pools = 0;
			r = 0;
		}
	}
	if (r >= 0 && ctx->command == CNI_CMD_ADD)
		r = parse_requested(ctx, &c);
	if (r >= 0 && ctx->command == CNI_CMD_ADD)
		r = parse_routes(ctx, ipam, &c);
	if (r < 0) {
		if (r == -ENOMEM)
			cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "out of memory");
		cipam_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

void cipam_conf_done(struct cipam_conf *c)
{
	free(c->node);
	free(c->prefix);
	free(c->data_dir);
	etcd_conf_done(&c->etcd);
	cni_result_free(c->routes);
	memset(c, 0, sizeof(*c));
}
