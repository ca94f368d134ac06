/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime side: building each plugin's request and running the ADD, CHECK,
 * DEL, GC and STATUS chains (libcni's AddNetworkList & co., see runtime.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/invoke.h"
#include "cni/log.h"
#include "cni/result.h"
#include "cni/runtime.h"
#include "runtime-internal.h"

static const struct cni_semver v040 = {0, 4, 0};
static const struct cni_semver v110 = {1, 1, 0};

static bool list_at_least(const struct cni_netconf_list *list, const struct cni_semver *v)
{
	return cni_semver_cmp(&list->version, v) >= 0;
}

static const char *list_version_str(const struct cni_netconf_list *list)
{
	return list->cni_version ? list->cni_version : "0.1.0";
}

/* The list's version as a known enum; versions newer than ours read as ours. */
static enum cni_version list_version_enum(const struct cni_netconf_list *list)
{
	enum cni_version v;

	if (cni_version_parse(list->cni_version, &v) < 0)
		return CNI_VERSION_CURRENT;
	return v;
}

static const char *plugin_type(const struct cni_netconf_list *list, size_t i)
{
	return json_string_value(json_object_get(list->plugins[i], "type"));
}

/* ---- environment ---- */

static char *join_args(const struct cni_runtime_conf *rc)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; rc && i < rc->n_args; i++)
		len += strlen(rc->args[i].key) + strlen(rc->args[i].value) + 2;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (size_t i = 0; rc && i < rc->n_args; i++)
		p += sprintf(p, "%s%s=%s", i ? ";" : "", rc->args[i].key, rc->args[i].value);
	return s;
}

char **cni_runtime_env(const struct cni_runtime *rt, const char *command,
		       const struct cni_runtime_conf *rc)
{
	_cleanup_free_ char *args = join_args(rc);
	char **env = calloc(7, sizeof(char *));
	int r = 0;

	if (!env || !args) {
		free(env);
		return NULL;
	}
	r |= asprintf(&env[0], "CNI_COMMAND=%s", command) < 0;
	r |= asprintf(&env[1], "CNI_CONTAINERID=%s",
		      rc && rc->container_id ? rc->container_id : "") < 0;
	r |= asprintf(&env[2], "CNI_NETNS=%s", rc && rc->netns ? rc->netns : "") < 0;
	r |= asprintf(&env[3], "CNI_IFNAME=%s", rc && rc->ifname ? rc->ifname : "") < 0;
	r |= asprintf(&env[4], "CNI_ARGS=%s", args) < 0;
	r |= asprintf(&env[5], "CNI_PATH=%s", rt->plugin_path ? rt->plugin_path : "") < 0;
	if (r) {
		/* asprintf leaves its pointer undefined on failure: do not free those. */
		for (int i = 0; i < 6; i++)
			env[i] = NULL;
		free(env);
		return NULL;
	}
	return env;
}

/* ---- requests ---- */

/*
 * runtimeConfig = the capabilities the plugin enables that the runtime
 * supplied. *ret stays NULL when none match. Returns 0 or -ENOMEM.
 */
static int runtime_config_for(const json_t *plugin, const json_t *cap_args, json_t **ret)
{
	const json_t *caps = json_object_get(plugin, "capabilities");
	json_t *rc = NULL, *v;
	const char *key;

	json_object_foreach ((json_t *)caps, key, v) {
		const json_t *arg = json_object_get(cap_args, key);

		if (!json_is_true(v) || !arg)
			continue;
		if (!rc)
			rc = json_object();
		if (!rc || json_object_set_new(rc, key, json_deep_copy(arg)) < 0) {
			json_decref(rc);
			return -ENOMEM;
		}
	}
	*ret = rc;
	return 0;
}

