/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: the parsers of etcd 3.4's JSON gateway responses.
 * Every field with a default value may be absent (failed txn: no
 * "succeeded"; empty range: no "kvs", no "count"; PUT events: no "type"),
 * int64 values come as strings (numbers are accepted too).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/codec.h"
#include "pwetcd/etcd.h"

#define BAD(msg)                                                                                   \
	do {                                                                                       \
		if (why)                                                                           \
			*why = (msg);                                                              \
		return -EBADMSG;                                                                   \
	} while (0)

char *pwetcd_prefix_end(const char *key, size_t key_len, size_t *ret_len)
{
	char *end = malloc(key_len + 1);
	size_t n = key_len;

	if (!end)
		return NULL;
	memcpy(end, key, key_len);
	while (n > 0 && (unsigned char)end[n - 1] == 0xff)
		n--;
	if (n == 0) { /* every key: "\0" */
		end[0] = '\0';
		*ret_len = 1;
		return end;
	}
	end[n - 1] = (char)((unsigned char)end[n - 1] + 1);
	end[n] = '\0';
	*ret_len = n;
	return end;
}

/* An int64 field: absent -> 0; string or integer; anything else is malformed. */
static int get_i64(const json_t *obj, const char *key, int64_t *ret)
{
	const json_t *v = json_object_get(obj, key);
	const char *s;
	char *end;
	long long n;

	*ret = 0;
	if (!v)
		return 0;
	if (json_is_integer(v)) {
		*ret = json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -EBADMSG;
	s = json_string_value(v);
	if (*s == '\0')
		return -EBADMSG;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || *end)
		return -EBADMSG;
	*ret = n;
	return 0;
}

static int get_bool(const json_t *obj, const char *key, bool *ret)
{
	const json_t *v = json_object_get(obj, key);

	*ret = false;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return -EBADMSG;
	*ret = json_is_true(v);
	return 0;
}

/* A base64 field into an owned NUL-terminated buffer; absent -> NULL. */
static int get_b64(const json_t *obj, const char *key, char **ret, size_t *ret_len)
{
	const json_t *v = json_object_get(obj, key);
	int r;

	*ret = NULL;
	*ret_len = 0;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return -EBADMSG;
	r = b64_decode_dup(json_string_value(v), json_string_length(v), ret, ret_len);
	return r == -EINVAL ? -EBADMSG : r;
}

void pwetcd_kv_done(struct pwetcd_kv *kv)
{
	free(kv->key);
	free(kv->value);
	memset(kv, 0, sizeof(*kv));
}

/* Each parser of an array item fills *item (zeroed, or left zeroed on failure). */
typedef int (*item_fn)(const json_t *o, void *item);

/*
 * The items of arr (absent: none) parsed by fn into a new array of size-byte
 * items (owned; NULL when none); *n counts the items written, also when
 * *err (0 or -errno) says that one failed, so that the caller frees them.
 */
static void *parse_items(const json_t *arr, size_t size, item_fn fn, size_t *n, int *err)
{
	size_t len = json_array_size(arr);
	char *v;

	*n = 0;
	*err = arr && !json_is_array(arr) ? -EBADMSG : 0;
	if (*err < 0 || len == 0)
		return NULL;
	v = calloc(len, size);
	if (!v)
		*err = -ENOMEM;
	for (size_t i = 0; v && i < len && *err >= 0; i++) {
		*err = fn(json_array_get(arr, i), v + i * size);
		*n = i + 1;
	}
	return v;
}

static int parse_kv(const json_t *o, void *item)
{
	struct pwetcd_kv *kv = item;
	int r;

	memset(kv, 0, sizeof(*kv));
	if (!json_is_object(o))
		return -EBADMSG;
	r = get_b64(o, "key", &kv->key, &kv->key_len);
	if (r >= 0 && !kv->key)
		r = -EBADMSG; /* a kv always has a key */
	if (r >= 0)
		r = get_b64(o, "value", &kv->value, &kv->value_len);
	if (r >= 0)
		r = get_i64(o, "create_revision", &kv->create_revision);
	if (r >= 0)
		r = get_i64(o, "mod_revision", &kv->mod_revision);
	if (r >= 0)
		r = get_i64(o, "version", &kv->version);
	if (r >= 0)
		r = get_i64(o, "lease", &kv->lease);
	if (r < 0)
		pwetcd_kv_done(kv);
	return r;
}

static int header_revision(const json_t *o, int64_t *ret)
{
	const json_t *h = json_object_get(o, "header");

	*ret = 0;
	if (!h)
		return 0;
	if (!json_is_object(h))
		return -EBADMSG;
	return get_i64(h, "revision", ret);
}

