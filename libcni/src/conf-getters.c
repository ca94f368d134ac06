/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Typed getters for plugin-owned keys, unknown-key warnings with "did you
 * mean" hints, and case-insensitive lookups for runtime-supplied objects.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cni/plugin.h"

/* Levenshtein distance, case-insensitive, capped: keys are short. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[65];

	if (la > 64 || lb > 64)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = ascii_tolower(a[i - 1]) == ascii_tolower(b[j - 1]) ? 0 : 1;
			unsigned best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *cni_key_suggest(const char *key, const char *const *known)
{
	unsigned best = 99, limit = strlen(key) <= 4 ? 1 : 2;
	const char *best_key = NULL;

	for (; known && *known; known++) {
		unsigned d = edit_distance(key, *known);

		if (d < best) {
			best = d;
			best_key = *known;
		}
	}
	return best <= limit ? best_key : NULL;
}

static bool in_list(const char *key, const char *const *list)
{
	for (; list && *list; list++)
		if (streq(key, *list))
			return true;
	return false;
}

void cni_conf_warn_unknown_keys(const json_t *obj, const char *path, const char *const *known,
				bool protocol)
{
	const char *key;
	json_t *v;

	if (!json_is_object(obj))
		return;
	json_object_foreach ((json_t *)obj, key, v) {
		const char *hint;

		if (in_list(key, known) || (protocol && in_list(key, cni_conf_protocol_keys)) ||
		    strncmp(key, "cni.dev/", 8) == 0)
			continue;
		hint = cni_key_suggest(key, known);
		if (!hint && protocol)
			hint = cni_key_suggest(key, cni_conf_protocol_keys);
		if (hint)
			cni_log_warning("%s%s'%s': unknown key, ignoring (did you mean '%s'?)",
					path, *path ? "." : "", key, hint);
		else
			cni_log_warning("%s%s'%s': unknown key, ignoring", path, *path ? "." : "",
					key);
	}
}

bool cni_ctx_strict(const struct cni_ctx *ctx)
{
	return !ctx || (ctx->command != CNI_CMD_DEL && ctx->command != CNI_CMD_GC);
}

int cni_conf_invalid(struct cni_ctx *ctx, unsigned code, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (!cni_ctx_strict(ctx)) {
		cni_log_warning("%s, ignoring", msg);
		return 0;
	}
	return cni_errorf(&ctx->err, code, -EINVAL, "%s", msg);
}

static int bad_type(struct cni_ctx *ctx, const char *path, const char *key, const json_t *v,
		    const char *want)
{
	_cleanup_free_ char *repr = cni_json_repr(v);

	return cni_conf_invalid(ctx, CNI_ERR_INVALID_CONFIG, "%s%s%s: %s, got %s", path,
				*path ? "." : "", key, want, repr ? repr : "?");
}

/* Common prologue: borrowed member or NULL when absent/null. */
static const json_t *member(const json_t *obj, const char *key, bool *ret_present)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

	if (ret_present)
		*ret_present = false;
	return v && !json_is_null(v) ? v : NULL;
}

int cni_conf_get_bool(struct cni_ctx *ctx, const json_t *obj, const char *path, const char *key,
		      bool *ret, bool *ret_present)
{
	const json_t *v = member(obj, key, ret_present);

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bad_type(ctx, path, key, v, "expected true or false");
	*ret = json_is_true(v);
	if (ret_present)
		*ret_present = true;
	return 0;
}

int cni_conf_get_string(struct cni_ctx *ctx, const json_t *obj, const char *path, const char *key,
			const char **ret, bool *ret_present)
{
	const json_t *v = member(obj, key, ret_present);

	if (!v)
		return 0;
	if (!json_is_string(v))
		return bad_type(ctx, path, key, v, "expected a string");
	*ret = json_string_value(v);
	if (ret_present)
		*ret_present = true;
	return 0;
}

int cni_conf_get_uint(struct cni_ctx *ctx, const json_t *obj, const char *path, const char *key,
		      unsigned long long min, unsigned long long max, unsigned long long *ret,
		      bool *ret_present)
{
	const json_t *v = member(obj, key, ret_present);
	char want[96];
	json_int_t i;

	if (!v)
		return 0;
	snprintf(want, sizeof(want), "expected an integer from %llu to %llu", min, max);
	if (!cni_json_whole_number(v, &i) || i < 0 || (unsigned long long)i < min ||
	    (unsigned long long)i > max)
		return bad_type(ctx, path, key, v, want);
	*ret = (unsigned long long)i;
	if (ret_present)
		*ret_present = true;
	return 0;
}

int cni_conf_get_object(struct cni_ctx *ctx, const json_t *obj, const char *path, const char *key,
			const json_t **ret, bool *ret_present)
{
	const json_t *v = member(obj, key, ret_present);

	if (!v)
		return 0;
	if (!json_is_object(v))
		return bad_type(ctx, path, key, v, "expected an object");
	*ret = v;
	if (ret_present)
		*ret_present = true;
	return 0;
}

int cni_conf_get_array(struct cni_ctx *ctx, const json_t *obj, const char *path, const char *key,
		       size_t max_len, const json_t **ret, bool *ret_present)
{
	const json_t *v = member(obj, key, ret_present);
	char want[64];

	if (!v)
		return 0;
	snprintf(want, sizeof(want), "expected a list of at most %zu entries", max_len);
	if (!json_is_array(v) || json_array_size(v) > max_len)
		return bad_type(ctx, path, key, v, want);
	*ret = v;
	if (ret_present)
		*ret_present = true;
	return 0;
}
