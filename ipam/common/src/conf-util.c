/* SPDX-License-Identifier: Apache-2.0 */
/* Config helpers shared by the IPAM plugins. */
#include <errno.h>
#include <stdlib.h>

#include "base/macro.h"
#include "ipam/conf-util.h"

int ipam_parse_routes(const json_t *routes, const char *path, struct cni_result *res,
		      struct cni_error *err)
{
	_cleanup_(cni_result_freep) struct cni_result *tmp = NULL;
	json_t *doc;
	int r;

	if (!routes)
		return 0;
	/* A 1.1 result holding only the routes: libcni checks every field. */
	doc = json_pack("{s:s, s:O}", "cniVersion", "1.1.0", "routes", routes);
	if (!doc)
		return -ENOMEM;
	r = cni_result_from_json(doc, CNI_V110, path, &tmp, err);
	json_decref(doc);
	if (r < 0)
		return r;
	for (size_t i = 0; i < tmp->n_routes; i++) {
		r = cni_result_add_route(res, &tmp->routes[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int ipam_parse_requested(const char *s, struct ip_prefix *ret)
{
	return ip_prefix_parse_full(s, true, ret);
}

int ipam_prefix_push(struct ip_prefix **arr, size_t *n, size_t max, const struct ip_prefix *p)
{
	struct ip_prefix *m;

	if (*n >= max)
		return -E2BIG;
	m = reallocarray_safe(*arr, *n + 1, sizeof(**arr));
	if (!m)
		return -ENOMEM;
	m[(*n)++] = *p;
	*arr = m;
	return 0;
}
