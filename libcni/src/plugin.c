/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plugin skeleton: environment + stdin -> validation -> dispatch -> one
 * JSON document on stdout and the exit code. Nothing else in podwire prints
 * to stdout or picks an exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/file.h"
#include "base/parse.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "internal.h"
#include "plugin-log.h"

/* statfs(2) f_type of nsfs; spelled out to keep <linux/magic.h> out of libcni. */
#define PODWIRE_NSFS_MAGIC 0x6e736673

extern char **environ;

static const char *const command_names[] = {
    [CNI_CMD_NONE] = "",	   [CNI_CMD_ADD] = "ADD", [CNI_CMD_DEL] = "DEL",
    [CNI_CMD_CHECK] = "CHECK",	   [CNI_CMD_GC] = "GC",	  [CNI_CMD_STATUS] = "STATUS",
    [CNI_CMD_VERSION] = "VERSION",
};

const char *cni_command_str(enum cni_command c)
{
	return c < ARRAY_SIZE(command_names) ? command_names[c] : "?";
}

enum cni_command cni_command_parse(const char *s)
{
	for (size_t i = 1; i < ARRAY_SIZE(command_names); i++)
		if (streq(s, command_names[i]))
			return (enum cni_command)i;
	return CNI_CMD_NONE;
}

