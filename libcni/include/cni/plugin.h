/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plugin skeleton: read CNI_* and stdin once, validate, parse the
 * protocol keys, dispatch, print exactly one JSON document, pick the exit
 * code. main.c of every plugin is `return cni_plugin_main(&ops, argc, argv);`.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cni/args.h"
#include "cni/conf.h"
#include "cni/error.h"
#include "cni/result.h"
#include "cni/undo.h"
#include "cni/version.h"

enum cni_command {
	CNI_CMD_NONE,
	CNI_CMD_ADD,
	CNI_CMD_DEL,
	CNI_CMD_CHECK,
	CNI_CMD_GC,
	CNI_CMD_STATUS,
	CNI_CMD_VERSION,
};

/* Largest stdin accepted (a config with a big prevResult fits easily). */
#define CNI_STDIN_MAX (4u << 20)

struct cni_ctx {
	const struct cni_plugin_ops *ops;
	enum cni_command command;
	const char *command_str;

	/* Environment, borrowed from environ; NULL when unset, "" kept as "". */
	const char *container_id;
	const char *netns; /* NULL or "" on DEL when the runtime has none */
	const char *ifname;
	const char *path; /* CNI_PATH */
	const char *args_raw;
	struct cni_args args; /* parsed CNI_ARGS (keys not yet checked) */

	/* stdin: raw bytes (for delegation, unchanged) and the parsed config. */
	char *stdin_buf;
	size_t stdin_len;
	struct cni_conf conf;

	/* Parsed conf.prev_result in conf.version, when present. */
	struct cni_result *prev_result;

	/* Set by ops->add; printed by the skeleton in conf.version. */
	struct cni_result *result;
	/*
	 * `result` as the skeleton prints it, when ops->add rendered it
	 * early (cni_plugin_render_result); NULL: rendered after ops->add.
	 */
	char *result_text;

	struct cni_error err;
	struct cni_undo undo;

	/* Roots for sysfs and procfs reads (default /sys, /proc). */
	int sysfs_fd;
	int procfs_fd;

	void *userdata; /* the plugin's own state */
};

struct cni_plugin_ops {
	const char *name;  /* plugin type, for logs and the about text */
	const char *about; /* printed to stderr when CNI_COMMAND is unset */
	/*
	 * Keys of CNI_ARGS the plugin reads (NULL-terminated), for the
	 * reference's strictness about unknown keys; NULL = checked by the
	 * plugin itself (or not at all).
	 */
	const char *const *cni_args_keys;
	/* Each returns 0 or a negative errno with ctx->err usually set. */
	int (*add)(struct cni_ctx *ctx);
	int (*del)(struct cni_ctx *ctx);
	int (*check)(struct cni_ctx *ctx);
	int (*gc)(struct cni_ctx *ctx);	    /* NULL: GC succeeds doing nothing */
	int (*status)(struct cni_ctx *ctx); /* NULL: STATUS succeeds */
	/*
	 * A layer above libcni that holds resources for the whole call
	 * (podnet_plugin_main: the pod netns and its sockets) sets this; the
	 * handlers above are then unused. It runs the command and must end
	 * with cni_plugin_finish() while what the undo steps use is still
	 * open, and only then release it. Returns 0 or a negative errno.
	 */
	int (*dispatch)(struct cni_ctx *ctx);
};

/*
 * Run one invocation from the process environment and stdin. Returns the
 * process exit code (0 success, 1 error printed on stdout).
 */
int cni_plugin_main(const struct cni_plugin_ops *ops, int argc, char **argv);

/*
 * The same with explicit inputs (tests, in-process IPAM): env is a
 * NULL-terminated "K=V" array, stdin given as a buffer, output written to
 * `out`. Returns the exit code.
 */
int cni_plugin_run(const struct cni_plugin_ops *ops, char *const *env, const char *stdin_buf,
		   size_t stdin_len, FILE *out);

/*
 * Render ctx->result (set, and final from here on) now, as the skeleton
 * would after ops->add returns: for an ADD whose last step others react to
 * at once (bgp-route's host routes, which BIRD announces), so that only
 * the write is left once that step is done. On an error later in ops->add
 * the text is dropped and the error printed instead. 0 or -errno.
 */
int cni_plugin_render_result(struct cni_ctx *ctx);

/*
 * The end of every dispatched command, given the handler's return r: on an
 * ADD that succeeded, render the result (see above); on an ADD that failed
 * (or whose result cannot be rendered), run the undo list in reverse. The
 * list is empty afterwards. The skeleton calls it after a plain handler; a
 * dispatch hook calls it itself, before it closes what the undo steps use.
 * Returns r, or the rendering's error.
 */
int cni_plugin_finish(struct cni_ctx *ctx, int r);

typedef int (*cni_handler_fn)(struct cni_ctx *ctx);
/* The handler of ops for command c, or NULL (none, or not a dispatched command). */
cni_handler_fn cni_plugin_handler(const struct cni_plugin_ops *ops, enum cni_command c);

const char *cni_command_str(enum cni_command c);
/* Parse a CNI_COMMAND value (exact, upper case). Returns CNI_CMD_NONE if unknown. */
enum cni_command cni_command_parse(const char *s);

/*
 * Set up a context for an in-process call of another plugin's handlers
 * (podwire's own IPAM): copies env fields from `parent`, re-uses its stdin
 * buffer and parsed conf (borrowed), with a fresh error slot and undo list.
 */
void cni_ctx_init_child(struct cni_ctx *child, const struct cni_ctx *parent,
			enum cni_command command);
/* Release what cni_ctx_init_child created (result, err, undo). */
void cni_ctx_child_done(struct cni_ctx *child);

/* True for ADD, CHECK and STATUS: where config errors are fatal (not DEL, GC). */
bool cni_ctx_strict(const struct cni_ctx *ctx);
/* A reader of obj (at path) that records into ctx->err, lenient on DEL and GC. */
struct cni_conf_reader cni_ctx_reader(struct cni_ctx *ctx, const json_t *obj, const char *path);
