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

typedef int (*entry_fn)(const struct cni_conf_reader *rd, struct parse_state *st);

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

/* A result is read strictly: every bad value is an error (code 7). */
static struct cni_conf_reader reader(const json_t *obj, const char *path, struct cni_error *err)
{
	return (struct cni_conf_reader){.err = err, .obj = obj, .path = path};
}

static int missing(const struct cni_conf_reader *rd, const char *key)
{
	char p[PATH_LEN];

	path_key(p, rd->path, key);
	return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: missing", p);
}

/* Borrowed string member; NULL when absent (an error when required). */
static int get_string(const struct cni_conf_reader *rd, const char *key, bool required,
		      const char **ret)
{
	bool present = false;
	int r;

	*ret = NULL;
	r = cni_conf_get_string(rd, key, ret, &present);
	return r >= 0 && required && !present ? missing(rd, key) : r;
}

static int get_string_dup(const struct cni_conf_reader *rd, const char *key, char **ret)
{
	const char *s;
	int r = get_string(rd, key, false, &s);

	if (r < 0 || !s)
		return r;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* Array member, checked against the entry cap; NULL when absent. */
static int get_array(const struct cni_conf_reader *rd, const char *key, const json_t **ret)
{
	*ret = NULL;
	return cni_conf_get_array(rd, key, CNI_RESULT_MAX_ENTRIES, ret, NULL);
}

static int get_strv(const struct cni_conf_reader *rd, const char *key, char ***ret, size_t *ret_n)
{
	const json_t *arr, *v;
	char p[PATH_LEN], ep[PATH_LEN];
	char **strv;
	size_t i;
	int r;

	r = get_array(rd, key, &arr);
	if (r < 0 || !arr || json_array_size(arr) == 0)
		return r;
	path_key(p, rd->path, key);
	strv = calloc(json_array_size(arr), sizeof(*strv));
	if (!strv)
		return -ENOMEM;
	json_array_foreach (arr, i, v) {
		if (!json_is_string(v)) {
			const struct cni_conf_reader entry = cni_conf_at(rd, v, ep);

			path_fmt(ep, "%s[%zu]", p, i);
			r = cni_conf_bad_value(&entry, NULL, v, "expected a string");
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
	const struct cni_conf_reader rd = reader(obj, path ? path : "dns", err);
	struct cni_dns d = {0};
	int r;

	if (!json_is_object(obj))
		return cni_conf_bad_value(&rd, NULL, obj, "expected an object");
	r = get_strv(&rd, "nameservers", &d.nameservers, &d.n_nameservers);
	if (r >= 0)
		r = get_string_dup(&rd, "domain", &d.domain);
	if (r >= 0)
		r = get_strv(&rd, "search", &d.search, &d.n_search);
	if (r >= 0)
		r = get_strv(&rd, "options", &d.options, &d.n_options);
	if (r < 0) {
		cni_dns_done(&d);
		return r;
	}
	*ret = d;
	return 0;
}

/* A required CIDR of the family `family` (0: either). */
static int get_cidr(const struct cni_conf_reader *rd, const char *key, int family,
		    struct ip_prefix *ret)
{
	char p[PATH_LEN];
	const char *s;
	int r;

	r = get_string(rd, key, true, &s);
	if (r < 0)
		return r;
	path_key(p, rd->path, key);
	if (ip_prefix_parse(s, ret) < 0)
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: not a CIDR: '%s'",
				  p, s);
	if (family && ret->family != family)
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: '%s' is not an IPv%c address", p, s,
				  family == AF_INET ? '4' : '6');
	return 0;
}

/* An optional plain address that must have the family of `of` (named in messages). */
static int get_gateway(const struct cni_conf_reader *rd, const char *key,
		       const struct ip_prefix *of, bool *ret_has, union ip_addr *ret)
{
	char p[PATH_LEN], ofs[IP_PREFIX_STRLEN];
	const char *s;
	int family, r;

	r = get_string(rd, key, false, &s);
	if (r < 0 || !s)
		return r;
	path_key(p, rd->path, key);
	if (ip_addr_parse(s, &family, ret) < 0)
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: not an IP address: '%s'", p, s);
	if (family != of->family)
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: '%s' is not of the same family as '%s'", p, s,
				  ip_prefix_fmt(of, ofs));
	*ret_has = true;
	return 0;
}

/* Walk an array member of object entries, calling fn with a reader of each. */
static int parse_entries(const struct cni_conf_reader *rd, const char *key, entry_fn fn,
			 struct parse_state *st)
{
	char p[PATH_LEN], ep[PATH_LEN];
	const json_t *arr, *v;
	size_t i;
	int r;

