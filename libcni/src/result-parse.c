/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parsing results (prevResult, a delegate's stdout, a cached result) in the
 * shape of one CNI version family.
 *
 * Error codes, one rule for the whole file: anything wrong inside the result
 * body -- a wrong JSON type, a bad address, an index out of range, too many
 * entries -- is code 7 (CNI_ERR_INVALID_CONFIG), because a prevResult is part
 * of the network config. Only the version label differs: a result labelled
 * with another family than the one requested, or with a version podwire does
 * not know, is code 1 (CNI_ERR_INCOMPATIBLE_VERSION); a malformed label read
 * by cni_result_from_json_any() is code 6 (CNI_ERR_DECODE), as the skeleton
 * does for a config's cniVersion. Every message starts with the JSON path of
 * the offending value.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/result.h"

/* Paths are for messages only; a longer caller prefix is truncated. */
#define PATH_LEN 256

struct parse_state {
	struct cni_result *r;
	enum cni_version version;
	int family; /* legacy sections: AF_INET for ip4, AF_INET6 for ip6 */
	struct cni_error *err;
};

typedef int (*entry_fn)(const json_t *o, const char *path, struct parse_state *st);

static void path_fmt(char *buf, const char *fmt, ...) _printf_(2, 3);
static void path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
}

static void path_key(char *buf, const char *base, const char *key)
{
	path_fmt(buf, "%s%s%s", base, *base && *key ? "." : "", key);
}

/* JSON null counts as absent, as Go's decoder treats it. */
static const json_t *member(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_null(v) ? NULL : v;
}

static int bad_value(struct cni_error *err, const char *path, const char *key, const char *what,
		     const json_t *v)
{
	_cleanup_free_ char *repr = cni_json_repr(v);
	char p[PATH_LEN];

	path_key(p, path, key);
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: not %s: %s", p, what,
			  repr ? repr : "?");
}

static int missing(struct cni_error *err, const char *path, const char *key)
{
	char p[PATH_LEN];

	path_key(p, path, key);
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: missing", p);
}

/* Borrowed string member; NULL when absent (an error when required). */
static int get_string(const json_t *o, const char *path, const char *key, bool required,
		      const char **ret, struct cni_error *err)
{
	const json_t *v = member(o, key);

	*ret = NULL;
	if (!v)
		return required ? missing(err, path, key) : 0;
	if (!json_is_string(v))
		return bad_value(err, path, key, "a string", v);
	*ret = json_string_value(v);
	return 0;
}

static int get_string_dup(const json_t *o, const char *path, const char *key, char **ret,
			  struct cni_error *err)
{
	const char *s;
	int r = get_string(o, path, key, false, &s, err);

	if (r < 0 || !s)
		return r;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int get_uint(const json_t *o, const char *path, const char *key, unsigned max,
		    bool *ret_present, unsigned *ret, struct cni_error *err)
{
	const json_t *v = member(o, key);

	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (unsigned long long)json_integer_value(v) > max) {
		char what[48];

		snprintf(what, sizeof(what), "an integer in [0, %u]", max);
		return bad_value(err, path, key, what, v);
	}
	*ret = (unsigned)json_integer_value(v);
	if (ret_present)
		*ret_present = true;
	return 0;
}

/* Array member, checked against the entry cap; NULL when absent. */
static int get_array(const json_t *o, const char *path, const char *key, const json_t **ret,
		     struct cni_error *err)
{
	const json_t *v = member(o, key);
	char p[PATH_LEN];

	*ret = NULL;
	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad_value(err, path, key, "an array", v);
	if (json_array_size(v) > CNI_RESULT_MAX_ENTRIES) {
		path_key(p, path, key);
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: too many entries (%zu, at most %d)", p, json_array_size(v),
				  CNI_RESULT_MAX_ENTRIES);
	}
	*ret = v;
	return 0;
}

static int get_strv(const json_t *o, const char *path, const char *key, char ***ret, size_t *ret_n,
		    struct cni_error *err)
{
	const json_t *arr, *v;
	char p[PATH_LEN], ep[PATH_LEN];
	char **strv;
	size_t i;
	int r;

