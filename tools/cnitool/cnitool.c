/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnitool: run a named network configuration against a network namespace,
 * with upstream cnitool's command line and environment, plus --cache-dir and
 * --timeout. Parse the command line and environment first, then act.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/codec.h"
#include "base/sha512.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cni/result.h"
#include "cni/runtime.h"
#include "cnitool.h"

#define DEFAULT_NETCONFPATH "/etc/cni/net.d"
#define DEFAULT_IFNAME "eth0"
#define TIMEOUT_MAX_MS (24 * 3600 * 1000)

/* ---- pure helpers ---- */

/* Append component c (len n) to the clean absolute path being built in out. */
static void path_push(char *out, size_t *len, const char *c, size_t n)
{
	if (n == 0 || (n == 1 && c[0] == '.'))
		return;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		while (*len > 0 && out[*len - 1] != '/')
			(*len)--;
		if (*len > 0)
			(*len)--; /* the slash before the popped component */
		out[*len] = '\0';
		return;
	}
	out[(*len)++] = '/';
	memcpy(out + *len, c, n);
	*len += n;
	out[*len] = '\0';
}

static void path_push_all(char *out, size_t *len, const char *p)
{
	while (*p) {
		const char *end = strchrnul(p, '/');

		path_push(out, len, p, (size_t)(end - p));
		p = *end ? end + 1 : end;
	}
}

int cnitool_abs_path(const char *path, char **ret)
{
	_cleanup_free_ char *cwd = NULL;
	size_t len = 0, cap;
	char *out;

	if (isempty(path))
		return -EINVAL;
	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			return -errno;
	}
	cap = strlen(path) + (cwd ? strlen(cwd) : 0) + 3;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	out[0] = '\0';
	if (cwd)
		path_push_all(out, &len, cwd);
	path_push_all(out, &len, path);
	if (len == 0)
		strcpy(out, "/");
	*ret = out;
	return 0;
}

void cnitool_container_id(const char *abs_netns, char ret[CNITOOL_CONTAINER_ID_LEN])
{
	uint8_t digest[SHA512_DIGEST_SIZE];

	sha512(abs_netns, strlen(abs_netns), digest);
	memcpy(ret, "cnitool-", strlen("cnitool-"));
	*hex_encode(ret + strlen("cnitool-"), digest, 10) = '\0';
}

void cnitool_args_free(struct cni_runtime_arg *args, size_t n)
{
	for (size_t i = 0; args && i < n; i++) {
		free(args[i].key);
		free(args[i].value);
	}
	free(args);
}

static int args_add(struct cni_runtime_arg *v, size_t *n, const char *pair, size_t len,
		    struct cni_error *err)
{
	const char *eq = memchr(pair, '=', len);

	if (!eq || eq == pair || eq == pair + len - 1 ||
	    memchr(eq + 1, '=', len - (size_t)(eq - pair) - 1))
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_ARGS: invalid pair \"%.*s\": want KEY=VALUE", (int)len,
				  pair);
	v[*n].key = strndup(pair, (size_t)(eq - pair));
	v[*n].value = strndup(eq + 1, len - (size_t)(eq - pair) - 1);
	(*n)++;
	return v[*n - 1].key && v[*n - 1].value ? 0 : -ENOMEM;
}

int cnitool_parse_cni_args(const char *s, struct cni_runtime_arg **ret, size_t *ret_n,
			   struct cni_error *err)
{
	struct cni_runtime_arg *v;
	size_t n = 0, max = 1;
	int r = 0;

	*ret = NULL;
	*ret_n = 0;
	if (isempty(s))
		return 0;
	for (const char *p = s; *p; p++)
		max += *p == ';';
	if (max > 1024)
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -E2BIG,
				  "CNI_ARGS: more than 1024 pairs");
	v = calloc(max, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const char *p = s;; p++) {
		const char *end = strchrnul(p, ';');

		r = args_add(v, &n, p, (size_t)(end - p), err);
		if (r < 0 || !*end)
			break;
		p = end;
	}
	if (r < 0) {
		cnitool_args_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int cnitool_parse_timeout(const char *s, int *ret_ms)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"", 1000}};
	char num[32];
	uint64_t v;

	if (isempty(s))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		size_t sl = strlen(units[i].suffix), n = strlen(s);

		if (n <= sl || strcmp(s + n - sl, units[i].suffix) != 0 || n - sl >= sizeof(num))
			continue;
		memcpy(num, s, n - sl);
		num[n - sl] = '\0';
		if (safe_atou64(num, &v) < 0)
			continue;
		if (v > TIMEOUT_MAX_MS / units[i].mult)
			return -ERANGE;
		*ret_ms = (int)(v * units[i].mult);
		return 0;
	}
	return -EINVAL;
}

/* ---- command line ---- */

enum tool_cmd { CMD_ADD, CMD_CHECK, CMD_DEL, CMD_GC, CMD_STATUS };

static const char *const cmd_names[] = {"add", "check", "del", "gc", "status"};

