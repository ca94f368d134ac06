/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: a small client for etcd v3's JSON gateway (etcd 3.4: POST JSON to
 * /v3/..., base64 keys and values, int64 as strings, default values
 * omitted). pwhttp underneath; one TCP/TLS (or unix socket) connection per
 * endpoint is kept for every request of a client, and one more for its
 * watches.
 *
 * Stable API (used by cluster-ipam and podwire-node). Conventions:
 *  - keys and values are byte strings (pointer + length); keys given as C
 *    strings use strlen;
 *  - functions return 0 or a negative errno and keep a human-readable
 *    message in the client (pwetcd_errmsg);
 *  - errors: -ETIMEDOUT (the client's deadline passed, or the request
 *    timed out), -ECONNREFUSED (no endpoint reachable), -EAGAIN (etcd
 *    answered 5xx or gRPC "unavailable"), -EBADMSG (not the JSON etcd
 *    sends), -EINVAL (etcd rejected the request: gRPC code 3), -ENOENT
 *    (gRPC 5, e.g. unknown lease), -ERANGE (gRPC 11: revision compacted),
 *    -EACCES (TLS: certificate or verification failure, HTTP 401/403),
 *    -EIO (any other transport or HTTP failure), -ENOMEM;
 *  - every result struct is owned by the caller and freed with its _done().
 *
 * Thread-safety: a client is used by one thread at a time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PWETCD_DEFAULT_TIMEOUT_MS 2000u
#define PWETCD_MAX_ENDPOINTS 16

struct pwetcd_config {
	/*
	 * "http://host:port", "https://host:port" or "unix:///abs/path" (the
	 * socket etcd creates for --listen-client-urls unix://NAME). Tried in
	 * order; the first one that answers is kept for the client's life.
	 */
	const char *const *endpoints;
	size_t n_endpoints;
	const char *ca_file;   /* NULL: system CAs (https only) */
	const char *cert_file; /* client certificate (PEM), NULL: none */
	const char *key_file;  /* its key (PEM) */
	/*
	 * Budget of the whole client: every request must finish before
	 * open + timeout_ms (0 = PWETCD_DEFAULT_TIMEOUT_MS). Long-lived users
	 * restart it with pwetcd_reset_deadline().
	 */
	unsigned timeout_ms;
	/*
	 * A directory for the TLS sessions of https:// endpoints, one file per
	 * endpoint ("etcd-<host>_<port>"), so that the next process resumes
	 * the session instead of a full handshake (pwhttp_tls.session_file);
	 * NULL: none. Made 0700 when missing.
	 */
	const char *session_dir;
};

struct pwetcd_client;

/* Validate the config (endpoints parse; files are read by the first request). */
int pwetcd_open(const struct pwetcd_config *cfg, struct pwetcd_client **ret);
void pwetcd_close(struct pwetcd_client *c);
static inline void pwetcd_closep(struct pwetcd_client **c)
{
	if (*c)
		pwetcd_close(*c);
}
/* Restart the budget: requests must end within timeout_ms from now (0 = config value). */
void pwetcd_reset_deadline(struct pwetcd_client *c, unsigned timeout_ms);
/*
 * Set the budget's end to deadline_ms (CLOCK_MONOTONIC milliseconds, the
 * clock of pwhttp_now_ms()): a caller whose own call started before the
 * client was opened (a lock wait, a queue) makes every request, retry and
 * endpoint end within that call's bound.
 */
void pwetcd_set_deadline(struct pwetcd_client *c, uint64_t deadline_ms);
/* Milliseconds left of the budget (0 when passed). */
unsigned pwetcd_remaining_ms(const struct pwetcd_client *c);
/* The message of the last failure ("" if none). Valid until the next call. */
const char *pwetcd_errmsg(const struct pwetcd_client *c);
/* Requests sent by this client (for tests and benchmarks). */
unsigned long pwetcd_requests(const struct pwetcd_client *c);

/* One key-value as etcd returns it. Absent fields are 0 / NULL. */
struct pwetcd_kv {
	char *key; /* NUL-terminated copy too (key[key_len] == 0) */
	size_t key_len;
	char *value; /* NUL-terminated, NULL when absent (keys_only, events) */
	size_t value_len;
	int64_t create_revision, mod_revision, version, lease;
};

