/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kubeconfig files (libyaml's document API): current-context, its cluster
 * and user. TLS verification is never optional.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "base/codec.h"
#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "multinet.h"

#define KC_MAX_BYTES (1u << 20)

struct kc {
	yaml_document_t *doc;
	const char *what;
	const char *dir;
	struct cni_error *err;
};

static yaml_node_t *node(const struct kc *k, int id)
{
	return id ? yaml_document_get_node(k->doc, id) : NULL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Value node of `key` in a mapping node, or NULL. */
static yaml_node_t *map_get(const struct kc *k, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		const char *s = scalar(node(k, p->key));

		if (s && streq(s, key))
			return node(k, p->value);
	}
	return NULL;
}

static const char *map_str(const struct kc *k, const yaml_node_t *map, const char *key)
{
	const char *s = scalar(map_get(k, map, key));

	return s && *s ? s : NULL;
}

/*
 * In the sequence `list` (clusters, users, contexts) the element whose
 * "name" is `name`; returns its `inner` mapping (cluster, user, context).
 */
static yaml_node_t *find_named(const struct kc *k, const char *list, const char *name,
			       const char *inner)
{
	yaml_node_t *seq = map_get(k, yaml_document_get_root_node(k->doc), list);

	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top;
	     i++) {
		yaml_node_t *e = node(k, *i);
		const char *n = map_str(k, e, "name");

		if (n && streq(n, name)) {
			yaml_node_t *in = map_get(k, e, inner);
			return in && in->type == YAML_MAPPING_NODE ? in : NULL;
		}
	}
	return NULL;
}

static int resolve_path(const struct kc *k, const char *p, char **ret)
{
	if (p[0] == '/' || !k->dir)
		*ret = strdup(p);
	else if (asprintf(ret, "%s/%s", k->dir, p) < 0)
		*ret = NULL;
	return *ret ? 0 : -ENOMEM;
}

static int decode_data(const struct kc *k, const char *key, const char *b64, char **ret,
		       size_t *ret_len)
{
	_cleanup_free_ char *clean = malloc(strlen(b64) + 1);
	size_t n = 0;

	if (!clean)
		return -ENOMEM;
	for (const char *s = b64; *s; s++)
		if (!ascii_isspace(*s))
			clean[n++] = *s;
	clean[n] = '\0';
	if (b64_decode_dup(clean, n, ret, ret_len) < 0 || *ret_len == 0)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: %s is not valid base64", k->what, key);
	return 0;
}

static int parse_cluster(const struct kc *k, const yaml_node_t *cl, const char *cname,
			 struct mn_kubeconfig *kc)
{
	const char *server = map_str(k, cl, "server");
	const char *skip = map_str(k, cl, "insecure-skip-tls-verify");
	const char *caf = map_str(k, cl, "certificate-authority");
	const char *cad = map_str(k, cl, "certificate-authority-data");
	size_t n;

	if (!server)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: cluster '%s' has no server", k->what, cname);
	if (strncmp(server, "https://", 8) != 0 || strlen(server) <= 8)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: cluster '%s': server '%s' is not https:// "
				  "(TLS is required)",
				  k->what, cname, server);
	if (skip && ascii_strcaseeq(skip, "true"))
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: cluster '%s': insecure-skip-tls-verify is not "
				  "supported (TLS is always verified)",
				  k->what, cname);
	if (!(kc->server = strdup(server)))
		return -ENOMEM;
	n = strlen(kc->server);
	while (n > 8 && kc->server[n - 1] == '/')
		kc->server[--n] = '\0';
	if (cad)
		return decode_data(k, "certificate-authority-data", cad, &kc->ca_data, &kc->ca_len);
	if (caf)
		return resolve_path(k, caf, &kc->ca_file);
	return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "kubeconfig %s: cluster '%s' has no certificate-authority or "
			  "certificate-authority-data (TLS is always verified)",
			  k->what, cname);
}

static int read_token_file(const struct kc *k, const char *path, char **ret)
{
	_cleanup_free_ char *full = NULL;
	char buf[8192];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (resolve_path(k, path, &full) < 0)
		return -ENOMEM;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -errno,
				  "kubeconfig %s: tokenFile '%s' cannot be read", k->what, full);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, n < 0 ? -errno : -EINVAL,
				  "kubeconfig %s: tokenFile '%s' is empty", k->what, full);
	while (n > 0 && ascii_isspace(buf[n - 1]))
		n--;
	buf[n] = '\0';
	return (*ret = strdup(buf)) ? 0 : -ENOMEM;
}

