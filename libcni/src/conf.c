/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The protocol's keys of a plugin config: strict JSON loading, the common
 * keys, name validation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "internal.h"

const char *const cni_conf_protocol_keys[] = {
    "cniVersion",   "cniVersions", "name", "type", "args",    "runtimeConfig", "prevResult",
    "capabilities", "ipMasq",	   "ipam", "dns",  "logFile", "logLevel",      NULL,
};

int cni_json_loadb(const char *buf, size_t len, const char *what, json_t **ret,
		   struct cni_error *err)
{
	json_error_t jerr;
	json_t *root;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		cni_errorf(err, CNI_ERR_DECODE, -EBADMSG,
			   "%s: invalid JSON at line %d, column %d: %s", what, jerr.line,
			   jerr.column, jerr.text);
		return -EBADMSG;
	}
	*ret = root;
	return 0;
}

/* One journal line applied to arr: false when it is not an update of arr. */
static bool journal_apply(json_t *arr, const char *line, size_t len)
{
	json_t *u = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	const json_t *idx = json_object_get(u, "index");
	json_t *v = json_object_get(u, "value");
	bool ok = json_is_integer(idx) && v && json_integer_value(idx) >= 0 &&
		  (size_t)json_integer_value(idx) < json_array_size(arr) &&
		  json_array_set(arr, (size_t)json_integer_value(idx), v) == 0;

	json_decref(u);
	return ok;
}

int cni_json_load_journal(const char *buf, size_t len, const char *what, const char *key,
			  json_t **ret, struct cni_error *err)
{
	const char *nl = memchr(buf, '\n', len), *end = buf + len;
	json_t *doc = nl ? json_loadb(buf, (size_t)(nl - buf), JSON_REJECT_DUPLICATES, NULL) : NULL;
	json_t *arr = json_object_get(doc, key);

	/* No first line that is a document (one written by hand): the whole text. */
	if (!doc)
		return cni_json_loadb(buf, len, what, ret, err);
	for (const char *p = nl + 1; p < end && json_is_array(arr); p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || !journal_apply(arr, p, (size_t)(nl - p)))
			break;
	}
	*ret = doc;
	return 0;
}

/* 2^63: every integer jansson could not hold is at least this far from 0. */
#define INT_LIMIT 9223372036854775808.0

/*
 * The JSON path of the first number in v that overflowed, into path: a real
 * of magnitude >= 2^63 equal to `want` (when the literal is known, so a real
 * like 1e300 elsewhere is not blamed).
 */
static bool find_big_number(const json_t *v, const double *want, char *path, size_t size)
{
	size_t len = strlen(path), i;
	const char *key;
	json_t *m;

	if (json_is_real(v)) {
		double d = json_real_value(v);

		return (d >= INT_LIMIT || d <= -INT_LIMIT) && (!want || d == *want);
	}
	json_object_foreach ((json_t *)v, key, m) {
		snprintf(path + len, size - len, "%s%s", len ? "." : "", key);
		if (find_big_number(m, want, path, size))
			return true;
	}
	json_array_foreach (v, i, m) {
		snprintf(path + len, size - len, "[%zu]", i);
		if (find_big_number(m, want, path, size))
			return true;
	}
	path[len] = '\0';
	return false;
}

int cni_conf_loadb(const char *buf, size_t len, const char *what, json_t **ret,
		   struct cni_error *err)
{
	_cleanup_free_ char *literal = NULL;
	char path[256] = "";
	const char *near;
	json_error_t jerr;
	double want = 0;
	json_t *root;
	int r;

