/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The VF netdev: record it, move it into the pod as CNI_IFNAME (renamed on
 * the way, so neither netns ever sees a clash), and bring it home again with
 * its name, MAC, MTU and up state, wherever the kernel left it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "cni/log.h"
#include "nlw/altname.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "sriov-rdma.h"

#define SYSFS_NAMES_MAX 4

int sr_netdev_record(struct sr_run *r)
{
	struct nlw_link l;
	int e = nlw_link_get_by_name(r->pn->host, r->st.vf.netdev, &l);

	if (e == -ENODEV)
		return cni_errorf(&r->ctx->err, CNI_ERR_PLUGIN, e,
				  "VF %s: its netdev '%s' (from sysfs) is not in this network "
				  "namespace (already in a pod?)",
				  r->st.vf.bdf, r->st.vf.netdev);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "look up VF netdev '%s'",
				   r->st.vf.netdev);
	snprintf(r->st.orig.netdev, sizeof(r->st.orig.netdev), "%s", l.name);
	r->st.orig.ifindex = l.ifindex;
	r->st.orig.mtu = l.mtu;
	memcpy(r->st.orig.mac, l.mac, 6);
	r->st.orig.up = (l.flags & IFF_UP) != 0;
	return 0;
}

int sr_netdev_name_free(struct sr_run *r)
{
	struct nlw_link l;

	if (nlw_link_get_by_name(r->pn->pod, r->ctx->ifname, &l) >= 0)
		return cni_errorf(&r->ctx->err, CNI_ERR_EXISTS, -EEXIST,
				  "CNI_IFNAME: '%s' already exists in netns '%s'", r->ctx->ifname,
				  r->ctx->netns);
	return 0;
}

int sr_netdev_to_pod(struct sr_run *r)
{
	const char *ifname = r->ctx->ifname;
	struct nlw_link l;
	int e;
	if (r->st.orig.up) {
		e = nlw_link_set_down(r->pn->host, r->st.orig.ifindex);
		if (e < 0)
			return podnet_fail(r->ctx, r->pn->host, e, "set VF netdev '%s' down",
					   r->st.orig.netdev);
	}
	e = nlw_link_set_netns(r->pn->host, r->st.orig.ifindex, r->pn->netns_fd, ifname);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e,
				   "move VF netdev '%s' into netns '%s' as '%s'", r->st.orig.netdev,
				   r->ctx->netns, ifname);
	e = nlw_link_get_by_name(r->pn->pod, ifname, &l);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->pod, e, "look up '%s' in the pod", ifname);
	r->st.pod_ifindex = l.ifindex;
	if (r->conf.pf_keys & SR_PF_MAC) {
		e = nlw_link_set_mac(r->pn->pod, l.ifindex, r->conf.mac);
		if (e < 0)
			return podnet_fail(r->ctx, r->pn->pod, e, "mac: set %s on '%s'",
					   r->conf.mac_str, ifname);
	}
	if (r->conf.mtu) {
		e = nlw_link_set_mtu(r->pn->pod, l.ifindex, r->conf.mtu);
		if (e < 0)
			return podnet_fail(r->ctx, r->pn->pod, e, "mtu: set %u on '%s'",
					   r->conf.mtu, ifname);
	}
	e = nlw_link_get_by_index(r->pn->pod, l.ifindex, &l);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->pod, e, "look up '%s' in the pod", ifname);
	memcpy(r->st.pod_mac, l.mac, 6);
	r->st.pod_mtu = l.mtu;
	return 0;
}

static bool ours(const struct sr_run *r, int ifindex)
{
	return ifindex > 0 && (ifindex == r->st.pod_ifindex || ifindex == r->st.orig.ifindex);
}

/*
 * udev may have given the renamed device its old name as an altname; the
 * rename back would then clash with the device itself (-EEXIST).
 */
static void drop_old_altname(struct sr_run *r, struct nlw_sock *s, int ifindex)
{
	int e = nlw_link_del_altname(s, ifindex, r->st.orig.netdev);

	if (e >= 0)
		cni_log_info("removed altname '%s' of the VF netdev", r->st.orig.netdev);
	else if (e != -ENOENT && e != -ENODATA)
		cni_log_debug("altname '%s': %s, ignoring", r->st.orig.netdev, strerror(-e));
}

/* Down, original MAC and MTU (on whichever socket the link is on). */
static int restore_attrs(struct sr_run *r, struct nlw_sock *s, const struct nlw_link *l)
{
	int e = 0;

	if (l->flags & IFF_UP)
		e = nlw_link_set_down(s, l->ifindex);
	if (e >= 0 && memcmp(l->mac, r->st.orig.mac, 6) != 0)
		e = nlw_link_set_mac(s, l->ifindex, r->st.orig.mac);
	if (e >= 0 && r->st.orig.mtu && l->mtu != r->st.orig.mtu)
		e = nlw_link_set_mtu(s, l->ifindex, r->st.orig.mtu);
	if (e < 0)
		return podnet_fail(r->ctx, s, e, "restore MAC/MTU of VF netdev '%s'", l->name);
	return 0;
}

