/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multinet: a Multus-compatible meta plugin. The cluster network becomes
 * eth0, every network of the pod's k8s.v1.cni.cncf.io/networks annotation
 * becomes net1..N (or the requested name); every delegate runs through
 * libcni's runtime side; a cache of every delegate's config and result lets
 * DEL, CHECK and GC run without the apiserver. The commands run on
 * podnet_plugin_main; a failed ADD is undone by podnet's undo list.
 *
 * Parsers (conf, annotation, kubeconfig, checkpoint, network-status) take
 * plain inputs and a struct cni_error so unit tests and fuzz targets can
 * drive them without a plugin context.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/ipaddr.h"
#include "cni/error.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "cni/runtime.h"
#include "cni/version.h"
#include "podnet/podnet.h"

#define MN_DEFAULT_CNI_DIR "/var/lib/cni/multinet"
#define MN_DEFAULT_CONF_DIR "/etc/cni/multus/net.d"
#define MN_DEFAULT_BIN_DIR "/opt/cni/bin"
#define MN_DEFAULT_NAMESPACE "kube-system"
#define MN_DEFAULT_CHECKPOINT "/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"
#define MN_DEFAULT_DEVINFO_DIR "/var/run/k8s.cni.cncf.io/devinfo/dp"
#define MN_ANNOT_NETWORKS "k8s.v1.cni.cncf.io/networks"
#define MN_ANNOT_STATUS "k8s.v1.cni.cncf.io/network-status"
#define MN_ANNOT_RESOURCE "k8s.v1.cni.cncf.io/resourceName"
#define MN_ANNOT_DEFAULT_NET "v1.multus-cni.io/default-network"
/* Caps on untrusted counts. */
#define MN_MAX_NETWORKS 64
#define MN_MAX_NAMES 256

struct mn_strv {
	char **v;
	size_t n;
};
void mn_strv_done(struct mn_strv *s);
bool mn_strv_contains(const struct mn_strv *s, const char *x);
int mn_strv_push(struct mn_strv *s, const char *x);

/* ---- configuration (mn-conf.c) ---- */

struct mn_conf {
	enum cni_version version;
	const char *kubeconfig;
	const char *cluster_network;
	struct mn_strv default_networks;
	const json_t *delegates; /* array or NULL */
	const char *conf_dir, *cni_dir, *bin_dir;
	bool log_to_stderr;
	struct mn_strv system_namespaces;
	const char *multus_namespace;
	bool namespace_isolation;
	struct mn_strv global_namespaces;
	const char *readiness_file;
	bool retry_delete_on_error;
	const char *device_checkpoint, *device_info_dir;
	const json_t *runtime_config; /* object or NULL */
};

/*
 * Parse multinet's keys of `root` (defaults applied). strict (ADD, CHECK,
 * STATUS): a key of the wrong type is code 7 naming it; lenient (DEL, GC):
 * logged and defaulted. Neither delegates nor clusterNetwork: code 7.
 */
int mn_conf_parse(const json_t *root, bool strict, struct mn_conf *ret, struct cni_error *err);
void mn_conf_done(struct mn_conf *c);
/* Map Multus log levels (panic, error, verbose, debug) and podwire's onto ours. */
int mn_log_level_parse(const char *s, enum cni_log_level *ret);

/* ---- pod network selection (mn-annot.c) ---- */

struct mn_sel {
	char *name;
	char *namespace;
	char *ifname; /* NULL: numbered */
	char *mac;
	char *infiniband_guid;
	char *device_id;
	json_t *ips;	       /* array of strings or NULL */
	json_t *port_mappings; /* array or NULL */
	json_t *bandwidth;     /* object or NULL */
	json_t *cni_args;      /* object or NULL */
	json_t *default_route; /* array of address strings or NULL (absent) */
};

