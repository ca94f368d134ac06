/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lost VFs: a VF whose netdev DEL did not find within vfReturnTimeoutMs
 * (reset, removed, or died with the pod netns) leaves a small record,
 * <stateDir>/lost/<BDF>.json, instead of failing for ever. GC, or the next
 * ADD that takes the VF, restores the netdev's name, MAC and MTU once it is
 * back and removes the record; podwire-inspect lists the records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "sriov-rdma.h"

#define LOST_VERSION 1
#define LOST_MAX (16 * 1024)

void sr_lost_from_state(const struct sr_state *s, int64_t now, const char *reason,
			struct sr_lost *ret)
{
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->bdf, s->vf.bdf, sizeof(ret->bdf));
	memcpy(ret->pf_name, s->vf.pf_name, sizeof(ret->pf_name));
	ret->vf_index = s->vf.index;
	memcpy(ret->container_id, s->container_id, sizeof(ret->container_id));
	memcpy(ret->ifname, s->ifname, sizeof(ret->ifname));
	memcpy(ret->network, s->network, sizeof(ret->network));
	memcpy(ret->netns, s->netns, sizeof(ret->netns));
	memcpy(ret->netdev, s->orig.netdev, sizeof(ret->netdev));
	ret->ifindex = s->orig.ifindex;
	ret->pod_ifindex = s->pod_ifindex;
	memcpy(ret->mac, s->orig.mac, 6);
	ret->mtu = s->orig.mtu;
	ret->up = s->orig.up;
	if (s->rdma_move)
		memcpy(ret->rdma_dev, s->vf.rdma_dev, sizeof(ret->rdma_dev));
	ret->lost_at = now;
	snprintf(ret->reason, sizeof(ret->reason), "%s", reason);
}

void sr_lost_to_state(const struct sr_lost *l, struct sr_state *ret)
{
	memset(ret, 0, sizeof(*ret));
	memcpy(ret->vf.bdf, l->bdf, sizeof(ret->vf.bdf));
	memcpy(ret->vf.pf_name, l->pf_name, sizeof(ret->vf.pf_name));
	ret->vf.index = l->vf_index;
	memcpy(ret->vf.netdev, l->netdev, sizeof(ret->vf.netdev));
	memcpy(ret->container_id, l->container_id, sizeof(ret->container_id));
	memcpy(ret->ifname, l->ifname, sizeof(ret->ifname));
	memcpy(ret->network, l->network, sizeof(ret->network));
	memcpy(ret->netns, l->netns, sizeof(ret->netns));
	memcpy(ret->orig.netdev, l->netdev, sizeof(ret->orig.netdev));
	ret->orig.ifindex = l->ifindex;
	ret->pod_ifindex = l->pod_ifindex;
	memcpy(ret->orig.mac, l->mac, 6);
	ret->orig.mtu = l->mtu;
	ret->orig.up = l->up;
}

char *sr_lost_format(const struct sr_lost *l)
{
	char mac[18];
	json_t *j;

	j = json_pack("{s:i,s:s,s:s,s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:i,s:b,s:s,s:I,s:s}",
		      "version", LOST_VERSION, "deviceID", l->bdf, "pf", l->pf_name, "vf",
		      l->vf_index, "containerID", l->container_id, "ifname", l->ifname, "network",
		      l->network, "netns", l->netns, "netdev", l->netdev, "ifindex", l->ifindex,
		      "podIfindex", l->pod_ifindex, "mac", nlw_mac_fmt(l->mac, mac), "mtu",
		      (int)l->mtu, "up", l->up, "rdmaDevice", l->rdma_dev, "lostAt",
		      (json_int_t)l->lost_at, "reason", l->reason);
	return sr_json_dump(j);
}

/* ---- parsing (the file is input: every field checked) ---- */

static bool parse_ids(const json_t *o, struct sr_lost *l)
{
	long long vf;

	if (sr_json_str(o, "deviceID", l->bdf, sizeof(l->bdf)) < 0 || !sr_bdf_valid(l->bdf) ||
	    sr_json_str(o, "pf", l->pf_name, sizeof(l->pf_name)) < 0 ||
	    sr_json_int(o, "vf", 0, 4095, &vf) < 0 ||
	    sr_json_str(o, "containerID", l->container_id, sizeof(l->container_id)) < 0 ||
	    !cni_valid_name(l->container_id) ||
	    sr_json_str(o, "ifname", l->ifname, sizeof(l->ifname)) < 0 ||
	    !cni_valid_ifname(l->ifname) ||
	    sr_json_str(o, "network", l->network, sizeof(l->network)) < 0 ||
	    sr_json_str(o, "netns", l->netns, sizeof(l->netns)) < 0)
		return false;
	l->vf_index = (int)vf;
	return true;
}

