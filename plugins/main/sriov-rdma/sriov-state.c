/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state record of one VF: <stateDir>/<BDF>.json is both the ownership
 * record (container ID, ifname, netns) and everything DEL needs to restore
 * the VF (original PF-side and netdev state, what ADD changes). Written
 * atomically before the first change; guarded by the per-VF flock
 * <stateDir>/<BDF>.lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "nlw/link.h"
#include "sriov-rdma.h"

#define STATE_VERSION 1
#define STATE_MAX (64 * 1024)
#define LOCK_STEP_NS (10 * 1000 * 1000)

static const char *const key_names[] = {"vlan", "mac", "rate", "spoofchk", "trust", "link_state"};

static json_t *mac_json(const unsigned char mac[6])
{
	char buf[18];

	return json_string(nlw_mac_fmt(mac, buf));
}

static json_t *vf_info_json(const struct nlw_vf_info *v)
{
	return json_pack("{s:o,s:i,s:i,s:i,s:i,s:i,s:I,s:I,s:i}", "mac", mac_json(v->mac), "vlan",
			 v->vlan, "qos", v->qos, "vlanProto", v->vlan_proto, "spoofchk",
			 v->spoofchk, "trust", v->trust, "minTxRate", (json_int_t)v->min_tx_rate,
			 "maxTxRate", (json_int_t)v->max_tx_rate, "linkState", (int)v->link_state);
}

static json_t *orig_json(const struct sr_orig *o)
{
	json_t *j = vf_info_json(&o->pf);

	if (j && json_object_update_new(j, json_pack("{s:b,s:s,s:i,s:i,s:o,s:b}", "pfKnown",
						     o->pf_known, "netdev", o->netdev, "ifindex",
						     o->ifindex, "mtu", (int)o->mtu, "netdevMac",
						     mac_json(o->mac), "up", o->up)) < 0)
		j = (json_decref(j), NULL);
	return j;
}

static json_t *applied_json(unsigned applied)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < ARRAY_SIZE(key_names); i++)
		if (applied & (1U << i))
			json_array_append_new(a, json_string(key_names[i]));
	return a;
}

char *sr_json_dump(json_t *j)
{
	char *out = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(j);
	return out;
}

char *sr_state_format(const struct sr_state *s)
{
	json_t *j;

	j = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:{s:s,s:s,s:i},s:i,s:s,s:s,s:b,s:s,s:b,s:o,s:o,"
		      "s:o,s:{s:o,s:i,s:i},s:b,s:b}",
		      "version", STATE_VERSION, "containerID", s->container_id, "ifname", s->ifname,
		      "netns", s->netns, "network", s->network, "deviceID", s->vf.bdf, "pf", "bdf",
		      s->vf.pf_bdf, "name", s->vf.pf_name, "ifindex", s->pf_ifindex, "vf",
		      s->vf.index, "netdev", s->vf.netdev, "driver", s->vf.driver, "dpdk",
		      s->vf.dpdk, "rdmaDevice", s->vf.rdma_dev, "rdmaMove", s->rdma_move, "orig",
		      orig_json(&s->orig), "applied", applied_json(s->applied), "want",
		      vf_info_json(&s->want), "pod", "mac", mac_json(s->pod_mac), "mtu",
		      (int)s->pod_mtu, "ifindex", s->pod_ifindex, "ipam", s->has_ipam, "complete",
		      s->complete);
	return sr_json_dump(j);
}

/* ---- parsing (the file is input: every field checked) ---- */

int sr_json_str(const json_t *o, const char *key, char *buf, size_t len)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_string(v) || json_string_length(v) >= len ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -EBADMSG;
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

int sr_json_int(const json_t *o, const char *key, long long min, long long max, long long *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
		return -EBADMSG;
	*ret = json_integer_value(v);
	return 0;
}

static int get_bool(const json_t *o, const char *key, bool *ret)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return -EBADMSG;
	*ret = json_is_true(v);
	return 0;
}

int sr_json_mac(const json_t *o, const char *key, unsigned char mac[6])
{
	char buf[18];

	return sr_json_str(o, key, buf, sizeof(buf)) < 0 || nlw_mac_parse(buf, mac) < 0 ? -EBADMSG
											: 0;
}