	r = get_array(o, path, key, &arr, err);
	if (r < 0 || !arr || json_array_size(arr) == 0)
		return r;
	path_key(p, path, key);
	strv = calloc(json_array_size(arr), sizeof(*strv));
	if (!strv)
		return -ENOMEM;
	json_array_foreach (arr, i, v) {
		if (!json_is_string(v)) {
			path_fmt(ep, "%s[%zu]", p, i);
			r = bad_value(err, ep, "", "a string", v);
		} else if (!(strv[i] = strdup(json_string_value(v)))) {
			r = -ENOMEM;
		}
		if (r < 0) {
			for (size_t j = 0; j < i; j++)
				free(strv[j]);
			free(strv);
			return r;
		}
	}
	*ret = strv;
	*ret_n = i;
	return 0;
}

int cni_dns_from_json(const json_t *obj, const char *path, struct cni_dns *ret,
		      struct cni_error *err)
{
	struct cni_dns d = {0};
	int r;

	path = path ? path : "dns";
	if (!json_is_object(obj))
		return bad_value(err, path, "", "a JSON object", obj);
	r = get_strv(obj, path, "nameservers", &d.nameservers, &d.n_nameservers, err);
	if (r >= 0)
		r = get_string_dup(obj, path, "domain", &d.domain, err);
	if (r >= 0)
		r = get_strv(obj, path, "search", &d.search, &d.n_search, err);
	if (r >= 0)
		r = get_strv(obj, path, "options", &d.options, &d.n_options, err);
	if (r < 0) {
		cni_dns_done(&d);
		return r;
	}
	*ret = d;
	return 0;
}

static int parse_cidr(const char *path, const char *key, const char *s, int family,
		      struct ip_prefix *ret, struct cni_error *err)
{
	char p[PATH_LEN];

	path_key(p, path, key);
	if (ip_prefix_parse(s, ret) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: not a CIDR: '%s'", p,
				  s);
	if (family && ret->family != family)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: '%s' is not an IPv%c address", p, s,
				  family == AF_INET ? '4' : '6');
	return 0;
}

/* An optional plain address that must have the family of `of` (named in messages). */
static int parse_gateway(const json_t *o, const char *path, const char *key,
			 const struct ip_prefix *of, bool *ret_has, union ip_addr *ret,
			 struct cni_error *err)
{
	char p[PATH_LEN], ofs[IP_PREFIX_STRLEN];
	const char *s;
	int family, r;

	r = get_string(o, path, key, false, &s, err);
	if (r < 0 || !s)
		return r;
	path_key(p, path, key);
	if (ip_addr_parse(s, &family, ret) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: not an IP address: '%s'", p, s);
	if (family != of->family)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: '%s' is not of the same family as '%s'", p, s,
				  ip_prefix_fmt(of, ofs));
	*ret_has = true;
	return 0;
}

/* Walk an array member of object entries, calling fn with each entry's path. */
static int parse_entries(const json_t *obj, const char *path, const char *key, entry_fn fn,
			 struct parse_state *st)
{
	char p[PATH_LEN], ep[PATH_LEN];
	const json_t *arr, *v;
	size_t i;
	int r;

	r = get_array(obj, path, key, &arr, st->err);
	if (r < 0 || !arr)
		return r;
	path_key(p, path, key);
	json_array_foreach (arr, i, v) {
		path_fmt(ep, "%s[%zu]", p, i);
		if (!json_is_object(v))
			return bad_value(st->err, ep, "", "a JSON object", v);
		r = fn(v, ep, st);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_iface(const json_t *o, const char *path, struct parse_state *st)
{
	const char *name, *mac, *sandbox;
	struct cni_iface *i;
	int r, idx;

	if ((r = get_string(o, path, "name", true, &name, st->err)) < 0 ||
	    (r = get_string(o, path, "mac", false, &mac, st->err)) < 0 ||
	    (r = get_string(o, path, "sandbox", false, &sandbox, st->err)) < 0)
		return r;
	idx = cni_result_add_iface(st->r, name, mac, sandbox);
	if (idx < 0)
		return idx;
	/* 0.3/0.4 interfaces have no such keys; the reference ignores them there. */
	if (!cni_version_is_100(st->version))
		return 0;
	i = &st->r->ifaces[idx];
	r = get_uint(o, path, "mtu", INT_MAX, NULL, &i->mtu, st->err);
	if (r >= 0)
		r = get_string_dup(o, path, "socketPath", &i->socket_path, st->err);
	if (r >= 0)
		r = get_string_dup(o, path, "pciID", &i->pci_id, st->err);
	return r;
}

/* 0.3.x/0.4.0: "version" is required and must agree with the address. */
static int check_ip_version(const json_t *o, const char *path, const struct cni_ip *ip,
			    struct cni_error *err)
{
	char p[PATH_LEN], a[IP_PREFIX_STRLEN];
	const char *ver;
	int r;

	r = get_string(o, path, "version", true, &ver, err);
	if (r < 0)
		return r;
	path_key(p, path, "version");
	if (!streq(ver, "4") && !streq(ver, "6"))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: must be \"4\" or \"6\": '%s'", p, ver);
	if ((ver[0] == '4') != (ip->address.family == AF_INET))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: '%s' does not match address '%s'", p, ver,
				  ip_prefix_fmt(&ip->address, a));
	return 0;
}