/* In the pod as CNI_IFNAME, or renamed there but still under its pod ifindex. */
static int find_in_pod(struct sr_run *r, struct nlw_link *ret)
{
	if (!r->pn->pod)
		return -ENODEV;
	if (nlw_link_get_by_name(r->pn->pod, r->st.ifname, ret) >= 0 && ours(r, ret->ifindex))
		return 0;
	if (r->st.pod_ifindex > 0 && nlw_link_get_by_index(r->pn->pod, r->st.pod_ifindex, ret) >= 0)
		return 0;
	return -ENODEV;
}

/* In the pod: restore and move home under the original name. */
static int release_from_pod(struct sr_run *r, const struct nlw_link *l)
{
	int e = restore_attrs(r, r->pn->pod, l);

	if (e < 0)
		return e;
	drop_old_altname(r, r->pn->pod, l->ifindex);
	e = nlw_link_set_netns(r->pn->pod, l->ifindex, r->host_ns_fd, r->st.orig.netdev);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->pod, e, "move '%s' back to the host as '%s'",
				   l->name, r->st.orig.netdev);
	return 0;
}

/*
 * Where the kernel may have put it: the current names sysfs lists for the
 * VF (authoritative on real hardware), then the original name, the pod's
 * name and dev<ifindex> (what a dying netns leaves), checked by ifindex.
 */
static int find_in_host(struct sr_run *r, struct nlw_link *ret)
{
	char names[SYSFS_NAMES_MAX][IFNAMSIZ];
	int n = sr_sysfs_netdevs(r->sysfs_fd, r->st.vf.bdf, names, SYSFS_NAMES_MAX);
	char dev[2][IFNAMSIZ];

	for (int i = 0; i < n; i++)
		if (nlw_link_get_by_name(r->pn->host, names[i], ret) >= 0)
			return 0;
	if (nlw_link_get_by_name(r->pn->host, r->st.orig.netdev, ret) >= 0 && ours(r, ret->ifindex))
		return 0;
	if (nlw_link_get_by_name(r->pn->host, r->st.ifname, ret) >= 0 && ours(r, ret->ifindex))
		return 0;
	snprintf(dev[0], IFNAMSIZ, "dev%d", r->st.pod_ifindex);
	snprintf(dev[1], IFNAMSIZ, "dev%d", r->st.orig.ifindex);
	for (int i = 0; i < 2; i++)
		if (nlw_link_get_by_name(r->pn->host, dev[i], ret) >= 0)
			return 0;
	return -ENODEV;
}

int sr_netdev_locate(struct sr_run *r, struct nlw_link *ret, bool *in_pod)
{
	*in_pod = find_in_pod(r, ret) >= 0;
	return *in_pod ? 0 : find_in_host(r, ret);
}

static int not_found(struct sr_run *r)
{
	if (r->pn->netns_fd < 0)
		return cni_errorf(&r->ctx->err, CNI_ERR_TRY_AGAIN, -EAGAIN,
				  "VF %s: netdev not back in the host yet (netns '%s' gone, the "
				  "kernel returns it when the last reference drops); retry DEL",
				  r->st.vf.bdf, r->st.netns);
	return cni_errorf(&r->ctx->err, CNI_ERR_PLUGIN, -ENODEV,
			  "VF %s: netdev found neither as '%s' in netns '%s' nor in the host",
			  r->st.vf.bdf, r->st.ifname, r->st.netns);
}

/* Found in the host: original MAC and MTU, then the original name. */
static int restore_in_host(struct sr_run *r, const struct nlw_link *l)
{
	int e = restore_attrs(r, r->pn->host, l);

	if (e >= 0 && !streq(l->name, r->st.orig.netdev)) {
		drop_old_altname(r, r->pn->host, l->ifindex);
		e = nlw_link_set_name(r->pn->host, l->ifindex, r->st.orig.netdev);
		if (e < 0)
			return podnet_fail(r->ctx, r->pn->host, e, "rename '%s' back to '%s'",
					   l->name, r->st.orig.netdev);
	}
	return e;
}

int sr_netdev_release(struct sr_run *r)
{
	struct nlw_link l;
	bool in_pod;
	int e;

	if (r->st.vf.dpdk || !r->st.orig.netdev[0])
		return 0;
	e = sr_netdev_locate(r, &l, &in_pod);
	if (e < 0)
		return not_found(r);
	e = in_pod ? release_from_pod(r, &l) : restore_in_host(r, &l);
	if (e < 0)
		return e;
	if (!r->st.orig.up)
		return 0;
	e = nlw_link_get_by_name(r->pn->host, r->st.orig.netdev, &l);
	if (e >= 0 && !(l.flags & IFF_UP))
		e = nlw_link_set_up(r->pn->host, l.ifindex);
	if (e < 0)
		return podnet_fail(r->ctx, r->pn->host, e, "set '%s' up again", r->st.orig.netdev);
	return 0;
}
