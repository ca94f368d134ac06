/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host-local config: the reference's keys, parsed and validated into a
 * plain struct (no files touched except resolvConf on ADD).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "ipam/conf-util.h"
#include "ipam/host-local.h"

#define PATH_LEN 96
#define MAX_REQUESTED 64

static const char *const ipam_keys[] = {
    "type",    "ranges", "subnet",  "rangeStart", "rangeEnd",
    "gateway", "routes", "dataDir", "resolvConf", NULL,
};
static const char *const range_keys[] = {"subnet", "rangeStart", "rangeEnd", "gateway", NULL};

static int invalid_type(struct cni_ctx *ctx, const char *path, const char *want, const json_t *v)
{
	const struct cni_conf_reader at = cni_ctx_reader(ctx, NULL, path);

	return cni_conf_bad_value(&at, NULL, v, want);
}

/* One range of the config (exact keys). */
static int conf_range(struct cni_ctx *ctx, const json_t *o, const char *path, bool warn_unknown,
		      struct ipam_range *ret)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, o, path);
	struct ipam_range_spec spec = {0};

	if (!json_is_object(o)) {
		invalid_type(ctx, path, "expected a range object", o);
		return -EINVAL;
	}
	if (warn_unknown && cni_conf_check_keys(&rd, range_keys, false) < 0)
		return -EINVAL;
	if (cni_conf_get_string(&rd, "subnet", &spec.subnet, NULL) < 0 ||
	    cni_conf_get_string(&rd, "rangeStart", &spec.range_start, NULL) < 0 ||
	    cni_conf_get_string(&rd, "rangeEnd", &spec.range_end, NULL) < 0 ||
	    cni_conf_get_string(&rd, "gateway", &spec.gateway, NULL) < 0)
		return -EINVAL;
	return ipam_range_init(&spec, path, ret, &ctx->err);
}

/* A runtime-supplied string (rd->ci): "" means absent (containerd). */
static int runtime_string(const struct cni_conf_reader *rd, const char *key, const char **ret)
{
	int r = cni_conf_get_string(rd, key, ret, NULL);

	if (*ret && !**ret)
		*ret = NULL;
	return r;
}

/* One range of runtimeConfig.ipRanges, either shape. */
static int runtime_range(struct cni_ctx *ctx, const json_t *o, const char *path,
			 struct ipam_range *ret)
{
	struct cni_conf_reader rd = cni_ctx_reader(ctx, o, path);
	struct ipam_range_spec spec = {0};

	if (!json_is_object(o)) {
		invalid_type(ctx, path, "expected a range object", o);
		return -EINVAL;
	}
	rd.ci = true;
	if (runtime_string(&rd, "subnet", &spec.subnet) < 0 ||
	    runtime_string(&rd, "rangeStart", &spec.range_start) < 0 ||
	    runtime_string(&rd, "rangeEnd", &spec.range_end) < 0 ||
	    runtime_string(&rd, "gateway", &spec.gateway) < 0)
		return -EINVAL;
	return ipam_range_init(&spec, path, ret, &ctx->err);
}

static int push_set(struct host_local_conf *c, struct ipam_range_set *set, const char *path)
{
	struct ipam_range_set *sets;
	char **paths, *p;

	if (c->n_sets >= IPAM_MAX_RANGE_SETS)
		return -E2BIG;
	p = strdup(path);
	sets = reallocarray_safe(c->sets, c->n_sets + 1, sizeof(*sets));
	if (sets)
		c->sets = sets;
	paths = reallocarray_safe(c->set_paths, c->n_sets + 1, sizeof(*paths));
	if (paths)
		c->set_paths = paths;
	if (!p || !sets || !paths) {
		free(p);
		return -ENOMEM;
	}
	c->set_paths[c->n_sets] = p;
	c->sets[c->n_sets++] = *set;
	memset(set, 0, sizeof(*set));
	return 0;
}

static int too_many(struct cni_ctx *ctx, const char *path)
{
	return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -E2BIG, "%s: more than %d range sets",
			  path, IPAM_MAX_RANGE_SETS);
}

/* A JSON list of ranges forming one set; runtime selects the key rules. */
static int parse_set(struct cni_ctx *ctx, const json_t *arr, const char *path, bool runtime,
		     struct host_local_conf *c)
{
	_cleanup_(ipam_range_set_done) struct ipam_range_set set = {0};
	char p[PATH_LEN];
	size_t i;
	json_t *o;

