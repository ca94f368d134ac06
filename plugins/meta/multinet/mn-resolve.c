/* SPDX-License-Identifier: Apache-2.0 */
/*
 * From config, pod and NADs to the list of delegates: the cluster network
 * (eth0), defaultNetworks, then the pod's networks (net1..N).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/file.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"

static int read_file(const char *path, size_t max, char **ret, size_t *ret_len,
		     struct cni_error *err)
{
	/* Symlinks are followed: conf dirs hold links to conflists. */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int r = fd < 0 ? -errno : fd_read_all(fd, max, ret);

	if (r == -EFBIG)
		return cni_errorf(err, CNI_ERR_IO, r, "'%s' is larger than %zu bytes", path, max);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot read '%s': %s", path, strerror(-r));
	*ret_len = (size_t)r;
	return 0;
}

/* A loaded list (sibling-dir plugins merged) as one conflist object. */
static json_t *list_json(const struct cni_netconf_list *l)
{
	json_t *o = json_loadb(l->bytes, l->n_bytes, JSON_REJECT_DUPLICATES, NULL), *plugins;

	if (!json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	plugins = json_array();
	for (size_t i = 0; i < l->n_plugins; i++)
		json_array_append(plugins, l->plugins[i]);
	json_object_set_new(o, "plugins", plugins);
	json_object_del(o, "type");
	return o;
}

static bool conf_ext(const char *n)
{
	const char *dot = strrchr(n, '.');

	return dot && (streq(dot, ".conf") || streq(dot, ".conflist") || streq(dot, ".json"));
}

static int first_in_dir(const char *dir, char **ret, struct cni_error *err)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	int r = -ENOENT;

	if (n < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -errno, "cannot list '%s'", dir);
	for (int i = 0; i < n; i++) {
		if (r == -ENOENT && conf_ext(names[i]->d_name) &&
		    asprintf(ret, "%s/%s", dir, names[i]->d_name) >= 0)
			r = 0;
		free(names[i]);
	}
	free(names);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, r, "no network config in '%s'", dir);
	return 0;
}

/* clusterNetwork / defaultNetworks given as a file or directory path. */
static int load_path(const char *ref, struct mn_delegate *d, struct cni_error *err)
{
	_cleanup_free_ char *file = NULL, *buf = NULL;
	struct stat st;
	json_t *conf = NULL;
	size_t len;
	int r;

	if (stat(ref, &st) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -errno,
				  "network '%s': no such file or directory", ref);
	if (S_ISDIR(st.st_mode) && (r = first_in_dir(ref, &file, err)) < 0)
		return r;
	if (!file && !(file = strdup(ref)))
		return -ENOMEM;
	if ((r = read_file(file, 1u << 20, &buf, &len, err)) < 0 ||
	    (r = cni_json_loadb(buf, len, file, &conf, err)) < 0)
		return r;
	r = mn_delegate_set_conf(d, conf, NULL, NULL, file, err);
	json_decref(conf);
	return r;
}

static int load_confdir(const char *dir, const char *name, struct mn_delegate *d,
			struct cni_error *err)
{
	struct cni_netconf_list *l = NULL;
	json_t *o;
	int r;

	if ((r = cni_netconf_list_load(dir, name, &l, err)) < 0)
		return r;
	o = list_json(l);
	cni_netconf_list_free(l);
	if (!o)
		return -ENOMEM;
	r = mn_delegate_set_conf(d, o, name, NULL, name, err);
	json_decref(o);
	return r;
}

/* A NAD's config: spec.config (JSON text), or confDir by the NAD's name. */
static int nad_conf(struct mn_call *c, const json_t *nad, const char *ns, const char *name,
		    struct mn_delegate *d, const json_t *cni_args)
{
	struct cni_error *err = &c->ctx->err;
	const char *text =
	    json_string_value(json_object_get(json_object_get(nad, "spec"), "config"));
	char what[300];
	json_t *conf = NULL;
	int r;