/* Drop keys the runtime owns: capabilities and anything under "cni.dev/". */
static void strip_reserved(json_t *o)
{
	const char *key;
	json_t *v;
	void *tmp;

	json_object_del(o, "capabilities");
	json_object_foreach_safe (o, tmp, key, v) {
		if (strncmp(key, "cni.dev/", 8) == 0)
			json_object_del(o, key);
	}
}

int cni_runtime_build_request(const struct cni_netconf_list *list, size_t plugin_index,
			      const json_t *prev_result, const struct cni_runtime_conf *rc,
			      json_t **ret, struct cni_error *err)
{
	const json_t *plugin;
	json_t *o, *rtc = NULL;
	int r;

	if (plugin_index >= list->n_plugins)
		return cni_errorf(err, CNI_ERR_PLUGIN, -EINVAL, "no plugin %zu", plugin_index);
	plugin = list->plugins[plugin_index];
	if (rc && json_object_size(rc->capability_args) &&
	    runtime_config_for(plugin, rc->capability_args, &rtc) < 0)
		return -ENOMEM;
	o = json_deep_copy(plugin);
	if (!o) {
		json_decref(rtc);
		return -ENOMEM;
	}
	strip_reserved(o);
	r = json_object_set_new(o, "name", json_string(list->name));
	if (!r && list->cni_version)
		r = json_object_set_new(o, "cniVersion", json_string(list->cni_version));
	if (!r && prev_result)
		r = json_object_set_new(o, "prevResult", json_deep_copy(prev_result));
	if (!r && rtc)
		r = json_object_set(o, "runtimeConfig", rtc);
	json_decref(rtc);
	if (r) {
		json_decref(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

/* ---- running one plugin ---- */

struct invocation {
	const char *command; /* "ADD", ... */
	const char *verb;    /* "add", ... for messages */
	const json_t *prev;  /* prevResult or NULL */
	const struct cni_runtime_conf *rc;
	const json_t *valid; /* GC: the valid-attachments array or NULL */
};

/* The child's whole environment: the runtime's base plus the CNI_* variables. */
static char **child_env(const struct cni_runtime *rt, const char *command,
			const struct cni_runtime_conf *rc)
{
	char **over = cni_runtime_env(rt, command, rc), **env;

	if (!over)
		return NULL;
	env = cni_env_build(rt->base_env, over);
	cni_env_free(over);
	return env;
}

/* ---- ADD pipelining (struct cni_runtime_ahead) ---- */

/*
 * A multinet ADD with two delegates is ~5 ms (18 %) faster with it
 * (bench/multinet/run.sh, bench/results/2026-12-07-startup.md).
 */

/* The plugin running now, from which the next one follows. */
struct ahead_pos {
	const struct cni_runtime *rt;
	const struct cni_netconf_list *list;
	size_t i;
	const struct cni_runtime_conf *rc;
};

static int ahead_spawn(const struct cni_runtime *rt, const struct cni_netconf_list *list, size_t i,
		       const struct cni_runtime_conf *rc)
{
	_cleanup_free_ char *path = NULL;
	struct cni_error tmp = {0};
	char **env;
	int r;

	cni_runtime_ahead_drop(rt->ahead);
	r = cni_find_plugin(plugin_type(list, i), rt->plugin_path, &path, &tmp);
	cni_error_done(&tmp);
	if (r < 0)
		return r;
	if (!(env = child_env(rt, "ADD", rc)))
		return -ENOMEM;
	r = cni_exec_start(path, env, &rt->ahead->started);
	cni_env_free(env);
	return r;
}

/* cni_exec_request.running: start what follows the plugin just fed. */
static void start_next(void *data)
{
	const struct ahead_pos *pos = data;
	const struct cni_runtime_ahead *a = pos->rt->ahead;

	if (pos->i + 1 < pos->list->n_plugins)
		(void)ahead_spawn(pos->rt, pos->list, pos->i + 1, pos->rc);
	else if (a->next_list && a->next_list->n_plugins > 0)
		(void)ahead_spawn(pos->rt, a->next_list, 0, &a->next_rc);
}

int cni_runtime_ahead_start(const struct cni_runtime *rt, const struct cni_netconf_list *list,
			    const struct cni_runtime_conf *rc)
{
	if (!rt->ahead || list->n_plugins == 0)
		return -EINVAL;
	return ahead_spawn(rt, list, 0, rc);
}

void cni_runtime_ahead_drop(struct cni_runtime_ahead *a)
{
	if (!a)
		return;
	cni_exec_started_free(a->started);
	a->started = NULL;
}

/*
 * Exec req (path, stdin and timeout set) with the environment of command.
 * An ADD with pipelining (rt->ahead) takes the process started for it and
 * starts the one after `at` while it runs.
 */
static int exec_request(const struct ahead_pos *at, const char *command,
			struct cni_exec_request *req, char **ret_out, struct cni_error *err)
{
	const struct cni_runtime *rt = at->rt;
	char **env = child_env(rt, command, at->rc);
	int r;

	if (!env)
		return -ENOMEM;
	req->env = env;
	if (rt->ahead && streq(command, "ADD")) {
		if (cni_exec_started_is(rt->ahead->started, req->plugin_path, env)) {
			req->started = TAKE_PTR(rt->ahead->started);
			cni_log_debug("%s: started ahead", req->plugin_path);
		} else {
			cni_runtime_ahead_drop(rt->ahead);
		}
		req->running = start_next;
		req->running_data = (void *)at;
	}
	r = cni_exec_plugin(req, ret_out, NULL, err);
	cni_env_free(env);
	return r;
}

static int inject_valid_attachments(json_t *req, const json_t *valid)
{
	if (!valid)
		return 0;
	/* Both names: the spec first said cni.dev/attachments (cni#1101). */
	if (json_object_set(req, "cni.dev/valid-attachments", (json_t *)valid) < 0 ||
	    json_object_set(req, "cni.dev/attachments", (json_t *)valid) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * Find, build and exec plugin i for one command. stdout (possibly empty) in
 * *ret_out. Errors carry the plugin's code; the caller adds context.
 */
static int invoke_one(const struct cni_runtime *rt, const struct cni_netconf_list *list, size_t i,
		      const struct invocation *inv, char **ret_out, struct cni_error *err)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	struct ahead_pos at = {.rt = rt, .list = list, .i = i, .rc = inv->rc};
	json_t *req = NULL;
	int r;

	r = cni_find_plugin(plugin_type(list, i), rt->plugin_path, &path, err);
	if (r < 0)
		return r;
	r = cni_runtime_build_request(list, i, inv->prev, inv->rc, &req, err);
	if (r >= 0)
		r = inject_valid_attachments(req, inv->valid);
	if (r < 0) {
		json_decref(req);
		return r;
	}
	/* Sorted and compact, as libcni's re-encoding produces. */
	text = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(req);
	if (!text)
		return -ENOMEM;
	cni_log_debug("exec %s %s (network \"%s\")", inv->command, path, list->name);
	return exec_request(&at, inv->command,
			    &(struct cni_exec_request){.plugin_path = path,
						       .stdin_buf = text,
						       .stdin_len = strlen(text),
						       .timeout_ms = rt->timeout_ms},
			    ret_out, err);
}

static int wrap_plugin_error(const struct cni_netconf_list *list, size_t i, const char *verb, int r,
			     struct cni_error *err)
{
	return cni_error_wrapf(err, r, "plugin type=\"%s\" name=\"%s\" failed (%s)",
			       plugin_type(list, i), list->name, verb);
}

/*
 * Parse an ADD answer: a JSON object that is a valid result in its own
 * cniVersion (the list's when it has none, which is then filled in).
 */
static int parse_add_output(const struct cni_netconf_list *list, const char *out, json_t **ret,
			    struct cni_error *err)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	json_t *o = NULL;
	int r;

	if (isempty(out))
		return cni_errorf(err, CNI_ERR_DECODE, -EBADMSG, "plugin printed no result");
	r = cni_json_loadb(out, strlen(out), "plugin result", &o, err);
	if (r < 0)
		return r;
	if (!json_is_object(o)) {
		json_decref(o);
		return cni_errorf(err, CNI_ERR_DECODE, -EBADMSG, "plugin result is not an object");
	}
	if (!json_object_get(o, "cniVersion") &&
	    json_object_set_new(o, "cniVersion", json_string(list_version_str(list))) < 0) {
		json_decref(o);
		return -ENOMEM;
	}
	r = cni_result_from_json_any(o, list_version_enum(list), "result", &res, err);
	if (r < 0) {
		json_decref(o);
		return r;
	}
	*ret = o;
	return 0;
}

/* ---- ADD ---- */

static int validate_attachment(const struct cni_netconf_list *list,
			       const struct cni_runtime_conf *rc, struct cni_error *err)
{
	if (isempty(rc->container_id))
		return cni_errorf(err, CNI_ERR_UNKNOWN_CONTAINER, -EINVAL, "missing containerID");
	if (!cni_valid_name(rc->container_id))
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "invalid characters in containerID \"%s\"", rc->container_id);
	if (isempty(list->name))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "missing network name");
	if (!cni_valid_name(list->name))
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "invalid characters found in network name \"%s\"", list->name);
	if (isempty(rc->ifname) || !cni_valid_ifname(rc->ifname))
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "invalid interface name \"%s\"", rc->ifname ? rc->ifname : "");
	return 0;
}