struct pwetcd_range_result {
	int64_t revision; /* header.revision */
	struct pwetcd_kv *kvs;
	size_t n_kvs;
	int64_t count; /* absent -> 0 */
	bool more;     /* absent -> false */
};
void pwetcd_range_result_done(struct pwetcd_range_result *r);

/* Range request. key_len 0 with key != NULL uses strlen(key). */
struct pwetcd_range_req {
	const char *key;
	size_t key_len;
	bool prefix; /* range_end = key with its last byte + 1 (every key below key) */
	int64_t limit;
	int64_t revision;
	bool keys_only;
	bool count_only;
	bool serializable;
	/* explicit end of the range (exclusive), instead of prefix; NULL: none */
	const char *range_end;
	size_t range_end_len; /* 0: strlen(range_end) */
};
int pwetcd_range(struct pwetcd_client *c, const struct pwetcd_range_req *req,
		 struct pwetcd_range_result *ret);
/* Read one key: 0 and *found (false leaves ret zeroed). */
int pwetcd_get(struct pwetcd_client *c, const char *key, struct pwetcd_kv *ret, bool *found);
void pwetcd_kv_done(struct pwetcd_kv *kv);

/* Unconditional put; ret_revision may be NULL. lease 0 = none. */
int pwetcd_put(struct pwetcd_client *c, const char *key, const char *value, size_t value_len,
	       int64_t lease, int64_t *ret_revision);
/* Delete a key (or every key under a prefix); ret_deleted may be NULL. */
int pwetcd_delete(struct pwetcd_client *c, const char *key, bool prefix, int64_t *ret_deleted);

/* Transactions: build, commit, read the result. */
enum pwetcd_target {
	PWETCD_TARGET_VERSION,
	PWETCD_TARGET_CREATE,
	PWETCD_TARGET_MOD,
	PWETCD_TARGET_VALUE,
	PWETCD_TARGET_LEASE,
};
enum pwetcd_result_op {
	PWETCD_EQUAL,
	PWETCD_GREATER,
	PWETCD_LESS,
	PWETCD_NOT_EQUAL,
};
enum pwetcd_branch {
	PWETCD_SUCCESS,
	PWETCD_FAILURE,
};

struct pwetcd_txn;
struct pwetcd_txn *pwetcd_txn_new(void);
void pwetcd_txn_free(struct pwetcd_txn *t);
static inline void pwetcd_txn_freep(struct pwetcd_txn **t)
{
	if (*t)
		pwetcd_txn_free(*t);
}
/*
 * Compare on a number (VERSION, CREATE, MOD, LEASE). Both target and result
 * are always sent (an omitted target would mean VERSION). "Key absent" is
 * VERSION EQUAL 0. All builder calls return 0 or -ENOMEM / -EINVAL; an
 * error sticks and is returned again by pwetcd_txn_commit().
 */
int pwetcd_txn_cmp(struct pwetcd_txn *t, const char *key, enum pwetcd_target target,
		   enum pwetcd_result_op result, int64_t n);
int pwetcd_txn_cmp_value(struct pwetcd_txn *t, const char *key, enum pwetcd_result_op result,
			 const char *value, size_t value_len);
int pwetcd_txn_put(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, const char *value,
		   size_t value_len, int64_t lease);
int pwetcd_txn_delete(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, bool prefix);
int pwetcd_txn_range(struct pwetcd_txn *t, enum pwetcd_branch b, const struct pwetcd_range_req *r);
/* Number of ops in the larger branch (etcd's default limit is 128). */
size_t pwetcd_txn_ops(const struct pwetcd_txn *t);
/* The request body (owned, free()). NULL on error. */
char *pwetcd_txn_json(const struct pwetcd_txn *t);

enum pwetcd_op_kind {
	PWETCD_OP_RANGE,
	PWETCD_OP_PUT,
	PWETCD_OP_DELETE,
	PWETCD_OP_OTHER, /* nested txn: not exposed */
};
struct pwetcd_op_result {
	enum pwetcd_op_kind kind;
	struct pwetcd_range_result range; /* PWETCD_OP_RANGE */
	int64_t deleted;		  /* PWETCD_OP_DELETE */
};
struct pwetcd_txn_result {
	bool succeeded; /* absent -> false (the compare failed) */
	int64_t revision;
	struct pwetcd_op_result *ops; /* of the branch that ran */
	size_t n_ops;
};
void pwetcd_txn_result_done(struct pwetcd_txn_result *r);
int pwetcd_txn_commit(struct pwetcd_client *c, const struct pwetcd_txn *t,
		      struct pwetcd_txn_result *ret);