/*
 * Parse a k8s.v1.cni.cncf.io/networks value: JSON (an array of objects) when
 * it contains '[', '{' or '"', else the comma form [ns/]name[@ifname].
 * Namespaces default to pod_ns. Errors: code 7 naming the element and key.
 */
int mn_annot_parse(const char *value, const char *pod_ns, struct mn_sel **ret, size_t *ret_n,
		   struct cni_error *err);
void mn_sels_free(struct mn_sel *v, size_t n);
/* DNS-1123 label: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$, at most 63 bytes. */
bool mn_dns_label(const char *s);
/* Hardware address as Go's net.ParseMAC: 6, 8 or 20 bytes, ':' or '-' separated. */
bool mn_valid_hwaddr(const char *s);

/* ---- kubeconfig (mn-kubeconfig.c) ---- */

struct mn_kubeconfig {
	char *server; /* https://host[:port] without trailing '/' */
	char *ca_file;
	char *ca_data; /* decoded PEM */
	size_t ca_len;
	char *cert_file, *key_file;
	char *cert_data, *key_data;
	size_t cert_len, key_len;
	char *token;
};

/*
 * Parse kubeconfig YAML: current-context -> context -> cluster (server,
 * certificate-authority[-data]) and user (token, tokenFile,
 * client-certificate[-data], client-key[-data]). Relative file paths are
 * resolved against `dir`. TLS is always verified: no CA, an http:// server
 * or insecure-skip-tls-verify are code 7 errors naming the key.
 */
int mn_kubeconfig_parse(const char *buf, size_t len, const char *dir, const char *what,
			struct mn_kubeconfig *ret, struct cni_error *err);
int mn_kubeconfig_load(const char *path, struct mn_kubeconfig *ret, struct cni_error *err);
void mn_kubeconfig_done(struct mn_kubeconfig *kc);

/* ---- Kubernetes API (mn-k8s.c) ---- */

struct mn_k8s;
/*
 * One pwhttp client (one kept connection) for the whole call. session_file
 * (NULL: none): where the TLS session is kept for the next call to resume.
 */
int mn_k8s_open(const struct mn_kubeconfig *kc, const char *session_file, struct mn_k8s **ret,
		struct cni_error *err);
/* <cniDir>/tls/apiserver: a directory, so GC and podwire-inspect pass it by. Owned. */
char *mn_k8s_session_file(const char *cni_dir);
void mn_k8s_free(struct mn_k8s *k);
/* GET a pod / NAD. Returns 1 and a new reference, 0 when not found (404). */
int mn_k8s_get_pod(struct mn_k8s *k, const char *ns, const char *name, json_t **ret,
		   struct cni_error *err);
int mn_k8s_get_nad(struct mn_k8s *k, const char *ns, const char *name, json_t **ret,
		   struct cni_error *err);
/*
 * Bound all later requests of this client, retries included, to `ms` from
 * now (without: each attempt has its own timeouts, connect 2 s, request 5 s,
 * 4 attempts). With a bound, a request that finds it spent, or follows one
 * that could not reach the apiserver, fails at once (code 11) untried.
 */
void mn_k8s_set_budget(struct mn_k8s *k, unsigned ms);
/* The deadline of one attempt started at `now`: its own timeout, capped by `end` (0: none). */
uint64_t mn_k8s_attempt_deadline(uint64_t now, uint64_t end);
/* May a retry that first sleeps backoff_ms start before `end` (0: none)? */
bool mn_k8s_retry_fits(uint64_t now, long backoff_ms, uint64_t end);
/* Merge-PATCH the network-status annotation through pods/status. 0 also when the pod is gone. */
int mn_k8s_patch_status(struct mn_k8s *k, const char *ns, const char *name, const char *status_json,
			struct cni_error *err);
/*
 * Validate an apiserver object body (untrusted): JSON object with the
 * expected "kind" (NULL: any) and metadata. Returns 0 and a new reference.
 */
int mn_k8s_parse_object(const char *buf, size_t len, const char *kind, const char *what,
			json_t **ret, struct cni_error *err);