int cni_runtime_add(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		    const struct cni_runtime_conf *rc, json_t **ret_result, struct cni_error *err)
{
	struct invocation inv = {.command = "ADD", .verb = "add", .rc = rc};
	json_t *prev = NULL;
	int r;

	r = validate_attachment(list, rc, err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < list->n_plugins; i++) {
		_cleanup_free_ char *out = NULL;
		json_t *res = NULL;

		inv.prev = prev;
		r = invoke_one(rt, list, i, &inv, &out, err);
		if (r >= 0)
			r = parse_add_output(list, out, &res, err);
		json_decref(prev);
		prev = res;
		if (r < 0)
			return wrap_plugin_error(list, i, "add", r, err);
	}
	r = cni_cache_write(rt->cache_dir, list, rc, prev, !rt->cache_nosync, err);
	if (r < 0) {
		json_decref(prev);
		return r;
	}
	*ret_result = prev;
	return 0;
}

/* ---- CHECK and DEL ---- */

/*
 * The cached final result converted to the list's version. Returns 1 and
 * *ret, 0 when nothing is cached, or a negative errno with err set.
 */
static int cached_prev_result(const struct cni_runtime *rt, const struct cni_netconf_list *list,
			      const struct cni_runtime_conf *rc, json_t **ret,
			      struct cni_error *err)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	struct cni_cache_entry *e = NULL;
	enum cni_version v = list_version_enum(list);
	int r;

	r = cni_cache_read(rt->cache_dir, list->name, rc->container_id, rc->ifname, &e, err);
	if (r <= 0)
		return r;
	if (!e->result) {
		cni_cache_entry_free(e);
		return 0;
	}
	r = cni_result_from_json_any(e->result, v, "cached result", &res, err);
	cni_cache_entry_free(e);
	if (r < 0)
		return r;
	r = cni_result_to_json(res, v, ret, err);
	return r < 0 ? r : 1;
}

