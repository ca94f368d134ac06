/* SPDX-License-Identifier: Apache-2.0 */
/* multinet's configuration keys (Multus thin's names) with their defaults. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"

static const char *const mn_keys[] = {
    "kubeconfig",
    "clusterNetwork",
    "defaultNetworks",
    "delegates",
    "confDir",
    "cniDir",
    "binDir",
    "logToStderr",
    "systemNamespaces",
    "multusNamespace",
    "namespaceIsolation",
    "globalNamespaces",
    "readinessindicatorfile",
    "retryDeleteOnError",
    "deviceCheckpoint",
    "deviceInfoDir",
    "logOptions",
    "auxiliaryCNIChainName",
    NULL,
};

void mn_strv_done(struct mn_strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

bool mn_strv_contains(const struct mn_strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (streq(s->v[i], x))
			return true;
	return false;
}

int mn_strv_push(struct mn_strv *s, const char *x)
{
	char **nv;

	if (s->n >= MN_MAX_NAMES)
		return -E2BIG;
	nv = reallocarray_safe(s->v, s->n + 1, sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	s->v = nv;
	if (!(s->v[s->n] = strdup(x)))
		return -ENOMEM;
	s->n++;
	return 0;
}

/* A wrong type is fatal when strict, else logged and the default kept. */
static int bad_type(bool strict, const char *key, const json_t *v, const char *want,
		    struct cni_error *err)
{
	_cleanup_free_ char *repr = cni_json_repr(v);

	if (strict)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: must be %s, got %s",
				  key, want, repr ? repr : "?");
	cni_log_warning("%s: must be %s, got %s; using the default", key, want, repr ? repr : "?");
	return 0;
}

static int get_str(const json_t *root, const char *key, const char *def, bool strict,
		   const char **ret, struct cni_error *err)
{
	const json_t *v = json_object_get(root, key);

	*ret = def;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad_type(strict, key, v, "a string", err);
	if (json_string_length(v) > 0)
		*ret = json_string_value(v);
	return 0;
}

static int get_bool(const json_t *root, const char *key, bool def, bool strict, bool *ret,
		    struct cni_error *err)
{
	const json_t *v = json_object_get(root, key);

	*ret = def;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return bad_type(strict, key, v, "a boolean", err);
	*ret = json_is_true(v);
	return 0;
}

static int get_strv(const json_t *root, const char *key, bool strict, bool *present,
		    struct mn_strv *ret, struct cni_error *err)
{
	const json_t *v = json_object_get(root, key), *e;
	size_t i;

	*present = false;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v) || json_array_size(v) > MN_MAX_NAMES)
		return bad_type(strict, key, v, "an array of strings", err);
	json_array_foreach (v, i, e)
		if (!json_is_string(e) || json_string_length(e) == 0)
			return bad_type(strict, key, v, "an array of non-empty strings", err);
	json_array_foreach (v, i, e)
		if (mn_strv_push(ret, json_string_value(e)) < 0)
			return -ENOMEM;
	*present = true;
	return 0;
}