	if (!json_is_array(arr))
		return invalid_type(ctx, path, "expected a list of ranges", arr);
	if (json_array_size(arr) > IPAM_MAX_RANGES)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -E2BIG,
				  "%s: more than %d ranges", path, IPAM_MAX_RANGES);
	json_array_foreach (arr, i, o) {
		struct ipam_range range;
		int r;

		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		r = runtime ? runtime_range(ctx, o, p, &range)
			    : conf_range(ctx, o, p, true, &range);
		if (r < 0)
			return r;
		r = ipam_range_set_add(&set, &range);
		if (r < 0)
			return r;
	}
	if (ipam_range_set_validate(&set, path, &ctx->err) < 0)
		return -EINVAL;
	return push_set(c, &set, path) < 0 ? too_many(ctx, path) : 0;
}

/* containerd's flat list: one set per family, in order of first appearance. */
static int parse_flat(struct cni_ctx *ctx, const json_t *arr, const char *path,
		      struct host_local_conf *c)
{
	struct ipam_range_set fam[2] = {{0}};
	char p[PATH_LEN];
	int r = 0, first = -1;
	size_t i;
	json_t *o;

	json_array_foreach (arr, i, o) {
		struct ipam_range range;
		int f;

		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		r = runtime_range(ctx, o, p, &range);
		if (r < 0)
			break;
		f = ipam_range_family(&range) == AF_INET6;
		if (first < 0)
			first = f;
		r = ipam_range_set_add(&fam[f], &range);
		if (r < 0)
			break;
	}
	for (int k = 0; r >= 0 && k < 2; k++) {
		struct ipam_range_set *s = &fam[first == 1 ? 1 - k : k];

		if (s->n == 0)
			continue;
		r = ipam_range_set_validate(s, path, &ctx->err);
		if (r >= 0 && push_set(c, s, path) < 0)
			r = too_many(ctx, path);
	}
	ipam_range_set_done(&fam[0]);
	ipam_range_set_done(&fam[1]);
	return r;
}