void pwetcd_range_result_done(struct pwetcd_range_result *r)
{
	for (size_t i = 0; i < r->n_kvs; i++)
		pwetcd_kv_done(&r->kvs[i]);
	free(r->kvs);
	memset(r, 0, sizeof(*r));
}

static int range_from_json(const json_t *o, void *ret)
{
	struct pwetcd_range_result r = {0};
	int e;

	if (!json_is_object(o))
		return -EBADMSG;
	e = header_revision(o, &r.revision);
	if (e >= 0)
		r.kvs =
		    parse_items(json_object_get(o, "kvs"), sizeof(*r.kvs), parse_kv, &r.n_kvs, &e);
	if (e >= 0)
		e = get_i64(o, "count", &r.count);
	if (e >= 0)
		e = get_bool(o, "more", &r.more);
	if (e < 0) {
		pwetcd_range_result_done(&r);
		return e;
	}
	*(struct pwetcd_range_result *)ret = r;
	return 0;
}

static json_t *load(const char *body, size_t len)
{
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);

	if (root && !json_is_object(root)) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static int load_checked(const char *body, size_t len, json_t **ret, const char **why)
{
	*ret = load(body, len);
	if (!*ret)
		BAD("not a JSON object");
	if (json_object_get(*ret, "error") && !json_object_get(*ret, "header") &&
	    !json_object_get(*ret, "result")) {
		json_decref(*ret);
		BAD("an error object");
	}
	return 0;
}

/* body, an answer of etcd (not an error object), read by fn into ret; 0 or -errno, *why set. */
static int parse_with(const char *body, size_t len, item_fn fn, void *ret, const char *what,
		      const char **why)
{
	json_t *root;
	int r = load_checked(body, len, &root, why);

	if (r < 0)
		return r;
	r = fn(root, ret);
	json_decref(root);
	if (r == -EBADMSG)
		BAD(what);
	return r;
}

int pwetcd_parse_range(const char *body, size_t len, struct pwetcd_range_result *ret,
		       const char **why)
{
	return parse_with(body, len, range_from_json, ret, "malformed range response", why);
}

static int revision_from_json(const json_t *o, void *ret)
{
	return header_revision(o, ret);
}

int pwetcd_parse_put(const char *body, size_t len, int64_t *ret_revision, const char **why)
{
	return parse_with(body, len, revision_from_json, ret_revision, "malformed put response",
			  why);
}

static int deleted_from_json(const json_t *o, void *ret)
{
	return get_i64(o, "deleted", ret);
}

int pwetcd_parse_delete(const char *body, size_t len, int64_t *ret_deleted, const char **why)
{
	return parse_with(body, len, deleted_from_json, ret_deleted,
			  "malformed deleterange response", why);
}

void pwetcd_txn_result_done(struct pwetcd_txn_result *r)
{
	for (size_t i = 0; i < r->n_ops; i++)
		pwetcd_range_result_done(&r->ops[i].range);
	free(r->ops);
	memset(r, 0, sizeof(*r));
}

static int parse_op(const json_t *o, void *item)
{
	struct pwetcd_op_result *op = item;
	const json_t *v;

	memset(op, 0, sizeof(*op));
	if (!json_is_object(o))
		return -EBADMSG;
	if ((v = json_object_get(o, "response_range"))) {
		op->kind = PWETCD_OP_RANGE;
		return range_from_json(v, &op->range);
	}
	if ((v = json_object_get(o, "response_put"))) {
		op->kind = PWETCD_OP_PUT;
		return json_is_object(v) ? 0 : -EBADMSG;
	}
	if ((v = json_object_get(o, "response_delete_range"))) {
		op->kind = PWETCD_OP_DELETE;
		return json_is_object(v) ? get_i64(v, "deleted", &op->deleted) : -EBADMSG;
	}
	if ((v = json_object_get(o, "response_txn"))) {
		op->kind = PWETCD_OP_OTHER;
		return 0;
	}
	return -EBADMSG;
}

static int txn_from_json(const json_t *root, void *ret)
{
	struct pwetcd_txn_result t = {0};
	int r = header_revision(root, &t.revision);

	if (r >= 0)
		r = get_bool(root, "succeeded", &t.succeeded);
	if (r >= 0)
		t.ops = parse_items(json_object_get(root, "responses"), sizeof(*t.ops), parse_op,
				    &t.n_ops, &r);
	if (r < 0) {
		pwetcd_txn_result_done(&t);
		return r;
	}
	*(struct pwetcd_txn_result *)ret = t;
	return 0;
}

int pwetcd_parse_txn(const char *body, size_t len, struct pwetcd_txn_result *ret, const char **why)
{
	return parse_with(body, len, txn_from_json, ret, "malformed txn response", why);
}

