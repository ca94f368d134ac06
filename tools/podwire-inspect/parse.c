/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure parsers of the state files (untrusted: fuzzed by fuzz/fuzz-inspect-*.c).
 * The libcni cache entry itself is parsed by libcni (cni_cache_entry_parse);
 * this file only merges what it says.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/runtime.h"
#include "inspect.h"

#define MULTINET_KIND "multinetCacheV1"
#define MULTINET_MAX_DELEGATES 64

static const char *obj_str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* An identifier we key on: non-empty, printable ASCII, no '/', at most 255 bytes. */
static bool valid_ident(const char *s, size_t max)
{
	size_t n = 0;

	if (!s || !*s)
		return false;
	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		if (c <= 0x20 || c >= 0x7f || c == '/' || n >= max)
			return false;
	}
	return true;
}

/* Append the plugin types of a conflist (or a single conf) object. */
static int append_chain(struct pi_att *a, const json_t *conf)
{
	const json_t *plugins = json_object_get(conf, "plugins");
	size_t i;
	json_t *p;
	int r;

	if (!json_is_array(plugins)) {
		const char *type = obj_str(conf, "type");

		return type ? pi_att_add_plugin(a, type) : 0;
	}
	json_array_foreach (plugins, i, p) {
		const char *type = obj_str(p, "type");

		if (i >= CNI_LIST_MAX_PLUGINS)
			break;
		r = type ? pi_att_add_plugin(a, type) : 0;
		if (r < 0)
			return r;
	}
	return 0;
}

/* The chain, unless a source already gave one. */
static int merge_chain(struct pi_att *a, const json_t *conf)
{
	return a->n_plugins ? 0 : append_chain(a, conf);
}

static void copy_name(char *dst, size_t len, const char *s)
{
	if (!dst[0] && s && strlen(s) < len)
		strcpy(dst, s);
}

/* Host-side interfaces of a result: those without a sandbox (bridge, then veth). */
static void merge_host_ifaces(struct pi_att *a, const json_t *ifaces)
{
	const char *host[2] = {NULL, NULL};
	unsigned n = 0;
	size_t i;
	json_t *it;

	json_array_foreach (ifaces, i, it) {
		const char *sandbox = obj_str(it, "sandbox");
		const char *name = obj_str(it, "name");

		if (!name || (sandbox && *sandbox))
			continue;
		if (n < 2)
			host[n] = name;
		n++;
	}
	if (n == 1) {
		copy_name(a->host_ifname, sizeof(a->host_ifname), host[0]);
	} else if (n >= 2) {
		copy_name(a->bridge, sizeof(a->bridge), host[0]);
		copy_name(a->host_ifname, sizeof(a->host_ifname), host[1]);
	}
}

void pi_merge_result(struct pi_att *a, const json_t *result)
{
	const json_t *ifaces = json_object_get(result, "interfaces");
	const json_t *ips = json_object_get(result, "ips");
	size_t i;
	json_t *it;

	if (json_is_array(ifaces)) {
		json_array_foreach (ifaces, i, it) {
			const char *sandbox = obj_str(it, "sandbox");
			const char *mac = obj_str(it, "mac");

			if (sandbox && *sandbox && streq(obj_str(it, "name"), a->ifname) && mac)
				copy_name(a->mac, sizeof(a->mac), mac);
		}
		merge_host_ifaces(a, ifaces);
	}
	if (json_is_array(ips)) {
		json_array_foreach (ips, i, it) {
			const char *addr = obj_str(it, "address");

			if (addr && strlen(addr) < 64 && pi_att_add_ip(a, addr) < 0)
				return;
		}
	}
}

static const char *entry_arg(const struct cni_cache_entry *e, const char *key)
{
	for (size_t i = 0; i < e->n_args; i++)
		if (streq(e->args[i].key, key))
			return e->args[i].value;
	return NULL;
}

static int merge_pod_args(struct pi_att *a, const struct cni_cache_entry *e)
{
	int r = pi_set_str(&a->pod_namespace, entry_arg(e, "K8S_POD_NAMESPACE"));

	if (r >= 0)
		r = pi_set_str(&a->pod_name, entry_arg(e, "K8S_POD_NAME"));
	if (r >= 0)
		r = pi_set_str(&a->pod_uid, entry_arg(e, "K8S_POD_UID"));
	return r;
}