/* "a, b ,c" -> [a, b, c]: Multus' comma-separated globalNamespaces. */
static int split_commas(const char *s, struct mn_strv *ret)
{
	while (*s) {
		const char *end = strchr(s, ',');
		size_t n = end ? (size_t)(end - s) : strlen(s);
		char buf[256];
		size_t a = 0, b = n;

		while (a < b && ascii_isspace(s[a]))
			a++;
		while (b > a && ascii_isspace(s[b - 1]))
			b--;
		if (b > a) {
			if (b - a >= sizeof(buf))
				return -EINVAL;
			memcpy(buf, s + a, b - a);
			buf[b - a] = '\0';
			if (mn_strv_push(ret, buf) < 0)
				return -ENOMEM;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}

static int parse_namespaces(const json_t *root, bool strict, struct mn_conf *c,
			    struct cni_error *err)
{
	const char *g = NULL;
	bool present;
	int r;

	if ((r = get_strv(root, "systemNamespaces", strict, &present, &c->system_namespaces, err)) <
	    0)
		return r;
	if (!present && mn_strv_push(&c->system_namespaces, MN_DEFAULT_NAMESPACE) < 0)
		return -ENOMEM;
	if ((r = get_str(root, "multusNamespace", MN_DEFAULT_NAMESPACE, strict,
			 &c->multus_namespace, err)) < 0)
		return r;
	if ((r = get_bool(root, "namespaceIsolation", false, strict, &c->namespace_isolation,
			  err)) < 0)
		return r;
	if ((r = get_str(root, "globalNamespaces", NULL, strict, &g, err)) < 0)
		return r;
	if (g && split_commas(g, &c->global_namespaces) < 0) {
		if (strict)
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "globalNamespaces: bad value '%s'", g);
		cni_log_warning("globalNamespaces: bad value '%s'; using the default", g);
		mn_strv_done(&c->global_namespaces);
		g = NULL;
	}
	if (!g && mn_strv_push(&c->global_namespaces, "default") < 0)
		return -ENOMEM;
	return 0;
}

static int parse_paths(const json_t *root, bool strict, struct mn_conf *c, struct cni_error *err)
{
	int r;

	if ((r = get_str(root, "kubeconfig", NULL, strict, &c->kubeconfig, err)) < 0 ||
	    (r = get_str(root, "confDir", MN_DEFAULT_CONF_DIR, strict, &c->conf_dir, err)) < 0 ||
	    (r = get_str(root, "cniDir", MN_DEFAULT_CNI_DIR, strict, &c->cni_dir, err)) < 0 ||
	    (r = get_str(root, "binDir", MN_DEFAULT_BIN_DIR, strict, &c->bin_dir, err)) < 0 ||
	    (r = get_str(root, "readinessindicatorfile", NULL, strict, &c->readiness_file, err)) <
		0 ||
	    (r = get_str(root, "deviceCheckpoint", MN_DEFAULT_CHECKPOINT, strict,
			 &c->device_checkpoint, err)) < 0 ||
	    (r = get_str(root, "deviceInfoDir", MN_DEFAULT_DEVINFO_DIR, strict, &c->device_info_dir,
			 err)) < 0)
		return r;
	return 0;
}

static int parse_networks(const json_t *root, bool strict, struct mn_conf *c, struct cni_error *err)
{
	const json_t *v;
	bool present;
	int r;

	if ((r = get_str(root, "clusterNetwork", NULL, strict, &c->cluster_network, err)) < 0)
		return r;
	if ((r = get_strv(root, "defaultNetworks", strict, &present, &c->default_networks, err)) <
	    0)
		return r;
	v = json_object_get(root, "delegates");
	if (v && !json_is_null(v)) {
		if (json_is_array(v) && json_array_size(v) > 0 &&
		    json_array_size(v) <= MN_MAX_NETWORKS)
			c->delegates = v;
		else if (strict)
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "delegates: must be a non-empty array of at most %d "
					  "configs",
					  MN_MAX_NETWORKS);
		else
			cni_log_warning("delegates: must be a non-empty array of at most %d "
					"configs; ignored",
					MN_MAX_NETWORKS);
	}
	/* DEL and GC work from the cache and must not fail on this. */
	if (!c->cluster_network && !c->delegates && strict)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "multinet: one of 'clusterNetwork' or 'delegates' is required");
	if (!c->cluster_network && !c->delegates)
		cni_log_warning("multinet: neither 'clusterNetwork' nor 'delegates' is set");
	return 0;
}

int mn_conf_parse(const json_t *root, bool strict, struct mn_conf *c, struct cni_error *err)
{
	const json_t *rc;
	int r;

	memset(c, 0, sizeof(*c));
	if (cni_version_parse(json_string_value(json_object_get(root, "cniVersion")), &c->version) <
	    0)
		c->version = CNI_V010;
	if ((r = parse_paths(root, strict, c, err)) < 0 ||
	    (r = parse_namespaces(root, strict, c, err)) < 0 ||
	    (r = parse_networks(root, strict, c, err)) < 0)
		return r;
	if ((r = get_bool(root, "logToStderr", true, strict, &c->log_to_stderr, err)) < 0 ||
	    (r = get_bool(root, "retryDeleteOnError", false, strict, &c->retry_delete_on_error,
			  err)) < 0)
		return r;
	rc = json_object_get(root, "runtimeConfig");
	if (json_is_object(rc))
		c->runtime_config = rc;
	return cni_conf_check_keys(
	    &(struct cni_conf_reader){.err = err, .obj = root, .path = "", .lenient = !strict},
	    mn_keys, true);
}

void mn_conf_done(struct mn_conf *c)
{
	mn_strv_done(&c->default_networks);
	mn_strv_done(&c->system_namespaces);
	mn_strv_done(&c->global_namespaces);
}

int mn_log_level_parse(const char *s, enum cni_log_level *ret)
{
	if (!s)
		return -EINVAL;
	if (ascii_strcaseeq(s, "panic") || ascii_strcaseeq(s, "error")) {
		*ret = CNI_LOG_ERROR;
		return 0;
	}
	if (ascii_strcaseeq(s, "verbose")) {
		*ret = CNI_LOG_INFO;
		return 0;
	}
	return cni_log_level_parse(s, ret);
}
