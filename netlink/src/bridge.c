/* SPDX-License-Identifier: Apache-2.0 */
/* Bridge ports: flags through IFLA_PROTINFO, VLANs through IFLA_AF_SPEC (AF_BRIDGE). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/link.h"

static struct nlmsghdr *bridge_req(union nlw_req *req, uint16_t type, int ifindex)
{
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;

	nlh = nlw_req_init(req, type, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_BRIDGE;
	ifi->ifi_index = ifindex;
	return nlh;
}

int nlw_bridge_port_set(struct nlw_sock *sock, int ifindex, const struct nlw_brport_params *p)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	bool ok = true;

	if (!sock || ifindex <= 0 || !p || !(p->has_hairpin || p->has_learning || p->has_isolated))
		return -EINVAL;
	nlh = bridge_req(&req, RTM_SETLINK, ifindex);
	/* nest_start sets NLA_F_NESTED, which the bridge needs to read the new format. */
	nest = nlw_nest_start(nlh, IFLA_PROTINFO);
	if (!nest)
		return -EMSGSIZE;
	if (p->has_hairpin)
		ok = nlw_put_u8(nlh, IFLA_BRPORT_MODE, p->hairpin);
	if (ok && p->has_learning)
		ok = nlw_put_u8(nlh, IFLA_BRPORT_LEARNING, p->learning);
	if (ok && p->has_isolated)
		ok = nlw_put_u8(nlh, IFLA_BRPORT_ISOLATED, p->isolated);
	if (!ok)
		return -EMSGSIZE;
	nlw_nest_end(nlh, nest);
	return nlw_talk(sock, nlh, NULL, NULL);
}

static int vlan_check(const struct nlw_bridge_vlan *v)
{
	if (v->vid < 1 || v->vid > 4094)
		return -EINVAL;
	if (v->vid_end && (v->vid_end <= v->vid || v->vid_end > 4094))
		return -EINVAL;
	if (v->vid_end && (v->flags & NLW_BRVLAN_PVID))
		return -EINVAL; /* one PVID, not a range of them */
	return 0;
}

static bool put_vlan(struct nlmsghdr *nlh, const struct nlw_bridge_vlan *v)
{
	struct bridge_vlan_info info = {.vid = v->vid};

	if (v->flags & NLW_BRVLAN_PVID)
		info.flags |= BRIDGE_VLAN_INFO_PVID;
	if (v->flags & NLW_BRVLAN_UNTAGGED)
		info.flags |= BRIDGE_VLAN_INFO_UNTAGGED;
	if (!v->vid_end)
		return nlw_put(nlh, IFLA_BRIDGE_VLAN_INFO, sizeof(info), &info);
	info.flags |= BRIDGE_VLAN_INFO_RANGE_BEGIN;
	if (!nlw_put(nlh, IFLA_BRIDGE_VLAN_INFO, sizeof(info), &info))
		return false;
	info.flags =
	    (uint16_t)((info.flags & ~BRIDGE_VLAN_INFO_RANGE_BEGIN) | BRIDGE_VLAN_INFO_RANGE_END);
	info.vid = v->vid_end;
	return nlw_put(nlh, IFLA_BRIDGE_VLAN_INFO, sizeof(info), &info);
}

static int vlan_change(struct nlw_sock *sock, uint16_t type, int ifindex,
		       const struct nlw_bridge_vlan *v, unsigned n)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct nlattr *spec;
	bool self = false;

	if (!sock || ifindex <= 0 || !v || n == 0)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		if (vlan_check(&v[i]) < 0)
			return -EINVAL;
		self |= (v[i].flags & NLW_BRVLAN_SELF) != 0;
	}
	nlh = bridge_req(&req, type, ifindex);
	spec = nlw_nest_start(nlh, IFLA_AF_SPEC);
	if (!spec || (self && !nlw_put_u16(nlh, IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_SELF)))
		return -EMSGSIZE;
	for (unsigned i = 0; i < n; i++)
		if (!put_vlan(nlh, &v[i]))
			return -EMSGSIZE;
	nlw_nest_end(nlh, spec);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_bridge_vlan_add(struct nlw_sock *sock, int ifindex, const struct nlw_bridge_vlan *v,
			unsigned n)
{
	return vlan_change(sock, RTM_SETLINK, ifindex, v, n);
}

int nlw_bridge_vlan_del(struct nlw_sock *sock, int ifindex, const struct nlw_bridge_vlan *v,
			unsigned n)
{
	return vlan_change(sock, RTM_DELLINK, ifindex, v, n);
}

struct vlan_list {
	int ifindex;
	struct nlw_bridge_vlan *v;
	unsigned n, cap;
};

static void vlan_list_reset(void *data)
{
	struct vlan_list *l = data;

	l->v = mfree(l->v);
	l->n = l->cap = 0;
}

static int vlan_list_push(struct vlan_list *l, const struct bridge_vlan_info *info)
{
	if (nlw_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = (struct nlw_bridge_vlan){
	    .vid = info->vid,
	    .flags = ((info->flags & BRIDGE_VLAN_INFO_PVID) ? NLW_BRVLAN_PVID : 0) |
		     ((info->flags & BRIDGE_VLAN_INFO_UNTAGGED) ? NLW_BRVLAN_UNTAGGED : 0),
	};
	return 0;
}

static const struct nlw_policy brlink_policy[IFLA_MAX + 1] = {
    [IFLA_AF_SPEC] = {NLW_ATTR_NESTED, 0, 0},
};

static int vlan_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct vlan_list *l = data;
	const struct nlattr *tb[IFLA_MAX + 1], *a;
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	int r;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)) || ifi->ifi_index != l->ifindex)
		return 0;
	r = nlw_attr_parse(nlh, sizeof(*ifi), brlink_policy, IFLA_MAX, tb);
	if (r < 0 || !tb[IFLA_AF_SPEC])
		return r;
	mnl_attr_for_each_nested (a, tb[IFLA_AF_SPEC]) {
		if (mnl_attr_get_type(a) != IFLA_BRIDGE_VLAN_INFO)
			continue;
		if (mnl_attr_get_payload_len(a) < sizeof(struct bridge_vlan_info))
			return -EBADMSG;
		r = vlan_list_push(l, mnl_attr_get_payload(a));
		if (r < 0)
			return r;
	}
	return 0;
}

int nlw_bridge_vlan_list(struct nlw_sock *sock, int ifindex, struct nlw_bridge_vlan **ret,
			 unsigned *ret_n)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	struct vlan_list l = {.ifindex = ifindex};
	int r;

	if (!sock || ifindex <= 0 || !ret || !ret_n)
		return -EINVAL;
	/* The bridge dump refuses an ifindex in the header: filter here instead. */
	nlh = nlw_req_init(&req, RTM_GETLINK, NLM_F_DUMP, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_BRIDGE;
	if (!nlw_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_BRVLAN))
		return -EMSGSIZE;
	r = nlw_dump(sock, nlh, vlan_list_cb, vlan_list_reset, &l);
	if (r < 0) {
		free(l.v);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}