int pi_merge_cache_entry(struct pi_inv *inv, struct cni_cache_entry *e, const char *path)
{
	struct pi_att *a;
	json_t *conf;
	int r;

	if (!valid_ident(e->container_id, 255) || !valid_ident(e->ifname, IFNAMSIZ - 1) ||
	    !valid_ident(e->network_name, 255)) {
		cni_cache_entry_free(e);
		return pi_inv_file_error(inv, path,
					 "not a cniCacheV1 attachment "
					 "(containerId, ifName or networkName missing or invalid)");
	}
	a = pi_inv_get(inv, e->container_id, e->ifname);
	if (!a) {
		cni_cache_entry_free(e);
		return -ENOMEM;
	}
	a->sources |= PI_SRC_CACHE;
	r = pi_att_add_file(a, path, PI_SRC_CACHE);
	if (r >= 0)
		r = pi_set_str(&a->network, e->network_name);
	if (r >= 0)
		r = pi_set_str(&a->netns, e->netns);
	if (r >= 0)
		r = merge_pod_args(a, e);
	conf = e->config ? json_loadb(e->config, e->n_config, 0, NULL) : NULL;
	if (r >= 0 && conf)
		r = merge_chain(a, conf);
	json_decref(conf);
	if (e->result)
		pi_merge_result(a, e->result);
	if (!a->cache && inv->keep_cache)
		a->cache = e;
	else
		cni_cache_entry_free(e);
	return r;
}

/* ---- multinet ---- */

/* An attachment's string field (its offset) and the JSON key that sets it. */
struct att_key {
	const char *key;
	size_t off;
};

/* Each field from o's key, unless a source already set it (pi_set_str). */
static int set_fields(struct pi_att *a, const json_t *o, const struct att_key *k, size_t n)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n; i++)
		r = pi_set_str((char **)((char *)a + k[i].off), obj_str(o, k[i].key));
	return r;
}

static int multinet_pod(struct pi_att *a, const json_t *top)
{
	static const struct att_key pod[] = {
	    {"namespace", offsetof(struct pi_att, pod_namespace)},
	    {"name", offsetof(struct pi_att, pod_name)},
	    {"uid", offsetof(struct pi_att, pod_uid)},
	};
	int r = set_fields(a, json_object_get(top, "pod"), pod, ARRAY_SIZE(pod));

	return r < 0 ? r : pi_set_str(&a->netns, obj_str(top, "netns"));
}

/*
 * The runtime's cache names multinet's own network and chain ("multinet"),
 * multinet's results/ the delegate's; multinet's cache knows both: the
 * attachment is on the delegate's network, its chain multinet then the
 * delegate's plugins.
 */
static int multinet_chain(struct pi_att *a, const json_t *conf)
{
	const char *name = obj_str(conf, "name");

	if (a->n_plugins > 1 && streq(a->plugins[0], "multinet"))
		return 0;
	for (size_t i = 0; i < a->n_plugins; i++)
		free(a->plugins[i]);
	free(a->plugins);
	a->plugins = NULL;
	a->n_plugins = 0;
	if (valid_ident(name, 255)) {
		free(a->network);
		a->network = NULL;
		if (pi_set_str(&a->network, name) < 0)
			return -ENOMEM;
	}
	if (pi_att_add_plugin(a, "multinet") < 0)
		return -ENOMEM;
	return append_chain(a, conf);
}

static int multinet_delegate(struct pi_inv *inv, const json_t *top, const char *cid,
			     const json_t *d, const char *path)
{
	const char *ifname = obj_str(d, "ifname");
	const json_t *conf = json_object_get(d, "config");
	const json_t *result = json_object_get(d, "result");
	struct pi_att *a;
	int r;

	if (!valid_ident(ifname, IFNAMSIZ - 1))
		return pi_inv_file_error(inv, path, "delegate without a valid \"ifname\"");
	a = pi_inv_get(inv, cid, ifname);
	if (!a)
		return -ENOMEM;
	a->sources |= PI_SRC_MULTINET;
	r = pi_att_add_file(a, path, PI_SRC_MULTINET);
	if (r >= 0)
		r = multinet_pod(a, top);
	if (r >= 0 && json_is_object(conf))
		r = multinet_chain(a, conf);
	if (r >= 0)
		r = pi_set_str(&a->vf_pci, obj_str(d, "deviceID"));
	if (r >= 0 && json_is_object(result))
		pi_merge_result(a, result);
	if (r >= 0 && !streq(obj_str(d, "state"), "added"))
		r = pi_att_add_problem(a, "multinet: delegate ADD never completed (state %s)",
				       obj_str(d, "state") ? obj_str(d, "state") : "missing");
	return r;
}