struct options {
	enum tool_cmd cmd;
	const char *net;
	const char *netns;
	const char *ifname;
	const char *cache_dir;
	int timeout_ms;
	bool debug;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: cnitool [OPTIONS] {add|check|del|gc|status} NETWORK NETNS\n"
	    "\n"
	    "Run the CNI network configuration list NETWORK (found by name in\n"
	    "$NETCONFPATH) for the network namespace at path NETNS.\n"
	    "\n"
	    "Commands:\n"
	    "  add     run ADD through the plugin chain, print the result, cache it\n"
	    "  check   run CHECK with the cached result as prevResult\n"
	    "  del     run DEL (plugins in reverse order) and remove the cached result\n"
	    "  gc      DEL every cached attachment of NETWORK, then send GC (NETNS optional)\n"
	    "  status  ask every plugin for STATUS (NETNS optional)\n"
	    "\n"
	    "Options:\n"
	    "  -i, --ifname NAME     interface name in the namespace (default $CNI_IFNAME, else "
	    "eth0)\n"
	    "      --cache-dir DIR   result cache directory (default %s)\n"
	    "      --timeout T       kill a plugin running longer than T: N seconds, or Nms/Ns/Nm\n"
	    "                        (default: no timeout); a timeout is CNI error code 11\n"
	    "      --debug           log each plugin execution to stderr\n"
	    "  -h, --help            show this help\n"
	    "\n"
	    "Environment:\n"
	    "  NETCONFPATH  directory of *.conflist (and legacy *.conf/*.json) files\n"
	    "               (default %s)\n"
	    "  CNI_PATH     ':'-separated directories searched for plugin binaries\n"
	    "  CNI_ARGS     \"K=V;K2=V2\" passed to plugins as CNI_ARGS\n"
	    "  CAP_ARGS     JSON object of capability arguments, e.g.\n"
	    "               "
	    "'{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}]}'\n"
	    "  CNI_IFNAME   interface name when -i is not given\n"
	    "\n"
	    "The container ID is \"cnitool-\" followed by the first 20 hex digits of the\n"
	    "SHA-512 of the absolute NETNS path, so add, check and del of one namespace\n"
	    "pair up, also with upstream cnitool. On success add prints the result JSON;\n"
	    "the others print nothing. Errors go to stderr and the exit status is 1.\n",
	    CNI_DEFAULT_CACHE_DIR, DEFAULT_NETCONFPATH);
}

static int parse_command(const char *s, enum tool_cmd *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmd_names); i++)
		if (streq(s, cmd_names[i])) {
			*ret = (enum tool_cmd)i;
			return 0;
		}
	return -EINVAL;
}

/* Returns 0 to run, 1 when help was printed, -EINVAL on a usage error (printed). */
static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_CACHE_DIR = 0x100, OPT_TIMEOUT, OPT_DEBUG };
	static const struct option longopts[] = {
	    {"ifname", required_argument, NULL, 'i'},
	    {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"debug", no_argument, NULL, OPT_DEBUG},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, npos;

	/* GNU getopt permutes: options may follow the command word, as with cobra. */
	while ((c = getopt_long(argc, argv, "i:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->ifname = optarg;
			break;
		case OPT_CACHE_DIR:
			/* "" would silently mean the real /var/lib/cni. */
			if (isempty(optarg)) {
				fprintf(stderr, "cnitool: --cache-dir must not be empty\n");
				return -EINVAL;
			}
			o->cache_dir = optarg;
			break;
		case OPT_TIMEOUT:
			if (cnitool_parse_timeout(optarg, &o->timeout_ms) < 0) {
				fprintf(stderr, "cnitool: invalid --timeout \"%s\"\n", optarg);
				return -EINVAL;
			}
			break;
		case OPT_DEBUG:
			o->debug = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	npos = argc - optind;
	if (npos < 2 || npos > 3 || parse_command(argv[optind], &o->cmd) < 0 ||
	    (npos == 2 && o->cmd != CMD_GC && o->cmd != CMD_STATUS)) {
		usage(stderr);
		return -EINVAL;
	}
	o->net = argv[optind + 1];
	o->netns = npos == 3 ? argv[optind + 2] : NULL;
	return 0;
}

/* ---- environment ---- */

struct tool_env {
	const char *netconfpath;
	const char *cni_path;
	const char *ifname;
	struct cni_runtime_arg *args;
	size_t n_args;
	json_t *cap_args; /* owned */
	char *netns;	  /* owned, absolute */
	char container_id[CNITOOL_CONTAINER_ID_LEN];
};

static void tool_env_done(struct tool_env *e)
{
	cnitool_args_free(e->args, e->n_args);
	json_decref(e->cap_args);
	free(e->netns);
}

static int parse_cap_args(const char *s, json_t **ret, struct cni_error *err)
{
	json_t *o = NULL;
	int r;

	if (isempty(s))
		return 0;
	r = cni_json_loadb(s, strlen(s), "CAP_ARGS", &o, err);
	if (r < 0)
		return r;
	if (!json_is_object(o)) {
		json_decref(o);
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CAP_ARGS: must be a JSON object, got \"%s\"", s);
	}
	*ret = o;
	return 0;
}

/* Read NETCONFPATH, CNI_PATH, CNI_ARGS, CAP_ARGS, CNI_IFNAME and derive the container ID. */
static int tool_env_load(const struct options *o, struct tool_env *e, struct cni_error *err)
{
	const char *ifname_env = getenv("CNI_IFNAME");
	int r;

	e->netconfpath = getenv("NETCONFPATH");
	if (isempty(e->netconfpath))
		e->netconfpath = DEFAULT_NETCONFPATH;
	e->cni_path = getenv("CNI_PATH");
	/* As upstream: a set but empty CNI_IFNAME means an empty name (rejected by ADD). */
	e->ifname = o->ifname ? o->ifname : ifname_env ? ifname_env : DEFAULT_IFNAME;
	r = cnitool_parse_cni_args(getenv("CNI_ARGS"), &e->args, &e->n_args, err);
	if (r >= 0)
		r = parse_cap_args(getenv("CAP_ARGS"), &e->cap_args, err);
	if (r < 0 || !o->netns)
		return r;
	r = cnitool_abs_path(o->netns, &e->netns);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_INVALID_ENV, r, "netns path \"%s\": %s", o->netns,
				  strerror(-r));
	cnitool_container_id(e->netns, e->container_id);
	return 0;
}

/* ---- actions ---- */

/* Print as upstream: the result in its own version, 4-space indent, no newline. */
static int print_result(const json_t *result, struct cni_error *err)
{
	_cleanup_(cni_result_freep) struct cni_result *res = NULL;
	_cleanup_free_ char *text = NULL;
	json_t *canon = NULL;

	if (cni_result_from_json_any(result, CNI_VERSION_CURRENT, "result", &res, err) >= 0 &&
	    cni_result_to_json(res, res->version, &canon, err) >= 0) {
		text = json_dumps(canon, JSON_INDENT(4));
		json_decref(canon);
	} else {
		/* Already validated by the runtime; print what the plugin said. */
		cni_error_done(err);
		text = json_dumps(result, JSON_INDENT(4));
	}
	if (!text)
		return -ENOMEM;
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF)
		return cni_errorf(err, CNI_ERR_IO, -EIO, "cannot write the result to stdout");
	return 0;
}

