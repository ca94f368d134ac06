/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Printing a result in the shape of a target version, which is where the
 * version conversions of the spec happen:
 *  - 1.0.0/1.1.0: the full model; 1.1 interface and route fields are kept
 *    for 1.0.0 too (the reference uses one type for both); empty dns omitted;
 *  - 0.3.0/0.3.1/0.4.0: ips[] gain "version", interfaces lose mtu/socketPath/
 *    pciID, routes keep their extra fields, "dns" is always present;
 *  - 0.1.0/0.2.0: the first IPv4 and first IPv6 address become ip4/ip6, each
 *    route (dst and gw only) joins the section of its family when that
 *    section exists; no address at all cannot be expressed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/result.h"

/* Steals v; -ENOMEM when v is NULL or the insertion fails. */
static int set_new(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

static int append_new(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) < 0 ? -ENOMEM : 0;
}

/* Why json_string() failed: invalid UTF-8 (-EILSEQ) or memory (-ENOMEM). */
static int string_error(const char *s)
{
	json_t *probe;

	if (!s)
		return -EINVAL;
	probe = json_stringn_nocheck(s, strlen(s));
	if (!probe)
		return -ENOMEM;
	json_decref(probe);
	return -EILSEQ;
}

/* String member; -EILSEQ for text that is not UTF-8 (a netns path can be anything). */
static int set_str(json_t *o, const char *key, const char *s)
{
	json_t *v = json_string(s);

	if (!v)
		return string_error(s);
	return set_new(o, key, v);
}

static int set_uint(json_t *o, const char *key, unsigned v)
{
	return set_new(o, key, json_integer((json_int_t)v));
}

static int set_addr(json_t *o, const char *key, int family, const union ip_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	return set_str(o, key, ip_addr_fmt(family, a, buf));
}

static int set_prefix(json_t *o, const char *key, const struct ip_prefix *p)
{
	char buf[IP_PREFIX_STRLEN];

	return set_str(o, key, ip_prefix_fmt(p, buf));
}

static int set_opt_str(json_t *o, const char *key, const char *s)
{
	return isempty(s) ? 0 : set_str(o, key, s);
}

static int set_opt_uint(json_t *o, const char *key, unsigned v)
{
	return v ? set_uint(o, key, v) : 0;
}

static int set_strv(json_t *o, const char *key, char *const *v, size_t n)
{
	_cleanup_(json_decrefp) json_t *a = NULL;
	json_t *s;

	if (n == 0)
		return 0;
	a = json_array();
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s = json_string(v[i]);
		if (!s)
			return string_error(v[i]);
		if (append_new(a, s) < 0)
			return -ENOMEM;
	}
	return set_new(o, key, TAKE_PTR(a));
}

static int dns_fill(json_t *o, const struct cni_dns *dns)
{
	int r;

	if ((r = set_strv(o, "nameservers", dns->nameservers, dns->n_nameservers)) < 0 ||
	    (r = set_opt_str(o, "domain", dns->domain)) < 0 ||
	    (r = set_strv(o, "search", dns->search, dns->n_search)) < 0 ||
	    (r = set_strv(o, "options", dns->options, dns->n_options)) < 0)
		return r;
	return 0;
}

json_t *cni_dns_to_json(const struct cni_dns *dns)
{
	_cleanup_(json_decrefp) json_t *o = json_object();

	if (!o || dns_fill(o, dns) < 0)
		return NULL;
	return TAKE_PTR(o);
}

static int iface_fill(json_t *o, const struct cni_iface *i, bool full)
{
	int r;

	if ((r = set_str(o, "name", i->name ? i->name : "")) < 0 ||
	    (r = set_opt_str(o, "mac", i->mac)) < 0 ||
	    (r = set_opt_str(o, "sandbox", i->sandbox)) < 0)
		return r;
	if (!full)
		return 0;
	if ((r = set_opt_uint(o, "mtu", i->mtu)) < 0 ||
	    (r = set_opt_str(o, "socketPath", i->socket_path)) < 0 ||
	    (r = set_opt_str(o, "pciID", i->pci_id)) < 0)
		return r;
	return 0;
}

