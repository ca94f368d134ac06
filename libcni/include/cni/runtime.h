/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime side of CNI (what libcni's CNIConfig does for a container
 * runtime, and what cnitool drives): load network configuration lists,
 * build each plugin's request, run ADD/CHECK/DEL/GC/STATUS chains through
 * the invoker, and keep the result cache in libcni's on-disk format
 * (<cacheDir>/results/<network>-<containerID>-<ifname>, kind cniCacheV1),
 * so attachments made by upstream tooling can be removed by ours and the
 * other way round.
 *
 * Ownership: a struct cni_netconf_list owns its strings, its raw bytes and a
 * reference on each plugin object. JSON results handed out are new
 * references the caller must json_decref(). Every function records a
 * failure in its struct cni_error argument and returns a negative errno.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cni/error.h"
#include "cni/version.h"

/* The libcni default; cnitool's --cache-dir overrides it. */
#define CNI_DEFAULT_CACHE_DIR "/var/lib/cni"
/* Caps on untrusted counts: plugins in a list, cniVersions entries, files in a dir. */
#define CNI_LIST_MAX_PLUGINS 64
#define CNI_CONF_DIR_MAX_FILES 4096

struct cni_netconf_list {
	char *name;
	/* The selected version (highest of cniVersion and cniVersions, capped at
	 * what we support), as a string; NULL when the file has none (0.1.0). */
	char *cni_version;
	struct cni_semver version;
	bool disable_check;
	bool disable_gc;
	bool load_only_inlined_plugins;
	json_t **plugins; /* owned references, each an object with a string "type" */
	size_t n_plugins;
	char *bytes; /* the raw list as loaded (stored base64 in the cache) */
	size_t n_bytes;
};

/*
 * Parse a conflist. Strict JSON (duplicate keys: code 6). Requires a valid
 * "name"; accepts boolean flags as JSON bools or "true"/"false" strings;
 * selects the version; every element of "plugins" must be an object with a
 * non-empty string "type" (code 7 naming plugins[i]). `what` names the input
 * in messages. `allow_no_plugins` permits a missing "plugins" key (the
 * caller merges plugins from elsewhere). Returns 0 and a new list in *ret.
 */
int cni_netconf_list_from_bytes(const char *buf, size_t len, const char *what,
				bool allow_no_plugins, struct cni_netconf_list **ret,
				struct cni_error *err);

/*
 * Load one .conflist file and, unless loadOnlyInlinedPlugins, append the
 * plugin objects of <dir-of-file>/<name>/ *.conf files (sorted by file name).
 * A list that ends up with no plugin is an error (code 7).
 */
int cni_netconf_list_from_file(const char *path, struct cni_netconf_list **ret,
			       struct cni_error *err);

/*
 * Wrap one legacy single-plugin config (a *.conf / *.json file's content)
 * into a list {"cniVersion","name","plugins":[conf]}, as libcni's
 * ConfListFromConf does. The conf must have "name" and "type".
 */
int cni_netconf_list_from_conf(const char *buf, size_t len, const char *what,
			       struct cni_netconf_list **ret, struct cni_error *err);

/*
 * Find network `name` in directory `dir` the way libcni's LoadConfList does:
 * every *.conflist sorted by file name (the first one that fails to parse
 * aborts the search, with the file named in the message), then legacy
 * *.conf and *.json files up-converted. Errors: -ENOENT with code 7 "no net
 * configurations found in <dir>" or "no net configuration with name ...".
 */
int cni_netconf_list_load(const char *dir, const char *name, struct cni_netconf_list **ret,
			  struct cni_error *err);

struct cni_netconf_list *cni_netconf_list_free(struct cni_netconf_list *l);
static inline void cni_netconf_list_freep(struct cni_netconf_list **l)
{
	if (*l)
		cni_netconf_list_free(*l);
}

