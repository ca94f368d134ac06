/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime side: parsing network configuration lists and finding one by name
 * in a configuration directory, with libcni's rules (see runtime.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/file.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/runtime.h"
#include "runtime-internal.h"

/* The newest version we speak; newer entries of cniVersions are skipped. */
static const struct cni_semver our_version = {1, 1, 0};

struct cni_netconf_list *cni_netconf_list_free(struct cni_netconf_list *l)
{
	if (!l)
		return NULL;
	free(l->name);
	free(l->cni_version);
	for (size_t i = 0; i < l->n_plugins; i++)
		json_decref(l->plugins[i]);
	free(l->plugins);
	free(l->bytes);
	free(l);
	return NULL;
}

/* A flag that may be a JSON bool or the string "true"/"false" (any case). */
static int parse_flag(const json_t *root, const char *key, bool *ret, struct cni_error *err)
{
	const json_t *v = json_object_get(root, key);
	_cleanup_free_ char *repr = NULL;

	if (!v || json_is_null(v)) {
		*ret = false;
		return 0;
	}
	if (json_is_boolean(v)) {
		*ret = json_is_true(v);
		return 0;
	}
	if (json_is_string(v) && ascii_strcaseeq(json_string_value(v), "true")) {
		*ret = true;
		return 0;
	}
	if (json_is_string(v) && ascii_strcaseeq(json_string_value(v), "false")) {
		*ret = false;
		return 0;
	}
	repr = cni_json_repr(v);
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "%s: invalid value %s: must be a boolean or \"true\"/\"false\"", key,
			  repr ? repr : "?");
}

static int parse_version_string(const json_t *v, const char *what, struct cni_semver *ret,
				struct cni_error *err)
{
	_cleanup_free_ char *repr = NULL;

	if (json_is_string(v) && cni_semver_parse(json_string_value(v), ret) == 0)
		return 0;
	repr = cni_json_repr(v);
	return cni_errorf(err, CNI_ERR_DECODE, -EINVAL, "%s: invalid version %s", what,
			  repr ? repr : "?");
}

/*
 * Pick the highest of cniVersion and cniVersions that we support. Entries
 * newer than ours are skipped; if nothing is left, cniVersion stays as given.
 */
static int select_version(const json_t *root, struct cni_netconf_list *l, struct cni_error *err)
{
	const json_t *given = json_object_get(root, "cniVersion");
	const json_t *list = json_object_get(root, "cniVersions");
	const char *best_str = NULL;
	struct cni_semver best = {0, 1, 0}, v;
	bool have_best = false;
	size_t i;
	json_t *e;
	int r;

	if (given && !json_is_null(given)) {
		r = parse_version_string(given, "cniVersion", &v, err);
		if (r < 0)
			return r;
		best = v;
		best_str = json_string_value(given);
		have_best = cni_semver_cmp(&v, &our_version) <= 0;
	}
	if (list && !json_is_null(list) && !json_is_array(list))
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
				  "cniVersions: must be a list of strings");
	if (json_array_size(list) > 64)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -E2BIG,
				  "cniVersions: more than 64 entries");
	json_array_foreach (list, i, e) {
		char what[48];

		snprintf(what, sizeof(what), "cniVersions[%zu]", i);
		r = parse_version_string(e, what, &v, err);
		if (r < 0)
			return r;
		if (cni_semver_cmp(&v, &our_version) > 0)
			continue;
		if (!have_best || cni_semver_cmp(&v, &best) > 0) {
			best = v;
			best_str = json_string_value(e);
			have_best = true;
		}
	}
	if (best_str) {
		l->cni_version = strdup(best_str);
		if (!l->cni_version)
			return -ENOMEM;
	}
	l->version = best;
	return 0;
}

/* Check a plugin object and take a reference on it into l->plugins. */
static int list_append_plugin(struct cni_netconf_list *l, json_t *p, const char *what,
			      struct cni_error *err)
{
	const json_t *type = json_object_get(p, "type");
	json_t **v;

	if (!json_is_object(p))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: must be an object",
				  what);
	if (!json_is_string(type) || !*json_string_value(type))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: missing or empty \"type\"", what);
	if (l->n_plugins >= CNI_LIST_MAX_PLUGINS)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -E2BIG,
				  "%s: more than %d plugins in network \"%s\"", what,
				  CNI_LIST_MAX_PLUGINS, l->name);
	v = reallocarray_safe(l->plugins, l->n_plugins + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->plugins = v;
	l->plugins[l->n_plugins++] = json_incref(p);
	return 0;
}

static int parse_plugins(const json_t *root, bool allow_none, struct cni_netconf_list *l,
			 struct cni_error *err)
{
	const json_t *plugins = json_object_get(root, "plugins");
	size_t i;
	json_t *p;
	int r;