static int parse_vf_info(const json_t *o, struct nlw_vf_info *v)
{
	long long vlan, qos, proto, spoof, trust, lo, hi, ls;

	if (!json_is_object(o) || sr_json_mac(o, "mac", v->mac) < 0 ||
	    sr_json_int(o, "vlan", 0, 4095, &vlan) < 0 || sr_json_int(o, "qos", 0, 7, &qos) < 0 ||
	    sr_json_int(o, "vlanProto", 0, 0xffff, &proto) < 0 ||
	    sr_json_int(o, "spoofchk", -1, 1, &spoof) < 0 ||
	    sr_json_int(o, "trust", -1, 1, &trust) < 0 ||
	    sr_json_int(o, "minTxRate", 0, UINT32_MAX, &lo) < 0 ||
	    sr_json_int(o, "maxTxRate", 0, UINT32_MAX, &hi) < 0 ||
	    sr_json_int(o, "linkState", 0, NLW_VF_LINK_DISABLE, &ls) < 0)
		return -EBADMSG;
	if (proto && proto != NLW_VLAN_PROTO_8021Q && proto != NLW_VLAN_PROTO_8021AD)
		return -EBADMSG;
	v->vlan = (uint16_t)vlan;
	v->qos = (uint8_t)qos;
	v->vlan_proto = (uint16_t)proto;
	v->spoofchk = (int)spoof;
	v->trust = (int)trust;
	v->min_tx_rate = (uint32_t)lo;
	v->max_tx_rate = (uint32_t)hi;
	v->link_state = (enum nlw_vf_link_state)ls;
	return 0;
}

static int parse_orig(const json_t *o, struct sr_orig *r)
{
	long long ifindex, mtu;

	if (parse_vf_info(o, &r->pf) < 0 || get_bool(o, "pfKnown", &r->pf_known) < 0 ||
	    sr_json_str(o, "netdev", r->netdev, sizeof(r->netdev)) < 0 ||
	    sr_json_int(o, "ifindex", 0, INT32_MAX, &ifindex) < 0 ||
	    sr_json_int(o, "mtu", 0, SR_MTU_MAX, &mtu) < 0 ||
	    sr_json_mac(o, "netdevMac", r->mac) < 0 || get_bool(o, "up", &r->up) < 0)
		return -EBADMSG;
	if (r->netdev[0] && !cni_valid_ifname(r->netdev))
		return -EBADMSG;
	r->ifindex = (int)ifindex;
	r->mtu = (unsigned)mtu;
	return 0;
}

static int parse_applied(const json_t *a, unsigned *ret)
{
	const json_t *v;
	size_t i, k;

	if (!json_is_array(a))
		return -EBADMSG;
	*ret = 0;
	json_array_foreach (a, i, v) {
		for (k = 0; k < ARRAY_SIZE(key_names); k++)
			if (json_is_string(v) && streq(json_string_value(v), key_names[k]))
				break;
		if (k == ARRAY_SIZE(key_names))
			return -EBADMSG;
		*ret |= 1U << k;
	}
	return 0;
}

static int parse_vf(const json_t *o, struct sr_state *s)
{
	const json_t *pf = json_object_get(o, "pf");
	long long idx, ifindex;

	if (sr_json_str(o, "deviceID", s->vf.bdf, sizeof(s->vf.bdf)) < 0 ||
	    !sr_bdf_valid(s->vf.bdf) || !json_is_object(pf) ||
	    sr_json_str(pf, "bdf", s->vf.pf_bdf, sizeof(s->vf.pf_bdf)) < 0 ||
	    sr_json_str(pf, "name", s->vf.pf_name, sizeof(s->vf.pf_name)) < 0 ||
	    sr_json_int(pf, "ifindex", 0, INT32_MAX, &ifindex) < 0 ||
	    sr_json_int(o, "vf", 0, 4095, &idx) < 0 ||
	    sr_json_str(o, "netdev", s->vf.netdev, sizeof(s->vf.netdev)) < 0 ||
	    sr_json_str(o, "driver", s->vf.driver, sizeof(s->vf.driver)) < 0 ||
	    get_bool(o, "dpdk", &s->vf.dpdk) < 0 ||
	    sr_json_str(o, "rdmaDevice", s->vf.rdma_dev, sizeof(s->vf.rdma_dev)) < 0 ||
	    get_bool(o, "rdmaMove", &s->rdma_move) < 0)
		return -EBADMSG;
	s->vf.index = (int)idx;
	s->pf_ifindex = (int)ifindex;
	return 0;
}