	snprintf(what, sizeof(what), "network %s/%s", ns, name);
	if (!text || isempty(text)) {
		r = load_confdir(c->conf.conf_dir, name, d, err);
		return r < 0 ? cni_error_wrapf(err, r, "%s: empty spec.config", what) : r;
	}
	if ((r = cni_json_loadb(text, strlen(text), what, &conf, err)) < 0) {
		err->code = CNI_ERR_INVALID_CONFIG;
		return cni_error_wrapf(err, r, "%s: spec.config is not valid JSON", what);
	}
	r = mn_delegate_set_conf(d, conf, name, cni_args, what, err);
	json_decref(conf);
	return r;
}

static int set_display(struct mn_delegate *d, const char *ns, const char *name)
{
	if (ns)
		return asprintf(&d->display, "%s/%s", ns, name) < 0 ? -ENOMEM : 0;
	return (d->display = strdup(name)) ? 0 : -ENOMEM;
}

int mn_lenient(struct mn_call *c, int r, const char *consequence)
{
	struct cni_error *err = &c->ctx->err;

	if (r >= 0 || r == -ENOMEM || !c->lenient)
		return r;
	if (err->code == CNI_ERR_TRY_AGAIN)
		c->apiserver_down = true;
	cni_log_warning("%s: %s, ignoring", err->msg ? err->msg : strerror(-r), consequence);
	cni_error_done(err);
	return 0;
}

/*
 * Resolving the delegate just pushed failed: lenient, it stays in the plan
 * marked unresolved until the interface names are given (so the others
 * keep the numbers ADD gave them), then drop_unresolved removes it.
 */
static int skip_last(struct mn_call *c, struct mn_plan *p, int r)
{
	if (r >= 0 || r == -ENOMEM || !c->lenient)
		return r;
	p->d[p->n - 1].unresolved = true;
	return mn_lenient(c, r, "that network is not deleted");
}

static void drop_unresolved(struct mn_plan *p)
{
	for (size_t i = p->n; i-- > 0;)
		if (p->d[i].unresolved)
			mn_plan_remove(p, i);
}

static int sel_device(struct mn_call *c, struct mn_delegate *d, const json_t *nad,
		      const struct mn_sel *s, struct cni_error *err);

/* clusterNetwork / defaultNetworks entry: NAD in multusNamespace, confDir, path. */
static int resolve_named(struct mn_call *c, const char *ref, struct mn_delegate *d)
{
	struct cni_error *err = &c->ctx->err;
	json_t *nad = NULL;
	int r;

	if (strchr(ref, '/')) {
		if ((r = load_path(ref, d, err)) < 0)
			return r;
		return set_display(d, NULL, d->list->name);
	}
	if (c->k8s) {
		struct cni_error tmp = {0};

		r = mn_k8s_get_nad(c->k8s, c->conf.multus_namespace, ref, &nad, &tmp);
		if (r < 0)
			cni_log_info("network %s: NAD lookup failed (%s), trying %s", ref,
				     tmp.msg ? tmp.msg : "?", c->conf.conf_dir);
		cni_error_done(&tmp);
	}
	if (nad) {
		/* resourceName works on the cluster network's NAD too (Multus #501). */
		if ((r = set_display(d, NULL, ref)) >= 0 &&
		    (r = sel_device(c, d, nad, NULL, err)) >= 0)
			r = nad_conf(c, nad, c->conf.multus_namespace, ref, d, NULL);
		d->display = mfree(d->display);
		json_decref(nad);
	} else {
		r = load_confdir(c->conf.conf_dir, ref, d, err);
	}
	if (r < 0)
		return cni_error_wrapf(err, r, "network '%s'", ref);
	return set_display(d, NULL, ref);
}