	if (!plugins || json_is_null(plugins)) {
		if (l->load_only_inlined_plugins)
			return cni_errorf(
			    err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			    "loadOnlyInlinedPlugins is true but \"plugins\" is missing");
		if (!allow_none)
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "\"plugins\" is missing");
		return 0;
	}
	if (!json_is_array(plugins))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "plugins: must be a list");
	if (json_array_size(plugins) == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "plugins: no plugins in list");
	json_array_foreach (plugins, i, p) {
		char what[48];

		snprintf(what, sizeof(what), "plugins[%zu]", i);
		r = list_append_plugin(l, p, what, err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_list_root(const json_t *root, bool allow_no_plugins, struct cni_netconf_list *l,
			   struct cni_error *err)
{
	const json_t *name = json_object_get(root, "name");
	int r;

	if (!json_is_object(root))
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
				  "network list must be a JSON object");
	if (!json_is_string(name) || !*json_string_value(name))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "missing or empty network \"name\"");
	l->name = strdup(json_string_value(name));
	if (!l->name)
		return -ENOMEM;
	r = select_version(root, l, err);
	if (r < 0)
		return r;
	r = parse_flag(root, "disableCheck", &l->disable_check, err);
	if (r >= 0)
		r = parse_flag(root, "disableGC", &l->disable_gc, err);
	if (r >= 0)
		r = parse_flag(root, "loadOnlyInlinedPlugins", &l->load_only_inlined_plugins, err);
	if (r < 0)
		return r;
	return parse_plugins(root, allow_no_plugins, l, err);
}

int cni_netconf_list_from_bytes(const char *buf, size_t len, const char *what,
				bool allow_no_plugins, struct cni_netconf_list **ret,
				struct cni_error *err)
{
	_cleanup_(cni_netconf_list_freep) struct cni_netconf_list *l = NULL;
	json_t *root = NULL;
	int r;

	r = cni_json_loadb(buf, len, what, &root, err);
	if (r < 0)
		return r;
	l = calloc(1, sizeof(*l));
	if (!l) {
		json_decref(root);
		return -ENOMEM;
	}
	r = parse_list_root(root, allow_no_plugins, l, err);
	json_decref(root);
	if (r < 0)
		return cni_error_wrapf(err, r, "%s", what);
	l->bytes = malloc(len + 1);
	if (!l->bytes)
		return -ENOMEM;
	memcpy(l->bytes, buf, len);
	l->bytes[len] = '\0';
	l->n_bytes = len;
	*ret = TAKE_PTR(l);
	return 0;
}

/* ---- files and directories ---- */

int runtime_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	/* Symlinks are followed: conflists in a conf dir often are links. */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int r;

	*ret_len = 0;
	if (fd < 0)
		return -errno;
	r = fd_read_all(fd, max, ret);
	if (r < 0)
		return r;
	*ret_len = (size_t)r;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_ext(const char *name, const char *const *exts)
{
	size_t n = strlen(name);

	for (; *exts; exts++) {
		size_t e = strlen(*exts);
		if (n > e && strcmp(name + n - e, *exts) == 0)
			return true;
	}
	return false;
}

void runtime_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Regular files (symlinks followed) in dir with one of the extensions,
 * as full paths sorted by name. A missing directory is an empty list.
 */