static const char *env_get(char *const *env, const char *key)
{
	size_t len = strlen(key);

	for (; env && *env; env++)
		if (strncmp(*env, key, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

/* Which variables each command requires (the spec's table; CNI_PATH only for GC). */
enum {
	NEED_CID = 1U << 0,
	NEED_NETNS = 1U << 1,
	NEED_IFNAME = 1U << 2,
	NEED_PATH = 1U << 3,
};

static unsigned required_vars(enum cni_command c)
{
	switch (c) {
	case CNI_CMD_ADD:
	case CNI_CMD_CHECK:
		return NEED_CID | NEED_NETNS | NEED_IFNAME;
	case CNI_CMD_DEL:
		return NEED_CID | NEED_IFNAME;
	case CNI_CMD_GC:
		return NEED_PATH;
	default:
		return 0;
	}
}

static int check_required_env(struct cni_ctx *ctx)
{
	static const struct {
		unsigned bit;
		const char *name;
		size_t off;
	} vars[] = {
	    {NEED_CID, "CNI_CONTAINERID", offsetof(struct cni_ctx, container_id)},
	    {NEED_NETNS, "CNI_NETNS", offsetof(struct cni_ctx, netns)},
	    {NEED_IFNAME, "CNI_IFNAME", offsetof(struct cni_ctx, ifname)},
	    {NEED_PATH, "CNI_PATH", offsetof(struct cni_ctx, path)},
	};
	unsigned need = required_vars(ctx->command);
	char missing[128] = "";

	for (size_t i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = *(const char **)((char *)ctx + vars[i].off);

		if ((need & vars[i].bit) && isempty(v)) {
			if (missing[0])
				strcat(missing, ",");
			strcat(missing, vars[i].name);
		}
	}
	if (missing[0])
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "required env variables [%s] missing", missing);
	return 0;
}

static int check_env_values(struct cni_ctx *ctx)
{
	if (!isempty(ctx->container_id) && !cni_valid_name(ctx->container_id))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_CONTAINERID: invalid characters in '%s' (want "
				  "[a-zA-Z0-9][a-zA-Z0-9_.-]*)",
				  ctx->container_id);
	if (!isempty(ctx->ifname) && !cni_valid_ifname(ctx->ifname))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_IFNAME: invalid interface name '%s': %s (ASCII only, 1-15 "
				  "bytes, not '.' or '..', no '/', ':' or whitespace)",
				  ctx->ifname, cni_ifname_problem(ctx->ifname));
	return 0;
}

/*
 * Limits checked before anything is done, so no later step fails on a name
 * that is too long (and leaves half an attachment). ADD never accepts an
 * attachment over a limit, so a DEL or GC of one has nothing to remove:
 * returns 1 for "succeed doing nothing" there, an error elsewhere.
 */
static int check_limit(struct cni_ctx *ctx, const char *what, const char *v, size_t max,
		       unsigned code)
{
	size_t len = v ? strlen(v) : 0;

	if (len <= max)
		return 0;
	if (ctx->command == CNI_CMD_DEL || ctx->command == CNI_CMD_GC) {
		cni_log_warning("%s: %zu bytes, longer than the limit of %zu: no such attachment "
				"can exist, nothing to do",
				what, len, max);
		return 1;
	}
	return cni_errorf(&ctx->err, code, -EINVAL,
			  "%s: '%.32s...' is %zu bytes, longer than the limit of %zu bytes", what,
			  v, len, max);
}

/*
 * ADD and CHECK need a real network namespace that is not our own: a typo
 * pointing CNI_NETNS at the host's namespace must not rewire the host.
 */
static int check_netns(struct cni_ctx *ctx, char *const *env)
{
	const char *override = env_get(env, "CNI_NETNS_OVERRIDE");
	struct stat st, self;
	struct statfs sfs;

	if (ctx->command != CNI_CMD_ADD && ctx->command != CNI_CMD_CHECK)
		return 0;
	if (ctx->netns[0] != '/')
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_NETNS: '%s' is not an absolute path", ctx->netns);
	if (stat(ctx->netns, &st) < 0 || statfs(ctx->netns, &sfs) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -errno, "CNI_NETNS: '%s': %s",
				  ctx->netns, strerror(errno));
	if ((unsigned long)sfs.f_type != PODWIRE_NSFS_MAGIC)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_NETNS: '%s' is not a network namespace", ctx->netns);
	if (override && (ascii_strcaseeq(override, "1") || ascii_strcaseeq(override, "true")))
		return 0;
	if (stat("/proc/self/ns/net", &self) == 0 && self.st_dev == st.st_dev &&
	    self.st_ino == st.st_ino)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_NETNS: '%s' is the plugin's own network namespace",
				  ctx->netns);
	return 0;
}

static void ctx_read_env(struct cni_ctx *ctx, char *const *env)
{
	ctx->command_str = env_get(env, "CNI_COMMAND");
	ctx->command = cni_command_parse(ctx->command_str);
	ctx->container_id = env_get(env, "CNI_CONTAINERID");
	ctx->netns = env_get(env, "CNI_NETNS");
	ctx->ifname = env_get(env, "CNI_IFNAME");
	ctx->path = env_get(env, "CNI_PATH");
	ctx->args_raw = env_get(env, "CNI_ARGS");
}

static json_t *supported_versions(void)
{
	json_t *arr = json_array();

	for (int v = 0; v < _CNI_V_MAX; v++)
		json_array_append_new(arr, json_string(cni_version_str((enum cni_version)v)));
	return arr;
}

/* VERSION: echo the requested version when it is well-formed, else ours. */
static json_t *version_answer(const char *buf, size_t len)
{
	const char *want = cni_version_str(CNI_VERSION_CURRENT);
	json_t *in = len ? json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL) : NULL;
	const json_t *v = json_object_get(in, "cniVersion");
	struct cni_semver sv;
	json_t *out;

	if (json_is_string(v) && cni_semver_parse(json_string_value(v), &sv) == 0 &&
	    !isempty(json_string_value(v)))
		want = json_string_value(v);
	out =
	    json_pack("{s:s, s:o}", "cniVersion", want, "supportedVersions", supported_versions());
	json_decref(in);
	return out;
}