/* How to run plugins. All strings are borrowed for the duration of calls. */
struct cni_runtime {
	const char *plugin_path; /* CNI_PATH, ':'-separated */
	const char *cache_dir;	 /* NULL: CNI_DEFAULT_CACHE_DIR */
	int timeout_ms;		 /* per plugin execution; <= 0: none */
	char *const *base_env;	 /* environment the children inherit; NULL: environ */
	/*
	 * Write cache entries without fsync (still atomic: temporary file and
	 * rename). For a caller that keeps its own durable record of every
	 * delegate (multinet), where libcni's copy is for tooling.
	 */
	bool cache_nosync;
	/* Optional ADD pipelining (struct cni_runtime_ahead); NULL: none. */
	struct cni_runtime_ahead *ahead;
};

struct cni_runtime_arg {
	char *key;
	char *value;
};

/* One attachment's parameters (libcni RuntimeConf). Borrowed by the calls. */
struct cni_runtime_conf {
	const char *container_id;
	const char *netns;
	const char *ifname;
	const struct cni_runtime_arg *args; /* CNI_ARGS pairs, joined as K=V;K=V */
	size_t n_args;
	const json_t *capability_args; /* object or NULL */
};

/*
 * ADD pipelining, for a caller that runs several ADDs in a row (multinet):
 * while one plugin runs, the process of the plugin that comes next is
 * started and left waiting for its request (cni_exec_start), so its exec
 * and loading are off the critical path. What comes next is the list's next
 * plugin, else the first plugin of next_list with next_rc (set by the caller
 * before each cni_runtime_add; next_list NULL: nothing). A started process
 * that turns out not to be needed (another path or environment, a failure)
 * is killed before it read anything. The caller drops what is left with
 * cni_runtime_ahead_drop() before it runs anything else (DEL on rollback)
 * and at the end.
 */
struct cni_runtime_ahead {
	const struct cni_netconf_list *next_list;
	struct cni_runtime_conf next_rc;
	struct cni_exec_started *started; /* internal */
};

/*
 * Start the first plugin of `list` for ADD with rc now (before slow work of
 * the caller's own). Best effort: returns 0 or -errno, and without a started
 * process the ADD simply starts one itself.
 */
int cni_runtime_ahead_start(const struct cni_runtime *rt, const struct cni_netconf_list *list,
			    const struct cni_runtime_conf *rc);
void cni_runtime_ahead_drop(struct cni_runtime_ahead *a);

/*
 * ADD: validate container ID, network name and ifname (code 4 / 7), run
 * every plugin in list order with the previous plugin's result as
 * prevResult, write the cache, and return the final result (a new
 * reference) in *ret_result. A plugin's failure is returned with its own
 * code and msg prefixed 'plugin type="T" name="N" failed (add): '; nothing
 * is cached and nothing is rolled back (the caller runs DEL).
 */
int cni_runtime_add(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		    const struct cni_runtime_conf *rc, json_t **ret_result, struct cni_error *err);

/*
 * CHECK: refuses lists older than 0.4.0 (code 1); does nothing when
 * disableCheck; otherwise sends the cached result (converted to the list's
 * version; missing or unreadable cache: code 3/6) as prevResult to every
 * plugin in order and stops at the first error.
 */
int cni_runtime_check(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		      const struct cni_runtime_conf *rc, struct cni_error *err);

/*
 * DEL: runs the plugins in reverse order with the cached result as
 * prevResult (lists >= 0.4.0; an unreadable cache is removed and DEL goes
 * on without prevResult), stops at the first error, and removes the cache
 * entry once every plugin succeeded.
 */
int cni_runtime_del(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		    const struct cni_runtime_conf *rc, struct cni_error *err);

struct cni_gc_attachment {
	const char *container_id;
	const char *ifname;
};

/*
 * GC: unless disableGC, DEL every cached attachment of this network not in
 * `valid` (all of them when have_valid is false, as cnitool does), using the
 * cached netns, CNI_ARGS and capability args; then, for lists >= 1.1.0, send
 * GC to every plugin (with cni.dev/valid-attachments when have_valid). Keeps
 * going after errors; the first error is returned, the others are appended
 * to its details.
 */
int cni_runtime_gc(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		   bool have_valid, const struct cni_gc_attachment *valid, size_t n_valid,
		   struct cni_error *err);