int pi_parse_multinet(struct pi_inv *inv, const char *buf, size_t len, const char *path)
{
	struct cni_error err = {0};
	const json_t *delegates;
	json_t *top = NULL, *d;
	const char *cid;
	size_t i;
	int r = 0;

	/* multinet appends its updates to the entry (mn_cache_update). */
	if (cni_json_load_journal(buf, len, "entry", "delegates", &top, &err) < 0) {
		r = pi_inv_file_error(inv, path, "not JSON: %s", err.msg ? err.msg : "?");
		cni_error_done(&err);
		return r;
	}
	cid = obj_str(top, "containerId");
	delegates = json_object_get(top, "delegates");
	if (!streq(obj_str(top, "kind"), MULTINET_KIND) || !valid_ident(cid, 255) ||
	    !json_is_array(delegates)) {
		json_decref(top);
		return pi_inv_file_error(inv, path,
					 "not a %s entry (kind, containerId or "
					 "delegates missing or invalid)",
					 MULTINET_KIND);
	}
	json_array_foreach (delegates, i, d) {
		if (i >= MULTINET_MAX_DELEGATES || r < 0)
			break;
		r = json_is_object(d)
			? multinet_delegate(inv, top, cid, d, path)
			: pi_inv_file_error(inv, path, "delegates[%zu] is not an object", i);
	}
	json_decref(top);
	return r;
}

/* ---- sriov-rdma ---- */

static int sriov_fields(struct pi_att *a, const json_t *top)
{
	static const struct att_key keys[] = {
	    {"network", offsetof(struct pi_att, network)},
	    {"netns", offsetof(struct pi_att, netns)},
	    {"deviceID", offsetof(struct pi_att, vf_pci)},
	};
	const char *rdma = obj_str(top, "rdmaDevice");
	int r = set_fields(a, top, keys, ARRAY_SIZE(keys));

	if (r >= 0)
		r = pi_set_str(&a->pf, obj_str(json_object_get(top, "pf"), "name"));
	if (r >= 0 && rdma && valid_ident(rdma, 63))
		r = pi_set_str(&a->rdma_dev, rdma);
	if (json_object_get(top, "complete") != json_true())
		a->sriov_incomplete = true;
	return r;
}

int pi_parse_sriov(struct pi_inv *inv, const char *buf, size_t len, const char *path)
{
	json_error_t jerr;
	json_t *top = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	const char *cid, *ifname;
	struct pi_att *a;
	int r;

	if (!top)
		return pi_inv_file_error(inv, path, "not JSON: %s (line %d)", jerr.text, jerr.line);
	cid = obj_str(top, "containerID");
	ifname = obj_str(top, "ifname");
	if (!json_is_integer(json_object_get(top, "version")) ||
	    json_integer_value(json_object_get(top, "version")) != 1 || !valid_ident(cid, 255) ||
	    !valid_ident(ifname, IFNAMSIZ - 1) || !obj_str(top, "deviceID")) {
		json_decref(top);
		return pi_inv_file_error(inv, path,
					 "not a sriov-rdma state record (version 1, "
					 "containerID, ifname, deviceID)");
	}
	a = pi_inv_get(inv, cid, ifname);
	r = a ? 0 : -ENOMEM;
	if (a) {
		a->sources |= PI_SRC_SRIOV;
		r = pi_att_add_file(a, path, PI_SRC_SRIOV);
		if (r >= 0)
			r = sriov_fields(a, top);
		if (r >= 0 && !a->n_plugins)
			r = pi_att_add_plugin(a, "sriov-rdma");
	}
	json_decref(top);
	return r;
}