static int check_version_rules(struct cni_ctx *ctx)
{
	struct cni_conf *c = &ctx->conf;
	enum cni_version min = CNI_V010;

	if (c->version == CNI_V_INVALID) {
		char details[160];

		snprintf(details, sizeof(details),
			 "config is \"%s\", plugin supports [0.1.0 0.2.0 0.3.0 0.3.1 0.4.0 1.0.0 "
			 "1.1.0]",
			 c->cni_version);
		cni_errorf(&ctx->err, CNI_ERR_INCOMPATIBLE_VERSION, -EINVAL,
			   "incompatible CNI versions: cniVersion '%s' is not supported",
			   c->cni_version);
		cni_error_add_detail(&ctx->err, details);
		return -EPROTONOSUPPORT;
	}
	if (ctx->command == CNI_CMD_CHECK)
		min = CNI_V040;
	else if (ctx->command == CNI_CMD_GC || ctx->command == CNI_CMD_STATUS)
		min = CNI_V110;
	if (c->version < min)
		return cni_errorf(&ctx->err, CNI_ERR_INCOMPATIBLE_VERSION, -EPROTONOSUPPORT,
				  "config version \"%s\" does not allow %s (needs %s or later)",
				  cni_version_str(c->version), ctx->command_str,
				  cni_version_str(min));
	return 0;
}

/* CNI_ARGS and prevResult: fatal on ADD/CHECK, best effort on DEL and GC. */
static int parse_inputs(struct cni_ctx *ctx)
{
	bool strict = cni_ctx_strict(ctx);
	struct cni_error tmp = {0};
	int r;

	r = cni_args_parse(ctx->args_raw, &ctx->args, strict ? &ctx->err : &tmp);
	if (r >= 0 && strict && ctx->ops->cni_args_keys &&
	    (ctx->command == CNI_CMD_ADD || ctx->command == CNI_CMD_CHECK))
		r = cni_args_check_known(&ctx->args, ctx->ops->cni_args_keys, &ctx->err);
	if (r < 0 && strict)
		return r;
	if (r < 0)
		cni_log_warning("%s, ignoring", tmp.msg ? tmp.msg : "CNI_ARGS invalid");
	cni_error_done(&tmp);
	if (!ctx->conf.prev_result)
		return 0;
	r = cni_result_from_json(ctx->conf.prev_result, ctx->conf.version, "prevResult",
				 &ctx->prev_result, strict ? &ctx->err : &tmp);
	if (r < 0 && !strict) {
		cni_log_warning("%s, ignoring", tmp.msg ? tmp.msg : "prevResult invalid");
		cni_error_done(&tmp);
		return 0;
	}
	return r;
}

static int read_all(int fd, char **ret, size_t *ret_len, struct cni_error *err)
{
	int n = fd_read_all(fd, CNI_STDIN_MAX, ret);

	if (n == -EFBIG)
		return cni_errorf(err, CNI_ERR_IO, n, "stdin: larger than %u bytes", CNI_STDIN_MAX);
	if (n == -ENOMEM)
		return n;
	if (n < 0)
		return cni_errorf(err, CNI_ERR_IO, n, "stdin: read failed");
	*ret_len = (size_t)n;
	return 0;
}