int cni_runtime_check(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		      const struct cni_runtime_conf *rc, struct cni_error *err)
{
	struct invocation inv = {.command = "CHECK", .verb = "check", .rc = rc};
	json_t *prev = NULL;
	int r;

	if (!list_at_least(list, &v040))
		return cni_errorf(err, CNI_ERR_INCOMPATIBLE_VERSION, -EOPNOTSUPP,
				  "configuration version \"%s\" does not support the CHECK command",
				  list_version_str(list));
	if (list->disable_check)
		return 0;
	r = cached_prev_result(rt, list, rc, &prev, err);
	if (r < 0)
		return cni_error_wrapf(err, r, "cannot read cached result");
	if (r == 0)
		return cni_errorf(err, CNI_ERR_UNKNOWN_CONTAINER, -ENOENT,
				  "no cached result for network \"%s\", container \"%s\", "
				  "interface \"%s\": was it added?",
				  list->name, rc->container_id ? rc->container_id : "",
				  rc->ifname ? rc->ifname : "");
	inv.prev = prev;
	for (size_t i = 0; i < list->n_plugins && r >= 0; i++) {
		_cleanup_free_ char *out = NULL;

		r = invoke_one(rt, list, i, &inv, &out, err);
		if (r < 0)
			r = wrap_plugin_error(list, i, "check", r, err);
	}
	json_decref(prev);
	return r < 0 ? r : 0;
}

