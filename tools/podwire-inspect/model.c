/* SPDX-License-Identifier: Apache-2.0 */
/* The inventory: attachments keyed by (container ID, ifname), file errors, leaks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/runtime.h"
#include "inspect.h"

void pi_inv_init(struct pi_inv *inv)
{
	*inv = (struct pi_inv){0};
}

static void free_each(char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

static void strv_free(char **v, size_t n)
{
	free_each(v, n);
	free(v);
}

void pi_counters_done(struct pi_counters *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	*c = (struct pi_counters){0};
}

static void att_done(struct pi_att *a)
{
	char *v[] = {a->container_id, a->ifname,   a->network, a->netns, a->pod_namespace,
		     a->pod_name,     a->pod_uid,  a->vf_pci,  a->pf,	 a->rdma_dev,
		     a->rdma_error,   a->check_msg};

	free_each(v, ARRAY_SIZE(v));
	strv_free(a->plugins, a->n_plugins);
	strv_free(a->files, a->n_files);
	free(a->file_src);
	strv_free(a->ips, a->n_ips);
	strv_free(a->problems, a->n_problems);
	if (a->cache)
		cni_cache_entry_free(a->cache);
	for (size_t i = 0; i < a->n_rdma_ports; i++) {
		free(a->rdma_ports[i].state);
		free(a->rdma_ports[i].link_layer);
		pi_counters_done(&a->rdma_ports[i].counters);
		pi_counters_done(&a->rdma_ports[i].hw_counters);
	}
	free(a->rdma_ports);
}

static void leak_done(struct pi_leak *l)
{
	char *v[] = {l->kind, l->object, l->reason, l->container_id, l->ifname, l->network};

	free_each(v, ARRAY_SIZE(v));
}

static void lost_done(struct pi_lost_vf *l)
{
	char *v[] = {l->file,	      l->pci,	 l->pf,	     l->netdev,	  l->mac,
		     l->container_id, l->ifname, l->network, l->rdma_dev, l->reason};

	free_each(v, ARRAY_SIZE(v));
}

void pi_inv_done(struct pi_inv *inv)
{
	bool keep = inv->keep_cache;

	for (size_t i = 0; i < inv->n_atts; i++)
		att_done(&inv->atts[i]);
	free(inv->atts);
	for (size_t i = 0; i < inv->n_errors; i++) {
		free(inv->errors[i].path);
		free(inv->errors[i].msg);
	}
	free(inv->errors);
	for (size_t i = 0; i < inv->n_leaks; i++)
		leak_done(&inv->leaks[i]);
	free(inv->leaks);
	for (size_t i = 0; i < inv->n_lost; i++)
		lost_done(&inv->lost[i]);
	free(inv->lost);
	strv_free(inv->stray_veths, inv->n_stray_veths);
	pi_inv_init(inv);
	inv->keep_cache = keep;
}

/* Make room for one more element of size sz in *v (count n, capacity *cap). */
static int grow(void **v, size_t n, size_t *cap, size_t sz)
{
	size_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	p = reallocarray_safe(*v, c, sz);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * sz, 0, (c - *cap) * sz);
	*v = p;
	*cap = c;
	return 0;
}

struct pi_att *pi_inv_find(const struct pi_inv *inv, const char *container_id, const char *ifname)
{
	for (size_t i = 0; i < inv->n_atts; i++) {
		struct pi_att *a = &inv->atts[i];

		if (streq(a->container_id, container_id) && streq(a->ifname, ifname))
			return a;
	}
	return NULL;
}

struct pi_att *pi_inv_get(struct pi_inv *inv, const char *container_id, const char *ifname)
{
	struct pi_att *a = pi_inv_find(inv, container_id, ifname);

