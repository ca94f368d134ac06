/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Typed getters for plugin-owned keys, unknown-key checks with "did you
 * mean" hints, and case-insensitive lookups for runtime-supplied objects.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

const char *cni_key_case_miss(const char *key, const char *const *known)
{
	for (; known && *known; known++)
		if (ascii_strcaseeq(key, *known))
			return *known;
	return NULL;
}

/*
 * A key that differs from a known one only in letter case is an error (but
 * on DEL and GC): it was surely meant, and ignoring it silently drops a
 * setting (a VLAN, a kubeconfig). Any other unknown key is a warning.
 */
static int unknown_key(const struct cni_conf_reader *rd, const char *key, const char *const *known,
		       bool protocol)
{
	const char *sep = *rd->path ? "." : "";
	const char *hint = cni_key_case_miss(key, known);

	if (!hint && protocol)
		hint = cni_key_case_miss(key, cni_conf_protocol_keys);
	if (hint && !rd->ci)
		return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG,
					"%s%s'%s': unknown key (did you mean '%s'?)", rd->path, sep,
					key, hint);
	hint = cni_key_suggest(key, known);
	if (!hint && protocol)
		hint = cni_key_suggest(key, cni_conf_protocol_keys);
	if (hint)
		cni_log_warning("%s%s'%s': unknown key, ignoring (did you mean '%s'?)", rd->path,
				sep, key, hint);
	else
		cni_log_warning("%s%s'%s': unknown key, ignoring", rd->path, sep, key);
	return 0;
}

int cni_conf_check_keys(const struct cni_conf_reader *rd, const char *const *known, bool protocol)
{
	const char *key;
	json_t *v;

	if (!json_is_object(rd->obj))
		return 0;
	json_object_foreach ((json_t *)rd->obj, key, v) {
		int r;

		if (in_list(key, known) || (protocol && in_list(key, cni_conf_protocol_keys)) ||
		    strncmp(key, "cni.dev/", 8) == 0)
			continue;
		r = unknown_key(rd, key, known, protocol);
		if (r < 0)
			return r;
	}
	return 0;
}

bool cni_ctx_strict(const struct cni_ctx *ctx)
{
	return !ctx || (ctx->command != CNI_CMD_DEL && ctx->command != CNI_CMD_GC);
}

struct cni_conf_reader cni_ctx_reader(struct cni_ctx *ctx, const json_t *obj, const char *path)
{
	return (struct cni_conf_reader){
	    .err = &ctx->err, .obj = obj, .path = path, .lenient = !cni_ctx_strict(ctx)};
}

struct cni_conf_reader cni_conf_at(const struct cni_conf_reader *rd, const json_t *obj,
				   const char *path)
{
	struct cni_conf_reader sub = *rd;

	sub.obj = obj;
	sub.path = path;
	return sub;
}

int cni_conf_invalid(const struct cni_conf_reader *rd, unsigned code, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (rd->lenient) {
		cni_log_warning("%s, ignoring", msg);
		return 0;
	}
	return cni_errorf(rd->err, code, -EINVAL, "%s", msg);
}

int cni_conf_check_file(const struct cni_conf_reader *rd, unsigned code, const char *key,
			const char *file)
{
	int fd, e;

	if (!file)
		return 0;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	e = errno;
	if (rd->lenient) {
		cni_log_warning("%s%s%s: %s: %s, ignoring", rd->path, *rd->path ? "." : "", key,
				file, strerror(e));
		return 0;
	}
	return cni_errorf(rd->err, code, -e, "%s%s%s: %s: %s", rd->path, *rd->path ? "." : "", key,
			  file, strerror(e));
}

/* "<path>.<key>: <want>, got <got>" */
static int bad(const struct cni_conf_reader *rd, const char *key, const char *want, const char *got)
{
	bool sep = !isempty(key) && *rd->path;

	return cni_conf_invalid(rd, CNI_ERR_INVALID_CONFIG, "%s%s%s: %s, got %s", rd->path,
				sep ? "." : "", key ? key : "", want, got);
}

int cni_conf_bad_value(const struct cni_conf_reader *rd, const char *key, const json_t *v,
		       const char *want)
{
	_cleanup_free_ char *repr = cni_json_repr(v);

	return bad(rd, key, want, repr ? repr : "?");
}

/* Common prologue: the borrowed member, or NULL when absent or JSON null. */
static const json_t *member(const struct cni_conf_reader *rd, const char *key, bool *ret_present)
{
	const json_t *v = !json_is_object(rd->obj) ? NULL
			  : rd->ci		   ? cni_json_get_ci(rd->obj, key)
						   : json_object_get(rd->obj, key);

	if (ret_present)
		*ret_present = false;
	return v && !json_is_null(v) ? v : NULL;
}

static int found(bool *ret_present)
{
	if (ret_present)
		*ret_present = true;
	return 0;
}

int cni_conf_get_bool(const struct cni_conf_reader *rd, const char *key, bool *ret,
		      bool *ret_present)
{
	const json_t *v = member(rd, key, ret_present);

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return cni_conf_bad_value(rd, key, v, "expected true or false");
	*ret = json_is_true(v);
	return found(ret_present);
}

int cni_conf_get_string(const struct cni_conf_reader *rd, const char *key, const char **ret,
			bool *ret_present)
{
	const json_t *v = member(rd, key, ret_present);

	if (!v)
		return 0;
	if (!json_is_string(v))
		return cni_conf_bad_value(rd, key, v, "expected a string");
	*ret = json_string_value(v);
	return found(ret_present);
}

int cni_conf_get_uint(const struct cni_conf_reader *rd, const char *key, unsigned min, unsigned max,
		      unsigned *ret, bool *ret_present)
{
	const json_t *v = member(rd, key, ret_present);
	char want[64];
	json_int_t i;

	if (!v)
		return 0;
	if (!cni_json_whole_number(v, &i) || i < (json_int_t)min || i > (json_int_t)max) {
		snprintf(want, sizeof(want), "expected an integer from %u to %u", min, max);
		return cni_conf_bad_value(rd, key, v, want);
	}
	*ret = (unsigned)i;
	return found(ret_present);
}

int cni_conf_get_u64(const struct cni_conf_reader *rd, const char *key, uint64_t *ret,
		     bool *ret_present)
{
	const json_t *v = member(rd, key, ret_present);
	json_int_t i;

	if (!v)
		return 0;
	if (!cni_json_whole_number(v, &i) || i < 0)
		return cni_conf_bad_value(rd, key, v, "expected a non-negative integer");
	*ret = (uint64_t)i;
	return found(ret_present);
}

int cni_conf_get_object(const struct cni_conf_reader *rd, const char *key, const json_t **ret,
			bool *ret_present)
{
	const json_t *v = member(rd, key, ret_present);

	if (!v)
		return 0;
	if (!json_is_object(v))
		return cni_conf_bad_value(rd, key, v, "expected an object");
	*ret = v;
	return found(ret_present);
}

int cni_conf_get_array(const struct cni_conf_reader *rd, const char *key, size_t max_len,
		       const json_t **ret, bool *ret_present)
{
	const json_t *v = member(rd, key, ret_present);
	char want[64];

	if (!v)
		return 0;
	snprintf(want, sizeof(want), "expected a list of at most %zu entries", max_len);
	if (!json_is_array(v))
		return cni_conf_bad_value(rd, key, v, want);
	if (json_array_size(v) > max_len) { /* the count says more than a cut-off list */
		char got[24];

		snprintf(got, sizeof(got), "%zu", json_array_size(v));
		return bad(rd, key, want, got);
	}
	*ret = v;
	return found(ret_present);
}
