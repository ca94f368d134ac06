/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pod's k8s.v1.cni.cncf.io/networks annotation: the comma form
 * "[ns/]name[@ifname], ..." and the JSON form (an array of selection
 * objects, multi-net-spec 4.1.2.1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "base/ipaddr.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "multinet.h"

static const char *const sel_keys[] = {
    "name",
    "namespace",
    "interface",
    "interfaceRequest",
    "ips",
    "mac",
    "infiniband-guid",
    "portMappings",
    "bandwidth",
    "cni-args",
    "default-route",
    "deviceID",
    "ipam-claim-reference",
    NULL,
};

bool mn_dns_label(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 63)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';

		if (!ok || (c == '-' && (i == 0 || i == n - 1)))
			return false;
	}
	return true;
}

bool mn_valid_hwaddr(const char *s)
{
	size_t n = s ? strlen(s) : 0, bytes;
	char sep;

	if (n < 17 || (n + 1) % 3 != 0)
		return false;
	bytes = (n + 1) / 3;
	if (bytes != 6 && bytes != 8 && bytes != 20)
		return false;
	sep = s[2];
	if (sep != ':' && sep != '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (i % 3 == 2) {
			if (s[i] != sep)
				return false;
		} else if (hex_digit(s[i]) < 0) {
			return false;
		}
	}
	return true;
}

void mn_sels_free(struct mn_sel *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct mn_sel *s = &v[i];

		free(s->name);
		free(s->namespace);
		free(s->ifname);
		free(s->mac);
		free(s->infiniband_guid);
		free(s->device_id);
		json_decref(s->ips);
		json_decref(s->port_mappings);
		json_decref(s->bandwidth);
		json_decref(s->cni_args);
		json_decref(s->default_route);
	}
	free(v);
}

static int sel_err(struct cni_error *err, size_t i, const char *key, const json_t *v,
		   const char *why)
{
	_cleanup_free_ char *repr = v ? cni_json_repr(v) : NULL;

	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  MN_ANNOT_NETWORKS ": element %zu: %s %s%s%s", i, key, why,
			  repr ? ": " : "", repr ? repr : "");
}

/* One comma-form item "[ns/]name[@ifname]" (already trimmed). */
static int parse_comma_item(const char *item, size_t i, const char *pod_ns, struct mn_sel *s,
			    struct cni_error *err)
{
	const char *slash = strchr(item, '/'), *at = strchr(item, '@');
	const char *name = item;
	_cleanup_free_ char *ns = NULL;

	if ((slash && strchr(slash + 1, '/')) || (at && strchr(at + 1, '@')) ||
	    (slash && at && slash > at))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  MN_ANNOT_NETWORKS ": element %zu: '%s' is not [namespace/]name"
						    "[@interface]",
				  i, item);
	if (slash) {
		if (!(ns = strndup(item, (size_t)(slash - item))))
			return -ENOMEM;
		name = slash + 1;
	}
	s->name = at ? strndup(name, (size_t)(at - name)) : strdup(name);
	s->namespace = strdup(ns ? ns : pod_ns);
	if (!s->name || !s->namespace)
		return -ENOMEM;
	if (!mn_dns_label(s->name))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  MN_ANNOT_NETWORKS ": element %zu: name '%s' is not a DNS-1123 "
						    "label",
				  i, s->name);
	if (ns && !mn_dns_label(ns))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  MN_ANNOT_NETWORKS ": element %zu: namespace '%s' is not a "
						    "DNS-1123 label",
				  i, ns);
	if (at) {
		if (!cni_valid_ifname(at + 1))
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  MN_ANNOT_NETWORKS ": element %zu: interface '%s' is "
							    "not a valid interface name",
					  i, at + 1);
		if (!(s->ifname = strdup(at + 1)))
			return -ENOMEM;
	}
	return 0;
}