	r = cni_json_loadb(buf, len, what, ret, err);
	if (r >= 0 || !err->msg || !strstr(err->msg, "too big"))
		return r;
	/* jansson says "too big integer near '<literal>'", or "too big negative integer" */
	near = strstr(err->msg, "near '");
	if (near) {
		literal = strndup(near + 6, strcspn(near + 6, "'"));
		if (!literal)
			return r;
		want = strtod(literal, NULL);
	}
	/* Read the numbers as reals to find the key of the one that overflowed. */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &jerr);
	if (root && find_big_number(root, literal ? &want : NULL, path, sizeof(path)) && path[0]) {
		cni_error_done(err);
		cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			   "%s: %s%sout of range (integers are at most 64-bit)", path,
			   literal ? literal : "", literal ? " is " : "");
	}
	json_decref(root);
	return r;
}

bool cni_valid_name(const char *s)
{
	if (isempty(s) || !ascii_isalnum(s[0]))
		return false;
	for (const char *p = s; *p; p++)
		if (!ascii_isalnum(*p) && *p != '_' && *p != '.' && *p != '-')
			return false;
	return true;
}

const char *cni_ifname_problem(const char *s)
{
	if (isempty(s))
		return "empty";
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		/* Unicode whitespace: reject every non-ASCII byte too. */
		if (c >= 0x7f)
			return "ASCII only";
		if (c == '/')
			return "no '/'";
		if (c == ':')
			return "no ':'";
		if (ascii_isspace((char)c) || c < 0x20)
			return "no whitespace or control characters";
	}
	if (strlen(s) > 15)
		return "longer than 15 bytes";
	if (streq(s, ".") || streq(s, ".."))
		return "not '.' or '..'";
	return NULL;
}

bool cni_valid_ifname(const char *s)
{
	return !cni_ifname_problem(s);
}

/*
 * An optional member of JSON type `type`, borrowed in *ret (NULL when absent
 * or null). Of another type: -EINVAL with err, or only a warning when err is
 * NULL (lenient).
 */
static int opt_member(const json_t *root, const char *key, json_type type, const json_t **ret,
		      struct cni_error *err)
{
	const json_t *v = json_object_get(root, key);
	const char *what = type == JSON_STRING ? "not a string" : "not an object";
	_cleanup_free_ char *repr = NULL;

	*ret = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (json_typeof(v) == type) {
		*ret = v;
		return 0;
	}
	repr = cni_json_repr(v);
	if (!err) {
		cni_log_warning("%s: %s: %s, ignoring", key, what, repr ? repr : "?");
		return 0;
	}
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: %s: %s", key, what,
			  repr ? repr : "?");
}

/* Borrowed string of an optional member; -EINVAL with err when not a string. */
static int opt_string(const json_t *root, const char *key, bool lenient, const char **ret,
		      struct cni_error *err)
{
	const json_t *v;
	int r = opt_member(root, key, JSON_STRING, &v, lenient ? NULL : err);

	*ret = v ? json_string_value(v) : NULL;
	return r;
}

static int opt_object(const json_t *root, const char *key, bool lenient, const json_t **ret,
		      struct cni_error *err)
{
	return opt_member(root, key, JSON_OBJECT, ret, lenient ? NULL : err);
}

static int parse_name_version(const json_t *root, struct cni_conf *c, struct cni_error *err)
{
	const json_t *name = json_object_get(root, "name");
	const char *ver;
	int r;

	if (!name || json_is_null(name))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "missing network name");
	if (!json_is_string(name) || !cni_valid_name(json_string_value(name))) {
		_cleanup_free_ char *repr = cni_json_repr(name);

		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "name: invalid network name %s (want [a-zA-Z0-9][a-zA-Z0-9_.-]*)",
				  repr ? repr : "?");
	}
	c->name = strdup(json_string_value(name));
	r = opt_string(root, "cniVersion", false, &ver, err);
	if (r < 0) {
		/* A non-string version cannot be decoded at all. */
		err->code = CNI_ERR_DECODE;
		return r;
	}
	if (ver) {
		c->cni_version = strdup(ver);
		if (!c->cni_version)
			return -ENOMEM;
	}
	/*
	 * Any string naming no supported version ("9.9.9", "1.x", "abc") is
	 * decodable but incompatible: the skeleton answers code 1, as the
	 * reference and the spec do.
	 */
	if (cni_version_parse(ver, &c->version) < 0)
		c->version = CNI_V_INVALID;
	return c->name ? 0 : -ENOMEM;
}