static int parse_root(const json_t *o, struct sr_state *s)
{
	const json_t *pod = json_object_get(o, "pod");
	long long ver, mtu, ifindex;

	if (!json_is_object(o) ||
	    sr_json_int(o, "version", STATE_VERSION, STATE_VERSION, &ver) < 0 ||
	    sr_json_str(o, "containerID", s->container_id, sizeof(s->container_id)) < 0 ||
	    !cni_valid_name(s->container_id) ||
	    sr_json_str(o, "ifname", s->ifname, sizeof(s->ifname)) < 0 ||
	    !cni_valid_ifname(s->ifname) ||
	    sr_json_str(o, "netns", s->netns, sizeof(s->netns)) < 0 ||
	    sr_json_str(o, "network", s->network, sizeof(s->network)) < 0 || parse_vf(o, s) < 0 ||
	    parse_orig(json_object_get(o, "orig"), &s->orig) < 0 ||
	    parse_applied(json_object_get(o, "applied"), &s->applied) < 0 ||
	    parse_vf_info(json_object_get(o, "want"), &s->want) < 0 || !json_is_object(pod) ||
	    sr_json_mac(pod, "mac", s->pod_mac) < 0 ||
	    sr_json_int(pod, "mtu", 0, SR_MTU_MAX, &mtu) < 0 ||
	    sr_json_int(pod, "ifindex", 0, INT32_MAX, &ifindex) < 0 ||
	    get_bool(o, "ipam", &s->has_ipam) < 0 || get_bool(o, "complete", &s->complete) < 0)
		return -EBADMSG;
	s->pod_mtu = (unsigned)mtu;
	s->pod_ifindex = (int)ifindex;
	s->orig.pf.vf = s->want.vf = s->vf.index;
	return 0;
}

int sr_state_parse(const char *text, size_t len, struct sr_state *ret)
{
	json_t *root;
	int r;

	if (len > STATE_MAX)
		return -EBADMSG;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	if (!root)
		return -EBADMSG;
	memset(ret, 0, sizeof(*ret));
	r = parse_root(root, ret);
	json_decref(root);
	return r;
}

/* ---- files ---- */

int sr_state_dir_open(const char *path, int *ret_fd)
{
	int fd, r;

	if (!path || path[0] != '/' || strlen(path) >= 4096)
		return -EINVAL;
	r = file_mkdir_parents(path, 0700);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	*ret_fd = fd;
	return 0;
}

int sr_state_save(int dir_fd, const struct sr_state *s)
{
	_cleanup_free_ char *text = sr_state_format(s);
	char name[64];
	int r;

	if (!text)
		return -ENOMEM;
	snprintf(name, sizeof(name), "%s.json", s->vf.bdf);
	r = file_replace_at(dir_fd, name, text, strlen(text), 0600, true);
	if (r < 0)
		return r;
	return fsync(dir_fd) < 0 ? negative_errno() : 0;
}

int sr_devinfo_write(const char *path, const struct sr_state *s)
{
	_cleanup_free_ char *text = NULL;
	json_t *pci, *doc;

	pci = json_pack("{s:s}", "pci-address", s->vf.bdf);
	if (pci && s->rdma_move)
		json_object_set_new(pci, "rdma-device", json_string(s->vf.rdma_dev));
	doc = json_pack("{s:s,s:s,s:o}", "type", "pci", "version", "1.1.0", "pci", pci);
	text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	if (!text)
		return -ENOMEM;
	return file_replace(path, text, strlen(text), 0644, true);
}

static int load_name(int dir_fd, const char *name, struct sr_state *ret)
{
	_cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	buf = malloc(STATE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	while ((n = read(fd, buf + len, STATE_MAX + 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		return negative_errno();
	return sr_state_parse(buf, len, ret);
}

int sr_state_load(int dir_fd, const char *bdf, struct sr_state *ret)
{
	char name[64];

	if (!sr_bdf_valid(bdf))
		return -EINVAL;
	snprintf(name, sizeof(name), "%s.json", bdf);
	return load_name(dir_fd, name, ret);
}

int sr_state_remove(int dir_fd, const char *bdf)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.json", bdf);
	if (unlinkat(dir_fd, name, 0) < 0 && errno != ENOENT)
		return negative_errno();
	return fsync(dir_fd) < 0 ? negative_errno() : 0;
}

int sr_state_lock(int dir_fd, const char *bdf, unsigned timeout_ms, int *ret_fd)
{
	const struct timespec step = {0, LOCK_STEP_NS};
	char name[64];
	int fd;

	snprintf(name, sizeof(name), "%s.lock", bdf);
	fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return negative_errno();
	for (unsigned waited = 0;; waited += LOCK_STEP_NS / 1000000) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK || waited >= timeout_ms) {
			int r = errno == EWOULDBLOCK ? -ETIMEDOUT : negative_errno();

			close(fd);
			return r;
		}
		nanosleep(&step, NULL);
	}
	*ret_fd = fd;
	return 0;
}

int sr_state_find(int dir_fd, const char *cid, const char *ifname, struct sr_state *ret)
{
	_cleanup_close_ int fd = dup(dir_fd);
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	if (fd < 0)
		return negative_errno();
	d = fdopendir(fd);
	if (!d)
		return negative_errno();
	fd = -1;
	rewinddir(d);
	while (r == -ENOENT && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (de->d_name[0] == '.' || n < 6 || !streq(de->d_name + n - 5, ".json"))
			continue;
		if (load_name(dir_fd, de->d_name, ret) >= 0 && streq(ret->container_id, cid) &&
		    streq(ret->ifname, ifname))
			r = 0;
	}
	closedir(d);
	return r;
}
