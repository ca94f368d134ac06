/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cni/args.h"

static int parse_bool_arg(const char *v, bool *ret)
{
	if (ascii_strcaseeq(v, "1") || ascii_strcaseeq(v, "true")) {
		*ret = true;
		return 0;
	}
	if (ascii_strcaseeq(v, "0") || ascii_strcaseeq(v, "false")) {
		*ret = false;
		return 0;
	}
	return -EINVAL;
}

static int add_pair(struct cni_args *a, const char *pair, size_t len, struct cni_error *err)
{
	const char *eq = memchr(pair, '=', len);
	struct cni_arg *items;

	if (!eq || memchr(eq + 1, '=', len - (size_t)(eq + 1 - pair)) || eq == pair)
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
				  "CNI_ARGS: invalid pair '%.*s' (want KEY=VALUE)", (int)len, pair);
	if (a->n >= CNI_ARGS_MAX)
		return cni_errorf(err, CNI_ERR_INVALID_ENV, -E2BIG, "CNI_ARGS: more than %d pairs",
				  CNI_ARGS_MAX);
	items = reallocarray_safe(a->items, a->n + 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	a->items = items;
	items[a->n].key = strndup(pair, (size_t)(eq - pair));
	items[a->n].value = strndup(eq + 1, len - (size_t)(eq + 1 - pair));
	if (!items[a->n].key || !items[a->n].value) {
		free(items[a->n].key);
		free(items[a->n].value);
		return -ENOMEM;
	}
	a->n++;
	return 0;
}

int cni_args_parse(const char *s, struct cni_args *ret, struct cni_error *err)
{
	struct cni_args a = {0};
	const char *ign;
	int r;

	/* Empty CNI_ARGS is no pairs; otherwise every ';'-separated piece,
	 * even an empty one (a trailing ';'), must be a pair, as in the reference. */
	for (const char *p = isempty(s) ? NULL : s; p;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);

		r = add_pair(&a, p, len, err);
		if (r < 0)
			goto fail;
		p = semi ? semi + 1 : NULL;
	}
	ign = cni_args_get(&a, "IgnoreUnknown");
	if (ign && parse_bool_arg(ign, &a.ignore_unknown) < 0) {
		r = cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
			       "CNI_ARGS: IgnoreUnknown: not a boolean: '%s'", ign);
		goto fail;
	}
	*ret = a;
	return 0;
fail:
	cni_args_done(&a);
	return r;
}

static bool key_known(const char *key, const char *const *known)
{
	if (streq(key, "IgnoreUnknown"))
		return true;
	for (; known && *known; known++)
		if (streq(key, *known))
			return true;
	return false;
}

int cni_args_check_known(const struct cni_args *a, const char *const *known, struct cni_error *err)
{
	char list[512] = "";
	size_t used = 0, unknown = 0;

	if (a->ignore_unknown)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		int n;

		if (key_known(a->items[i].key, known))
			continue;
		n = snprintf(list + used, sizeof(list) - used, "%s\"%s=%s\"", unknown ? " " : "",
			     a->items[i].key, a->items[i].value);
		if (n > 0 && (size_t)n < sizeof(list) - used)
			used += (size_t)n;
		unknown++;
	}
	if (!unknown)
		return 0;
	return cni_errorf(err, CNI_ERR_INVALID_ENV, -EINVAL,
			  "CNI_ARGS: unknown args [%s] (set IgnoreUnknown=1 to ignore them)", list);
}

const char *cni_args_get(const struct cni_args *a, const char *key)
{
	/* Later pairs win, like a map filled in order. */
	for (size_t i = a->n; i > 0; i--)
		if (streq(a->items[i - 1].key, key))
			return a->items[i - 1].value;
	return NULL;
}

void cni_args_done(struct cni_args *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->items[i].key);
		free(a->items[i].value);
	}
	free(a->items);
	memset(a, 0, sizeof(*a));
}