static int resolve_master(struct mn_call *c, struct mn_plan *p)
{
	struct mn_delegate *d;
	const json_t *e;
	size_t i;
	int r;

	if (c->conf.cluster_network) {
		if (!(d = mn_plan_push(p)))
			return -ENOMEM;
		d->master = true;
		return skip_last(c, p, resolve_named(c, c->conf.cluster_network, d));
	}
	json_array_foreach (c->conf.delegates, i, e) {
		char what[32];

		snprintf(what, sizeof(what), "delegates[%zu]", i);
		if (!(d = mn_plan_push(p)))
			return -ENOMEM;
		d->master = i == 0;
		r = mn_delegate_set_conf(d, e, NULL, NULL, what, &c->ctx->err);
		if (r >= 0)
			r = set_display(d, NULL, d->list->name);
		if ((r = skip_last(c, p, r)) < 0)
			return r;
	}
	return 0;
}

int mn_resolve_master(struct mn_call *c, struct mn_plan *p)
{
	int r = resolve_master(c, p);

	drop_unresolved(p);
	return r;
}

int mn_resolve_master_early(struct mn_call *c, struct mn_plan *p)
{
	int r;

	if (p->n > 0 || (c->conf.cluster_network && !strchr(c->conf.cluster_network, '/')))
		return 0;
	r = mn_resolve_master(c, p);
	return r < 0 ? r : 1;
}

static bool in_system_ns(const struct mn_call *c, const struct mn_plan *p)
{
	return p->pod.namespace && mn_strv_contains(&c->conf.system_namespaces, p->pod.namespace);
}

/*
 * Capability args of a pod network; a request no plugin declares is an
 * error (strict) or left out (lenient: DEL needs no capability check).
 */
static int sel_caps(struct mn_delegate *d, const struct mn_sel *s, bool strict,
		    struct cni_error *err)
{
	struct {
		const char *cap;
		json_t *v;
	} req[] = {
	    {"portMappings", s->port_mappings},
	    {"bandwidth", s->bandwidth},
	    {"ips", s->ips},
	    {"mac", s->mac ? json_string(s->mac) : NULL},
	    {"infinibandGUID", s->infiniband_guid ? json_string(s->infiniband_guid) : NULL},
	};
	int r = 0;

	d->cap_args = json_object();
	for (size_t i = 0; i < ARRAY_SIZE(req); i++) {
		if (!req[i].v)
			continue;
		bool declared = mn_delegate_has_cap(d, req[i].cap);

		if (r == 0 && !declared && strict)
			r = cni_errorf(err, CNI_ERR_UNSUPPORTED_FIELD, -EINVAL,
				       "network %s: the pod asks for '%s' but no plugin of the "
				       "network declares the '%s' capability",
				       d->display, req[i].cap, req[i].cap);
		if (r == 0 && declared)
			json_object_set(d->cap_args, req[i].cap, req[i].v);
		if (i >= 3)
			json_decref(req[i].v);
	}
	return r;
}

static int load_devices(struct mn_call *c, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	if (c->devices_loaded)
		return 0;
	if ((r = read_file(c->conf.device_checkpoint, 16u << 20, &buf, &len, err)) < 0)
		return cni_error_wrapf(err, r, "deviceCheckpoint");
	if ((r = mn_checkpoint_parse(buf, len, c->pod_uid, c->conf.device_checkpoint, &c->devices,
				     err)) < 0)
		return r;
	c->devices_loaded = true;
	return 0;
}

static int sel_device(struct mn_call *c, struct mn_delegate *d, const json_t *nad,
		      const struct mn_sel *s, struct cni_error *err)
{
	const char *res = mn_k8s_annotation(nad, MN_ANNOT_RESOURCE), *dev;
	int r;

	if (!res) {
		if (s && s->device_id && !(d->device_id = strdup(s->device_id)))
			return -ENOMEM;
		return 0;
	}
	if ((r = load_devices(c, err)) < 0)
		return mn_lenient(c, r, "its DEL runs without a device");
	dev = mn_devices_take(&c->devices, res);
	if (!dev)
		return mn_lenient(
		    c,
		    cni_errorf(err, CNI_ERR_INVALID_CONFIG, -ENOENT,
			       "network %s: resource '%s' has no device left for pod %s (%s)",
			       d->display, res, c->pod_uid ? c->pod_uid : "?",
			       c->conf.device_checkpoint),
		    "its DEL runs without a device");
	if (!(d->device_id = strdup(dev)) || !(d->resource_name = strdup(res)))
		return -ENOMEM;
	return 0;
}

