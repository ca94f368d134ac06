/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime's result cache, byte-compatible with libcni: one JSON file per
 * attachment at <cacheDir>/results/<network>-<containerID>-<ifname>, kind
 * "cniCacheV1", the raw config list as base64 (Go's []byte encoding).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/codec.h"
#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/runtime.h"
#include "runtime-internal.h"

#define CACHE_KIND "cniCacheV1"
#define CACHE_FILE_MAX (16u << 20)

/* ---- entries ---- */

struct cni_cache_entry *cni_cache_entry_free(struct cni_cache_entry *e)
{
	if (!e)
		return NULL;
	free(e->container_id);
	free(e->ifname);
	free(e->network_name);
	free(e->netns);
	for (size_t i = 0; i < e->n_args; i++) {
		free(e->args[i].key);
		free(e->args[i].value);
	}
	free(e->args);
	json_decref(e->capability_args);
	free(e->config);
	json_decref(e->result);
	free(e);
	return NULL;
}

static void cache_entry_freep(struct cni_cache_entry **e)
{
	cni_cache_entry_free(*e);
}

void cni_cache_entries_free(struct cni_cache_entry **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cni_cache_entry_free(v[i]);
	free(v);
}

int cni_cache_path(const char *cache_dir, const char *net, const char *container_id,
		   const char *ifname, char **ret, struct cni_error *err)
{
	char *p = NULL;

	if (isempty(cache_dir))
		cache_dir = CNI_DEFAULT_CACHE_DIR;
	if (isempty(net) || !cni_valid_name(net))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "cache: invalid network name \"%s\"", net ? net : "");
	if (isempty(container_id) || !cni_valid_name(container_id))
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "cache: invalid container ID \"%s\"",
				  container_id ? container_id : "");
	if (isempty(ifname) || !cni_valid_ifname(ifname))
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "cache: invalid interface name \"%s\"", ifname ? ifname : "");
	if (asprintf(&p, "%s/results/%s-%s-%s", cache_dir, net, container_id, ifname) < 0)
		return -ENOMEM;
	*ret = p;
	return 0;
}

static json_t *args_to_json(const struct cni_runtime_arg *args, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_pack("[ss]", args[i].key, args[i].value)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The optional members, omitted when empty as Go's omitempty does. */
static int cache_add_optional(json_t *o, const struct cni_runtime_conf *rc, const json_t *result)
{
	if (!isempty(rc->netns) && json_object_set_new(o, "netns", json_string(rc->netns)) < 0)
		return -ENOMEM;
	if (rc->n_args && json_object_set_new(o, "cniArgs", args_to_json(rc->args, rc->n_args)) < 0)
		return -ENOMEM;
	if (json_object_size(rc->capability_args) &&
	    json_object_set_new(o, "capabilityArgs", json_deep_copy(rc->capability_args)) < 0)
		return -ENOMEM;
	if (result && json_object_set_new(o, "result", json_deep_copy(result)) < 0)
		return -ENOMEM;
	return 0;
}

/* The cniCacheV1 object, keys in libcni's order. */
static json_t *cache_build(const struct cni_netconf_list *list, const struct cni_runtime_conf *rc,
			   const json_t *result)
{
	_cleanup_free_ char *b64 = b64_encode_dup(list->bytes, list->n_bytes);
	json_t *o;

	if (!b64)
		return NULL;
	o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "kind", CACHE_KIND, "containerId",
		      rc->container_id, "config", b64, "ifName", rc->ifname, "networkName",
		      list->name);
	if (o && cache_add_optional(o, rc, result) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int cni_cache_write(const char *cache_dir, const struct cni_netconf_list *list,
		    const struct cni_runtime_conf *rc, const json_t *result, bool sync,
		    struct cni_error *err)
{
	_cleanup_free_ char *path = NULL, *dir = NULL, *text = NULL;
	json_t *o;
	int r;

	r = cni_cache_path(cache_dir, list->name, rc->container_id, rc->ifname, &path, err);
	if (r < 0)
		return r;
	dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	*strrchr(dir, '/') = '\0';
	r = file_mkdir_parents(dir, 0700);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot create cache directory %s: %s", dir,
				  strerror(-r));
	o = cache_build(list, rc, result);
	if (!o)
		return -ENOMEM;
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		return -ENOMEM;
	r = file_replace(path, text, strlen(text), 0600, sync);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot write cache file %s: %s", path,
				  strerror(-r));
	return 0;
}

/* ---- reading ---- */

static int dup_string_member(const json_t *o, const char *key, char **ret)
{
	const json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -EINVAL;
	*ret = strdup(json_string_value(v));
	return *ret ? 0 : -ENOMEM;
}

static int parse_cached_args(const json_t *a, struct cni_cache_entry *e)
{
	size_t i;
	json_t *pair;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > 1024)
		return -EINVAL;
	e->args = calloc(json_array_size(a) + 1, sizeof(*e->args));
	if (!e->args)
		return -ENOMEM;
	json_array_foreach (a, i, pair) {
		const char *k = json_string_value(json_array_get(pair, 0));
		const char *v = json_string_value(json_array_get(pair, 1));

		if (!k || !v || json_array_size(pair) != 2)
			return -EINVAL;
		e->args[i].key = strdup(k);
		e->args[i].value = strdup(v);
		e->n_args = i + 1;
		if (!e->args[i].key || !e->args[i].value)
			return -ENOMEM;
	}
	return 0;
}

