/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: request bodies, built as jansson objects and dumped compact (keys
 * in the order they are set). Keys and values are base64, int64 values are
 * sent as strings, compare target and result are always spelled out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/codec.h"
#include "internal.h"

/* base64 and decimal numbers are ASCII: no UTF-8 check (json_string_nocheck) */
json_t *pwetcd_json_b64(const char *data, size_t len)
{
	char *buf = b64_encode_dup(data, len);
	json_t *s;

	if (!buf)
		return NULL;
	s = json_string_nocheck(buf);
	free(buf);
	return s;
}

json_t *pwetcd_json_i64(int64_t n)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, n);
	return json_string_nocheck(buf);
}

/* o[name] = v (v owned; NULL: out of memory). */
static int set(json_t *o, const char *name, json_t *v)
{
	return json_object_set_new(o, name, v) < 0 ? -ENOMEM : 0;
}

/* Set key (and range_end for a prefix) on o. */
int pwetcd_json_set_key(json_t *o, const char *key, size_t key_len, bool prefix)
{
	size_t n;
	char *end;
	int r;

	if (!key)
		return -EINVAL;
	if (key_len == 0)
		key_len = strlen(key);
	r = set(o, "key", pwetcd_json_b64(key, key_len));
	if (r < 0 || !prefix)
		return r;
	end = pwetcd_prefix_end(key, key_len, &n);
	r = end ? set(o, "range_end", pwetcd_json_b64(end, n)) : -ENOMEM;
	free(end);
	return r;
}

/* o, or NULL (o dropped) when r < 0. */
static json_t *built(json_t *o, int r)
{
	if (r >= 0)
		return o;
	json_decref(o);
	return NULL;
}

/* The request objects: NULL when out of memory or without a key. */
static json_t *range_obj(const struct pwetcd_range_req *req)
{
	const char *end = req->range_end;
	json_t *o = json_object();
	int r = pwetcd_json_set_key(o, req->key, req->key_len, req->prefix && !end);

	if (r >= 0 && end)
		r = set(
		    o, "range_end",
		    pwetcd_json_b64(end, req->range_end_len ? req->range_end_len : strlen(end)));
	if (r >= 0 && req->limit)
		r = set(o, "limit", pwetcd_json_i64(req->limit));
	if (r >= 0 && req->revision)
		r = set(o, "revision", pwetcd_json_i64(req->revision));
	if (r >= 0 && req->keys_only)
		r = set(o, "keys_only", json_true());
	if (r >= 0 && req->count_only)
		r = set(o, "count_only", json_true());
	if (r >= 0 && req->serializable)
		r = set(o, "serializable", json_true());
	return built(o, r);
}

static json_t *put_obj(const char *key, const char *value, size_t value_len, int64_t lease)
{
	json_t *o = json_object();
	int r = pwetcd_json_set_key(o, key, 0, false);

	if (r >= 0)
		r = set(o, "value", pwetcd_json_b64(value ? value : "", value_len));
	if (r >= 0 && lease)
		r = set(o, "lease", pwetcd_json_i64(lease));
	return built(o, r);
}

static json_t *delete_obj(const char *key, bool prefix)
{
	json_t *o = json_object();

	return built(o, pwetcd_json_set_key(o, key, 0, prefix));
}

/* The body of one request (o owned), or NULL. */
static char *dump(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return s;
}

char *pwetcd_range_body(const struct pwetcd_range_req *req)
{
	return dump(range_obj(req));
}

char *pwetcd_put_body(const char *key, const char *value, size_t value_len, int64_t lease)
{
	return dump(put_obj(key, value, value_len, lease));
}

char *pwetcd_delete_body(const char *key, bool prefix)
{
	return dump(delete_obj(key, prefix));
}

struct pwetcd_txn {
	json_t *part[3]; /* the compares, the success and the failure branch */
	int error;
};

struct pwetcd_txn *pwetcd_txn_new(void)
{
	struct pwetcd_txn *t = calloc(1, sizeof(*t));

	for (size_t i = 0; t && i < 3; i++)
		if (!(t->part[i] = json_array())) {
			pwetcd_txn_free(t);
			return NULL;
		}
	return t;
}

void pwetcd_txn_free(struct pwetcd_txn *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < 3; i++)
		json_decref(t->part[i]);
	free(t);
}

static const char *const target_names[] = {"VERSION", "CREATE", "MOD", "VALUE", "LEASE"};
static const char *const target_fields[] = {"version", "create_revision", "mod_revision", "value",
					    "lease"};
static const char *const result_names[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};

/*
 * Append item (owned; NULL: out of memory) to part i, or drop it when r < 0
 * (a bad argument). A failure sticks: pwetcd_txn_json() returns NULL.
 */
static int append(struct pwetcd_txn *t, size_t i, json_t *item, int r)
{
	if (r >= 0 && json_array_append_new(t->part[i], item) < 0)
		r = -ENOMEM;
	else if (r < 0)
		json_decref(item);
	if (r < 0 && t->error == 0)
		t->error = r;
	return r;
}

/* {"key","target","result",<target's field>: v} (v owned). */
static int cmp(struct pwetcd_txn *t, const char *key, unsigned target, unsigned result, json_t *v)
{
	if (!key || result > PWETCD_NOT_EQUAL)
		return append(t, 0, v, -EINVAL);
	return append(t, 0,
		      json_pack("{sossssso}", "key", pwetcd_json_b64(key, strlen(key)), "target",
				target_names[target], "result", result_names[result],
				target_fields[target], v),
		      0);
}

int pwetcd_txn_cmp(struct pwetcd_txn *t, const char *key, enum pwetcd_target target,
		   enum pwetcd_result_op result, int64_t n)
{
	if ((unsigned)target > PWETCD_TARGET_LEASE || target == PWETCD_TARGET_VALUE)
		return append(t, 0, NULL, -EINVAL);
	return cmp(t, key, target, result, pwetcd_json_i64(n));
}

int pwetcd_txn_cmp_value(struct pwetcd_txn *t, const char *key, enum pwetcd_result_op result,
			 const char *value, size_t value_len)
{
	return cmp(t, key, PWETCD_TARGET_VALUE, result, pwetcd_json_b64(value, value_len));
}

/* {"kind": body} into branch b (body owned; NULL: no key or out of memory). */
static int op(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, const char *kind,
	      json_t *body)
{
	if ((unsigned)b > PWETCD_FAILURE || !key)
		return append(t, 0, body, -EINVAL);
	return append(t, 1 + (size_t)b, json_pack("{so}", kind, body), 0);
}

int pwetcd_txn_put(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, const char *value,
		   size_t value_len, int64_t lease)
{
	return op(t, b, key, "request_put", put_obj(key, value, value_len, lease));
}

int pwetcd_txn_delete(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, bool prefix)
{
	return op(t, b, key, "request_delete_range", delete_obj(key, prefix));
}

int pwetcd_txn_range(struct pwetcd_txn *t, enum pwetcd_branch b, const struct pwetcd_range_req *r)
{
	return op(t, b, r->key, "request_range", range_obj(r));
}

size_t pwetcd_txn_ops(const struct pwetcd_txn *t)
{
	size_t a = json_array_size(t->part[1]), b = json_array_size(t->part[2]);

	return a > b ? a : b;
}

int pwetcd_txn_error(const struct pwetcd_txn *t)
{
	return t->error;
}

char *pwetcd_txn_json(const struct pwetcd_txn *t)
{
	if (t->error)
		return NULL;
	return dump(json_pack("{sOsOsO}", "compare", t->part[0], "success", t->part[1], "failure",
			      t->part[2]));
}