static int resolve_sel(struct mn_call *c, struct mn_plan *p, const struct mn_sel *s)
{
	struct cni_error *err = &c->ctx->err;
	struct mn_delegate *d = mn_plan_push(p);
	json_t *nad = NULL;
	int r;

	if (!d)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -E2BIG, "more than %d networks",
				  MN_MAX_NETWORKS);
	if ((r = set_display(d, s->namespace, s->name)) < 0)
		return r;
	/* Before anything can fail: a lenient DEL still numbers the others by it. */
	if (s->ifname && !(d->ifname_request = strdup(s->ifname)))
		return -ENOMEM;
	if (c->conf.namespace_isolation && !streq(s->namespace, p->pod.namespace) &&
	    !mn_strv_contains(&c->conf.global_namespaces, s->namespace))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EPERM,
				  "network %s: namespaceIsolation: pod in namespace '%s' may not "
				  "use networks of namespace '%s'",
				  d->display, p->pod.namespace, s->namespace);
	if ((r = mn_k8s_get_nad(c->k8s, s->namespace, s->name, &nad, err)) < 0)
		return cni_error_wrapf(err, r, "network %s", d->display);
	if (r == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -ENOENT,
				  "network %s: NetworkAttachmentDefinition not found", d->display);
	r = sel_device(c, d, nad, s, err);
	if (r >= 0)
		r = nad_conf(c, nad, s->namespace, s->name, d, s->cni_args);
	json_decref(nad);
	if (r < 0)
		return r;
	if (s->default_route && !(d->default_route = json_deep_copy(s->default_route)))
		return -ENOMEM;
	return sel_caps(d, s, !c->lenient, err);
}

static int resolve_pod_networks(struct mn_call *c, struct mn_plan *p)
{
	const char *v = c->pod ? mn_k8s_annotation(c->pod, MN_ANNOT_NETWORKS) : NULL;
	struct mn_sel *sels = NULL;
	size_t n = 0;
	int r;

	if (!v)
		return 0;
	if ((r = mn_annot_parse(v, p->pod.namespace, &sels, &n, &c->ctx->err)) < 0) {
		cni_error_wrapf(&c->ctx->err, r, "pod %s/%s", p->pod.namespace, p->pod.name);
		return mn_lenient(c, r, "the pod's networks are not deleted");
	}
	for (size_t i = 0; i < n && r >= 0; i++) {
		size_t before = p->n;

		r = resolve_sel(c, p, &sels[i]);
		if (r < 0 && p->n > before) {
			r = skip_last(c, p, r);
		} else if (r < 0) {
			/* Nothing pushed (too many networks): none of the rest fits either. */
			r = mn_lenient(c, r, "the pod's other networks are not deleted");
			break;
		}
	}
	mn_sels_free(sels, n);
	return r;
}

/* The network a v1.multus-cni.io/default-network selection names, into d. */
static int load_override(struct mn_call *c, const struct mn_sel *s, struct mn_delegate *d)
{
	struct cni_error *err = &c->ctx->err;
	json_t *nad = NULL;
	int r = mn_k8s_get_nad(c->k8s, s->namespace, s->name, &nad, err);

	if (r == 0)
		r = cni_errorf(err, CNI_ERR_INVALID_CONFIG, -ENOENT,
			       MN_ANNOT_DEFAULT_NET ": network %s/%s: NetworkAttachmentDefinition "
						    "not found",
			       s->namespace, s->name);
	if (r > 0) {
		d->master = true;
		r = set_display(d, s->namespace, s->name);
		if (r >= 0)
			r = sel_device(c, d, nad, NULL, err);
		if (r >= 0)
			r = nad_conf(c, nad, s->namespace, s->name, d, NULL);
	}
	json_decref(nad);
	return r;
}