	r = get_array(rd, key, &arr);
	if (r < 0 || !arr)
		return r;
	path_key(p, rd->path, key);
	json_array_foreach (arr, i, v) {
		const struct cni_conf_reader entry = cni_conf_at(rd, v, ep);

		path_fmt(ep, "%s[%zu]", p, i); /* entry's path */
		if (!json_is_object(v))
			return cni_conf_bad_value(&entry, NULL, v, "expected an object");
		r = fn(&entry, st);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_iface(const struct cni_conf_reader *rd, struct parse_state *st)
{
	const char *name, *mac, *sandbox;
	struct cni_iface *i;
	int r, idx;

	if ((r = get_string(rd, "name", true, &name)) < 0 ||
	    (r = get_string(rd, "mac", false, &mac)) < 0 ||
	    (r = get_string(rd, "sandbox", false, &sandbox)) < 0)
		return r;
	idx = cni_result_add_iface(st->r, name, mac, sandbox);
	if (idx < 0)
		return idx;
	/* 0.3/0.4 interfaces have no such keys; the reference ignores them there. */
	if (!cni_version_is_100(st->version))
		return 0;
	i = &st->r->ifaces[idx];
	r = cni_conf_get_uint(rd, "mtu", 0, INT_MAX, &i->mtu, NULL);
	if (r >= 0)
		r = get_string_dup(rd, "socketPath", &i->socket_path);
	if (r >= 0)
		r = get_string_dup(rd, "pciID", &i->pci_id);
	return r;
}

/* 0.3.x/0.4.0: "version" is required and must agree with the address. */
static int check_ip_version(const struct cni_conf_reader *rd, const struct cni_ip *ip)
{
	char p[PATH_LEN], a[IP_PREFIX_STRLEN];
	const char *ver;
	int r;

	r = get_string(rd, "version", true, &ver);
	if (r < 0)
		return r;
	path_key(p, rd->path, "version");
	if (!streq(ver, "4") && !streq(ver, "6"))
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: must be \"4\" or \"6\": '%s'", p, ver);
	if ((ver[0] == '4') != (ip->address.family == AF_INET))
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: '%s' does not match address '%s'", p, ver,
				  ip_prefix_fmt(&ip->address, a));
	return 0;
}