static int parse_runtime_ranges(struct cni_ctx *ctx, struct host_local_conf *c)
{
	const json_t *rc = ctx->conf.runtime_config, *arr, *o;
	const char *path = "runtimeConfig.ipRanges";
	char p[PATH_LEN];
	bool flat = true, nested = true;
	size_t i;

	arr = rc ? cni_json_get_ci(rc, "ipRanges") : NULL;
	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return invalid_type(ctx, path, "expected a list of range sets", arr);
	if (json_array_size(arr) > IPAM_MAX_RANGES)
		return too_many(ctx, path);
	json_array_foreach (arr, i, o) {
		flat &= json_is_object(o);
		nested &= json_is_array(o);
	}
	if (flat && json_array_size(arr) > 0)
		return parse_flat(ctx, arr, path, c);
	if (!nested)
		return invalid_type(ctx, path,
				    "expected a list of range sets or a flat list of ranges", arr);
	json_array_foreach (arr, i, o) {
		int r;

		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		r = parse_set(ctx, o, p, true, c);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_legacy_range(struct cni_ctx *ctx, const json_t *ipam, struct host_local_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	_cleanup_(ipam_range_set_done) struct ipam_range_set set = {0};
	struct ipam_range range;
	int r;

	if (!json_object_get(ipam, "subnet")) {
		if (json_object_get(ipam, "rangeStart") || json_object_get(ipam, "rangeEnd") ||
		    json_object_get(ipam, "gateway"))
			return cni_conf_invalid(&rd, CNI_ERR_INVALID_CONFIG,
						"ipam.subnet: required with ipam.rangeStart, "
						"ipam.rangeEnd or ipam.gateway");
		return 0;
	}
	r = conf_range(ctx, ipam, "ipam", false, &range);
	if (r < 0)
		return r;
	r = ipam_range_set_add(&set, &range);
	if (r < 0)
		return r;
	return push_set(c, &set, "ipam") < 0 ? too_many(ctx, "ipam") : 0;
}

static int parse_conf_ranges(struct cni_ctx *ctx, const json_t *ipam, struct host_local_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	const json_t *arr = NULL, *o;
	char p[PATH_LEN];
	size_t i;

	if (cni_conf_get_array(&rd, "ranges", IPAM_MAX_RANGE_SETS, &arr, NULL) < 0)
		return -EINVAL;
	json_array_foreach (arr, i, o) {
		int r;

		snprintf(p, sizeof(p), "ipam.ranges[%zu]", i);
		r = parse_set(ctx, o, p, false, c);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Across sets: no overlap, and legacy versions get one address per family. */
static int check_sets(struct cni_ctx *ctx, const struct host_local_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, NULL, "");
	unsigned n4 = 0, n6 = 0;

	if (c->n_sets == 0)
		return cni_conf_invalid(&rd, CNI_ERR_INVALID_CONFIG,
					"ipam: no IP ranges specified (ipam.ranges, ipam.subnet "
					"or runtimeConfig.ipRanges)");
	for (size_t i = 0; i < c->n_sets; i++) {
		if (ipam_range_family(&c->sets[i].ranges[0]) == AF_INET)
			n4++;
		else
			n6++;
		for (size_t j = 0; j < i; j++)
			if (ipam_range_set_overlaps(&c->sets[j], &c->sets[i]))
				return cni_conf_invalid(&rd, CNI_ERR_INVALID_CONFIG,
							"range set %zu (%s) overlaps with %zu (%s)",
							j, c->set_paths[j], i, c->set_paths[i]);
	}
	if (cni_version_is_legacy(ctx->conf.version) && (n4 > 1 || n6 > 1))
		return cni_conf_invalid(&rd, CNI_ERR_INVALID_CONFIG,
					"CNI version %s does not support more than 1 address per "
					"family",
					cni_version_str(ctx->conf.version));
	return 0;
}

static int parse_ranges(struct cni_ctx *ctx, const json_t *ipam, struct host_local_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	const json_t *routes = NULL;
	int r;

	r = parse_runtime_ranges(ctx, c);
	if (r >= 0)
		r = parse_legacy_range(ctx, ipam, c);
	if (r >= 0)
		r = parse_conf_ranges(ctx, ipam, c);
	if (r >= 0)
		r = check_sets(ctx, c);
	if (r >= 0)
		r = cni_conf_get_array(&rd, "routes", CNI_RESULT_MAX_ENTRIES, &routes, NULL);
	if (r >= 0)
		r = ipam_parse_routes(routes, "ipam", c->extra, &ctx->err);
	return r < 0 ? -EINVAL : 0;
}

static bool already_requested(const struct host_local_conf *c, const struct ip_prefix *p)
{
	for (size_t i = 0; i < c->n_requested; i++)
		if (c->requested[i].family == p->family &&
		    ip_addr_equal(p->family, &c->requested[i].addr, &p->addr))
			return true;
	return false;
}

/* Appends s to the requested addresses; the same address twice is one request. */
static int push_requested(struct cni_ctx *ctx, struct host_local_conf *c, const char *what,
			  const char *s, unsigned code)
{
	struct ip_prefix p;

	if (ipam_parse_requested(s, &p) < 0)
		return cni_errorf(&ctx->err, code, -EINVAL, "%s: not an IP address: '%s'", what,
				  s ? s : "(not a string)");
	if (already_requested(c, &p))
		return 0;
	if (ipam_prefix_push(&c->requested, &c->n_requested, MAX_REQUESTED, &p) < 0)
		return cni_errorf(&ctx->err, code, -E2BIG, "%s: more than %d requested addresses",
				  what, MAX_REQUESTED);
	return 0;
}

/*
 * Requested addresses: args.cni.ips, then runtimeConfig.ips (an address in
 * both is requested once). CNI_ARGS IP is
 * used only when neither is given (CONVENTIONS.md: a plugin that understands
 * `args` ignores the CNI_ARGS copy of the same information).
 */
static int parse_requested(struct cni_ctx *ctx, struct host_local_conf *c)
{
	const json_t *rc = ctx->conf.runtime_config, *ips = rc ? cni_json_get_ci(rc, "ips") : NULL;
	const char *env_ip = cni_args_get(&ctx->args, "IP");
	char p[PATH_LEN];
	size_t i;
	json_t *v;

	for (i = 0; i < ctx->conf.n_args_cni_ips; i++) {
		snprintf(p, sizeof(p), "args.cni.ips[%zu]", i);
		if (push_requested(ctx, c, p, ctx->conf.args_cni_ips[i], CNI_ERR_INVALID_CONFIG) <
		    0)
			return -EINVAL;
	}
	if (ips && !json_is_null(ips) && !json_is_array(ips))
		return invalid_type(ctx, "runtimeConfig.ips", "expected a list of addresses", ips);
	json_array_foreach (ips, i, v) {
		snprintf(p, sizeof(p), "runtimeConfig.ips[%zu]", i);
		if (push_requested(ctx, c, p, json_string_value(v), CNI_ERR_INVALID_CONFIG) < 0)
			return -EINVAL;
	}
	if (!env_ip)
		return 0;
	if (c->n_requested > 0) {
		cni_log_warning("CNI_ARGS IP=%s ignored: args.cni.ips or runtimeConfig.ips given",
				env_ip);
		return 0;
	}
	return push_requested(ctx, c, "CNI_ARGS IP", env_ip, CNI_ERR_INVALID_ENV);
}

/*
 * dataDir decides which leases an operation touches, so a bad value never
 * falls back to the default store: that would release or create leases in
 * the wrong place. ADD, CHECK and STATUS refuse it (code 7). ADD never
 * allocated under such a dataDir, so DEL and GC have nothing to release:
 * they skip IPAM with a warning (returns 1) and the runtime's teardown ends.
 */
static int parse_data_dir(struct cni_ctx *ctx, const json_t *ipam, const char **ret)
{
	const json_t *v = json_object_get(ipam, "dataDir");
	_cleanup_free_ char *repr = NULL;
	struct cni_error tmp = {0};
	bool strict = cni_ctx_strict(ctx);
	struct cni_error *err = strict ? &ctx->err : &tmp;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v) && json_string_value(v)[0] == '/') {
		*ret = json_string_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			   "ipam.dataDir: not an absolute path: '%s'", json_string_value(v));
	} else {
		repr = cni_json_repr(v);
		cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			   "ipam.dataDir: expected an absolute path, got %s", repr ? repr : "?");
	}
	if (strict)
		return -EINVAL;
	cni_log_warning("%s: no lease can exist there (ADD refuses it), skipping IPAM",
			tmp.msg ? tmp.msg : "ipam.dataDir invalid");
	cni_error_done(&tmp);
	return 1;
}

