/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: request bodies. Keys and values are base64, int64 values are sent
 * as strings, compare target and result are always spelled out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pwetcd-internal.h"

struct pwetcd_txn {
	json_t *compare, *branch[2];
	int error;
};

json_t *pwetcd_json_b64(const char *data, size_t len)
{
	char *buf = malloc((len + 2) / 3 * 4 + 1);
	json_t *s;

	if (!buf)
		return NULL;
	pwetcd_b64_encode(data, len, buf);
	s = json_string(buf);
	free(buf);
	return s;
}

json_t *pwetcd_json_i64(int64_t n)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, n);
	return json_string(buf);
}

/* Set key (and range_end for a prefix) on o. */
int pwetcd_json_set_key(json_t *o, const char *key, size_t key_len, bool prefix)
{
	if (!key)
		return -EINVAL;
	if (key_len == 0)
		key_len = strlen(key);
	if (json_object_set_new(o, "key", pwetcd_json_b64(key, key_len)) < 0)
		return -ENOMEM;
	if (prefix) {
		size_t n;
		char *end = pwetcd_prefix_end(key, key_len, &n);
		int r;

		if (!end)
			return -ENOMEM;
		r = json_object_set_new(o, "range_end", pwetcd_json_b64(end, n));
		free(end);
		if (r < 0)
			return -ENOMEM;
	}
	return 0;
}

json_t *pwetcd_range_body(const struct pwetcd_range_req *req)
{
	json_t *o = json_object();

	if (!o ||
	    pwetcd_json_set_key(o, req->key, req->key_len, req->prefix && !req->range_end) < 0)
		goto fail;
	if (req->range_end &&
	    json_object_set_new(o, "range_end",
				pwetcd_json_b64(req->range_end, req->range_end_len
								    ? req->range_end_len
								    : strlen(req->range_end))) < 0)
		goto fail;
	if ((req->limit && json_object_set_new(o, "limit", pwetcd_json_i64(req->limit)) < 0) ||
	    (req->revision &&
	     json_object_set_new(o, "revision", pwetcd_json_i64(req->revision)) < 0) ||
	    (req->keys_only && json_object_set_new(o, "keys_only", json_true()) < 0) ||
	    (req->count_only && json_object_set_new(o, "count_only", json_true()) < 0) ||
	    (req->serializable && json_object_set_new(o, "serializable", json_true()) < 0))
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

json_t *pwetcd_put_body(const char *key, const char *value, size_t value_len, int64_t lease)
{
	json_t *o = json_object();

	if (!o || pwetcd_json_set_key(o, key, 0, false) < 0 ||
	    json_object_set_new(o, "value", pwetcd_json_b64(value ? value : "", value_len)) < 0 ||
	    (lease && json_object_set_new(o, "lease", pwetcd_json_i64(lease)) < 0)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *pwetcd_delete_body(const char *key, bool prefix)
{
	json_t *o = json_object();

	if (!o || pwetcd_json_set_key(o, key, 0, prefix) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

struct pwetcd_txn *pwetcd_txn_new(void)
{
	struct pwetcd_txn *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->compare = json_array();
	t->branch[0] = json_array();
	t->branch[1] = json_array();
	if (!t->compare || !t->branch[0] || !t->branch[1]) {
		pwetcd_txn_free(t);
		return NULL;
	}
	return t;
}

void pwetcd_txn_free(struct pwetcd_txn *t)
{
	if (!t)
		return;
	json_decref(t->compare);
	json_decref(t->branch[0]);
	json_decref(t->branch[1]);
	free(t);
}

static const char *const target_names[] = {"VERSION", "CREATE", "MOD", "VALUE", "LEASE"};
static const char *const target_fields[] = {"version", "create_revision", "mod_revision", "value",
					    "lease"};
static const char *const result_names[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};

static int sticky(struct pwetcd_txn *t, int r)
{
	if (r < 0 && t->error == 0)
		t->error = r;
	return r;
}

static json_t *cmp_new(const char *key, unsigned target, unsigned result)
{
	json_t *o = json_object();

	if (!o || pwetcd_json_set_key(o, key, 0, false) < 0 ||
	    json_object_set_new(o, "target", json_string(target_names[target])) < 0 ||
	    json_object_set_new(o, "result", json_string(result_names[result])) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int pwetcd_txn_cmp(struct pwetcd_txn *t, const char *key, enum pwetcd_target target,
		   enum pwetcd_result_op result, int64_t n)
{
	json_t *o;

	if ((unsigned)target > PWETCD_TARGET_LEASE || target == PWETCD_TARGET_VALUE ||
	    (unsigned)result > PWETCD_NOT_EQUAL)
		return sticky(t, -EINVAL);
	o = cmp_new(key, target, result);
	if (!o || json_object_set_new(o, target_fields[target], pwetcd_json_i64(n)) < 0 ||
	    json_array_append_new(t->compare, o) < 0) {
		json_decref(o);
		return sticky(t, -ENOMEM);
	}
	return 0;
}

int pwetcd_txn_cmp_value(struct pwetcd_txn *t, const char *key, enum pwetcd_result_op result,
			 const char *value, size_t value_len)
{
	json_t *o;

	if ((unsigned)result > PWETCD_NOT_EQUAL)
		return sticky(t, -EINVAL);
	o = cmp_new(key, PWETCD_TARGET_VALUE, result);
	if (!o || json_object_set_new(o, "value", pwetcd_json_b64(value, value_len)) < 0 ||
	    json_array_append_new(t->compare, o) < 0) {
		json_decref(o);
		return sticky(t, -ENOMEM);
	}
	return 0;
}

static int add_op(struct pwetcd_txn *t, enum pwetcd_branch b, const char *kind, json_t *body)
{
	json_t *op;

	if ((unsigned)b > PWETCD_FAILURE) {
		json_decref(body);
		return sticky(t, -EINVAL);
	}
	if (!body)
		return sticky(t, -ENOMEM);
	op = json_object();
	if (!op || json_object_set_new(op, kind, body) < 0 ||
	    json_array_append_new(t->branch[b], op) < 0) {
		json_decref(op);
		return sticky(t, -ENOMEM);
	}
	return 0;
}

int pwetcd_txn_put(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, const char *value,
		   size_t value_len, int64_t lease)
{
	return add_op(t, b, "request_put", pwetcd_put_body(key, value, value_len, lease));
}

int pwetcd_txn_delete(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, bool prefix)
{
	return add_op(t, b, "request_delete_range", pwetcd_delete_body(key, prefix));
}

int pwetcd_txn_range(struct pwetcd_txn *t, enum pwetcd_branch b, const struct pwetcd_range_req *r)
{
	return add_op(t, b, "request_range", pwetcd_range_body(r));
}

size_t pwetcd_txn_ops(const struct pwetcd_txn *t)
{
	size_t a = json_array_size(t->branch[0]), b = json_array_size(t->branch[1]);

	return a > b ? a : b;
}

int pwetcd_txn_error(const struct pwetcd_txn *t)
{
	return t->error;
}

char *pwetcd_txn_json(const struct pwetcd_txn *t)
{
	json_t *o;
	char *s;

	if (t->error)
		return NULL;
	o = json_pack("{sOsOsO}", "compare", t->compare, "success", t->branch[0], "failure",
		      t->branch[1]);
	if (!o)
		return NULL;
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}
