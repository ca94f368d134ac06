/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multinet's own cache, <cniDir>/<containerID> (kind "multinetCacheV1"):
 * the pod, the CNI_ARGS given to delegates, and per delegate its full
 * config as executed, capability args, device, default-route request,
 * state and result. Enough for DEL, CHECK and GC without the apiserver.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "multinet.h"

#define MN_CACHE_KIND "multinetCacheV1"
#define MN_CACHE_MAX (16u << 20)

/* <cniDir>/<containerID>. Owned. */
static char *mn_cache_path(const char *cni_dir, const char *container_id)
{
	char *p;

	return asprintf(&p, "%s/%s", cni_dir, container_id) < 0 ? NULL : p;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *delegate_json(const struct mn_delegate *d)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(d->display));
	json_object_set_new(o, "ifname", json_string(d->ifname));
	json_object_set_new(o, "ifnameRequest", str_or_null(d->ifname_request));
	json_object_set_new(o, "master", json_boolean(d->master));
	json_object_set(o, "config", d->conf);
	json_object_set_new(o, "capabilityArgs",
			    d->cap_args ? json_incref(d->cap_args) : json_null());
	json_object_set_new(o, "deviceID", str_or_null(d->device_id));
	json_object_set_new(o, "resourceName", str_or_null(d->resource_name));
	json_object_set_new(o, "deviceInfoFile", str_or_null(d->devinfo_file));
	json_object_set_new(o, "defaultRoute",
			    d->default_route ? json_incref(d->default_route) : json_null());
	json_object_set_new(o, "state", json_string(d->state == MN_ADDED ? "added" : "pending"));
	json_object_set_new(o, "result", d->result ? json_incref(d->result) : json_null());
	return o;
}

static json_t *plan_json(const struct mn_plan *p)
{
	json_t *o = json_object(), *args = json_array(), *ds = json_array();

	for (size_t i = 0; i < p->n_args; i++)
		json_array_append_new(args, json_pack("[ss]", p->args[i].key, p->args[i].value));
	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(ds, delegate_json(&p->d[i]));
	json_object_set_new(o, "kind", json_string(MN_CACHE_KIND));
	json_object_set_new(o, "containerId", json_string(p->container_id));
	json_object_set_new(o, "netns", str_or_null(p->netns));
	json_object_set_new(o, "ifname", str_or_null(p->ifname));
	json_object_set_new(o, "pod",
			    json_pack("{s:o,s:o,s:o}", "namespace", str_or_null(p->pod.namespace),
				      "name", str_or_null(p->pod.name), "uid",
				      str_or_null(p->pod.uid)));
	json_object_set_new(o, "cniArgs", args);
	json_object_set_new(o, "delegates", ds);
	return o;
}

int mn_cache_write(const char *cni_dir, const struct mn_plan *p, bool durable,
		   struct cni_error *err)
{
	_cleanup_free_ char *text = NULL, *line = NULL;
	_cleanup_close_ int dfd = -1;
	json_t *o = plan_json(p);
	int r;

	/* One line: the journal's document (mn_cache_update appends to it). */
	text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!text || asprintf(&line, "%s\n", text) < 0)
		return -ENOMEM;
	r = file_mkdir_parents(cni_dir, 0700);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cniDir: cannot create '%s': %s", cni_dir,
				  strerror(-r));
	dfd = open(cni_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = dfd < 0 ? -errno
		    : file_replace_at(dfd, p->container_id, line, strlen(line), 0600, durable);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cache: cannot write '%s/%s'", cni_dir,
				  p->container_id);
	if (durable)
		(void)fsync(dfd);
	return 0;
}

/* The journal lines {"index":i,"value":<delegate i>} of delegates [from, to). */
static char *update_lines(const struct mn_plan *p, size_t from, size_t to)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool ok = f;

	for (size_t i = from; ok && i < to; i++) {
		json_t *u = json_pack("{s:I,s:o}", "index", (json_int_t)i, "value",
				      delegate_json(&p->d[i]));

		ok = u && json_dumpf(u, f, JSON_COMPACT) == 0 && fputc('\n', f) != EOF;
		json_decref(u);
	}
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
		text = mfree(text);
	return text;
}

int mn_cache_update(const char *cni_dir, const struct mn_plan *p, size_t from, size_t to,
		    struct cni_error *err)
{
	_cleanup_free_ char *path = mn_cache_path(cni_dir, p->container_id);
	_cleanup_free_ char *text = update_lines(p, from, to);
	_cleanup_close_ int fd = -1;
	int r;

	if (!path || !text)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return cni_errorf(err, CNI_ERR_IO, -errno, "cache: cannot open '%s'", path);
	r = fd_write_all(fd, text, strlen(text));
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cache: cannot append to '%s'", path);
	return 0;
}

static int dup_str(const json_t *o, const char *key, char **ret)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s)
		return 0;
	return (*ret = strdup(s)) ? 0 : -ENOMEM;
}

static json_t *opt_ref(const json_t *o, const char *key, bool array)
{
	json_t *v = json_object_get(o, key);

	if (array ? !json_is_array(v) : !json_is_object(v))
		return NULL;
	return json_incref(v);
}

static int parse_delegate(const json_t *o, size_t i, const char *what, struct mn_delegate *d,
			  struct cni_error *err)
{
	char name[64];
	int r;