static int parse_ip(const json_t *o, const char *path, struct parse_state *st)
{
	struct cni_ip ip = {.interface = -1};
	const char *addr;
	unsigned idx;
	bool has_idx = false;
	char p[PATH_LEN];
	int r;

	r = get_string(o, path, "address", true, &addr, st->err);
	if (r < 0 || (r = parse_cidr(path, "address", addr, 0, &ip.address, st->err)) < 0)
		return r;
	r = parse_gateway(o, path, "gateway", &ip.address, &ip.has_gateway, &ip.gateway, st->err);
	if (r < 0)
		return r;
	if (cni_version_is_040(st->version) && (r = check_ip_version(o, path, &ip, st->err)) < 0)
		return r;
	r = get_uint(o, path, "interface", INT_MAX, &has_idx, &idx, st->err);
	if (r < 0)
		return r;
	if (has_idx && st->r->n_ifaces > 0 && idx >= st->r->n_ifaces) {
		path_key(p, path, "interface");
		return cni_errorf(st->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: index %u out of range (%zu interfaces)", p, idx,
				  st->r->n_ifaces);
	}
	if (has_idx)
		ip.interface = (int)idx;
	r = cni_result_add_ip(st->r, &ip);
	return r < 0 ? r : 0;
}

/*
 * A route. Legacy (0.1/0.2) routes carry only dst and gw, and their dst must
 * have the family of the ip4/ip6 section they sit in; richer versions share
 * the 1.1 route type, so its extra fields are read for 0.3/0.4 as well.
 */
static int parse_route(const json_t *o, const char *path, struct parse_state *st)
{
	struct cni_route rt = {0};
	const char *dst;
	int r;

	r = get_string(o, path, "dst", true, &dst, st->err);
	if (r < 0 || (r = parse_cidr(path, "dst", dst, st->family, &rt.dst, st->err)) < 0)
		return r;
	r = parse_gateway(o, path, "gw", &rt.dst, &rt.has_gw, &rt.gw, st->err);
	if (r < 0)
		return r;
	if (!cni_version_is_legacy(st->version)) {
		if ((r = get_uint(o, path, "mtu", INT_MAX, NULL, &rt.mtu, st->err)) < 0 ||
		    (r = get_uint(o, path, "advmss", INT_MAX, NULL, &rt.advmss, st->err)) < 0 ||
		    (r = get_uint(o, path, "priority", INT_MAX, NULL, &rt.priority, st->err)) < 0 ||
		    (r = get_uint(o, path, "table", INT_MAX, &rt.has_table, &rt.table, st->err)) <
			0 ||
		    (r = get_uint(o, path, "scope", 255, &rt.has_scope, &rt.scope, st->err)) < 0)
			return r;
	}
	r = cni_result_add_route(st->r, &rt);
	return r < 0 ? r : 0;
}

/* One "ip4"/"ip6" section of a 0.1/0.2 result: {ip, gateway?, routes?}. */
static int parse_legacy_section(const json_t *obj, const char *path, const char *key, int family,
				struct parse_state *st)
{
	const json_t *sec = member(obj, key);
	struct cni_ip ip = {.interface = -1};
	char p[PATH_LEN];
	const char *addr;
	int r;

	if (!sec)
		return 0;
	if (!json_is_object(sec))
		return bad_value(st->err, path, key, "a JSON object", sec);
	path_key(p, path, key);
	r = get_string(sec, p, "ip", true, &addr, st->err);
	if (r < 0 || (r = parse_cidr(p, "ip", addr, family, &ip.address, st->err)) < 0)
		return r;
	r = parse_gateway(sec, p, "gateway", &ip.address, &ip.has_gateway, &ip.gateway, st->err);
	if (r < 0 || (r = cni_result_add_ip(st->r, &ip)) < 0)
		return r;
	st->family = family;
	r = parse_entries(sec, p, "routes", parse_route, st);
	st->family = 0;
	return r;
}