int runtime_conf_files(const char *dir, const char *const *exts, char ***ret, size_t *ret_n)
{
	DIR *d = opendir(dir);
	char **v = NULL;
	size_t n = 0;
	struct dirent *de;
	int r = 0;

	if (!d) {
		*ret = NULL;
		*ret_n = 0;
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char **nv;

		if (!has_ext(de->d_name, exts) || fstatat(dirfd(d), de->d_name, &st, 0) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		nv = n < CNI_CONF_DIR_MAX_FILES ? reallocarray_safe(v, n + 1, sizeof(*v)) : NULL;
		if (!nv) {
			r = n < CNI_CONF_DIR_MAX_FILES ? -ENOMEM : -E2BIG;
			break;
		}
		v = nv;
		if (asprintf(&v[n], "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (r < 0) {
		runtime_strv_free(v, n);
		return r;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Load a JSON object from a file; code 5 when unreadable, 6 when not JSON. */
static int load_json_file(const char *path, json_t **ret, char **ret_buf, size_t *ret_len,
			  struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = runtime_read_file(path, 1u << 22, &buf, &len);

	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot read %s: %s", path, strerror(-r));
	r = cni_json_loadb(buf, len, path, ret, err);
	if (r < 0)
		return r;
	if (ret_buf) {
		*ret_buf = TAKE_PTR(buf);
		*ret_len = len;
	}
	return 0;
}

/* Append the *.conf plugin objects of <dir>/<l->name> (NetworkPluginConfsFromFiles). */
static int merge_sibling_plugins(const char *dir, struct cni_netconf_list *l, struct cni_error *err)
{
	static const char *const exts[] = {".conf", NULL};
	_cleanup_free_ char *sub = NULL;
	char **files = NULL;
	size_t n = 0;
	int r;

	if (!cni_valid_name(l->name))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "invalid network name \"%s\"", l->name);
	if (asprintf(&sub, "%s/%s", dir, l->name) < 0)
		return -ENOMEM;
	r = runtime_conf_files(sub, exts, &files, &n);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot list %s: %s", sub, strerror(-r));
	for (size_t i = 0; i < n && r >= 0; i++) {
		json_t *p = NULL;

		r = load_json_file(files[i], &p, NULL, NULL, err);
		if (r >= 0)
			r = list_append_plugin(l, p, files[i], err);
		json_decref(p);
	}
	runtime_strv_free(files, n);
	return r;
}

int cni_netconf_list_from_file(const char *path, struct cni_netconf_list **ret,
			       struct cni_error *err)
{
	_cleanup_(cni_netconf_list_freep) struct cni_netconf_list *l = NULL;
	_cleanup_free_ char *buf = NULL, *dir = NULL;
	size_t len;
	char *slash;
	int r;

	r = runtime_read_file(path, 1u << 22, &buf, &len);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_IO, r, "cannot read %s: %s", path, strerror(-r));
	r = cni_netconf_list_from_bytes(buf, len, path, true, &l, err);
	if (r < 0)
		return r;
	if (!l->load_only_inlined_plugins) {
		dir = strdup(path);
		if (!dir)
			return -ENOMEM;
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		r = merge_sibling_plugins(slash ? (*dir ? dir : "/") : ".", l, err);
		if (r < 0)
			return r;
	}
	if (l->n_plugins == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: no plugin configs found for network \"%s\"", path, l->name);
	*ret = TAKE_PTR(l);
	return 0;
}

int cni_netconf_list_from_conf(const char *buf, size_t len, const char *what,
			       struct cni_netconf_list **ret, struct cni_error *err)
{
	json_t *conf = NULL, *list, *ver;
	_cleanup_free_ char *text = NULL;
	const json_t *type;
	int r;

	r = cni_json_loadb(buf, len, what, &conf, err);
	if (r < 0)
		return r;
	type = json_object_get(conf, "type");
	if (!json_is_object(conf) || !json_is_string(type) || !*json_string_value(type)) {
		json_decref(conf);
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: error parsing configuration: missing 'type'", what);
	}
	ver = json_object_get(conf, "cniVersion");
	list = json_pack("{s:O?, s:O?, s:[O]}", "cniVersion", ver, "name",
			 json_object_get(conf, "name"), "plugins", conf);
	json_decref(conf);
	if (!list)
		return -ENOMEM;
	text = json_dumps(list, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(list);
	if (!text)
		return -ENOMEM;
	return cni_netconf_list_from_bytes(text, strlen(text), what, false, ret, err);
}

/* Search *.conflist files; returns 1 and *ret when found, 0 when not. */
static int find_in_conflists(char **files, size_t n, const char *name,
			     struct cni_netconf_list **ret, struct cni_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct cni_netconf_list *l = NULL;
		int r = cni_netconf_list_from_file(files[i], &l, err);

		if (r < 0)
			return r;
		if (streq(l->name, name)) {
			*ret = l;
			return 1;
		}
		cni_netconf_list_free(l);
	}
	return 0;
}

/* Search legacy single-plugin files; returns 1 and *ret when found, 0 when not. */
static int find_in_legacy(char **files, size_t n, const char *name, struct cni_netconf_list **ret,
			  struct cni_error *err)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *buf = NULL;
		const json_t *nm;
		json_t *conf = NULL;
		size_t len = 0;
		int r = load_json_file(files[i], &conf, &buf, &len, err);

		if (r < 0)
			return r;
		nm = json_object_get(conf, "name");
		r = json_is_string(nm) && streq(json_string_value(nm), name);
		json_decref(conf);
		if (!r)
			continue;
		r = cni_netconf_list_from_conf(buf, len, files[i], ret, err);
		return r < 0 ? r : 1;
	}
	return 0;
}

int cni_netconf_list_load(const char *dir, const char *name, struct cni_netconf_list **ret,
			  struct cni_error *err)
{
	static const char *const list_exts[] = {".conflist", NULL};
	static const char *const legacy_exts[] = {".conf", ".json", NULL};
	char **lists = NULL, **legacy = NULL;
	size_t n_lists = 0, n_legacy = 0;
	int r;

	r = runtime_conf_files(dir, list_exts, &lists, &n_lists);
	if (r >= 0)
		r = runtime_conf_files(dir, legacy_exts, &legacy, &n_legacy);
	if (r < 0) {
		runtime_strv_free(lists, n_lists);
		return cni_errorf(err, CNI_ERR_IO, r, "cannot list %s: %s", dir, strerror(-r));
	}
	r = find_in_conflists(lists, n_lists, name, ret, err);
	if (r == 0)
		r = find_in_legacy(legacy, n_legacy, name, ret, err);
	runtime_strv_free(lists, n_lists);
	runtime_strv_free(legacy, n_legacy);
	if (r > 0)
		return 0;
	if (r < 0)
		return r;
	if (n_lists == 0 && n_legacy == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -ENOENT,
				  "no net configurations found in %s", dir);
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -ENOENT,
			  "no net configuration with name \"%s\" in %s", name, dir);
}