	if (a)
		return a;
	if (grow((void **)&inv->atts, inv->n_atts, &inv->cap_atts, sizeof(*a)) < 0)
		return NULL;
	a = &inv->atts[inv->n_atts];
	*a = (struct pi_att){0};
	a->container_id = strdup(container_id);
	a->ifname = strdup(ifname);
	if (!a->container_id || !a->ifname) {
		att_done(a);
		return NULL;
	}
	inv->n_atts++;
	return a;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int att_cmp(const void *pa, const void *pb)
{
	const struct pi_att *a = pa, *b = pb;
	int r = cmp_str(a->pod_namespace, b->pod_namespace);

	if (!r)
		r = cmp_str(a->pod_name, b->pod_name);
	if (!r)
		r = cmp_str(a->container_id, b->container_id);
	if (!r)
		r = cmp_str(a->ifname, b->ifname);
	return r;
}

void pi_inv_sort(struct pi_inv *inv)
{
	if (inv->n_atts > 1)
		qsort(inv->atts, inv->n_atts, sizeof(*inv->atts), att_cmp);
}

int pi_inv_file_error(struct pi_inv *inv, const char *path, const char *fmt, ...)
{
	struct pi_file_error *e;
	va_list ap;
	int r;

	if (grow((void **)&inv->errors, inv->n_errors, &inv->cap_errors, sizeof(*e)) < 0)
		return -ENOMEM;
	e = &inv->errors[inv->n_errors];
	va_start(ap, fmt);
	r = vasprintf(&e->msg, fmt, ap);
	va_end(ap);
	e->path = strdup(path);
	if (r < 0 || !e->path) {
		if (r >= 0)
			free(e->msg);
		free(e->path);
		*e = (struct pi_file_error){0};
		return -ENOMEM;
	}
	inv->n_errors++;
	return 0;
}

static char *strdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct pi_lost_vf *pi_inv_add_lost(struct pi_inv *inv)
{
	if (grow((void **)&inv->lost, inv->n_lost, &inv->cap_lost, sizeof(*inv->lost)) < 0)
		return NULL;
	return &inv->lost[inv->n_lost++];
}

int pi_inv_leak(struct pi_inv *inv, const char *kind, const char *object, const char *reason,
		const struct pi_att *tag)
{
	struct pi_leak *l;

	if (grow((void **)&inv->leaks, inv->n_leaks, &inv->cap_leaks, sizeof(*l)) < 0)
		return -ENOMEM;
	l = &inv->leaks[inv->n_leaks];
	l->kind = strdup(kind);
	l->object = strdup(object);
	l->reason = strdup(reason);
	if (tag) {
		l->container_id = strdup_or_null(tag->container_id);
		l->ifname = strdup_or_null(tag->ifname);
		l->network = strdup_or_null(tag->network);
	}
	if (!l->kind || !l->object || !l->reason) {
		leak_done(l);
		*l = (struct pi_leak){0};
		return -ENOMEM;
	}
	inv->n_leaks++;
	return 0;
}

int pi_set_str(char **slot, const char *s)
{
	if (*slot || !s || !*s)
		return 0;
	*slot = strdup(s);
	return *slot ? 0 : -ENOMEM;
}

/* Append a copy of s to (*v, *n) unless already there. */
static int strv_add_unique(char ***v, size_t *n, const char *s)
{
	char **p;

	for (size_t i = 0; i < *n; i++)
		if (streq((*v)[i], s))
			return 0;
	p = reallocarray_safe(*v, *n + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	p[*n] = strdup(s);
	if (!p[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int pi_att_add_file(struct pi_att *a, const char *path, unsigned src)
{
	size_t n = a->n_files;
	unsigned *p;
	int r = strv_add_unique(&a->files, &a->n_files, path);

	if (r < 0 || a->n_files == n)
		return r;
	p = reallocarray_safe(a->file_src, a->n_files, sizeof(*p));
	if (!p) {
		free(a->files[--a->n_files]);
		return -ENOMEM;
	}
	a->file_src = p;
	p[n] = src;
	return 0;
}

int pi_att_add_ip(struct pi_att *a, const char *ip)
{
	return strv_add_unique(&a->ips, &a->n_ips, ip);
}

int pi_att_add_plugin(struct pi_att *a, const char *type)
{
	char **p = reallocarray_safe(a->plugins, a->n_plugins + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	a->plugins = p;
	p[a->n_plugins] = strdup(type);
	if (!p[a->n_plugins])
		return -ENOMEM;
	a->n_plugins++;
	return 0;
}

int pi_att_add_problem(struct pi_att *a, const char *fmt, ...)
{
	_cleanup_free_ char *s = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		s = NULL;
		return -ENOMEM;
	}
	return strv_add_unique(&a->problems, &a->n_problems, s);
}

bool pi_att_has_plugin(const struct pi_att *a, const char *type)
{
	for (size_t i = 0; i < a->n_plugins; i++)
		if (streq(a->plugins[i], type))
			return true;
	return false;
}

const char *pi_att_health(const struct pi_att *a)
{
	if (a->n_problems || a->check == PI_CHECK_FAILED)
		return "degraded";
	return "ok";
}

const char *pi_att_device(const struct pi_att *a)
{
	if (a->host_ifname[0])
		return a->host_ifname;
	if (a->vf_pci)
		return a->vf_pci;
	return "";
}

int pi_counters_add(struct pi_counters *c, const char *name, uint64_t value)
{
	struct pi_counter *p = reallocarray_safe(c->v, c->n + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	c->v = p;
	p[c->n].name = strdup(name);
	if (!p[c->n].name)
		return -ENOMEM;
	p[c->n].value = value;
	c->n++;
	return 0;
}

const struct pi_counter *pi_counters_find(const struct pi_counters *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (streq(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}