int pwetcd_parse_lease(const char *body, size_t len, int64_t *ret_id, int64_t *ret_ttl,
		       const char **why)
{
	json_t *root;
	const json_t *o;
	int64_t id = 0, ttl = 0;
	int r = load_checked(body, len, &root, why);

	if (r < 0)
		return r;
	/* keepalive wraps its answer in "result" (a stream); grant does not */
	o = json_object_get(root, "result");
	if (!o)
		o = root;
	r = json_is_object(o) ? 0 : -EBADMSG;
	if (r >= 0)
		r = get_i64(o, "ID", &id);
	if (r >= 0)
		r = get_i64(o, "TTL", &ttl);
	if (r >= 0 && json_object_get(o, "error") && json_is_string(json_object_get(o, "error")) &&
	    json_string_length(json_object_get(o, "error")) > 0)
		r = -EBADMSG;
	json_decref(root);
	if (r < 0)
		BAD("malformed lease response");
	if (ret_id)
		*ret_id = id;
	if (ret_ttl)
		*ret_ttl = ttl;
	return 0;
}

void pwetcd_watch_batch_done(struct pwetcd_watch_batch *b)
{
	for (size_t i = 0; i < b->n_events; i++)
		pwetcd_kv_done(&b->events[i].kv);
	free(b->events);
	free(b->cancel_reason);
	memset(b, 0, sizeof(*b));
}

static int parse_event(const json_t *o, void *item)
{
	struct pwetcd_event *ev = item;
	const json_t *type;

	memset(ev, 0, sizeof(*ev));
	if (!json_is_object(o))
		return -EBADMSG;
	type = json_object_get(o, "type");
	if (!type || (json_is_string(type) && strcmp(json_string_value(type), "PUT") == 0) ||
	    (json_is_integer(type) && json_integer_value(type) == 0))
		ev->type = PWETCD_EVENT_PUT;
	else if ((json_is_string(type) && strcmp(json_string_value(type), "DELETE") == 0) ||
		 (json_is_integer(type) && json_integer_value(type) == 1))
		ev->type = PWETCD_EVENT_DELETE;
	else
		return -EBADMSG;
	return parse_kv(json_object_get(o, "kv"), &ev->kv);
}

static int watch_fields(const json_t *o, struct pwetcd_watch_batch *b)
{
	const json_t *arr = json_object_get(o, "events"), *reason;
	int r;

	r = header_revision(o, &b->revision);
	if (r >= 0)
		r = get_bool(o, "created", &b->created);
	if (r >= 0)
		r = get_bool(o, "canceled", &b->canceled);
	if (r >= 0)
		r = get_i64(o, "compact_revision", &b->compact_revision);
	reason = json_object_get(o, "cancel_reason");
	if (r >= 0 && reason) {
		b->cancel_reason =
		    json_is_string(reason) ? strdup(json_string_value(reason)) : NULL;
		if (!b->cancel_reason)
			r = json_is_string(reason) ? -ENOMEM : -EBADMSG;
	}
	if (r >= 0)
		b->events = parse_items(arr, sizeof(*b->events), parse_event, &b->n_events, &r);
	return r;
}

int pwetcd_parse_watch_message(const char *body, size_t len, struct pwetcd_watch_batch *ret,
			       const char **why)
{
	struct pwetcd_watch_batch b = {0};
	json_t *root = load(body, len);
	const json_t *o;
	int r;

	if (!root)
		BAD("not a JSON object");
	o = json_object_get(root, "result");
	if (!json_is_object(o)) {
		json_decref(root);
		BAD(json_object_get(root, "error") ? "watch stream error" : "no result in message");
	}
	r = watch_fields(o, &b);
	json_decref(root);
	if (r < 0) {
		pwetcd_watch_batch_done(&b);
		if (r == -EBADMSG)
			BAD("malformed watch message");
		return r;
	}
	*ret = b;
	return 0;
}

int pwetcd_parse_error(const char *body, size_t len, int *ret_code, char **ret_msg)
{
	json_t *root = load(body, len);
	const json_t *o, *msg;
	int64_t code = -1;

	*ret_code = -1;
	*ret_msg = NULL;
	if (!root)
		return -EBADMSG;
	o = json_object_get(root, "error");
	if (json_is_object(o)) /* stream errors: {"error":{"grpc_code":..,"message":..}} */
		root = (json_incref((json_t *)o), json_decref(root), (json_t *)o);
	msg = json_object_get(root, "message");
	if (!json_is_string(msg))
		msg = json_object_get(root, "error");
	if (json_object_get(root, "code"))
		(void)get_i64(root, "code", &code);
	else
		(void)get_i64(root, "grpc_code", &code);
	if (json_is_string(msg))
		*ret_msg = strdup(json_string_value(msg));
	*ret_code = code >= 0 && code < 64 ? (int)code : -1;
	json_decref(root);
	return 0;
}
