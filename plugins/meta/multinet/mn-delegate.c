/* SPDX-License-Identifier: Apache-2.0 */
/* One delegate: its config normalised to a conflist, with injected keys. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "multinet.h"

void mn_delegate_done(struct mn_delegate *d)
{
	free(d->display);
	free(d->ifname);
	free(d->ifname_request);
	json_decref(d->conf);
	cni_netconf_list_free(d->list);
	json_decref(d->cap_args);
	free(d->device_id);
	free(d->resource_name);
	free(d->devinfo_file);
	json_decref(d->default_route);
	json_decref(d->result);
	memset(d, 0, sizeof(*d));
}

static void mn_pod_done(struct mn_pod *p)
{
	free(p->namespace);
	free(p->name);
	free(p->uid);
	free(p->infra_id);
	memset(p, 0, sizeof(*p));
}

void mn_plan_done(struct mn_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		mn_delegate_done(&p->d[i]);
	free(p->d);
	for (size_t i = 0; i < p->n_args; i++) {
		free(p->args[i].key);
		free(p->args[i].value);
	}
	free(p->args);
	free(p->container_id);
	free(p->netns);
	free(p->ifname);
	mn_pod_done(&p->pod);
	memset(p, 0, sizeof(*p));
}

struct mn_delegate *mn_plan_push(struct mn_plan *p)
{
	struct mn_delegate *nv;

	if (p->n >= MN_MAX_NETWORKS)
		return NULL;
	nv = reallocarray_safe(p->d, p->n + 1, sizeof(*nv));
	if (!nv)
		return NULL;
	p->d = nv;
	memset(&p->d[p->n], 0, sizeof(p->d[p->n]));
	return &p->d[p->n++];
}

void mn_plan_remove(struct mn_plan *p, size_t i)
{
	if (i >= p->n)
		return;
	mn_delegate_done(&p->d[i]);
	memmove(&p->d[i], &p->d[i + 1], (p->n - i - 1) * sizeof(p->d[i]));
	p->n--;
}

/* args.cni of a plugin, created as needed; `extra` wins over the NAD's values. */
static int merge_cni_args(json_t *plugin, const json_t *extra)
{
	json_t *args = json_object_get(plugin, "args"), *cni;

	if (!json_is_object(args)) {
		args = json_object();
		if (!args || json_object_set_new(plugin, "args", args) < 0)
			return -ENOMEM;
	}
	cni = json_object_get(args, "cni");
	if (!json_is_object(cni)) {
		cni = json_object();
		if (!cni || json_object_set_new(args, "cni", cni) < 0)
			return -ENOMEM;
	}
	return json_object_update(cni, (json_t *)extra) < 0 ? -ENOMEM : 0;
}

static int inject(json_t *list, const char *device_id, const json_t *cni_args)
{
	json_t *plugins = json_object_get(list, "plugins"), *p;
	size_t i;

	json_array_foreach (plugins, i, p) {
		if (!json_is_object(p))
			continue;
		if (device_id && (json_object_set_new(p, "deviceID", json_string(device_id)) < 0 ||
				  json_object_set_new(p, "pciBusID", json_string(device_id)) < 0))
			return -ENOMEM;
		if (cni_args && merge_cni_args(p, cni_args) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A single plugin config -> {"cniVersion","name","plugins":[conf]}. */
static json_t *wrap(const json_t *conf)
{
	json_t *l = json_object(), *plugin = json_deep_copy(conf);
	const json_t *v = json_object_get(conf, "cniVersion");

	if (!l || !plugin) {
		json_decref(l);
		json_decref(plugin);
		return NULL;
	}
	if (v)
		json_object_set(l, "cniVersion", (json_t *)v);
	json_object_set(l, "name", json_object_get(conf, "name"));
	json_object_set_new(l, "plugins", json_pack("[o]", plugin));
	return l;
}

int mn_delegate_set_conf(struct mn_delegate *d, const json_t *conf, const char *default_name,
			 const json_t *cni_args, const char *what, struct cni_error *err)
{
	_cleanup_free_ char *bytes = NULL;
	json_t *c;
	int r;

	if (!json_is_object(conf))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s: the config must be a JSON object", what);
	if (json_object_get(conf, "plugins") || !json_object_get(conf, "type")) {
		c = json_deep_copy(conf);
	} else {
		json_t *tmp = json_deep_copy(conf);

		if (tmp && default_name && !json_is_string(json_object_get(tmp, "name")))
			json_object_set_new(tmp, "name", json_string(default_name));
		c = tmp ? wrap(tmp) : NULL;
		json_decref(tmp);
	}
	if (!c)
		return -ENOMEM;
	if (default_name && !json_is_string(json_object_get(c, "name")))
		json_object_set_new(c, "name", json_string(default_name));
	if ((r = inject(c, d->device_id, cni_args)) < 0 || !(bytes = json_dumps(c, JSON_COMPACT))) {
		json_decref(c);
		return r < 0 ? r : -ENOMEM;
	}
	json_decref(d->conf);
	d->conf = c;
	d->list = cni_netconf_list_free(d->list);
	return cni_netconf_list_from_bytes(bytes, strlen(bytes), what, false, &d->list, err);
}

bool mn_delegate_has_cap(const struct mn_delegate *d, const char *cap)
{
	const json_t *p;
	size_t i;

	json_array_foreach (json_object_get(d->conf, "plugins"), i, p)
		if (json_is_true(json_object_get(json_object_get(p, "capabilities"), cap)))
			return true;
	return false;
}