/* Make d the cluster network (element 0), replacing the configured one if there. */
static int set_master(struct mn_plan *p, struct mn_delegate *d)
{
	if (p->n > 0 && p->d[0].master) {
		d->cap_args = TAKE_PTR(p->d[0].cap_args);
		mn_delegate_done(&p->d[0]);
	} else {
		/* Lenient: the configured one could not be resolved; insert in front. */
		if (!mn_plan_push(p))
			return -ENOMEM;
		memmove(&p->d[1], &p->d[0], (p->n - 1) * sizeof(p->d[0]));
	}
	p->d[0] = *d;
	*d = (struct mn_delegate){0};
	return 0;
}

/*
 * v1.multus-cni.io/default-network: exactly one network (namespace defaults
 * to multusNamespace) replaces the cluster network.
 */
static int resolve_default_override(struct mn_call *c, struct mn_plan *p)
{
	const char *v = c->pod ? mn_k8s_annotation(c->pod, MN_ANNOT_DEFAULT_NET) : NULL;
	struct cni_error *err = &c->ctx->err;
	struct mn_delegate d = {0};
	struct mn_sel *sels = NULL;
	size_t n = 0;
	int r;

	if (!v)
		return 0;
	if ((r = mn_annot_parse(v, c->conf.multus_namespace, &sels, &n, err)) < 0)
		cni_error_wrapf(err, r, MN_ANNOT_DEFAULT_NET);
	else if (n != 1)
		r = cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			       MN_ANNOT_DEFAULT_NET ": exactly one network, got %zu", n);
	else
		r = load_override(c, &sels[0], &d);
	mn_sels_free(sels, n);
	if (r >= 0)
		r = set_master(p, &d);
	mn_delegate_done(&d);
	return mn_lenient(c, r, "the configured cluster network is deleted instead");
}

/* eth0 (CNI_IFNAME) for the master, the request, else net<position>. */
static int assign_ifnames(struct mn_call *c, struct mn_plan *p)
{
	int r;

	for (size_t i = 0; i < p->n; i++) {
		struct mn_delegate *d = &p->d[i];

		if (d->ifname_request)
			d->ifname = strdup(d->ifname_request);
		else if (d->master)
			d->ifname = strdup(p->ifname);
		else if (asprintf(&d->ifname, "net%zu", i) < 0)
			d->ifname = NULL;
		if (!d->ifname)
			return -ENOMEM;
		for (size_t j = 0; j < i && !d->unresolved; j++) {
			if (p->d[j].unresolved || !streq(p->d[j].ifname, d->ifname))
				continue;
			r = cni_errorf(&c->ctx->err, CNI_ERR_INVALID_CONFIG, -EEXIST,
				       "network %s: interface '%s' is already used by network %s",
				       d->display, d->ifname, p->d[j].display);
			/* Lenient: ADD refused this plan, so it ran nothing of it. */
			if ((r = mn_lenient(c, r, "that network is not deleted")) < 0)
				return r;
			d->unresolved = true;
		}
	}
	return 0;
}

int mn_resolve(struct mn_call *c, struct mn_plan *p)
{
	int r;

	if (p->n == 0 && (r = resolve_master(c, p)) < 0)
		return r;
	if (c->conf.runtime_config && p->n > 0 && p->d[0].master &&
	    !(p->d[0].cap_args = json_deep_copy(c->conf.runtime_config)))
		return -ENOMEM;
	if (!in_system_ns(c, p)) {
		for (size_t i = 0; i < c->conf.default_networks.n; i++) {
			struct mn_delegate *d = mn_plan_push(p);

			if (!d)
				return -ENOMEM;
			r = skip_last(c, p, resolve_named(c, c->conf.default_networks.v[i], d));
			if (r < 0)
				return r;
		}
	}
	if (c->k8s &&
	    ((r = resolve_default_override(c, p)) < 0 || (r = resolve_pod_networks(c, p)) < 0))
		return r;
	r = assign_ifnames(c, p);
	drop_unresolved(p);
	return r;
}