static int ip_fill(json_t *o, const struct cni_ip *ip, bool with_version)
{
	int r;

	if (with_version &&
	    (r = set_str(o, "version", ip->address.family == AF_INET ? "4" : "6")) < 0)
		return r;
	if ((r = set_prefix(o, "address", &ip->address)) < 0)
		return r;
	if (ip->has_gateway && (r = set_addr(o, "gateway", ip->address.family, &ip->gateway)) < 0)
		return r;
	if (ip->interface >= 0 && (r = set_uint(o, "interface", (unsigned)ip->interface)) < 0)
		return r;
	return 0;
}

/* dst and gw always; with `full` the 1.1 fields, mtu/advmss/priority only when set. */
static int route_fill(json_t *o, const struct cni_route *rt, bool full)
{
	int r;

	if ((r = set_prefix(o, "dst", &rt->dst)) < 0)
		return r;
	if (rt->has_gw && (r = set_addr(o, "gw", rt->dst.family, &rt->gw)) < 0)
		return r;
	if (!full)
		return 0;
	if ((r = set_opt_uint(o, "mtu", rt->mtu)) < 0 ||
	    (r = set_opt_uint(o, "advmss", rt->advmss)) < 0 ||
	    (r = set_opt_uint(o, "priority", rt->priority)) < 0)
		return r;
	if (rt->has_table && (r = set_uint(o, "table", rt->table)) < 0)
		return r;
	if (rt->has_scope && (r = set_uint(o, "scope", rt->scope)) < 0)
		return r;
	return 0;
}

/*
 * Append one object per selected entry to a new array member `key` (omitted
 * when nothing is selected). fill() formats entry i; keep(), when given,
 * selects entries.
 */
struct entry_list {
	const struct cni_result *r;
	bool flag;  /* fill's variant: full fields / with version */
	int family; /* legacy routes: keep only this dst family */
};

typedef int (*fill_fn)(json_t *o, const struct entry_list *l, size_t i);

static int set_list(json_t *parent, const char *key, size_t n, fill_fn fill,
		    const struct entry_list *l)
{
	_cleanup_(json_decrefp) json_t *a = json_array();
	int r;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		_cleanup_(json_decrefp) json_t *o = json_object();

		if (!o)
			return -ENOMEM;
		r = fill(o, l, i);
		if (r < 0)
			return r;
		if (r > 0 && append_new(a, TAKE_PTR(o)) < 0) /* r == 0: skipped */
			return -ENOMEM;
	}
	if (json_array_size(a) == 0)
		return 0;
	return set_new(parent, key, TAKE_PTR(a));
}

/* fill callbacks return 1 when the entry was written, 0 to skip it. */
static int fill_iface(json_t *o, const struct entry_list *l, size_t i)
{
	int r = iface_fill(o, &l->r->ifaces[i], l->flag);

	return r < 0 ? r : 1;
}

static int fill_ip(json_t *o, const struct entry_list *l, size_t i)
{
	int r = ip_fill(o, &l->r->ips[i], l->flag);

	return r < 0 ? r : 1;
}

static int fill_route(json_t *o, const struct entry_list *l, size_t i)
{
	const struct cni_route *rt = &l->r->routes[i];
	int r;

	if (l->family && rt->dst.family != l->family)
		return 0;
	r = route_fill(o, rt, l->flag);
	return r < 0 ? r : 1;
}

/* 1.x and 0.3/0.4 share one layout; `v100` picks the details. */
static int rich_fill(json_t *o, const struct cni_result *r, bool v100)
{
	struct entry_list l = {.r = r, .flag = v100};
	json_t *dns;
	int ret;

	ret = set_list(o, "interfaces", r->n_ifaces, fill_iface, &l);
	if (ret < 0)
		return ret;
	l.flag = !v100; /* ips carry "version" before 1.0 */
	ret = set_list(o, "ips", r->n_ips, fill_ip, &l);
	if (ret < 0)
		return ret;
	l.flag = true; /* every rich version keeps all route fields */
	ret = set_list(o, "routes", r->n_routes, fill_route, &l);
	if (ret < 0)
		return ret;
	if (v100 && cni_dns_is_empty(&r->dns))
		return 0;
	dns = json_object();
	if (!dns)
		return -ENOMEM;
	if ((ret = dns_fill(dns, &r->dns)) < 0) {
		json_decref(dns);
		return ret;
	}
	return set_new(o, "dns", dns);
}

