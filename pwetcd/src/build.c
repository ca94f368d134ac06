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

#include "base/codec.h"
#include "internal.h"

json_t *pwetcd_json_b64(const char *data, size_t len)
{
	char *buf = b64_encode_dup(data, len);
	json_t *s;

	if (!buf)
		return NULL;
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

/*
 * Request bodies are written as text: every string in them is base64, a
 * decimal number or one of the fixed names, so nothing needs escaping, and
 * an ADD's txn (a block value of a few KB) is not built as a jansson tree
 * first and then dumped character by character.
 */
/* Room for n more bytes (and the NUL) at b->s + b->len, or NULL (then b->oom). */
static char *tb_room(struct pwetcd_text *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->oom)
		return NULL;
	if (b->len + n + 1 <= b->cap)
		return b->s + b->len;
	while (cap < b->len + n + 1)
		cap *= 2;
	p = realloc(b->s, cap);
	if (!p) {
		b->oom = true;
		return NULL;
	}
	b->s = p;
	b->cap = cap;
	return p + b->len;
}

void pwetcd_text_put(struct pwetcd_text *b, const char *s, size_t n)
{
	char *p = tb_room(b, n);

	if (!p)
		return;
	memcpy(p, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void pwetcd_text_str(struct pwetcd_text *b, const char *s)
{
	pwetcd_text_put(b, s, strlen(s));
}

/* Length of the UTF-8 sequence at s when it is one jansson accepts, else 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], v;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c < 0xC2 || c > 0xF4)
		return 0;
	n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	v = c & (n == 2 ? 0x1Fu : n == 3 ? 0x0Fu : 0x07u);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) /* also the NUL at the end */
			return 0;
		v = (v << 6) | (s[i] & 0x3Fu);
	}
	if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || (n == 3 && v < 0x800) ||
	    (n == 4 && v < 0x10000))
		return 0;
	return n;
}

/* The escape of c (a quote, a backslash or a control character) into esc. */
static void escape(unsigned char c, char esc[8])
{
	char e = 0;

	switch (c) {
	case '"':
	case '\\':
		e = (char)c;
		break;
	case '\b':
		e = 'b';
		break;
	case '\f':
		e = 'f';
		break;
	case '\n':
		e = 'n';
		break;
	case '\r':
		e = 'r';
		break;
	case '\t':
		e = 't';
		break;
	default:
		break;
	}
	if (e)
		snprintf(esc, 8, "\\%c", e);
	else
		snprintf(esc, 8, "\\u%04X", c);
}

int pwetcd_text_json_str(struct pwetcd_text *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *run = s;
	char esc[8];

	pwetcd_text_put(b, "\"", 1);
	for (size_t n; *s; s += n) {
		n = utf8_len(s);
		if (n == 0)
			return -EINVAL;
		if (*s >= 0x20 && *s != '"' && *s != '\\')
			continue;
		pwetcd_text_put(b, (const char *)run, (size_t)(s - run));
		escape(*s, esc);
		pwetcd_text_str(b, esc);
		run = s + 1;
	}
	pwetcd_text_put(b, (const char *)run, (size_t)(s - run));
	pwetcd_text_put(b, "\"", 1);
	return 0;
}

/* ,"name":"<base64 of data>" (no comma when first) */
static void tb_b64(struct pwetcd_text *b, bool first, const char *name, const char *data,
		   size_t len)
{
	size_t n = B64_ENCODED_LEN(len);
	char *p;

	pwetcd_text_str(b, first ? "\"" : ",\"");
	pwetcd_text_str(b, name);
	pwetcd_text_str(b, "\":\"");
	p = tb_room(b, n);
	if (!p)
		return;
	b->len += b64_encode(data, len, p); /* writes the NUL too */
	pwetcd_text_put(b, "\"", 1);
}

/* ,"name":"<n>" (int64 values are strings in etcd's JSON) */
static void tb_i64(struct pwetcd_text *b, const char *name, int64_t n)
{
	char buf[48];

	snprintf(buf, sizeof(buf), ",\"%s\":\"%" PRId64 "\"", name, n);
	pwetcd_text_str(b, buf);
}

