/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --check: the chain's CHECK from the cached config and result, through
 * libcni's runtime side (the same code cnitool check runs), one attachment
 * at a time, only where the netns still exists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cni/runtime.h"
#include "inspect.h"

/* The cache dir an entry's file lives in: the path minus "/results/<file>". */
static char *cache_dir_of(const char *path)
{
	const char *p = strstr(path, "/results/");

	if (!p)
		return NULL;
	return strndup(path, (size_t)(p - path));
}

static const char *cache_file(const struct pi_att *a)
{
	for (size_t i = 0; i < a->n_files; i++)
		if (a->file_src[i] == PI_SRC_CACHE)
			return a->files[i];
	return NULL;
}

static int check_one(struct pi_att *a, const char *cni_path)
{
	const struct cni_cache_entry *e = a->cache;
	struct cni_netconf_list *list = NULL;
	struct cni_error err = {0};
	const char *file = cache_file(a);
	char *dir;
	int r;

	if (!e || !e->config || !file) {
		a->check = PI_CHECK_SKIPPED;
		return (a->check_msg = strdup("no cached config to check with")) ? 0 : -ENOMEM;
	}
	if (a->netns_state == PI_NETNS_GONE) {
		a->check = PI_CHECK_SKIPPED;
		return (a->check_msg = strdup("netns gone")) ? 0 : -ENOMEM;
	}
	dir = cache_dir_of(file);
	if (!dir)
		return -ENOMEM;
	r = cni_netconf_list_from_bytes(e->config, e->n_config, file, false, &list, &err);
	if (r >= 0) {
		struct cni_runtime rt = {.plugin_path = cni_path, .cache_dir = dir};
		struct cni_runtime_conf rc = {
		    .container_id = e->container_id,
		    .netns = e->netns ? e->netns : "",
		    .ifname = e->ifname,
		    .args = e->args,
		    .n_args = e->n_args,
		    .capability_args = e->capability_args,
		};

		r = cni_runtime_check(&rt, list, &rc, &err);
	}
	if (list)
		cni_netconf_list_free(list);
	free(dir);
	a->check = r < 0 ? PI_CHECK_FAILED : PI_CHECK_OK;
	if (r < 0 && asprintf(&a->check_msg, "code %u: %s", err.code, err.msg ? err.msg : "") < 0)
		a->check_msg = NULL;
	cni_error_done(&err);
	return 0;
}

int pi_run_checks(struct pi_inv *inv, const struct pi_options *opt)
{
	const char *path = opt->cni_path ? opt->cni_path : getenv("CNI_PATH");

	for (size_t i = 0; i < inv->n_atts; i++) {
		int r = check_one(&inv->atts[i], path ? path : "/opt/cni/bin");

		if (r < 0)
			return r;
	}
	return 0;
}
