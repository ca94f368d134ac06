/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Running another CNI plugin binary: find it in CNI_PATH, exec it with an
 * environment and stdin, collect stdout, enforce a timeout, turn its error
 * JSON into a struct cni_error. Used for delegation (IPAM) and by the
 * runtime side (cnitool).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cni/error.h"

/*
 * Find `type` in a ':'-separated path list: the first <dir>/<type> that is a
 * regular file. type must be non-empty without '/'. Returns 0 and a newly
 * allocated path in *ret; -EINVAL (bad name or empty path list, err code 7),
 * -ENOENT (not found: err code CNI_ERR_DELEGATE naming the path list).
 */
int cni_find_plugin(const char *type, const char *path_list, char **ret, struct cni_error *err);

/*
 * A plugin process started before its request exists: it waits in
 * read(stdin) until a cni_exec_plugin() call hands it its request, so its
 * exec and dynamic loading run while the caller does other work. A plugin
 * reads its whole stdin before it acts (its config is all it has to go on),
 * so a started process that is never fed has changed nothing;
 * cni_exec_started_free() kills and reaps it.
 */
struct cni_exec_started;

/* Start plugin_path with env (copied). Returns 0 or -errno. */
int cni_exec_start(const char *plugin_path, char *const *env, struct cni_exec_started **ret);
/* Whether `s` is plugin_path started with exactly env. */
bool cni_exec_started_is(const struct cni_exec_started *s, const char *plugin_path,
			 char *const *env);
/* Kill (if never fed) and free. NULL is fine. */
void cni_exec_started_free(struct cni_exec_started *s);

struct cni_exec_request {
	const char *plugin_path; /* absolute path of the binary */
	char *const *env;	 /* full NULL-terminated environment for the child */
	const char *stdin_buf;
	size_t stdin_len;
	int timeout_ms; /* <= 0: no timeout, else counted from when stdin is fed */
	/*
	 * Optional: this already started process (same path and env, see
	 * cni_exec_started_is) is fed instead of a new one; consumed by the call.
	 */
	struct cni_exec_started *started;
	/* Optional: called once the request is written, while the plugin runs. */
	void (*running)(void *data);
	void *running_data;
};

/*
 * Exec the plugin, feed stdin, read stdout (capped at CNI_STDIN_MAX bytes),
 * pass stderr through, wait. On exit 0: returns 0 and the stdout bytes in
 * *ret_out (NUL-terminated, owned by caller; may be empty). On failure:
 * the plugin's error JSON becomes err (its code preserved); a plugin that
 * printed no parsable error gives CNI_ERR_DELEGATE with its exit status;
 * expiry of the timeout kills the process group and gives code 11.
 * Returns 0 or a negative errno.
 */
int cni_exec_plugin(const struct cni_exec_request *req, char **ret_out, size_t *ret_len,
		    struct cni_error *err);

/*
 * Build a child environment: a copy of `base` (NULL-terminated, may be NULL
 * for environ) where each "K=V" of `overrides` replaces or adds K. Returns a
 * NULL-terminated array to free with cni_env_free(), or NULL on ENOMEM.
 */
char **cni_env_build(char *const *base, char *const *overrides);
void cni_env_free(char **env);