/* Leases. keepalive: *ret_ttl 0 means the lease is gone (expired or revoked). */
int pwetcd_lease_grant(struct pwetcd_client *c, int64_t ttl_s, int64_t *ret_id, int64_t *ret_ttl);
int pwetcd_lease_keepalive(struct pwetcd_client *c, int64_t id, int64_t *ret_ttl);
int pwetcd_lease_revoke(struct pwetcd_client *c, int64_t id);

/* /v3/maintenance/status: reachability probe; ret_version may be NULL (owned). */
int pwetcd_status(struct pwetcd_client *c, char **ret_version);

/* Watch. */
enum pwetcd_event_type {
	PWETCD_EVENT_PUT, /* "type" absent: PUT is enum 0 */
	PWETCD_EVENT_DELETE,
};
struct pwetcd_event {
	enum pwetcd_event_type type;
	struct pwetcd_kv kv;
};
struct pwetcd_watch_batch {
	int64_t revision; /* header.revision */
	bool created, canceled;
	int64_t compact_revision; /* >0: start_revision was compacted; restart from here */
	char *cancel_reason;
	struct pwetcd_event *events;
	size_t n_events;
};
void pwetcd_watch_batch_done(struct pwetcd_watch_batch *b);

struct pwetcd_watch_req {
	const char *key;
	size_t key_len;
	bool prefix;
	int64_t start_revision; /* 0: from now */
	/*
	 * Return after this long with 0 (0 = until the callback stops it or the
	 * stream ends). The watch has its own connection and ignores the
	 * client's deadline. Agents loop: watch for a while, keep their lease
	 * alive, watch again from last revision + 1.
	 */
	unsigned duration_ms;
};
/*
 * Called for every message of the stream (the "created" message too).
 * Return 0 to go on, > 0 to stop (pwetcd_watch returns that value), < 0 to
 * fail with it.
 */
typedef int (*pwetcd_watch_fn)(const struct pwetcd_watch_batch *b, void *userdata);
/*
 * Run a watch on the first reachable endpoint. Returns the callback's stop
 * value, 0 when duration_ms passed, -ECONNRESET when etcd closed the stream,
 * -ERANGE when the start revision was compacted (after the callback saw
 * compact_revision), or a transport error.
 */
int pwetcd_watch(struct pwetcd_client *c, const struct pwetcd_watch_req *req, pwetcd_watch_fn fn,
		 void *userdata);

/*
 * Parsers of etcd's responses (exposed for tests and fuzzing; the client
 * uses them). Each returns 0 or -EBADMSG (with a static reason in *why when
 * why != NULL); the result is filled only on success.
 */
int pwetcd_parse_range(const char *body, size_t len, struct pwetcd_range_result *ret,
		       const char **why);
int pwetcd_parse_txn(const char *body, size_t len, struct pwetcd_txn_result *ret, const char **why);
int pwetcd_parse_put(const char *body, size_t len, int64_t *ret_revision, const char **why);
int pwetcd_parse_delete(const char *body, size_t len, int64_t *ret_deleted, const char **why);
int pwetcd_parse_lease(const char *body, size_t len, int64_t *ret_id, int64_t *ret_ttl,
		       const char **why);
/* One line of the /v3/watch or /v3/lease/keepalive stream ({"result":{...}} or {"error":...}). */
int pwetcd_parse_watch_message(const char *body, size_t len, struct pwetcd_watch_batch *ret,
			       const char **why);
/*
 * An error body {"error","message","code"}: the gRPC code (or -1) and the
 * message (owned, NULL when absent). Returns 0 or -EBADMSG.
 */
int pwetcd_parse_error(const char *body, size_t len, int *ret_code, char **ret_msg);

/* The prefix end of key (last byte + 1, trailing 0xff dropped): owned, *ret_len set. */
char *pwetcd_prefix_end(const char *key, size_t key_len, size_t *ret_len);