/* Fill e from a cniCacheV1 object. -EINVAL on a malformed field. */
static int cache_entry_parse(const json_t *o, struct cni_cache_entry *e)
{
	const json_t *cfg = json_object_get(o, "config");
	const json_t *caps = json_object_get(o, "capabilityArgs");
	const json_t *res = json_object_get(o, "result");
	int r;

	r = dup_string_member(o, "containerId", &e->container_id);
	if (r >= 0)
		r = dup_string_member(o, "ifName", &e->ifname);
	if (r >= 0)
		r = dup_string_member(o, "networkName", &e->network_name);
	if (r >= 0)
		r = dup_string_member(o, "netns", &e->netns);
	if (r >= 0)
		r = parse_cached_args(json_object_get(o, "cniArgs"), e);
	if (r < 0)
		return r;
	if (json_is_string(cfg)) {
		r = b64_decode_dup(json_string_value(cfg), json_string_length(cfg), &e->config,
				   &e->n_config);
		if (r < 0)
			return r;
	}
	if (json_is_object(caps))
		e->capability_args = json_incref((json_t *)caps);
	if (json_is_object(res))
		e->result = json_incref((json_t *)res);
	return 0;
}

/* Parse a cache file's JSON into an entry; legacy files hold just a result. */
static int cache_entry_from_json(const json_t *o, struct cni_cache_entry **ret)
{
	_cleanup_(cache_entry_freep) struct cni_cache_entry *e = calloc(1, sizeof(*e));
	int r;

	if (!e)
		return -ENOMEM;
	if (!json_is_object(o))
		return -EINVAL;
	if (!streq(json_string_value(json_object_get(o, "kind")), CACHE_KIND)) {
		e->result = json_incref((json_t *)o);
		*ret = TAKE_PTR(e);
		return 0;
	}
	r = cache_entry_parse(o, e);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(e);
	return 0;
}

int cni_cache_entry_parse(const char *buf, size_t len, const char *what,
			  struct cni_cache_entry **ret, struct cni_error *err)
{
	json_t *o = NULL;
	int r;

	r = cni_json_loadb(buf, len, what, &o, err);
	if (r < 0)
		return r;
	r = cache_entry_from_json(o, ret);
	json_decref(o);
	if (r == -EINVAL)
		return cni_errorf(err, CNI_ERR_DECODE, r, "malformed cache file %s", what);
	return r;
}

static int cache_read_path(const char *path, struct cni_cache_entry **ret, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = runtime_read_file(path, CACHE_FILE_MAX, &buf, &len);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot read cache file %s: %s", path,
				  strerror(-r));
	r = cni_cache_entry_parse(buf, len, path, ret, err);
	return r < 0 ? r : 1;
}

int cni_cache_read(const char *cache_dir, const char *net, const char *container_id,
		   const char *ifname, struct cni_cache_entry **ret, struct cni_error *err)
{
	_cleanup_free_ char *path = NULL;
	int r = cni_cache_path(cache_dir, net, container_id, ifname, &path, err);

	if (r < 0)
		return r;
	return cache_read_path(path, ret, err);
}

int cni_cache_remove(const char *cache_dir, const char *net, const char *container_id,
		     const char *ifname, struct cni_error *err)
{
	_cleanup_free_ char *path = NULL;
	int r = cni_cache_path(cache_dir, net, container_id, ifname, &path, err);

	if (r < 0)
		return r;
	if (unlink(path) < 0 && errno != ENOENT)
		return cni_errorf(err, CNI_ERR_IO, -errno, "cannot remove cache file %s: %s", path,
				  strerror(errno));
	return 0;
}

/* Whether a listed file belongs in the result of cni_cache_list(). */
static bool cache_entry_wanted(const char *path, const struct cni_cache_entry *e,
			       const char *container_id)
{
	const char *base = strrchr(path, '/');
	_cleanup_free_ char *infix = NULL;

	if (!e->container_id || !e->ifname || !e->network_name)
		return false;
	if (!container_id)
		return true;
	if (asprintf(&infix, "-%s-", container_id) < 0)
		return false;
	return strstr(base ? base : path, infix) && streq(e->container_id, container_id);
}

int cni_cache_list(const char *cache_dir, const char *container_id, struct cni_cache_entry ***ret,
		   size_t *ret_n, struct cni_error *err)
{
	static const char *const any[] = {"", NULL};
	_cleanup_free_ char *dir = NULL;
	struct cni_cache_entry **v = NULL;
	char **files = NULL;
	size_t n_files = 0, n = 0;
	int r;

	if (asprintf(&dir, "%s/results", isempty(cache_dir) ? CNI_DEFAULT_CACHE_DIR : cache_dir) <
	    0)
		return -ENOMEM;
	r = runtime_conf_files(dir, any, &files, &n_files);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot list %s: %s", dir, strerror(-r));
	v = calloc(n_files + 1, sizeof(*v));
	if (!v) {
		runtime_strv_free(files, n_files);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_files; i++) {
		struct cni_error ignored = {0};
		struct cni_cache_entry *e = NULL;
		const char *base = strrchr(files[i], '/');

		/* Our own half-written temporaries start with a dot. */
		if (base && base[1] == '.')
			continue;
		r = cache_read_path(files[i], &e, &ignored);
		cni_error_done(&ignored);
		if (r > 0 && cache_entry_wanted(files[i], e, container_id))
			v[n++] = TAKE_PTR(e);
		cni_cache_entry_free(e);
	}
	runtime_strv_free(files, n_files);
	*ret = v;
	*ret_n = n;
	return 0;
}