/* Split on ',' keeping empty items (strtok would skip them). */
static int parse_comma(const char *value, const char *pod_ns, struct mn_sel **ret, size_t *ret_n,
		       struct cni_error *err)
{
	struct mn_sel *v = NULL;
	size_t n = 0;
	int r = 0;

	for (const char *s = value; r >= 0;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		_cleanup_free_ char *tok = NULL;
		struct mn_sel *nv;

		while (len > 0 && ascii_isspace(*s))
			s++, len--;
		while (len > 0 && ascii_isspace(s[len - 1]))
			len--;
		if (n >= MN_MAX_NETWORKS) {
			r = cni_errorf(err, CNI_ERR_INVALID_CONFIG, -E2BIG,
				       MN_ANNOT_NETWORKS ": more than %d networks",
				       MN_MAX_NETWORKS);
			break;
		}
		if (!(tok = strndup(s, len)) || !(nv = reallocarray_safe(v, n + 1, sizeof(*v)))) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		memset(&v[n], 0, sizeof(v[n]));
		n++;
		if (len == 0)
			r = cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				       MN_ANNOT_NETWORKS ": element %zu is empty", n - 1);
		else
			r = parse_comma_item(tok, n - 1, pod_ns, &v[n - 1], err);
		if (!end)
			break;
		s = end + 1;
	}
	if (r < 0) {
		mn_sels_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Optional string member; "" counts as absent. */
static int opt_str(const json_t *o, const char *key, size_t i, char **ret, struct cni_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return sel_err(err, i, key, v, "must be a string");
	if (json_string_length(v) == 0)
		return 0;
	if (strlen(json_string_value(v)) != json_string_length(v))
		return sel_err(err, i, key, NULL, "contains a NUL byte");
	return (*ret = strdup(json_string_value(v))) ? 0 : -ENOMEM;
}

/* Array of IP strings; with_prefix allows "addr/len". */
static int addr_list(const json_t *o, const char *key, size_t i, bool with_prefix, json_t **ret,
		     struct cni_error *err)
{
	const json_t *v = json_object_get(o, key), *e;
	size_t j;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > 16)
		return sel_err(err, i, key, v, "must be an array of at most 16 addresses");
	json_array_foreach (v, j, e) {
		struct ip_prefix p;
		int fam;
		union ip_addr a;

		if (!json_is_string(e))
			return sel_err(err, i, key, e, "entries must be strings");
		if (with_prefix ? ip_prefix_parse_full(json_string_value(e), true, &p) < 0
				: ip_addr_parse(json_string_value(e), &fam, &a) < 0)
			return sel_err(err, i, key, e, "is not a valid IP address");
	}
	*ret = json_deep_copy(v);
	return *ret ? 0 : -ENOMEM;
}

static int opt_json(const json_t *o, const char *key, size_t i, bool array, json_t **ret,
		    struct cni_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (array ? !json_is_array(v) : !json_is_object(v))
		return sel_err(err, i, key, v, array ? "must be an array" : "must be an object");
	*ret = json_deep_copy(v);
	return *ret ? 0 : -ENOMEM;
}

static int parse_names(const json_t *o, size_t i, const char *pod_ns, struct mn_sel *s,
		       struct cni_error *err)
{
	int r;

	if ((r = opt_str(o, "name", i, &s->name, err)) < 0 ||
	    (r = opt_str(o, "namespace", i, &s->namespace, err)) < 0)
		return r;
	if (!s->name)
		return sel_err(err, i, "name", NULL, "is required");
	if (!mn_dns_label(s->name))
		return sel_err(err, i, "name", json_object_get(o, "name"),
			       "is not a DNS-1123 label");
	if (s->namespace && !mn_dns_label(s->namespace))
		return sel_err(err, i, "namespace", json_object_get(o, "namespace"),
			       "is not a DNS-1123 label");
	if (!s->namespace && !(s->namespace = strdup(pod_ns)))
		return -ENOMEM;
	if ((r = opt_str(o, "interface", i, &s->ifname, err)) < 0)
		return r;
	if (!s->ifname && (r = opt_str(o, "interfaceRequest", i, &s->ifname, err)) < 0)
		return r;
	if (s->ifname && !cni_valid_ifname(s->ifname))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  MN_ANNOT_NETWORKS ": element %zu: interface '%s' is not a valid "
						    "interface name",
				  i, s->ifname);
	return 0;
}