static int run_command(const struct options *o, const struct tool_env *e,
		       const struct cni_netconf_list *list, struct cni_error *err)
{
	const struct cni_runtime rt = {
	    .plugin_path = e->cni_path,
	    .cache_dir = o->cache_dir,
	    .timeout_ms = o->timeout_ms,
	};
	const struct cni_runtime_conf rc = {
	    .container_id = e->container_id,
	    .netns = e->netns,
	    .ifname = e->ifname,
	    .args = e->args,
	    .n_args = e->n_args,
	    .capability_args = e->cap_args,
	};
	json_t *result = NULL;
	int r;

	switch (o->cmd) {
	case CMD_ADD:
		r = cni_runtime_add(&rt, list, &rc, &result, err);
		if (r >= 0)
			r = print_result(result, err);
		json_decref(result);
		return r;
	case CMD_CHECK:
		return cni_runtime_check(&rt, list, &rc, err);
	case CMD_DEL:
		return cni_runtime_del(&rt, list, &rc, err);
	case CMD_GC:
		/* Like upstream: no valid-attachments list, so every cached one goes. */
		return cni_runtime_gc(&rt, list, false, NULL, 0, err);
	case CMD_STATUS:
		return cni_runtime_status(&rt, list, err);
	}
	return -EINVAL;
}

static void print_error(const struct cni_error *err, int r)
{
	if (cni_error_isset(err)) {
		fprintf(stderr, "cnitool: %s (CNI error code %u)\n", err->msg ? err->msg : "error",
			err->code);
		if (!isempty(err->details))
			fprintf(stderr, "cnitool: details: %s\n", err->details);
	} else {
		fprintf(stderr, "cnitool: %s\n", strerror(r < 0 ? -r : EIO));
	}
}

int cnitool_main(int argc, char **argv)
{
	struct options o = {0};
	struct tool_env e = {0};
	struct cni_error err = {0};
	struct cni_netconf_list *list = NULL;
	int r;

	r = parse_options(argc, argv, &o);
	if (r != 0)
		return r > 0 ? 0 : 1;
	cni_log_set_identity("cnitool", cmd_names[o.cmd], NULL);
	if (o.debug)
		cni_log_set_level(CNI_LOG_DEBUG);
	r = tool_env_load(&o, &e, &err);
	if (r >= 0)
		r = cni_netconf_list_load(e.netconfpath, o.net, &list, &err);
	if (r >= 0)
		r = run_command(&o, &e, list, &err);
	if (r < 0)
		print_error(&err, r);
	cni_netconf_list_free(list);
	tool_env_done(&e);
	cni_error_done(&err);
	return r < 0 ? 1 : 0;
}