static int parse_store(struct cni_ctx *ctx, const json_t *ipam, struct host_local_conf *c)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	const char *dir = HOST_LOCAL_DEFAULT_DATA_DIR, *resolv = NULL;
	int r = parse_data_dir(ctx, ipam, &dir);

	if (r < 0 || cni_conf_get_string(&rd, "resolvConf", &resolv, NULL) < 0)
		return -EINVAL;
	c->skip_store = r > 0;
	c->data_dir = strdup(dir);
	if (resolv && resolv[0])
		c->resolv_conf = strdup(resolv);
	if (!c->data_dir || (resolv && resolv[0] && !c->resolv_conf))
		return -ENOMEM;
	return 0;
}

int host_local_conf_parse(struct cni_ctx *ctx, unsigned what, struct host_local_conf *ret)
{
	_cleanup_(host_local_conf_done) struct host_local_conf c = {0};
	const json_t *ipam = ctx->conf.ipam;
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ipam, "ipam");
	int r;

	if (!ipam)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "IPAM config missing 'ipam' key");
	c.extra = cni_result_new(ctx->conf.version);
	if (!c.extra)
		return -ENOMEM;
	r = 0;
	if (cni_ctx_strict(ctx))
		r = cni_conf_check_keys(&rd, ipam_keys, false);
	if (r >= 0)
		r = parse_store(ctx, ipam, &c);
	if (r >= 0 && (what & HOST_LOCAL_PARSE_RANGES))
		r = parse_ranges(ctx, ipam, &c);
	if (r >= 0 && (what & HOST_LOCAL_PARSE_REQUESTS))
		r = parse_requested(ctx, &c);
	if (r < 0)
		return r;
	*ret = c;
	memset(&c, 0, sizeof(c));
	return 0;
}

void host_local_conf_done(struct host_local_conf *c)
{
	for (size_t i = 0; i < c->n_sets; i++) {
		ipam_range_set_done(&c->sets[i]);
		free(c->set_paths[i]);
	}
	free(c->sets);
	free(c->set_paths);
	cni_result_free(c->extra);
	free(c->data_dir);
	free(c->resolv_conf);
	free(c->requested);
	memset(c, 0, sizeof(*c));
}