static bool parse_netdev(const json_t *o, struct sr_lost *l)
{
	const json_t *up = json_object_get(o, "up");
	long long ifindex, pod_ifindex, mtu, at;

	if (sr_json_str(o, "netdev", l->netdev, sizeof(l->netdev)) < 0 ||
	    !cni_valid_ifname(l->netdev) || sr_json_int(o, "ifindex", 0, INT32_MAX, &ifindex) < 0 ||
	    sr_json_int(o, "podIfindex", 0, INT32_MAX, &pod_ifindex) < 0 ||
	    sr_json_mac(o, "mac", l->mac) < 0 || sr_json_int(o, "mtu", 0, SR_MTU_MAX, &mtu) < 0 ||
	    !json_is_boolean(up) ||
	    sr_json_str(o, "rdmaDevice", l->rdma_dev, sizeof(l->rdma_dev)) < 0 ||
	    sr_json_int(o, "lostAt", 0, INT64_MAX, &at) < 0 ||
	    sr_json_str(o, "reason", l->reason, sizeof(l->reason)) < 0)
		return false;
	l->ifindex = (int)ifindex;
	l->pod_ifindex = (int)pod_ifindex;
	l->mtu = (unsigned)mtu;
	l->up = json_is_true(up);
	l->lost_at = at;
	return true;
}

int sr_lost_parse(const char *text, size_t len, struct sr_lost *ret)
{
	json_t *root;
	long long ver;
	bool ok;

	if (len > LOST_MAX)
		return -EBADMSG;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	if (!root)
		return -EBADMSG;
	memset(ret, 0, sizeof(*ret));
	ok = json_is_object(root) &&
	     sr_json_int(root, "version", LOST_VERSION, LOST_VERSION, &ver) == 0 &&
	     parse_ids(root, ret) && parse_netdev(root, ret);
	json_decref(root);
	return ok ? 0 : -EBADMSG;
}

/* ---- files: <stateDir>/lost/<BDF>.json ---- */

static int lost_dir_open(int dir_fd, bool create, int *ret_fd)
{
	int fd;

	if (create && mkdirat(dir_fd, SR_LOST_DIR, 0700) < 0 && errno != EEXIST)
		return negative_errno();
	fd = openat(dir_fd, SR_LOST_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return negative_errno();
	*ret_fd = fd;
	return 0;
}

static void lost_name(const char *bdf, char buf[64])
{
	snprintf(buf, 64, "%s.json", bdf);
}

int sr_lost_save(int dir_fd, const struct sr_lost *l)
{
	_cleanup_free_ char *text = sr_lost_format(l);
	_cleanup_close_ int fd = -1;
	char name[64];
	int e;

	if (!text)
		return -ENOMEM;
	e = lost_dir_open(dir_fd, true, &fd);
	if (e < 0)
		return e;
	lost_name(l->bdf, name);
	e = file_replace_at(fd, name, text, strlen(text), 0600, true);
	if (e >= 0 && fsync(fd) < 0)
		e = negative_errno();
	return e;
}

int sr_lost_load(int dir_fd, const char *bdf, struct sr_lost *ret)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	char name[64];
	int n;

	if (!sr_bdf_valid(bdf))
		return -EINVAL;
	n = lost_dir_open(dir_fd, false, &fd);
	if (n < 0)
		return n == -ENOTDIR ? -ENOENT : n;
	lost_name(bdf, name);
	n = file_read_at(fd, name, LOST_MAX, &buf);
	if (n == -EFBIG)
		return -EBADMSG;
	if (n < 0)
		return n;
	return sr_lost_parse(buf, (size_t)n, ret);
}

int sr_lost_remove(int dir_fd, const char *bdf)
{
	_cleanup_close_ int fd = -1;
	char name[64];
	int e = lost_dir_open(dir_fd, false, &fd);

	if (e == -ENOENT)
		return 0;
	if (e < 0)
		return e;
	lost_name(bdf, name);
	if (unlinkat(fd, name, 0) < 0 && errno != ENOENT)
		return negative_errno();
	return fsync(fd) < 0 ? negative_errno() : 0;
}

int sr_lost_restore(struct sr_run *base, const struct sr_lost *l)
{
	struct podnet pn;
	struct sr_run r;
	struct nlw_link link;
	bool in_pod;
	int e;

	sr_run_borrow(&r, &pn, base);
	sr_lost_to_state(l, &r.st);
	if (sr_netdev_locate(&r, &link, &in_pod) < 0)
		return -ENODEV;
	e = sr_netdev_release(&r);
	if (e < 0)
		return e;
	e = sr_lost_remove(base->dir_fd, l->bdf);
	if (e < 0)
		return podnet_fail(base->ctx, NULL, e, "stateDir: remove the lost record of VF %s",
				   l->bdf);
	cni_log_info("VF %s: netdev back in the host as '%s' (lost since the DEL of %s/%s), "
		     "restored",
		     l->bdf, l->netdev, l->container_id, l->ifname);
	return 0;
}