static void collect_error(struct cni_error *err, struct cni_error *e);

/*
 * DEL through the plugins in reverse. A plugin whose binary is missing is
 * reported (its error kept, code 104) but the others still run: a conflist
 * naming a plugin that is not installed must not keep the rest of the
 * attachment (lease, links, nftables) alive. Any other error stops, as in
 * libcni. Returns the first error.
 */
static int del_plugins(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		       const struct invocation *inv, struct cni_error *err)
{
	int r = 0, missing = 0;

	for (size_t i = list->n_plugins; i-- > 0 && r >= 0;) {
		_cleanup_free_ char *out = NULL;
		struct cni_error one = {0};

		r = invoke_one(rt, list, i, inv, &out, &one);
		if (r < 0)
			r = wrap_plugin_error(list, i, "delete", r, &one);
		if (r == -ENOENT && one.code == CNI_ERR_DELEGATE) {
			cni_log_error("%s; running the remaining plugins' DEL", one.msg);
			if (!missing)
				missing = r;
			r = 0;
		}
		collect_error(err, &one);
	}
	return r < 0 ? r : missing;
}

int cni_runtime_del(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		    const struct cni_runtime_conf *rc, struct cni_error *err)
{
	struct invocation inv = {.command = "DEL", .verb = "delete", .rc = rc};
	json_t *prev = NULL;
	int r = 0;

	/* No attachment identity (e.g. a runtime without one): nothing can be cached. */
	if (list_at_least(list, &v040) && !isempty(rc->container_id) && !isempty(rc->ifname)) {
		struct cni_error cache_err = {0};

		r = cached_prev_result(rt, list, rc, &prev, &cache_err);
		if (r < 0) {
			/* An unusable cache must not wedge DEL: drop it and go on. */
			cni_log_warning("network \"%s\": ignoring unusable cached result: %s",
					list->name, cache_err.msg ? cache_err.msg : "?");
			cni_cache_remove(rt->cache_dir, list->name, rc->container_id, rc->ifname,
					 NULL);
		}
		cni_error_done(&cache_err);
	}
	inv.prev = prev;
	r = del_plugins(rt, list, &inv, err);
	json_decref(prev);
	if (r < 0)
		return r;
	/* Like libcni, a cache that cannot be removed does not fail the DEL. */
	if (!isempty(rc->container_id) && !isempty(rc->ifname))
		cni_cache_remove(rt->cache_dir, list->name, rc->container_id, rc->ifname, NULL);
	return 0;
}

/* ---- GC ---- */

/* Keep the first error in err; append later ones to its details. */
static void collect_error(struct cni_error *err, struct cni_error *e)
{
	_cleanup_free_ char *line = NULL;

	if (!cni_error_isset(e))
		return;
	if (!cni_error_isset(err)) {
		cni_error_move(err, e);
		return;
	}
	if (asprintf(&line, "also: %s (code %u)", e->msg ? e->msg : "?", e->code) >= 0)
		cni_error_add_detail(err, line);
	cni_error_done(e);
}

