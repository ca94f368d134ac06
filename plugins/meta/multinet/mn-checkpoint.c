/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kubelet device-manager checkpoint
 * (/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint): which
 * devices of which resource were allocated to a pod. Both shapes of
 * DeviceIDs: a plain array (kubelet < 1.20) and a map NUMA node -> array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "multinet.h"

void mn_devices_done(struct mn_devices *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].name);
		mn_strv_done(&d->v[i].ids);
	}
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

static struct mn_resource *resource_get(struct mn_devices *d, const char *name, bool create)
{
	struct mn_resource *nv;

	for (size_t i = 0; i < d->n; i++)
		if (streq(d->v[i].name, name))
			return &d->v[i];
	if (!create || d->n >= MN_MAX_NAMES)
		return NULL;
	nv = reallocarray_safe(d->v, d->n + 1, sizeof(*nv));
	if (!nv)
		return NULL;
	d->v = nv;
	memset(&d->v[d->n], 0, sizeof(d->v[d->n]));
	if (!(d->v[d->n].name = strdup(name)))
		return NULL;
	return &d->v[d->n++];
}

const char *mn_devices_take(struct mn_devices *d, const char *resource)
{
	struct mn_resource *r = resource_get(d, resource, false);

	if (!r || r->used >= r->ids.n)
		return NULL;
	return r->ids.v[r->used++];
}

static int bad(struct cni_error *err, const char *what, size_t i, const char *why)
{
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			  "device checkpoint %s: Data.PodDeviceEntries[%zu]: %s", what, i, why);
}

static int add_ids(struct mn_resource *res, const json_t *arr, const char *what, size_t i,
		   struct cni_error *err)
{
	const json_t *e;
	size_t j;

	if (!json_is_array(arr))
		return bad(err, what, i, "DeviceIDs entries must be arrays");
	json_array_foreach (arr, j, e) {
		if (!json_is_string(e) || json_string_length(e) == 0 ||
		    strlen(json_string_value(e)) != json_string_length(e))
			return bad(err, what, i, "device IDs must be non-empty strings");
		if (mn_strv_push(&res->ids, json_string_value(e)) < 0)
			return bad(err, what, i, "too many devices");
	}
	return 0;
}

static int numa_key(const char *k, long *ret)
{
	char *end;

	errno = 0;
	*ret = strtol(k, &end, 10);
	return errno || end == k || *end ? -EINVAL : 0;
}

/* NUMA map: keys in ascending numeric order ("-1" first). */
static int add_numa_map(struct mn_resource *res, const json_t *map, const char *what, size_t i,
			struct cni_error *err)
{
	size_t n = json_object_size(map), done = 0;
	long last = 0;
	bool have_last = false;

	if (n > 1024)
		return bad(err, what, i, "too many NUMA nodes");
	while (done < n) {
		const char *key, *best = NULL;
		const json_t *v;
		long best_n = 0, kn;

		json_object_foreach ((json_t *)map, key, v) {
			if (numa_key(key, &kn) < 0)
				return bad(err, what, i,
					   "DeviceIDs keys must be NUMA node numbers");
			if ((have_last && kn <= last) || (best && kn >= best_n))
				continue;
			best = key;
			best_n = kn;
		}
		if (!best)
			return bad(err, what, i, "duplicate NUMA node");
		if (add_ids(res, json_object_get(map, best), what, i, err) < 0)
			return -EINVAL;
		last = best_n;
		have_last = true;
		done++;
	}
	return 0;
}

static int parse_entry(struct mn_devices *d, const json_t *e, size_t i, const char *pod_uid,
		       const char *what, struct cni_error *err)
{
	const char *uid = json_string_value(json_object_get(e, "PodUID"));
	const char *rname = json_string_value(json_object_get(e, "ResourceName"));
	const json_t *ids = json_object_get(e, "DeviceIDs");
	struct mn_resource *res;

	if (!json_is_object(e) || !uid || !rname || !*rname)
		return bad(err, what, i, "needs string PodUID and ResourceName");
	if (!streq(uid, pod_uid))
		return 0;
	if (!(res = resource_get(d, rname, true)))
		return -ENOMEM;
	if (json_is_array(ids))
		return add_ids(res, ids, what, i, err);
	if (json_is_object(ids))
		return add_numa_map(res, ids, what, i, err);
	return bad(err, what, i, "DeviceIDs must be an array or a NUMA map");
}

int mn_checkpoint_parse(const char *buf, size_t len, const char *pod_uid, const char *what,
			struct mn_devices *ret, struct cni_error *err)
{
	json_t *root = NULL;
	const json_t *entries, *e;
	size_t i;
	int r;

	memset(ret, 0, sizeof(*ret));
	if ((r = cni_json_loadb(buf, len, what, &root, err)) < 0) {
		err->code = CNI_ERR_INVALID_CONFIG;
		return cni_error_wrapf(err, r, "device checkpoint");
	}
	entries = json_object_get(json_object_get(root, "Data"), "PodDeviceEntries");
	if (!json_is_object(root) ||
	    (entries && !json_is_array(entries) && !json_is_null(entries))) {
		json_decref(root);
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "device checkpoint %s: Data.PodDeviceEntries must be an array",
				  what);
	}
	r = 0;
	json_array_foreach (entries, i, e)
		if ((r = parse_entry(ret, e, i, pod_uid ? pod_uid : "", what, err)) < 0)
			break;
	json_decref(root);
	if (r < 0)
		mn_devices_done(ret);
	return r;
}