/* "key":... and, for a prefix, "range_end":... */
static int tb_key(struct pwetcd_text *b, const char *key, size_t key_len, bool prefix)
{
	if (!key)
		return -EINVAL;
	if (key_len == 0)
		key_len = strlen(key);
	tb_b64(b, true, "key", key, key_len);
	if (prefix) {
		size_t n;
		char *end = pwetcd_prefix_end(key, key_len, &n);

		if (!end)
			return -ENOMEM;
		tb_b64(b, false, "range_end", end, n);
		free(end);
	}
	return b->oom ? -ENOMEM : 0;
}

static int range_text(struct pwetcd_text *b, const struct pwetcd_range_req *req)
{
	int r;

	pwetcd_text_put(b, "{", 1);
	r = tb_key(b, req->key, req->key_len, req->prefix && !req->range_end);
	if (r < 0)
		return r;
	if (req->range_end)
		tb_b64(b, false, "range_end", req->range_end,
		       req->range_end_len ? req->range_end_len : strlen(req->range_end));
	if (req->limit)
		tb_i64(b, "limit", req->limit);
	if (req->revision)
		tb_i64(b, "revision", req->revision);
	if (req->keys_only)
		pwetcd_text_str(b, ",\"keys_only\":true");
	if (req->count_only)
		pwetcd_text_str(b, ",\"count_only\":true");
	if (req->serializable)
		pwetcd_text_str(b, ",\"serializable\":true");
	pwetcd_text_put(b, "}", 1);
	return b->oom ? -ENOMEM : 0;
}

static int put_text(struct pwetcd_text *b, const char *key, const char *value, size_t value_len,
		    int64_t lease)
{
	int r;

	pwetcd_text_put(b, "{", 1);
	r = tb_key(b, key, 0, false);
	if (r < 0)
		return r;
	tb_b64(b, false, "value", value ? value : "", value_len);
	if (lease)
		tb_i64(b, "lease", lease);
	pwetcd_text_put(b, "}", 1);
	return b->oom ? -ENOMEM : 0;
}

static int delete_text(struct pwetcd_text *b, const char *key, bool prefix)
{
	int r;

	pwetcd_text_put(b, "{", 1);
	r = tb_key(b, key, 0, prefix);
	pwetcd_text_put(b, "}", 1);
	return r < 0 ? r : b->oom ? -ENOMEM : 0;
}

/* Each returns the body (owned) or NULL: out of memory, or no key. */
static char *body_done(struct pwetcd_text *b, int r)
{
	if (r < 0 || b->oom) {
		free(b->s);
		return NULL;
	}
	return b->s;
}

char *pwetcd_range_body(const struct pwetcd_range_req *req)
{
	struct pwetcd_text b = {0};

	return body_done(&b, range_text(&b, req));
}

char *pwetcd_put_body(const char *key, const char *value, size_t value_len, int64_t lease)
{
	struct pwetcd_text b = {0};

	return body_done(&b, put_text(&b, key, value, value_len, lease));
}

char *pwetcd_delete_body(const char *key, bool prefix)
{
	struct pwetcd_text b = {0};

	return body_done(&b, delete_text(&b, key, prefix));
}

/* The compares and both branches, each the text of a JSON array's items. */
struct pwetcd_txn {
	struct pwetcd_text part[3]; /* compare, success, failure */
	size_t n[3];
	int error;
};

struct pwetcd_txn *pwetcd_txn_new(void)
{
	return calloc(1, sizeof(struct pwetcd_txn));
}

void pwetcd_txn_free(struct pwetcd_txn *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < 3; i++)
		free(t->part[i].s);
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

/* Opens the next item of part i; the caller writes it and calls item_end(). */
static struct pwetcd_text *item_start(struct pwetcd_txn *t, size_t i)
{
	if (t->n[i]++ > 0)
		pwetcd_text_put(&t->part[i], ",", 1);
	return &t->part[i];
}

static int item_end(struct pwetcd_txn *t, struct pwetcd_text *b, int r)
{
	if (r >= 0 && b->oom)
		r = -ENOMEM;
	return r < 0 ? sticky(t, r) : 0;
}