/* Annotation `key` of an object (borrowed string), or NULL. */
const char *mn_k8s_annotation(const json_t *obj, const char *key);

/* ---- kubelet device checkpoint (mn-checkpoint.c) ---- */

struct mn_resource {
	char *name;
	struct mn_strv ids;
	size_t used;
};

struct mn_devices {
	struct mn_resource *v;
	size_t n;
};

/*
 * Collect the device IDs allocated to pod_uid: entries in file order,
 * within an entry DeviceIDs either a plain array (kubelet < 1.20) or a map
 * NUMA node -> array (keys in ascending numeric order). Code 7 on malformed
 * input naming the path in the file.
 */
int mn_checkpoint_parse(const char *buf, size_t len, const char *pod_uid, const char *what,
			struct mn_devices *ret, struct cni_error *err);
/* The next unused device of a resource, or NULL when none is left. Borrowed. */
const char *mn_devices_take(struct mn_devices *d, const char *resource);
void mn_devices_done(struct mn_devices *d);

/* ---- delegates, plan and cache (mn-delegate.c, mn-cache.c) ---- */

enum mn_state { MN_PENDING, MN_ADDED };

struct mn_delegate {
	char *display; /* "<ns>/<nad>" or the network's own name */
	char *ifname;
	char *ifname_request; /* as the selection asked, NULL: numbered */
	bool master;
	json_t *conf; /* the conflist object as executed */
	struct cni_netconf_list *list;
	json_t *cap_args; /* object or NULL */
	char *device_id, *resource_name, *devinfo_file;
	json_t *default_route; /* array of gateways or NULL */
	enum mn_state state;
	json_t *result;	 /* the delegate's final ADD result, or NULL */
	bool unresolved; /* lenient resolve only: could not be resolved, to be dropped */
};

struct mn_pod {
	char *namespace, *name, *uid, *infra_id;
};

struct mn_plan {
	char *container_id;
	char *netns;
	char *ifname; /* CNI_IFNAME of multinet itself */
	struct mn_pod pod;
	struct cni_runtime_arg *args; /* CNI_ARGS given to every delegate */
	size_t n_args;
	struct mn_delegate *d;
	size_t n;
};

void mn_delegate_done(struct mn_delegate *d);
void mn_plan_done(struct mn_plan *p);
/* Append an empty delegate; returns it or NULL (ENOMEM, too many). */
struct mn_delegate *mn_plan_push(struct mn_plan *p);
/* Drop delegate i (freed), keeping the order of the others. */
void mn_plan_remove(struct mn_plan *p, size_t i);

/*
 * Normalise a delegate config (plugin or conflist object, untrusted) into a
 * conflist object: a single plugin is wrapped; `default_name` is injected
 * when "name" is missing. Injects deviceID/pciBusID and cni-args into every
 * plugin when given. Then parses it into d->list. `what` names it.
 */
int mn_delegate_set_conf(struct mn_delegate *d, const json_t *conf, const char *default_name,
			 const json_t *cni_args, const char *what, struct cni_error *err);
/* Do the plugins of d->conf declare capability `cap`? */
bool mn_delegate_has_cap(const struct mn_delegate *d, const char *cap);

/*
 * Write the whole entry atomically (temp file, rename) as the first line of
 * a journal (cni_json_load_journal). durable: the file is fsynced before the
 * rename and the directory after it. The first write of an ADD (every
 * delegate's config, before any runs) is durable: it is all a DEL needs,
 * even after a power loss.
 */
int mn_cache_write(const char *cni_dir, const struct mn_plan *p, bool durable,
		   struct cni_error *err);
/*
 * Append delegates [from, to) as they are now (state, result) to the entry's
 * journal: one write, no fsync, no rename, so the durable first line stays
 * as it is; a lost or torn update leaves the plan, and DEL runs every
 * delegate of it.
 */
