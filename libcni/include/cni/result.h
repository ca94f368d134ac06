/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One result model for every CNI version. Parsing reads the shape of the
 * declared version; printing writes the shape of the target version, with
 * the conversions of the spec's table (1.1 <-> 1.0 <-> 0.4/0.3.x <-> 0.2/0.1).
 *
 * Ownership: a struct cni_result owns every string and array it points to;
 * cni_result_free() releases all of it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/ipaddr.h"
#include "cni/error.h"
#include "cni/version.h"

struct cni_iface {
	char *name;	   /* always set */
	char *mac;	   /* optional */
	unsigned mtu;	   /* 1.1; 0 = unset */
	char *sandbox;	   /* optional: netns path for pod interfaces */
	char *socket_path; /* 1.1, optional */
	char *pci_id;	   /* 1.1, optional */
};

struct cni_ip {
	struct ip_prefix address; /* host address with the subnet's prefix length */
	bool has_gateway;
	union ip_addr gateway; /* same family as address */
	int interface;	       /* index into ifaces, -1 = none */
};

struct cni_route {
	struct ip_prefix dst;
	bool has_gw;
	union ip_addr gw;		/* same family as dst */
	unsigned mtu, advmss, priority; /* 0 = unset */
	bool has_table;
	unsigned table;
	bool has_scope;
	unsigned scope;
};

struct cni_dns {
	char **nameservers;
	size_t n_nameservers;
	char *domain;
	char **search;
	size_t n_search;
	char **options;
	size_t n_options;
};

struct cni_result {
	enum cni_version version; /* version it was parsed from / built for */
	struct cni_iface *ifaces;
	size_t n_ifaces;
	struct cni_ip *ips;
	size_t n_ips;
	struct cni_route *routes;
	size_t n_routes;
	struct cni_dns dns;
};

/* Caps on counts accepted from JSON (untrusted input). */
#define CNI_RESULT_MAX_ENTRIES 1024

struct cni_result *cni_result_new(enum cni_version version);
struct cni_result *cni_result_free(struct cni_result *r);
static inline void cni_result_freep(struct cni_result **r)
{
	if (*r)
		cni_result_free(*r);
}
void cni_dns_done(struct cni_dns *dns);
bool cni_dns_is_empty(const struct cni_dns *dns);
/* Deep copy src into an empty dst. Returns 0 or -ENOMEM. */
int cni_dns_copy(struct cni_dns *dst, const struct cni_dns *src);

/*
 * Parse a DNS object ({nameservers, domain, search, options}); `path` names
 * it in error messages (e.g. "dns", "ipam.dns"). Returns 0, or a negative
 * errno with err set (code 7 for wrong types).
 */
int cni_dns_from_json(const json_t *obj, const char *path, struct cni_dns *ret,
		      struct cni_error *err);
json_t *cni_dns_to_json(const struct cni_dns *dns);

/* Append entries; return the index of the new entry (>= 0) or -ENOMEM. */
int cni_result_add_iface(struct cni_result *r, const char *name, const char *mac,
			 const char *sandbox);
int cni_result_add_ip(struct cni_result *r, const struct cni_ip *ip);
int cni_result_add_route(struct cni_result *r, const struct cni_route *route);

/* ---- queries and edits (result-query.c) ---- */
/* The gateway of the first IP of `family` that has one, or NULL. */
const union ip_addr *cni_result_family_gw(const struct cni_result *r, int family);
/* Does r carry an IP of `family`? */
bool cni_result_has_family(const struct cni_result *r, int family);
/* Take over an IPAM result's ips, routes and DNS (ipam keeps dst's old ones). */
void cni_result_take_ipam(struct cni_result *dst, struct cni_result *ipam);
struct cni_conf;
/* The config's top-level "dns", when set and not empty, replaces r's. 0 or -ENOMEM. */
int cni_result_apply_conf_dns(struct cni_result *r, const struct cni_conf *conf);
/* Replace the MAC of ifaces[idx]. 0, -EINVAL (no such entry) or -ENOMEM. */
int cni_result_set_iface_mac(struct cni_result *r, size_t idx, const char *mac);
/* The addresses (with prefix) of r's ips; *ret owned, NULL/0 when none. 0 or -ENOMEM. */
int cni_result_addrs(const struct cni_result *r, struct ip_prefix **ret, size_t *ret_n);

/* Deep copy. Returns NULL on allocation failure. */
struct cni_result *cni_result_dup(const struct cni_result *r);

/*
 * Parse a result in the shape of `version` (the config's version for
 * prevResult; "the result's own cniVersion if present" is the caller's
 * choice). A result labelled with another family than `version` is refused,
 * as the reference does. `path` prefixes messages (e.g. "prevResult").
 * Returns 0 and *ret, or a negative errno with err set: code 7 for a bad
 * value (the message starts with the JSON path), code 1 for a result of
 * another version family or an unknown version.
 */
int cni_result_from_json(const json_t *obj, enum cni_version version, const char *path,
			 struct cni_result **ret, struct cni_error *err);

/*
 * Parse a result using its own "cniVersion" (missing -> `fallback`), as a
 * runtime does with a plugin's stdout.
 */
int cni_result_from_json_any(const json_t *obj, enum cni_version fallback, const char *path,
			     struct cni_result **ret, struct cni_error *err);

/*
 * Build the JSON of `r` in the shape of `target`, with "cniVersion" set to
 * target. Fails (-EINVAL, code 100-class message "cannot convert: no valid IP
 * addresses") when a legacy (0.1/0.2) target has no IP. Returns 0 and a new
 * reference in *ret.
 */
int cni_result_to_json(const struct cni_result *r, enum cni_version target, json_t **ret,
		       struct cni_error *err);