static int parse_ip(const struct cni_conf_reader *rd, struct parse_state *st)
{
	struct cni_ip ip = {.interface = -1};
	unsigned idx;
	bool has_idx = false;
	char p[PATH_LEN];
	int r;

	r = get_cidr(rd, "address", 0, &ip.address);
	if (r >= 0)
		r = get_gateway(rd, "gateway", &ip.address, &ip.has_gateway, &ip.gateway);
	if (r >= 0 && cni_version_is_040(st->version))
		r = check_ip_version(rd, &ip);
	if (r >= 0)
		r = cni_conf_get_uint(rd, "interface", 0, INT_MAX, &idx, &has_idx);
	if (r < 0)
		return r;
	if (has_idx && st->r->n_ifaces > 0 && idx >= st->r->n_ifaces) {
		path_key(p, rd->path, "interface");
		return cni_errorf(rd->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
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
static int parse_route(const struct cni_conf_reader *rd, struct parse_state *st)
{
	struct cni_route rt = {0};
	int r;

	r = get_cidr(rd, "dst", st->family, &rt.dst);
	if (r >= 0)
		r = get_gateway(rd, "gw", &rt.dst, &rt.has_gw, &rt.gw);
	if (r < 0)
		return r;
	if (!cni_version_is_legacy(st->version)) {
		if ((r = cni_conf_get_uint(rd, "mtu", 0, INT_MAX, &rt.mtu, NULL)) < 0 ||
		    (r = cni_conf_get_uint(rd, "advmss", 0, INT_MAX, &rt.advmss, NULL)) < 0 ||
		    (r = cni_conf_get_uint(rd, "priority", 0, INT_MAX, &rt.priority, NULL)) < 0 ||
		    (r = cni_conf_get_uint(rd, "table", 0, INT_MAX, &rt.table, &rt.has_table)) <
			0 ||
		    (r = cni_conf_get_uint(rd, "scope", 0, 255, &rt.scope, &rt.has_scope)) < 0)
			return r;
	}
	r = cni_result_add_route(st->r, &rt);
	return r < 0 ? r : 0;
}

/* One "ip4"/"ip6" section of a 0.1/0.2 result: {ip, gateway?, routes?}. */
static int parse_legacy_section(const struct cni_conf_reader *rd, const char *key, int family,
				struct parse_state *st)
{
	struct cni_ip ip = {.interface = -1};
	struct cni_conf_reader sec;
	const json_t *obj = NULL;
	char p[PATH_LEN];
	int r;

	r = cni_conf_get_object(rd, key, &obj, NULL);
	if (r < 0 || !obj)
		return r;
	path_key(p, rd->path, key);
	sec = cni_conf_at(rd, obj, p);
	r = get_cidr(&sec, "ip", family, &ip.address);
	if (r >= 0)
		r = get_gateway(&sec, "gateway", &ip.address, &ip.has_gateway, &ip.gateway);
	if (r < 0 || (r = cni_result_add_ip(st->r, &ip)) < 0)
		return r;
	st->family = family;
	r = parse_entries(&sec, "routes", parse_route, st);
	st->family = 0;
	return r;
}

static int parse_dns_member(const struct cni_conf_reader *rd, struct parse_state *st)
{
	const json_t *dns = json_object_get(rd->obj, "dns");
	char p[PATH_LEN];

	if (!dns || json_is_null(dns))
		return 0;
	path_key(p, rd->path, "dns");
	return cni_dns_from_json(dns, p, &st->r->dns, st->err);
}

static int parse_body(const struct cni_conf_reader *rd, struct parse_state *st)
{
	int r;

	if (cni_version_is_legacy(st->version)) {
		/* ip4 first, then ip6: the order the reference's up-conversion uses. */
		r = parse_legacy_section(rd, "ip4", AF_INET, st);
		if (r >= 0)
			r = parse_legacy_section(rd, "ip6", AF_INET6, st);
	} else {
		/* interfaces before ips, so interface indexes can be checked. */
		r = parse_entries(rd, "interfaces", parse_iface, st);
		if (r >= 0)
			r = parse_entries(rd, "ips", parse_ip, st);
		if (r >= 0)
			r = parse_entries(rd, "routes", parse_route, st);
	}
	return r < 0 ? r : parse_dns_member(rd, st);
}

static int version_family(enum cni_version v)
{
	return cni_version_is_legacy(v) ? 0 : cni_version_is_040(v) ? 1 : 2;
}

/*
 * The result's own label must belong to the requested family (the
 * reference's ParsePrevResult check); a missing label means `version`.
 */
static int check_label(const struct cni_conf_reader *rd, enum cni_version version,
		       enum cni_version *ret)
{
	enum cni_version have;
	const char *s;
	char p[PATH_LEN];
	int r;

	r = get_string(rd, "cniVersion", false, &s);
	/* Results before 1.0 may come unlabelled; the reference fills in the config's. */
	if (r < 0 || isempty(s)) {
		*ret = version;
		return r;
	}
	path_key(p, rd->path, "cniVersion");
	if (cni_version_parse(s, &have) < 0 || version_family(have) != version_family(version))
		return cni_errorf(rd->err, CNI_ERR_INCOMPATIBLE_VERSION, -EINVAL,
				  "%s: result version '%s' is incompatible with version '%s'", p, s,
				  cni_version_str(version));
	*ret = have;
	return 0;
}

int cni_result_from_json(const json_t *obj, enum cni_version version, const char *path,
			 struct cni_result **ret, struct cni_error *err)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	const struct cni_conf_reader rd = reader(obj, path ? path : "", err);
	struct parse_state st = {.err = err};
	enum cni_version label = version;
	const char *name = *rd.path ? rd.path : "result";
	int r;

	if (version < 0 || version >= _CNI_V_MAX)
		return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, -EINVAL,
				  "%s: cannot parse a result of an unknown CNI version", name);
	if (!json_is_object(obj))
		return cni_conf_bad_value(&(struct cni_conf_reader){.err = err, .path = name}, NULL,
					  obj, "expected an object");
	r = check_label(&rd, version, &label);
	if (r < 0)
		return r;
	res = cni_result_new(label);
	if (!res)
		return -ENOMEM;
	st.r = res;
	st.version = label;
	r = parse_body(&rd, &st);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(res);
	return 0;
}

int cni_result_from_json_any(const json_t *obj, enum cni_version fallback, const char *path,
			     struct cni_result **ret, struct cni_error *err)
{
	const struct cni_conf_reader rd = reader(obj, path ? path : "", err);
	enum cni_version v = fallback;
	const char *s = NULL;
	char p[PATH_LEN];
	int r;

	/* A plugin printing "null" produced an empty result (the reference's fixup). */
	if (json_is_null(obj)) {
		*ret = cni_result_new(fallback);
		return *ret ? 0 : -ENOMEM;
	}
	if (json_is_object(obj) && (r = get_string(&rd, "cniVersion", false, &s)) < 0)
		return r;
	if (!isempty(s)) {
		path_key(p, rd.path, "cniVersion");
		r = cni_version_parse(s, &v);
		if (r == -EINVAL)
			return cni_errorf(err, CNI_ERR_DECODE, r, "%s: invalid version '%s'", p, s);
		if (r < 0)
			return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, r,
					  "%s: unsupported version '%s'", p, s);
	}
	return cni_result_from_json(obj, v, path, ret, err);
}