static bool attachment_valid(const struct cni_cache_entry *e, const struct cni_gc_attachment *v,
			     size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v[i].container_id, e->container_id) && streq(v[i].ifname, e->ifname))
			return true;
	return false;
}

/* DEL every cached attachment of this network that is not valid. Returns the first error. */
static int gc_stale_attachments(const struct cni_runtime *rt, const struct cni_netconf_list *list,
				bool have_valid, const struct cni_gc_attachment *valid,
				size_t n_valid, struct cni_error *err)
{
	struct cni_cache_entry **v = NULL;
	struct cni_error ignored = {0};
	size_t n = 0;
	int first = 0;

	/* libcni: a cache that cannot be listed means nothing to collect. */
	if (cni_cache_list(rt->cache_dir, NULL, &v, &n, &ignored) < 0) {
		cni_error_done(&ignored);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct cni_cache_entry *e = v[i];
		struct cni_runtime_conf rc = {
		    .container_id = e->container_id,
		    .netns = e->netns,
		    .ifname = e->ifname,
		    .args = e->args,
		    .n_args = e->n_args,
		    .capability_args = e->capability_args,
		};
		struct cni_error one = {0};
		int r;

		if (!streq(e->network_name, list->name) ||
		    (have_valid && attachment_valid(e, valid, n_valid)))
			continue;
		r = cni_runtime_del(rt, list, &rc, &one);
		if (r < 0 && !first)
			first = r;
		collect_error(err, &one);
	}
	cni_cache_entries_free(v, n);
	return first;
}

static json_t *valid_to_json(const struct cni_gc_attachment *valid, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_pack("{s:s, s:s}", "containerID",
						       valid[i].container_id, "ifname",
						       valid[i].ifname)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int cni_runtime_gc(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		   bool have_valid, const struct cni_gc_attachment *valid, size_t n_valid,
		   struct cni_error *err)
{
	struct cni_runtime_conf empty = {0};
	struct invocation inv = {.command = "GC", .verb = "gc", .rc = &empty};
	json_t *valid_json = NULL;
	int first;

	if (list->disable_gc)
		return 0;
	first = gc_stale_attachments(rt, list, have_valid, valid, n_valid, err);
	if (!list_at_least(list, &v110))
		return first;
	if (have_valid) {
		valid_json = valid_to_json(valid, n_valid);
		if (!valid_json)
			return -ENOMEM;
	}
	inv.valid = valid_json;
	for (size_t i = 0; i < list->n_plugins; i++) {
		_cleanup_free_ char *out = NULL;
		struct cni_error one = {0};
		int r = invoke_one(rt, list, i, &inv, &out, &one);

		if (r < 0) {
			wrap_plugin_error(list, i, "gc", r, &one);
			if (!first)
				first = r;
		}
		collect_error(err, &one);
	}
	json_decref(valid_json);
	return first;
}

/* ---- STATUS ---- */

int cni_runtime_status(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		       struct cni_error *err)
{
	struct cni_runtime_conf empty = {0};
	struct invocation inv = {.command = "STATUS", .verb = "status", .rc = &empty};

	if (!list_at_least(list, &v110))
		return 0;
	for (size_t i = 0; i < list->n_plugins; i++) {
		_cleanup_free_ char *out = NULL;
		int r = invoke_one(rt, list, i, &inv, &out, err);

		if (r < 0) {
			/* The code and msg stay the plugin's own (50/51); say who. */
			_cleanup_free_ char *who = NULL;

			if (asprintf(&who, "plugin type=\"%s\" name=\"%s\" failed (status)",
				     plugin_type(list, i), list->name) >= 0)
				cni_error_add_detail(err, who);
			return r;
		}
	}
	return 0;
}