/* A lost-VF record: every field present and of its type, names valid, or a file error. */
static bool lost_valid(const json_t *top)
{
	static const char *const strs[] = {"deviceID", "pf",	"netdev",     "mac",
					   "network",  "netns", "rdmaDevice", "reason"};
	const json_t *ver = json_object_get(top, "version");

	if (!json_is_integer(ver) || json_integer_value(ver) != 1 ||
	    !valid_ident(obj_str(top, "containerID"), 255) ||
	    !valid_ident(obj_str(top, "ifname"), IFNAMSIZ - 1) ||
	    !valid_ident(obj_str(top, "deviceID"), 12) ||
	    !valid_ident(obj_str(top, "netdev"), IFNAMSIZ - 1))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		if (!obj_str(top, strs[i]))
			return false;
	return json_is_integer(json_object_get(top, "vf")) &&
	       json_is_integer(json_object_get(top, "mtu")) &&
	       json_integer_value(json_object_get(top, "mtu")) >= 0 &&
	       json_integer_value(json_object_get(top, "mtu")) <= 65535 &&
	       json_is_integer(json_object_get(top, "lostAt"));
}

static int dup_field(char **slot, const json_t *top, const char *key)
{
	const char *v = obj_str(top, key);

	*slot = strdup(v ? v : "");
	return *slot ? 0 : -ENOMEM;
}

int pi_parse_sriov_lost(struct pi_inv *inv, const char *buf, size_t len, const char *path)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
	    {"deviceID", offsetof(struct pi_lost_vf, pci)},
	    {"pf", offsetof(struct pi_lost_vf, pf)},
	    {"netdev", offsetof(struct pi_lost_vf, netdev)},
	    {"mac", offsetof(struct pi_lost_vf, mac)},
	    {"containerID", offsetof(struct pi_lost_vf, container_id)},
	    {"ifname", offsetof(struct pi_lost_vf, ifname)},
	    {"network", offsetof(struct pi_lost_vf, network)},
	    {"rdmaDevice", offsetof(struct pi_lost_vf, rdma_dev)},
	    {"reason", offsetof(struct pi_lost_vf, reason)},
	};
	json_error_t jerr;
	json_t *top = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	struct pi_lost_vf *l;
	int r = 0;

	if (!top)
		return pi_inv_file_error(inv, path, "not JSON: %s (line %d)", jerr.text, jerr.line);
	if (!lost_valid(top)) {
		json_decref(top);
		return pi_inv_file_error(inv, path,
					 "not a sriov-rdma lost-VF record (version 1, deviceID, "
					 "containerID, ifname, netdev, mac, mtu, lostAt)");
	}
	l = pi_inv_add_lost(inv);
	if (!l)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(fields); i++)
		r = dup_field((char **)((char *)l + fields[i].off), top, fields[i].key);
	if (r >= 0) {
		l->file = strdup(path);
		r = l->file ? 0 : -ENOMEM;
		l->vf = (int)json_integer_value(json_object_get(top, "vf"));
		l->mtu = (unsigned)json_integer_value(json_object_get(top, "mtu"));
		l->lost_at = json_integer_value(json_object_get(top, "lostAt"));
	}
	json_decref(top);
	return r;
}

/* ---- host-local leases ---- */

static char *dup_line(const char *s, size_t n)
{
	char *p;

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '/')
			return NULL;
	p = strndup(s, n);
	return p;
}

int pi_parse_lease(const char *buf, size_t len, char **container_id, char **ifname)
{
	const char *nl = memchr(buf, '\n', len);
	size_t n1 = nl ? (size_t)(nl - buf) : len;
	size_t rest;
	char *cid;

	*container_id = *ifname = NULL;
	if (n1 && buf[n1 - 1] == '\r')
		n1--;
	if (n1 == 0 || n1 > 255)
		return -EINVAL;
	cid = dup_line(buf, n1);
	if (!cid)
		return -EINVAL;
	rest = nl ? len - (size_t)(nl - buf) - 1 : 0;
	while (rest && (nl[rest] == '\n' || nl[rest] == '\r'))
		rest--;
	if (rest) {
		if (rest >= IFNAMSIZ || !(*ifname = dup_line(nl + 1, rest))) {
			free(cid);
			return -EINVAL;
		}
	}
	*container_id = cid;
	return 0;
}
