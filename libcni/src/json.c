/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small JSON helpers every part of libcni uses (the config, its getters,
 * results, the runtime side): a short printable form of a value for error
 * messages, whole numbers written as reals, case-insensitive member lookup.
 * They depend on nothing else in libcni, so no two files of it depend on
 * each other through them.
 */
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cni/conf.h"

json_t *cni_json_get_ci(const json_t *obj, const char *key)
{
	const char *k;
	json_t *v, *exact;

	if (!json_is_object(obj))
		return NULL;
	exact = json_object_get(obj, key);
	if (exact)
		return exact;
	json_object_foreach ((json_t *)obj, k, v)
		if (ascii_strcaseeq(k, key))
			return v;
	return NULL;
}

char *cni_json_repr(const json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : strdup("null");

	if (s && strlen(s) > 64)
		strcpy(s + 61, "...");
	return s;
}

bool cni_json_whole_number(const json_t *v, json_int_t *ret)
{
	/* 2^63 is exact in a double; casting anything outside [-2^63, 2^63) is undefined. */
	const double limit = 9223372036854775808.0;
	double d;

	if (json_is_integer(v)) {
		*ret = json_integer_value(v);
		return true;
	}
	if (!json_is_real(v))
		return false;
	d = json_real_value(v);
	if (!(d >= -limit && d < limit) || d != (double)(json_int_t)d)
		return false;
	*ret = (json_int_t)d;
	return true;
}