static int parse_json_elem(const json_t *o, size_t i, const char *pod_ns, struct mn_sel *s,
			   struct cni_error *err)
{
	int r;

	if (!json_is_object(o))
		return sel_err(err, i, "element", o, "must be an object");
	/* a pod's annotation, not config: an unknown key stays a warning */
	(void)cni_conf_check_keys(
	    &(struct cni_conf_reader){
		.err = err, .obj = o, .path = MN_ANNOT_NETWORKS, .lenient = true},
	    sel_keys, false);
	if ((r = parse_names(o, i, pod_ns, s, err)) < 0)
		return r;
	if ((r = opt_str(o, "mac", i, &s->mac, err)) < 0 ||
	    (r = opt_str(o, "infiniband-guid", i, &s->infiniband_guid, err)) < 0 ||
	    (r = opt_str(o, "deviceID", i, &s->device_id, err)) < 0)
		return r;
	if (s->mac && !mn_valid_hwaddr(s->mac))
		return sel_err(err, i, "mac", json_object_get(o, "mac"),
			       "is not a hardware address");
	if (s->infiniband_guid && !mn_valid_hwaddr(s->infiniband_guid))
		return sel_err(err, i, "infiniband-guid", json_object_get(o, "infiniband-guid"),
			       "is not a hardware address");
	if ((r = addr_list(o, "ips", i, true, &s->ips, err)) < 0 ||
	    (r = addr_list(o, "default-route", i, false, &s->default_route, err)) < 0 ||
	    (r = opt_json(o, "portMappings", i, true, &s->port_mappings, err)) < 0 ||
	    (r = opt_json(o, "bandwidth", i, false, &s->bandwidth, err)) < 0 ||
	    (r = opt_json(o, "cni-args", i, false, &s->cni_args, err)) < 0)
		return r;
	return 0;
}

static int parse_json(const char *value, const char *pod_ns, struct mn_sel **ret, size_t *ret_n,
		      struct cni_error *err)
{
	json_t *root = NULL;
	struct mn_sel *v;
	size_t n, i;
	int r;

	r = cni_json_loadb(value, strlen(value), MN_ANNOT_NETWORKS, &root, err);
	if (r < 0) {
		err->code = CNI_ERR_INVALID_CONFIG;
		return r;
	}
	if (!json_is_array(root) || json_array_size(root) == 0 ||
	    json_array_size(root) > MN_MAX_NETWORKS) {
		json_decref(root);
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  MN_ANNOT_NETWORKS ": the JSON form must be a non-empty array of "
						    "at most %d objects",
				  MN_MAX_NETWORKS);
	}
	n = json_array_size(root);
	v = calloc(n, sizeof(*v));
	if (!v) {
		json_decref(root);
		return -ENOMEM;
	}
	for (i = 0, r = 0; i < n && r >= 0; i++)
		r = parse_json_elem(json_array_get(root, i), i, pod_ns, &v[i], err);
	json_decref(root);
	if (r < 0) {
		mn_sels_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int mn_annot_parse(const char *value, const char *pod_ns, struct mn_sel **ret, size_t *ret_n,
		   struct cni_error *err)
{
	*ret = NULL;
	*ret_n = 0;
	if (!value || value[strspn(value, " \t\r\n")] == '\0')
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  MN_ANNOT_NETWORKS ": empty value");
	if (!pod_ns || isempty(pod_ns))
		pod_ns = "default";
	if (strpbrk(value, "[{\""))
		return parse_json(value, pod_ns, ret, ret_n, err);
	return parse_comma(value, pod_ns, ret, ret_n, err);
}