static void print_json(FILE *out, json_t *doc)
{
	json_dumpf(doc, out, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	fflush(out);
}

static int print_error(struct cni_ctx *ctx, FILE *out)
{
	const char *ver = ctx->conf.cni_version && ctx->conf.version != CNI_V_INVALID
			      ? ctx->conf.cni_version
			      : cni_version_str(CNI_VERSION_CURRENT);
	json_t *doc = json_pack("{s:s, s:I, s:s}", "cniVersion", ver, "code",
				(json_int_t)ctx->err.code, "msg", ctx->err.msg ? ctx->err.msg : "");

	if (doc && !isempty(ctx->err.details))
		json_object_set_new(doc, "details", json_string(ctx->err.details));
	if (doc)
		print_json(out, doc);
	json_decref(doc);
	cni_plugin_log_error(ctx);
	return 1;
}

cni_handler_fn cni_plugin_handler(const struct cni_plugin_ops *ops, enum cni_command c)
{
	switch (c) {
	case CNI_CMD_ADD:
		return ops->add;
	case CNI_CMD_DEL:
		return ops->del;
	case CNI_CMD_CHECK:
		return ops->check;
	case CNI_CMD_GC:
		return ops->gc;
	case CNI_CMD_STATUS:
		return ops->status;
	default:
		return NULL;
	}
}

/* ADD's result, converted to the config's version before the undo list is dropped. */
int cni_plugin_render_result(struct cni_ctx *ctx)
{
	json_t *doc = NULL;
	char *text;
	int r;

	if (!ctx->result)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EINVAL,
				  "plugin produced no result for ADD");
	r = cni_result_to_json(ctx->result, ctx->conf.version, &doc, &ctx->err);
	if (r < 0)
		return r;
	/* the same text print_json writes */
	text = json_dumps(doc, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (!text)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	free(ctx->result_text);
	ctx->result_text = text;
	return 0;
}

static int emit_result(struct cni_ctx *ctx, FILE *out)
{
	int r = ctx->result_text ? 0 : cni_plugin_render_result(ctx);

	if (r < 0)
		return r;
	fputs(ctx->result_text, out);
	fputc('\n', out);
	fflush(out);
	return 0;
}

int cni_plugin_finish(struct cni_ctx *ctx, int r)
{
	if (ctx->command == CNI_CMD_ADD && r >= 0 && !ctx->result_text)
		r = cni_plugin_render_result(ctx);
	if (r < 0 && ctx->command == CNI_CMD_ADD && ctx->undo.n > 0) {
		/* The error first: an undo step must not take its place. */
		cni_error_from_errno(&ctx->err, r);
		cni_log_debug("ADD failed: rolling back %zu step(s)", ctx->undo.n);
		if (cni_undo_run(&ctx->undo))
			cni_error_add_detail(&ctx->err, "rollback incomplete, see stderr");
	}
	cni_undo_commit(&ctx->undo);
	return r;
}

static int dispatch(struct cni_ctx *ctx, FILE *out)
{
	cni_handler_fn fn = cni_plugin_handler(ctx->ops, ctx->command);
	int r;

	if (!fn && !ctx->ops->dispatch) /* no handler: GC, STATUS (and CHECK) succeed */
		return 0;
	cni_log_debug("%s: network %s, cniVersion %s, netns %s", ctx->command_str, ctx->conf.name,
		      cni_version_str(ctx->conf.version), isempty(ctx->netns) ? "-" : ctx->netns);
	r = ctx->ops->dispatch ? ctx->ops->dispatch(ctx) : cni_plugin_finish(ctx, fn(ctx));
	cni_undo_commit(&ctx->undo); /* a dispatch hook left nothing; never run late */
	if (r >= 0 && ctx->command == CNI_CMD_ADD)
		r = emit_result(ctx, out);
	if (r < 0)
		cni_error_from_errno(&ctx->err, r);
	return r;
}

static void about(const struct cni_plugin_ops *ops)
{
	fprintf(stderr,
		"%s\nCNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, "
		"1.0.0, 1.1.0\n",
		ops->about ? ops->about : ops->name);
}

static int prepare(struct cni_ctx *ctx, char *const *env, FILE *out)
{
	json_t *root = NULL;
	int r;

	if (ctx->command == CNI_CMD_NONE)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "unknown CNI_COMMAND: %s", ctx->command_str);
	r = check_required_env(ctx);
	if (r >= 0)
		r = check_env_values(ctx);
	if (r >= 0 && ctx->command != CNI_CMD_VERSION)
		r = check_limit(ctx, "CNI_CONTAINERID", ctx->container_id, CNI_CONTAINER_ID_MAX,
				CNI_ERR_INVALID_ENV);
	if (r != 0)
		return r;
	if (ctx->command == CNI_CMD_VERSION) {
		json_t *doc = version_answer(ctx->stdin_buf, ctx->stdin_len);

		print_json(out, doc);
		json_decref(doc);
		return 1;
	}
	r = cni_conf_loadb(ctx->stdin_buf, ctx->stdin_len, "stdin", &root, &ctx->err);
	if (r < 0)
		return r;
	r = cni_conf_parse_ex(root, !cni_ctx_strict(ctx), &ctx->conf, &ctx->err);
	json_decref(root);
	if (r >= 0)
		r = check_limit(ctx, "name", ctx->conf.name, CNI_NETWORK_NAME_MAX,
				CNI_ERR_INVALID_CONFIG);
	if (r != 0)
		return r;
	r = cni_plugin_setup_logging(ctx);
	if (r >= 0)
		r = check_version_rules(ctx);
	if (r >= 0)
		r = check_netns(ctx, env);
	if (r >= 0)
		r = parse_inputs(ctx);
	return r;
}