static int parse_ipam(const json_t *root, bool lenient, struct cni_conf *c, struct cni_error *err)
{
	const char *type = NULL;
	int r;

	r = opt_object(root, "ipam", lenient, &c->ipam, err);
	if (r < 0 || !c->ipam)
		return r;
	r = opt_string(c->ipam, "type", lenient, &type, err);
	if (r < 0)
		return cni_error_wrapf(err, r, "ipam");
	if (isempty(type))
		return 0;
	if (strchr(type, '/') || strchr(type, '\\'))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "ipam.type: invalid plugin name '%s'", type);
	c->ipam_type = strdup(type);
	return c->ipam_type ? 0 : -ENOMEM;
}

static int parse_string_list(const json_t *arr, const char *path, char ***ret, size_t *ret_n,
			     struct cni_error *err)
{
	size_t i, n = json_array_size(arr);
	const json_t *v;
	char **list;

	if (n > CNI_RESULT_MAX_ENTRIES)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -E2BIG, "%s: more than %d entries",
				  path, CNI_RESULT_MAX_ENTRIES);
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	json_array_foreach (arr, i, v) {
		if (!json_is_string(v)) {
			_cleanup_free_ char *repr = cni_json_repr(v);

			*ret = list; /* caller frees what was copied */
			*ret_n = i;
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "%s[%zu]: not a string: %s", path, i, repr ? repr : "?");
		}
		list[i] = strdup(json_string_value(v));
		if (!list[i]) {
			*ret = list;
			*ret_n = i;
			return -ENOMEM;
		}
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

static int parse_args(const json_t *root, bool lenient, struct cni_conf *c, struct cni_error *err)
{
	const json_t *cni, *ips;
	int r;

	r = opt_object(root, "args", lenient, &c->args, err);
	if (r < 0 || !c->args)
		return r;
	cni = json_object_get(c->args, "cni");
	if (!json_is_object(cni))
		return 0; /* args is runtime metadata: ignore shapes we do not use */
	ips = json_object_get(cni, "ips");
	if (!ips || json_is_null(ips))
		return 0;
	if (!json_is_array(ips)) {
		if (lenient)
			return 0;
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "args.cni.ips: not a list of strings");
	}
	r = parse_string_list(ips, "args.cni.ips", &c->args_cni_ips, &c->n_args_cni_ips, err);
	return lenient ? 0 : r;
}

static int parse_attachment(const json_t *v, size_t i, struct cni_attachment *a,
			    struct cni_error *err)
{
	const json_t *cid = cni_json_get_ci(v, "containerID");
	const json_t *ifn = cni_json_get_ci(v, "ifname");

	if (!json_is_object(v) || !json_is_string(cid) || !json_is_string(ifn))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "cni.dev/valid-attachments[%zu]: want {\"containerID\": string, "
				  "\"ifname\": string}",
				  i);
	a->container_id = strdup(json_string_value(cid));
	a->ifname = strdup(json_string_value(ifn));
	return a->container_id && a->ifname ? 0 : -ENOMEM;
}