int mn_cache_update(const char *cni_dir, const struct mn_plan *p, size_t from, size_t to,
		    struct cni_error *err);
/* Read: 1 and *ret filled, 0 when missing, negative (code 6) when corrupt. */
int mn_cache_read(const char *cni_dir, const char *container_id, struct mn_plan *ret,
		  struct cni_error *err);
int mn_cache_parse(const char *buf, size_t len, const char *what, struct mn_plan *ret,
		   struct cni_error *err);
int mn_cache_remove(const char *cni_dir, const char *container_id);

/* ---- DEL decisions and tombstones (mn-del.c, mn-tombstone.c) ---- */

/*
 * What DEL and GC may spend on the apiserver in all (connect, TLS, every
 * request and retry); after that they go on without it.
 */
#define MN_DEL_APISERVER_BUDGET_MS 3000u

enum mn_del_source {
	MN_DEL_FROM_CACHE,  /* the cache entry: DEL every delegate of it */
	MN_DEL_DONE_BEFORE, /* no cache, a tombstone: a DEL already finished, nothing to do */
	MN_DEL_REBUILD, /* no usable cache, no tombstone: the delegates from config (+ apiserver) */
};
/* cache_r: mn_cache_read's answer (1 read, 0 missing, < 0 unusable). */
enum mn_del_source mn_del_source(int cache_r, bool tombstone);

enum mn_del_outcome {
	MN_DEL_OK,	/* deleted */
	MN_DEL_GIVE_UP, /* can never succeed (binary missing, config or version refused): a warning
			 */
	MN_DEL_RETRY,	/* any other failure: the cache stays, DEL fails, the runtime retries */
};
/* Classify cni_runtime_del's answer r (0 or negative) and its error e. */
enum mn_del_outcome mn_del_outcome(int r, const struct cni_error *e);

/* File name of a tombstone, "<containerID>-<ifname>" (owned), NULL when either is invalid. */
char *mn_tombstone_name(const char *container_id, const char *ifname);
/* Its content: one JSON line, kind multinetTombstoneV1. Owned. */
char *mn_tombstone_format(const char *container_id, const char *ifname);
/* Parse a tombstone (untrusted): 0 and both strings (owned), -EINVAL, -ENOMEM. */
int mn_tombstone_parse(const char *buf, size_t len, char **ret_cid, char **ret_ifname);
/* GC: is this tombstone's attachment absent from conf's cni.dev/valid-attachments? */
bool mn_tombstone_stale(const char *buf, size_t len, const struct cni_conf *conf);
/* <cniDir>/deleted/<name>, directories made 0700. 0 or -errno. */
int mn_tombstone_write(const char *cni_dir, const char *container_id, const char *ifname);
bool mn_tombstone_exists(const char *cni_dir, const char *container_id, const char *ifname);
int mn_tombstone_remove(const char *cni_dir, const char *container_id, const char *ifname);
/* Remove every stale tombstone (and anything else in the directory). Count or -errno. */
int mn_tombstone_gc(const char *cni_dir, const struct cni_conf *conf);

/* ---- network-status (mn-status.c) ---- */

/* One network of the pod, as network-status shows it. */
struct mn_status_net {
	const char *name;
	bool is_default;
	const json_t *result;	   /* its final ADD result (any version), NULL: no entry */
	const json_t *device_info; /* NULL: none */
};

/*
 * Entries for one network: one per sandbox interface of its result (IPs
 * mapped by interface index, with prefix), or one minimal entry when the
 * result has none; a result without cniVersion is read as `fallback`.
 * Appended to `arr`.
 */
int mn_status_append(json_t *arr, const struct mn_status_net *net, enum cni_version fallback,
		     struct cni_error *err);

/* ---- default route (mn-route.c) ---- */

/*
 * Validate every delegate's default-route list: addresses, at most one IPv4
 * and one IPv6 gateway across all delegates (no ECMP). Code 7.
 */