static const struct cni_ip *first_ip(const struct cni_result *r, int family)
{
	for (size_t i = 0; i < r->n_ips; i++)
		if (r->ips[i].address.family == family)
			return &r->ips[i];
	return NULL;
}

/* "ip4"/"ip6": {ip, gateway?, routes?} with the routes of that family. */
static int legacy_section(json_t *o, const char *key, const struct cni_result *r,
			  const struct cni_ip *ip)
{
	struct entry_list l = {.r = r, .flag = false, .family = ip->address.family};
	_cleanup_(json_decrefp) json_t *sec = json_object();
	int ret;

	if (!sec)
		return -ENOMEM;
	if ((ret = set_prefix(sec, "ip", &ip->address)) < 0)
		return ret;
	if (ip->has_gateway &&
	    (ret = set_addr(sec, "gateway", ip->address.family, &ip->gateway)) < 0)
		return ret;
	if ((ret = set_list(sec, "routes", r->n_routes, fill_route, &l)) < 0)
		return ret;
	return set_new(o, key, TAKE_PTR(sec));
}

static int legacy_fill(json_t *o, const struct cni_result *r, struct cni_error *err)
{
	const struct cni_ip *ip4 = first_ip(r, AF_INET), *ip6 = first_ip(r, AF_INET6);
	json_t *dns;
	int ret;

	if (!ip4 && !ip6)
		return cni_errorf(err, CNI_ERR_PLUGIN, -EINVAL,
				  "cannot convert: no valid IP addresses");
	if (ip4 && (ret = legacy_section(o, "ip4", r, ip4)) < 0)
		return ret;
	if (ip6 && (ret = legacy_section(o, "ip6", r, ip6)) < 0)
		return ret;
	dns = cni_dns_to_json(&r->dns);
	return dns ? set_new(o, "dns", dns) : -ENOMEM;
}

/* A result built by plugin code must have real addresses before it is printed. */
static int check_families(const struct cni_result *r, struct cni_error *err)
{
	for (size_t i = 0; i < r->n_ips; i++)
		if (r->ips[i].address.family != AF_INET && r->ips[i].address.family != AF_INET6)
			return cni_errorf(err, CNI_ERR_PLUGIN, -EINVAL,
					  "result: ips[%zu] has no address", i);
	for (size_t i = 0; i < r->n_routes; i++)
		if (r->routes[i].dst.family != AF_INET && r->routes[i].dst.family != AF_INET6)
			return cni_errorf(err, CNI_ERR_PLUGIN, -EINVAL,
					  "result: routes[%zu] has no destination", i);
	return 0;
}

int cni_result_to_json(const struct cni_result *r, enum cni_version target, json_t **ret,
		       struct cni_error *err)
{
	_cleanup_(json_decrefp) json_t *o = NULL;
	int rc;

	if (target < 0 || target >= _CNI_V_MAX)
		return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, -EINVAL,
				  "cannot convert a result to an unknown CNI version");
	rc = check_families(r, err);
	if (rc < 0)
		return rc;
	o = json_object();
	if (!o || set_str(o, "cniVersion", cni_version_str(target)) < 0)
		return -ENOMEM;
	if (cni_version_is_legacy(target))
		rc = legacy_fill(o, r, err);
	else
		rc = rich_fill(o, r, cni_version_is_100(target));
	if (rc == -EILSEQ)
		return cni_errorf(err, CNI_ERR_PLUGIN, rc,
				  "cannot print result: a string is not valid UTF-8");
	if (rc < 0)
		return rc;
	*ret = TAKE_PTR(o);
	return 0;
}