	snprintf(name, sizeof(name), "delegates[%zu]", i);
	if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")) ||
	    !json_is_string(json_object_get(o, "ifname")))
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
				  "cache %s: %s: needs name and ifname", what, name);
	if ((r = dup_str(o, "name", &d->display)) < 0 ||
	    (r = dup_str(o, "ifname", &d->ifname)) < 0 ||
	    (r = dup_str(o, "ifnameRequest", &d->ifname_request)) < 0 ||
	    (r = dup_str(o, "deviceID", &d->device_id)) < 0 ||
	    (r = dup_str(o, "resourceName", &d->resource_name)) < 0 ||
	    (r = dup_str(o, "deviceInfoFile", &d->devinfo_file)) < 0)
		return r;
	if (!cni_valid_ifname(d->ifname))
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL, "cache %s: %s: bad ifname", what,
				  name);
	d->master = json_is_true(json_object_get(o, "master"));
	d->state =
	    streq(json_string_value(json_object_get(o, "state")), "added") ? MN_ADDED : MN_PENDING;
	d->cap_args = opt_ref(o, "capabilityArgs", false);
	d->default_route = opt_ref(o, "defaultRoute", true);
	d->result = opt_ref(o, "result", false);
	/* The device is already in the config: do not inject it twice. */
	char *dev = TAKE_PTR(d->device_id);
	r = mn_delegate_set_conf(d, json_object_get(o, "config"), NULL, NULL, what, err);
	d->device_id = dev;
	return r;
}

static int parse_args(const json_t *arr, struct mn_plan *p)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(arr) || json_array_size(arr) > CNI_ARGS_MAX)
		return 0;
	p->args = calloc(json_array_size(arr) + 1, sizeof(*p->args));
	if (!p->args)
		return -ENOMEM;
	json_array_foreach (arr, i, e) {
		const char *k = json_string_value(json_array_get(e, 0));
		const char *v = json_string_value(json_array_get(e, 1));

		if (!k || !v)
			continue;
		p->args[p->n_args].key = strdup(k);
		p->args[p->n_args].value = strdup(v);
		if (!p->args[p->n_args].key || !p->args[p->n_args].value)
			return -ENOMEM;
		p->n_args++;
	}
	return 0;
}

static int parse_plan(const json_t *o, const char *what, struct mn_plan *p, struct cni_error *err)
{
	const json_t *ds = json_object_get(o, "delegates"), *pod = json_object_get(o, "pod"), *e;
	size_t i;
	int r;

	if (!json_is_object(o) ||
	    !streq(json_string_value(json_object_get(o, "kind")), MN_CACHE_KIND) ||
	    !json_is_string(json_object_get(o, "containerId")) || !json_is_array(ds) ||
	    json_array_size(ds) > MN_MAX_NETWORKS)
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL, "cache %s: not a %s object", what,
				  MN_CACHE_KIND);
	if ((r = dup_str(o, "containerId", &p->container_id)) < 0 ||
	    (r = dup_str(o, "netns", &p->netns)) < 0 ||
	    (r = dup_str(o, "ifname", &p->ifname)) < 0 ||
	    (r = dup_str(pod, "namespace", &p->pod.namespace)) < 0 ||
	    (r = dup_str(pod, "name", &p->pod.name)) < 0 ||
	    (r = dup_str(pod, "uid", &p->pod.uid)) < 0 ||
	    (r = parse_args(json_object_get(o, "cniArgs"), p)) < 0)
		return r;
	json_array_foreach (ds, i, e) {
		struct mn_delegate *d = mn_plan_push(p);

		if (!d)
			return -ENOMEM;
		if ((r = parse_delegate(e, i, what, d, err)) < 0)
			return r;
	}
	return 0;
}

int mn_cache_parse(const char *buf, size_t len, const char *what, struct mn_plan *ret,
		   struct cni_error *err)
{
	json_t *o = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	if ((r = cni_json_load_journal(buf, len, what, "delegates", &o, err)) < 0)
		return r;
	r = parse_plan(o, what, ret, err);
	json_decref(o);
	if (r < 0) {
		if (!cni_error_isset(err))
			cni_errorf(err, CNI_ERR_DECODE, r, "cache %s: cannot load", what);
		mn_plan_done(ret);
	}
	return r;
}

int mn_cache_read(const char *cni_dir, const char *container_id, struct mn_plan *ret,
		  struct cni_error *err)
{
	_cleanup_free_ char *path = mn_cache_path(cni_dir, container_id), *buf = NULL;
	int n, r;

	if (!path)
		return -ENOMEM;
	n = file_read_at(AT_FDCWD, path, MN_CACHE_MAX, &buf);
	if (n == -ENOENT)
		return 0;
	if (n == -EFBIG)
		return cni_errorf(err, CNI_ERR_DECODE, n, "cache %s: too large", path);
	if (n < 0)
		return cni_errorf(err, CNI_ERR_IO, n, "cache: cannot read '%s'", path);
	r = mn_cache_parse(buf, (size_t)n, path, ret, err);
	return r < 0 ? r : 1;
}

int mn_cache_remove(const char *cni_dir, const char *container_id)
{
	_cleanup_free_ char *path = mn_cache_path(cni_dir, container_id);

	if (!path)
		return -ENOMEM;
	return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}