static int parse_dns_member(const json_t *obj, const char *path, struct parse_state *st)
{
	const json_t *dns = member(obj, "dns");
	char p[PATH_LEN];

	if (!dns)
		return 0;
	path_key(p, path, "dns");
	return cni_dns_from_json(dns, p, &st->r->dns, st->err);
}

static int parse_body(const json_t *obj, const char *path, struct parse_state *st)
{
	int r;

	if (cni_version_is_legacy(st->version)) {
		/* ip4 first, then ip6: the order the reference's up-conversion uses. */
		r = parse_legacy_section(obj, path, "ip4", AF_INET, st);
		if (r >= 0)
			r = parse_legacy_section(obj, path, "ip6", AF_INET6, st);
	} else {
		/* interfaces before ips, so interface indexes can be checked. */
		r = parse_entries(obj, path, "interfaces", parse_iface, st);
		if (r >= 0)
			r = parse_entries(obj, path, "ips", parse_ip, st);
		if (r >= 0)
			r = parse_entries(obj, path, "routes", parse_route, st);
	}
	return r < 0 ? r : parse_dns_member(obj, path, st);
}

static int version_family(enum cni_version v)
{
	return cni_version_is_legacy(v) ? 0 : cni_version_is_040(v) ? 1 : 2;
}

/*
 * The result's own label must belong to the requested family (the
 * reference's ParsePrevResult check); a missing label means `version`.
 */
static int check_label(const json_t *obj, enum cni_version version, const char *path,
		       enum cni_version *ret, struct cni_error *err)
{
	enum cni_version have;
	const char *s;
	char p[PATH_LEN];
	int r;

	r = get_string(obj, path, "cniVersion", false, &s, err);
	/* Results before 1.0 may come unlabelled; the reference fills in the config's. */
	if (r < 0 || isempty(s)) {
		*ret = version;
		return r;
	}
	path_key(p, path, "cniVersion");
	if (cni_version_parse(s, &have) < 0 || version_family(have) != version_family(version))
		return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, -EINVAL,
				  "%s: result version '%s' is incompatible with version '%s'", p, s,
				  cni_version_str(version));
	*ret = have;
	return 0;
}

int cni_result_from_json(const json_t *obj, enum cni_version version, const char *path,
			 struct cni_result **ret, struct cni_error *err)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	struct parse_state st = {.err = err};
	enum cni_version label = version;
	int r;

	path = path ? path : "";
	if (version < 0 || version >= _CNI_V_MAX)
		return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, -EINVAL,
				  "%s: cannot parse a result of an unknown CNI version",
				  *path ? path : "result");
	if (!json_is_object(obj))
		return bad_value(err, *path ? path : "result", "", "a JSON object", obj);
	r = check_label(obj, version, path, &label, err);
	if (r < 0)
		return r;
	res = cni_result_new(label);
	if (!res)
		return -ENOMEM;
	st.r = res;
	st.version = label;
	r = parse_body(obj, path, &st);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(res);
	return 0;
}

int cni_result_from_json_any(const json_t *obj, enum cni_version fallback, const char *path,
			     struct cni_result **ret, struct cni_error *err)
{
	enum cni_version v = fallback;
	const char *s = NULL;
	char p[PATH_LEN];
	int r;

	path = path ? path : "";
	/* A plugin printing "null" produced an empty result (the reference's fixup). */
	if (json_is_null(obj)) {
		*ret = cni_result_new(fallback);
		return *ret ? 0 : -ENOMEM;
	}
	if (json_is_object(obj) && (r = get_string(obj, path, "cniVersion", false, &s, err)) < 0)
		return r;
	if (!isempty(s)) {
		path_key(p, path, "cniVersion");
		r = cni_version_parse(s, &v);
		if (r == -EINVAL)
			return cni_errorf(err, CNI_ERR_DECODE, r, "%s: invalid version '%s'", p, s);
		if (r < 0)
			return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, r,
					  "%s: unsupported version '%s'", p, s);
	}
	return cni_result_from_json(obj, v, path, ret, err);
}