static int parse_user(const struct kc *k, const yaml_node_t *u, struct mn_kubeconfig *kc)
{
	const char *tok = map_str(k, u, "token"), *tokf = map_str(k, u, "tokenFile");
	const char *cf = map_str(k, u, "client-certificate");
	const char *cd = map_str(k, u, "client-certificate-data");
	const char *kf = map_str(k, u, "client-key"), *kd = map_str(k, u, "client-key-data");
	int r;

	if (tok && !(kc->token = strdup(tok)))
		return -ENOMEM;
	if (!tok && tokf && (r = read_token_file(k, tokf, &kc->token)) < 0)
		return r;
	if (cd &&
	    (r = decode_data(k, "client-certificate-data", cd, &kc->cert_data, &kc->cert_len)) < 0)
		return r;
	if (!cd && cf && (r = resolve_path(k, cf, &kc->cert_file)) < 0)
		return r;
	if (kd && (r = decode_data(k, "client-key-data", kd, &kc->key_data, &kc->key_len)) < 0)
		return r;
	if (!kd && kf && (r = resolve_path(k, kf, &kc->key_file)) < 0)
		return r;
	if ((kc->cert_data || kc->cert_file) != (kc->key_data || kc->key_file))
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: a client certificate needs its key and the "
				  "other way round",
				  k->what);
	return 0;
}

static int parse_doc(const struct kc *k, struct mn_kubeconfig *kc)
{
	yaml_node_t *root = yaml_document_get_root_node(k->doc), *ctx, *cl, *u;
	const char *cur, *cname, *uname;

	if (!root || root->type != YAML_MAPPING_NODE)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: not a YAML mapping", k->what);
	cur = map_str(k, root, "current-context");
	if (!cur)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: current-context is not set", k->what);
	ctx = find_named(k, "contexts", cur, "context");
	if (!ctx)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: current-context '%s' is not in contexts", k->what,
				  cur);
	cname = map_str(k, ctx, "cluster");
	cl = cname ? find_named(k, "clusters", cname, "cluster") : NULL;
	if (!cl)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: context '%s': cluster '%s' not found", k->what,
				  cur, cname ? cname : "");
	int r = parse_cluster(k, cl, cname, kc);
	if (r < 0)
		return r;
	uname = map_str(k, ctx, "user");
	u = uname ? find_named(k, "users", uname, "user") : NULL;
	if (uname && !u)
		return cni_errorf(k->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "kubeconfig %s: context '%s': user '%s' not found", k->what, cur,
				  uname);
	return u ? parse_user(k, u, kc) : 0;
}

int mn_kubeconfig_parse(const char *buf, size_t len, const char *dir, const char *what,
			struct mn_kubeconfig *ret, struct cni_error *err)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	struct kc k = {.doc = &doc, .what = what, .dir = dir, .err = err};
	int r;

	memset(ret, 0, sizeof(*ret));
	if (len > KC_MAX_BYTES)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EFBIG,
				  "kubeconfig %s: larger than %u bytes", what, KC_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		r = cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			       "kubeconfig %s: YAML error at line %zu: %s", what,
			       parser.problem_mark.line + 1,
			       parser.problem ? parser.problem : "unknown");
		yaml_parser_delete(&parser);
		return r;
	}
	r = parse_doc(&k, ret);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (r < 0)
		mn_kubeconfig_done(ret);
	return r;
}

int mn_kubeconfig_load(const char *path, struct mn_kubeconfig *ret, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL, *dir = NULL;
	/* Followed if a symlink: a mounted Secret is one. */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	int n = fd < 0 ? -errno : fd_read_all(fd, KC_MAX_BYTES, &buf);
	char *slash;

	if (n == -EFBIG)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, n,
				  "kubeconfig %s: larger than %u bytes", path, KC_MAX_BYTES);
	if (n < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, n, "kubeconfig: cannot read '%s'",
				  path);
	if (!(dir = strdup(path)))
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return mn_kubeconfig_parse(buf, (size_t)n, slash ? dir : ".", path, ret, err);
}

void mn_kubeconfig_done(struct mn_kubeconfig *kc)
{
	free(kc->server);
	free(kc->ca_file);
	free(kc->ca_data);
	free(kc->cert_file);
	free(kc->key_file);
	free(kc->cert_data);
	free(kc->key_data);
	if (kc->token)
		explicit_bzero(kc->token, strlen(kc->token));
	free(kc->token);
	memset(kc, 0, sizeof(*kc));
}