static void ctx_done(struct cni_ctx *ctx)
{
	cni_result_free(ctx->result);
	free(ctx->result_text);
	cni_result_free(ctx->prev_result);
	cni_conf_done(&ctx->conf);
	cni_args_done(&ctx->args);
	cni_error_done(&ctx->err);
	cni_undo_commit(&ctx->undo);
	if (ctx->sysfs_fd >= 0)
		close(ctx->sysfs_fd);
	if (ctx->procfs_fd >= 0)
		close(ctx->procfs_fd);
}

int cni_plugin_run(const struct cni_plugin_ops *ops, char *const *env, const char *stdin_buf,
		   size_t stdin_len, FILE *out)
{
	struct cni_ctx ctx = {.ops = ops, .sysfs_fd = -1, .procfs_fd = -1};
	struct timespec start;
	int r, rc;

	clock_gettime(CLOCK_MONOTONIC, &start);
	ctx_read_env(&ctx, env);
	cni_log_set_identity(ops->name, ctx.command_str, ctx.container_id);
	if (isempty(ctx.command_str)) {
		about(ops);
		return 0;
	}
	ctx.stdin_buf = (char *)stdin_buf;
	ctx.stdin_len = stdin_len;
	ctx.sysfs_fd = open("/sys", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ctx.procfs_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	r = prepare(&ctx, env, out);
	if (r == 1) { /* answered without a handler: VERSION, or nothing to delete */
		ctx.stdin_buf = NULL;
		ctx_done(&ctx);
		return 0;
	}
	if (r >= 0)
		r = dispatch(&ctx, out);
	if (r < 0)
		cni_error_from_errno(&ctx.err, r);
	rc = r < 0 ? print_error(&ctx, out) : 0;
	if (ctx.command != CNI_CMD_VERSION)
		cni_plugin_log_outcome(&ctx, r >= 0, &start);
	ctx.stdin_buf = NULL;
	ctx_done(&ctx);
	return rc;
}

int cni_plugin_main(const struct cni_plugin_ops *ops, int argc, char **argv)
{
	struct cni_ctx ctx = {.ops = ops};
	_cleanup_free_ char *buf = NULL;
	const char *cmd = getenv("CNI_COMMAND");
	size_t len = 0;
	int r;

	(void)argc;
	(void)argv;
	cni_log_set_identity(ops->name, cmd, getenv("CNI_CONTAINERID"));
	if (isempty(cmd)) {
		about(ops);
		return 0;
	}
	/* VERSION's input is optional: a person typing the command at a terminal
	 * gets the answer instead of a plugin waiting for end of input. */
	if (strcmp(cmd, "VERSION") == 0 && isatty(STDIN_FILENO))
		r = 0;
	else
		r = read_all(STDIN_FILENO, &buf, &len, &ctx.err);
	if (r < 0) {
		cni_error_from_errno(&ctx.err, r);
		print_error(&ctx, stdout);
		cni_error_done(&ctx.err);
		return 1;
	}
	return cni_plugin_run(ops, environ, buf, len, stdout);
}

void cni_ctx_init_child(struct cni_ctx *child, const struct cni_ctx *parent,
			enum cni_command command)
{
	*child = *parent;
	child->command = command;
	child->command_str = cni_command_str(command);
	child->result = NULL;
	child->result_text = NULL;
	memset(&child->err, 0, sizeof(child->err));
	memset(&child->undo, 0, sizeof(child->undo));
}

void cni_ctx_child_done(struct cni_ctx *child)
{
	child->result = cni_result_free(child->result);
	free(child->result_text);
	child->result_text = NULL;
	cni_error_done(&child->err);
	cni_undo_commit(&child->undo);
}