static int parse_valid_attachments(const json_t *root, struct cni_conf *c, struct cni_error *err)
{
	const json_t *arr = json_object_get(root, "cni.dev/valid-attachments");
	size_t i, n;
	const json_t *v;
	int r;

	if (!arr) /* the name of the original spec text, still sent by libcni */
		arr = json_object_get(root, "cni.dev/attachments");
	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "cni.dev/valid-attachments: not a list");
	n = json_array_size(arr);
	c->valid_attachments = calloc(n ? n : 1, sizeof(*c->valid_attachments));
	if (!c->valid_attachments)
		return -ENOMEM;
	c->has_valid_attachments = true;
	json_array_foreach (arr, i, v) {
		c->n_valid_attachments = i + 1;
		r = parse_attachment(v, i, &c->valid_attachments[i], err);
		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_misc(const json_t *root, bool lenient, struct cni_conf *c, struct cni_error *err)
{
	const json_t *masq = json_object_get(root, "ipMasq");
	const char *s;
	int r;

	if (masq && !json_is_null(masq)) {
		if (json_is_boolean(masq)) {
			c->has_ip_masq = true;
			c->ip_masq = json_is_true(masq);
		} else if (!lenient) {
			_cleanup_free_ char *repr = cni_json_repr(masq);

			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "ipMasq: not a boolean: %s", repr ? repr : "?");
		}
	}
	if ((r = opt_string(root, "type", lenient, &s, err)) < 0)
		return r;
	if (s && !(c->type = strdup(s)))
		return -ENOMEM;
	if ((r = opt_string(root, "logFile", lenient, &s, err)) < 0)
		return r;
	if (s && !(c->log_file = strdup(s)))
		return -ENOMEM;
	if ((r = opt_string(root, "logLevel", lenient, &s, err)) < 0)
		return r;
	if (s && !(c->log_level = strdup(s)))
		return -ENOMEM;
	if ((r = opt_object(root, "runtimeConfig", lenient, &c->runtime_config, err)) < 0)
		return r;
	if ((r = opt_object(root, "capabilities", lenient, &c->capabilities, err)) < 0)
		return r;
	return opt_object(root, "prevResult", lenient, &c->prev_result, err);
}

static int parse_dns(const json_t *root, bool lenient, struct cni_conf *c, struct cni_error *err)
{
	const json_t *dns;
	int r;

	r = opt_object(root, "dns", lenient, &dns, err);
	if (r < 0 || !dns)
		return r;
	r = cni_dns_from_json(dns, "dns", &c->dns, err);
	if (r < 0 && lenient) {
		cni_log_warning("%s, ignoring", err->msg ? err->msg : "dns: invalid");
		cni_error_done(err);
		cni_dns_done(&c->dns);
		return 0;
	}
	c->has_dns = r >= 0 && !cni_dns_is_empty(&c->dns);
	return r;
}

int cni_conf_parse_ex(json_t *root, bool lenient, struct cni_conf *ret, struct cni_error *err)
{
	struct cni_conf c = {0};
	int r;

	if (!json_is_object(root))
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
				  "network config: not a JSON object");
	c.root = json_incref(root);
	r = parse_name_version(root, &c, err);
	if (r >= 0)
		r = parse_misc(root, lenient, &c, err);
	if (r >= 0)
		r = parse_ipam(root, lenient, &c, err);
	if (r >= 0)
		r = parse_dns(root, lenient, &c, err);
	if (r >= 0)
		r = parse_args(root, lenient, &c, err);
	if (r >= 0)
		r = parse_valid_attachments(root, &c, err);
	if (r < 0) {
		if (r == -ENOMEM)
			cni_errorf(err, CNI_ERR_PLUGIN, r, "out of memory parsing config");
		cni_conf_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

int cni_conf_parse(json_t *root, struct cni_conf *ret, struct cni_error *err)
{
	return cni_conf_parse_ex(root, false, ret, err);
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void cni_conf_done(struct cni_conf *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_valid_attachments; i++) {
		free(c->valid_attachments[i].container_id);
		free(c->valid_attachments[i].ifname);
	}
	free(c->valid_attachments);
	strv_free(c->args_cni_ips, c->n_args_cni_ips);
	cni_dns_done(&c->dns);
	free(c->cni_version);
	free(c->name);
	free(c->type);
	free(c->ipam_type);
	free(c->log_file);
	free(c->log_level);
	json_decref(c->root);
	memset(c, 0, sizeof(*c));
}