/*
 * STATUS: for lists >= 1.1.0 ask each plugin in order; the first failure is
 * returned unchanged (codes 50/51 preserved). Older lists: success.
 */
int cni_runtime_status(const struct cni_runtime *rt, const struct cni_netconf_list *list,
		       struct cni_error *err);

/*
 * Build the stdin of one plugin invocation (libcni buildOneConfig): a copy of
 * the plugin object without "cni.dev/" keys and without "capabilities", with
 * "name" and "cniVersion" of the list, "prevResult" when given (borrowed),
 * and "runtimeConfig" = the capabilities the plugin enables (true) that
 * rc->capability_args supplies (replacing any runtimeConfig in the file,
 * omitted when none match). rc may be NULL (GC, STATUS). Returns 0 and a new
 * reference.
 */
int cni_runtime_build_request(const struct cni_netconf_list *list, size_t plugin_index,
			      const json_t *prev_result, const struct cni_runtime_conf *rc,
			      json_t **ret, struct cni_error *err);

/*
 * Environment overrides for one invocation: the six CNI_* variables, always
 * all present ("" when unused). Returns a NULL-terminated array for
 * cni_env_build()/cni_env_free(), or NULL on ENOMEM.
 */
char **cni_runtime_env(const struct cni_runtime *rt, const char *command,
		       const struct cni_runtime_conf *rc);

/* ---- the result cache ---- */

struct cni_cache_entry {
	char *container_id;
	char *ifname;
	char *network_name;
	char *netns;		      /* NULL when not recorded */
	struct cni_runtime_arg *args; /* cniArgs */
	size_t n_args;
	json_t *capability_args; /* owned, object or NULL */
	char *config;		 /* decoded config bytes, NUL-terminated; may be NULL */
	size_t n_config;
	json_t *result; /* owned, object or NULL */
};

/*
 * Path of the cache file: <cache_dir>/results/<net>-<cid>-<ifname>. All
 * three must be non-empty and safe as path components (code 7 / 4 naming
 * the bad one). Returns 0 and an owned path.
 */
int cni_cache_path(const char *cache_dir, const char *net, const char *container_id,
		   const char *ifname, char **ret, struct cni_error *err);

/*
 * Write the cniCacheV1 entry for an ADD (directory 0700, file 0600, written
 * to a temporary file and renamed so readers never see half a file; fsynced
 * before the rename when sync).
 */
int cni_cache_write(const char *cache_dir, const struct cni_netconf_list *list,
		    const struct cni_runtime_conf *rc, const json_t *result, bool sync,
		    struct cni_error *err);

/*
 * Read the entry of (net, container_id, ifname). Returns 1 and *ret, 0 when
 * there is no entry, or a negative errno (code 6: not JSON). A file holding a
 * bare result (the pre-cniCacheV1 format) gives an entry with only `result`.
 */
int cni_cache_read(const char *cache_dir, const char *net, const char *container_id,
		   const char *ifname, struct cni_cache_entry **ret, struct cni_error *err);

/*
 * Parse the content of a cache file (`what` names it in messages). A
 * cniCacheV1 object fills every field it has; any other object is taken as a
 * bare legacy result. Returns 0 and *ret, or -EINVAL with code 6.
 */
int cni_cache_entry_parse(const char *buf, size_t len, const char *what,
			  struct cni_cache_entry **ret, struct cni_error *err);

/* Remove an entry; a missing one is success. */
int cni_cache_remove(const char *cache_dir, const char *net, const char *container_id,
		     const char *ifname, struct cni_error *err);

/*
 * All parseable cniCacheV1 entries in <cache_dir>/results, sorted by file
 * name, optionally only those of `container_id` (NULL: all). Files that do
 * not parse or lack the attachment fields are skipped. A missing directory
 * is an empty list. Returns 0, *ret (array of owned entries) and *ret_n.
 */
int cni_cache_list(const char *cache_dir, const char *container_id, struct cni_cache_entry ***ret,
		   size_t *ret_n, struct cni_error *err);

struct cni_cache_entry *cni_cache_entry_free(struct cni_cache_entry *e);
void cni_cache_entries_free(struct cni_cache_entry **v, size_t n);