/* {"key":...,"target":"...","result":"..." (left open for the value) */
static int cmp_start(struct pwetcd_text *b, const char *key, unsigned target, unsigned result)
{
	int r;

	pwetcd_text_put(b, "{", 1);
	r = tb_key(b, key, 0, false);
	pwetcd_text_str(b, ",\"target\":\"");
	pwetcd_text_str(b, target_names[target]);
	pwetcd_text_str(b, "\",\"result\":\"");
	pwetcd_text_str(b, result_names[result]);
	pwetcd_text_put(b, "\"", 1);
	return r;
}

int pwetcd_txn_cmp(struct pwetcd_txn *t, const char *key, enum pwetcd_target target,
		   enum pwetcd_result_op result, int64_t n)
{
	struct pwetcd_text *b;
	int r;

	if ((unsigned)target > PWETCD_TARGET_LEASE || target == PWETCD_TARGET_VALUE ||
	    (unsigned)result > PWETCD_NOT_EQUAL)
		return sticky(t, -EINVAL);
	b = item_start(t, 0);
	r = cmp_start(b, key, target, result);
	tb_i64(b, target_fields[target], n);
	pwetcd_text_put(b, "}", 1);
	return item_end(t, b, r);
}

int pwetcd_txn_cmp_value(struct pwetcd_txn *t, const char *key, enum pwetcd_result_op result,
			 const char *value, size_t value_len)
{
	struct pwetcd_text *b;
	int r;

	if ((unsigned)result > PWETCD_NOT_EQUAL)
		return sticky(t, -EINVAL);
	b = item_start(t, 0);
	r = cmp_start(b, key, PWETCD_TARGET_VALUE, result);
	tb_b64(b, false, "value", value, value_len);
	pwetcd_text_put(b, "}", 1);
	return item_end(t, b, r);
}

/* {"kind": ... } around the body the caller writes next; NULL for a bad branch. */
static struct pwetcd_text *op_start(struct pwetcd_txn *t, enum pwetcd_branch br, const char *kind)
{
	struct pwetcd_text *b;

	if ((unsigned)br > PWETCD_FAILURE)
		return NULL;
	b = item_start(t, 1 + (size_t)br);
	pwetcd_text_str(b, "{\"");
	pwetcd_text_str(b, kind);
	pwetcd_text_str(b, "\":");
	return b;
}

static int op_end(struct pwetcd_txn *t, struct pwetcd_text *b, int r)
{
	pwetcd_text_put(b, "}", 1);
	return item_end(t, b, r);
}

int pwetcd_txn_put(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, const char *value,
		   size_t value_len, int64_t lease)
{
	struct pwetcd_text *o = op_start(t, b, "request_put");

	if (!o)
		return sticky(t, -EINVAL);
	return op_end(t, o, put_text(o, key, value, value_len, lease));
}

int pwetcd_txn_delete(struct pwetcd_txn *t, enum pwetcd_branch b, const char *key, bool prefix)
{
	struct pwetcd_text *o = op_start(t, b, "request_delete_range");

	if (!o)
		return sticky(t, -EINVAL);
	return op_end(t, o, delete_text(o, key, prefix));
}

int pwetcd_txn_range(struct pwetcd_txn *t, enum pwetcd_branch b, const struct pwetcd_range_req *r)
{
	struct pwetcd_text *o = op_start(t, b, "request_range");

	if (!o)
		return sticky(t, -EINVAL);
	return op_end(t, o, range_text(o, r));
}

size_t pwetcd_txn_ops(const struct pwetcd_txn *t)
{
	return t->n[1] > t->n[2] ? t->n[1] : t->n[2];
}

int pwetcd_txn_error(const struct pwetcd_txn *t)
{
	return t->error;
}

char *pwetcd_txn_json(const struct pwetcd_txn *t)
{
	static const char *const names[] = {"{\"compare\":[", "],\"success\":[", "],\"failure\":["};
	struct pwetcd_text b = {0};

	if (t->error)
		return NULL;
	for (size_t i = 0; i < 3; i++) {
		pwetcd_text_str(&b, names[i]);
		pwetcd_text_put(&b, t->part[i].s ? t->part[i].s : "", t->part[i].len);
	}
	pwetcd_text_str(&b, "]}");
	return body_done(&b, 0);
}