int mn_route_validate(const struct mn_plan *p, struct cni_error *err);
/*
 * Move the pod's default route of each requested family to the named
 * interface (pn->pod), read the routes back to verify, and rewrite the
 * delegates' results (and their libcni cache entries) to match. Before a
 * family's routes change, an undo step that puts them back is pushed.
 * Returns 1 when results changed, 0 when there was nothing to do.
 */
int mn_route_apply(struct podnet *pn, struct mn_plan *p, const struct cni_runtime *rt);
/* Remove default routes of `family` from a result JSON (any version) / add one. */
void mn_result_drop_default(json_t *result, int family);
int mn_result_add_default(json_t *result, const char *gw);

/* ---- commands (mn-add.c, mn-del.c) ---- */

struct mn_call {
	struct cni_ctx *ctx;
	struct mn_conf conf;
	struct cni_runtime rt;
	struct cni_runtime_ahead ahead; /* ADD: the next delegate's process, started early */
	char *path;			/* binDir + CNI_PATH */
	struct mn_k8s *k8s;		/* NULL without kubeconfig */
	json_t *pod;			/* NULL when unknown */
	const char *pod_uid;		/* borrowed from the plan */
	struct mn_devices devices;
	bool devices_loaded;
	/*
	 * DEL and GC: a network that cannot be resolved (NAD, isolation,
	 * config, apiserver) is a warning and left out; the apiserver gets
	 * MN_DEL_APISERVER_BUDGET_MS in all.
	 */
	bool lenient;
	bool apiserver_down; /* lenient: a request could not reach it (code 11) */
};

int mn_call_init(struct mn_call *c, struct cni_ctx *ctx);
void mn_call_done(struct mn_call *c);
int mn_pod_from_args(const struct cni_ctx *ctx, struct mn_pod *ret);
int mn_plan_args(struct mn_plan *p, const struct cni_ctx *ctx);
/*
 * Lenient calls (DEL, GC): the error r recorded in ctx->err becomes a
 * warning "<msg>: <consequence>, ignoring" and 0 is returned (code 11 marks
 * the apiserver down). Strict calls, r >= 0 and -ENOMEM: r unchanged.
 */
int mn_lenient(struct mn_call *c, int r, const char *consequence);
/*
 * Resolve every delegate (cluster network, default networks, pod networks).
 * Lenient: a network that cannot be resolved is left out with a warning.
 */
int mn_resolve(struct mn_call *c, struct mn_plan *p);
/* Only the cluster network (and the other static delegates). */
int mn_resolve_master(struct mn_call *c, struct mn_plan *p);
/*
 * The cluster network before the pod is known, when that needs no
 * apiserver (a path, or delegates mode): 1 when resolved (mn_resolve then
 * keeps it), 0 when it has to wait for mn_resolve.
 */
int mn_resolve_master_early(struct mn_call *c, struct mn_plan *p);
/*
 * DEL without a cache: rebuild the delegates as ADD would (the pod may be
 * gone); whatever cannot be resolved, the apiserver included, is a warning.
 */
int mn_plan_rebuild(struct mn_call *c, struct mn_plan *p);
/*
 * Make the apiserver client (once; nothing without a kubeconfig). Lenient
 * calls bound all its requests by MN_DEL_APISERVER_BUDGET_MS from here.
 */
int mn_connect(struct mn_call *c);
/*
 * DEL delegate i: 0 when done or given up (a warning); otherwise logged, its
 * error (prefixed with the network) collected into err (the first wins, later
 * ones become details), and the negative errno returned.
 */
int mn_del_delegate(struct mn_call *c, struct mn_plan *p, size_t i, struct cni_error *err);
void mn_runtime_conf(const struct mn_plan *p, const struct mn_delegate *d,
		     struct cni_runtime_conf *rc);

/* ADD (the other commands are in mn-del.c), given the pod netns by podnet. */
int mn_cmd_add(struct podnet *pn);

extern const struct podnet_plugin_ops multinet_ops;
