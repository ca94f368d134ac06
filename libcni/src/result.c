/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result model: construction, deep copy and destruction of struct
 * cni_result and struct cni_dns. Parsing is in result-parse.c, printing and
 * version conversion in result-print.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/result.h"

struct cni_result *cni_result_new(enum cni_version version)
{
	struct cni_result *r = calloc(1, sizeof(*r));

	if (r)
		r->version = version;
	return r;
}

static void iface_done(struct cni_iface *i)
{
	free(i->name);
	free(i->mac);
	free(i->sandbox);
	free(i->socket_path);
	free(i->pci_id);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void cni_dns_done(struct cni_dns *dns)
{
	if (!dns)
		return;
	strv_free(dns->nameservers, dns->n_nameservers);
	free(dns->domain);
	strv_free(dns->search, dns->n_search);
	strv_free(dns->options, dns->n_options);
	memset(dns, 0, sizeof(*dns));
}

struct cni_result *cni_result_free(struct cni_result *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n_ifaces; i++)
		iface_done(&r->ifaces[i]);
	free(r->ifaces);
	free(r->ips);
	free(r->routes);
	cni_dns_done(&r->dns);
	free(r);
	return NULL;
}

bool cni_dns_is_empty(const struct cni_dns *dns)
{
	return !dns || (dns->n_nameservers == 0 && isempty(dns->domain) && dns->n_search == 0 &&
			dns->n_options == 0);
}

/* strdup that maps NULL to NULL; sets *fail on allocation failure. */
static char *dup_opt(const char *s, bool *fail)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*fail = true;
	return d;
}

static int strv_copy(char ***dst, size_t *dst_n, char *const *src, size_t n)
{
	char **v;

	if (n == 0)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(src[i]);
		if (!v[i]) {
			strv_free(v, i);
			return -ENOMEM;
		}
	}
	*dst = v;
	*dst_n = n;
	return 0;
}

int cni_dns_copy(struct cni_dns *dst, const struct cni_dns *src)
{
	struct cni_dns d = {0};
	bool fail = false;

	if (strv_copy(&d.nameservers, &d.n_nameservers, src->nameservers, src->n_nameservers) < 0 ||
	    strv_copy(&d.search, &d.n_search, src->search, src->n_search) < 0 ||
	    strv_copy(&d.options, &d.n_options, src->options, src->n_options) < 0)
		fail = true;
	d.domain = dup_opt(src->domain, &fail);
	if (fail) {
		cni_dns_done(&d);
		return -ENOMEM;
	}
	*dst = d;
	return 0;
}

/* Grow an array by one zeroed element; returns the new element or NULL. */
static void *array_append(void **array, size_t *n, size_t size)
{
	char *p = reallocarray_safe(*array, *n + 1, size);

	if (!p)
		return NULL;
	*array = p;
	memset(p + *n * size, 0, size);
	return p + (*n)++ * size;
}

static int iface_set(struct cni_iface *dst, const struct cni_iface *src)
{
	bool fail = false;

	*dst = (struct cni_iface){
	    .name = dup_opt(src->name, &fail),
	    .mac = dup_opt(src->mac, &fail),
	    .mtu = src->mtu,
	    .sandbox = dup_opt(src->sandbox, &fail),
	    .socket_path = dup_opt(src->socket_path, &fail),
	    .pci_id = dup_opt(src->pci_id, &fail),
	};
	if (fail) {
		iface_done(dst);
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	return 0;
}

/* Append a deep copy of *src; returns its index or -ENOMEM. */
static int add_iface_full(struct cni_result *r, const struct cni_iface *src)
{
	struct cni_iface tmp;

	if (iface_set(&tmp, src) < 0)
		return -ENOMEM;
	if (!array_append((void **)&r->ifaces, &r->n_ifaces, sizeof(*r->ifaces))) {
		iface_done(&tmp);
		return -ENOMEM;
	}
	r->ifaces[r->n_ifaces - 1] = tmp;
	return (int)(r->n_ifaces - 1);
}

int cni_result_add_iface(struct cni_result *r, const char *name, const char *mac,
			 const char *sandbox)
{
	const struct cni_iface i = {
	    .name = (char *)name,
	    .mac = (char *)mac,
	    .sandbox = (char *)sandbox,
	};

	if (!name)
		return -EINVAL;
	return add_iface_full(r, &i);
}

int cni_result_add_ip(struct cni_result *r, const struct cni_ip *ip)
{
	struct cni_ip *p = array_append((void **)&r->ips, &r->n_ips, sizeof(*r->ips));

	if (!p)
		return -ENOMEM;
	*p = *ip;
	return (int)(r->n_ips - 1);
}

int cni_result_add_route(struct cni_result *r, const struct cni_route *route)
{
	struct cni_route *p = array_append((void **)&r->routes, &r->n_routes, sizeof(*r->routes));

	if (!p)
		return -ENOMEM;
	*p = *route;
	return (int)(r->n_routes - 1);
}

struct cni_result *cni_result_dup(const struct cni_result *r)
{
	struct cni_result *d = cni_result_new(r->version);

	if (!d)
		return NULL;
	for (size_t i = 0; i < r->n_ifaces; i++)
		if (add_iface_full(d, &r->ifaces[i]) < 0)
			return cni_result_free(d);
	for (size_t i = 0; i < r->n_ips; i++)
		if (cni_result_add_ip(d, &r->ips[i]) < 0)
			return cni_result_free(d);
	for (size_t i = 0; i < r->n_routes; i++)
		if (cni_result_add_route(d, &r->routes[i]) < 0)
			return cni_result_free(d);
	if (cni_dns_copy(&d->dns, &r->dns) < 0)
		return cni_result_free(d);
	return d;
}
