/* SPDX-License-Identifier: Apache-2.0 */
/* SR-IOV VF attributes on the PF. */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/vf.h"

static int vf_params_check(const struct nlw_vf_params *p)
{
	if (p->vf < 0)
		return -EINVAL;
	if (!(p->has_mac || p->has_vlan || p->has_spoofchk || p->has_trust || p->has_rate ||
	      p->has_link_state))
		return -EINVAL;
	if (p->has_vlan && (p->vlan > 4095 || p->qos > 7 ||
			    (p->vlan_proto && p->vlan_proto != NLW_VLAN_PROTO_8021Q &&
			     p->vlan_proto != NLW_VLAN_PROTO_8021AD)))
		return -EINVAL;
	if (p->has_rate && p->max_tx_rate && p->min_tx_rate > p->max_tx_rate)
		return -EINVAL;
	if (p->has_link_state && (unsigned)p->link_state > NLW_VF_LINK_DISABLE)
		return -EINVAL;
	return 0;
}

/*
 * VLAN as iproute2 encodes it: the legacy IFLA_VF_VLAN for 802.1Q (some
 * drivers reject the list form), IFLA_VF_VLAN_LIST only for 802.1ad, with the
 * whole 16-byte struct (newer kernels check the length).
 */
static bool put_vf_vlan(struct nlmsghdr *nlh, const struct nlw_vf_params *p)
{
	struct ifla_vf_vlan_info info;
	struct ifla_vf_vlan legacy;
	struct nlattr *list;

	if (!p->vlan_proto || p->vlan_proto == NLW_VLAN_PROTO_8021Q) {
		legacy =
		    (struct ifla_vf_vlan){.vf = (uint32_t)p->vf, .vlan = p->vlan, .qos = p->qos};
		return nlw_put(nlh, IFLA_VF_VLAN, sizeof(legacy), &legacy);
	}
	memset(&info, 0, sizeof(info));
	info.vf = (uint32_t)p->vf;
	info.vlan = p->vlan;
	info.qos = p->qos;
	info.vlan_proto = htons(p->vlan_proto);
	list = nlw_nest_start(nlh, IFLA_VF_VLAN_LIST);
	if (!list || !nlw_put(nlh, IFLA_VF_VLAN_INFO, sizeof(info), &info))
		return false;
	nlw_nest_end(nlh, list);
	return true;
}

static bool put_vf_settings(struct nlmsghdr *nlh, const struct nlw_vf_params *p)
{
	uint32_t vf = (uint32_t)p->vf;
	bool ok = true;

	if (p->has_mac) {
		struct ifla_vf_mac m = {.vf = vf};

		memcpy(m.mac, p->mac, 6);
		ok = nlw_put(nlh, IFLA_VF_MAC, sizeof(m), &m);
	}
	if (ok && p->has_vlan)
		ok = put_vf_vlan(nlh, p);
	if (ok && p->has_rate) {
		struct ifla_vf_rate r = {vf, p->min_tx_rate, p->max_tx_rate};

		ok = nlw_put(nlh, IFLA_VF_RATE, sizeof(r), &r);
	}
	if (ok && p->has_spoofchk) {
		struct ifla_vf_spoofchk s = {vf, p->spoofchk};

		ok = nlw_put(nlh, IFLA_VF_SPOOFCHK, sizeof(s), &s);
	}
	if (ok && p->has_trust) {
		struct ifla_vf_trust t = {vf, p->trust};

		ok = nlw_put(nlh, IFLA_VF_TRUST, sizeof(t), &t);
	}
	if (ok && p->has_link_state) {
		struct ifla_vf_link_state l = {vf, (uint32_t)p->link_state};

		ok = nlw_put(nlh, IFLA_VF_LINK_STATE, sizeof(l), &l);
	}
	return ok;
}

int nlw_vf_set(struct nlw_sock *sock, int pf_ifindex, const struct nlw_vf_params *p)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlattr *list, *info;
	struct nlmsghdr *nlh;

	if (!sock || pf_ifindex <= 0 || !p || vf_params_check(p) < 0)
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_SETLINK, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = pf_ifindex;
	list = nlw_nest_start(nlh, IFLA_VFINFO_LIST);
	info = list ? nlw_nest_start(nlh, IFLA_VF_INFO) : NULL;
	if (!info || !put_vf_settings(nlh, p))
		return -EMSGSIZE;
	nlw_nest_end(nlh, info);
	nlw_nest_end(nlh, list);
	return nlw_talk(sock, nlh, NULL, NULL);
}

static const struct nlw_policy vf_policy[IFLA_VF_MAX + 1] = {
    [IFLA_VF_MAC] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_mac), 0},
    [IFLA_VF_VLAN] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_vlan), 0},
    [IFLA_VF_VLAN_LIST] = {NLW_ATTR_NESTED, 0, 0},
    [IFLA_VF_TX_RATE] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_tx_rate), 0},
    [IFLA_VF_RATE] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_rate), 0},
    [IFLA_VF_SPOOFCHK] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_spoofchk), 0},
    [IFLA_VF_TRUST] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_trust), 0},
    [IFLA_VF_LINK_STATE] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_link_state), 0},
};

static const struct nlw_policy vlan_list_policy[IFLA_VF_VLAN_INFO_MAX + 1] = {
    [IFLA_VF_VLAN_INFO] = {NLW_ATTR_BINARY, sizeof(struct ifla_vf_vlan_info), 0},
};

/* Drivers report an unsupported boolean as ~0U. */
static int vf_bool(uint32_t v)
{
	return v == UINT32_MAX ? -1 : v != 0;
}

static void parse_vf_vlan(const struct nlattr **tb, struct nlw_vf_info *v)
{
	const struct nlattr *lt[IFLA_VF_VLAN_INFO_MAX + 1];

	if (tb[IFLA_VF_VLAN]) {
		const struct ifla_vf_vlan *vl = mnl_attr_get_payload(tb[IFLA_VF_VLAN]);

		v->vlan = (uint16_t)vl->vlan;
		v->qos = (uint8_t)vl->qos;
		v->vlan_proto = NLW_VLAN_PROTO_8021Q;
	}
	/* The list form carries the protocol; it wins over the legacy attribute. */
	if (tb[IFLA_VF_VLAN_LIST] &&
	    nlw_attr_parse_nested(tb[IFLA_VF_VLAN_LIST], vlan_list_policy, IFLA_VF_VLAN_INFO_MAX,
				  lt) == 0 &&
	    lt[IFLA_VF_VLAN_INFO]) {
		const struct ifla_vf_vlan_info *vi = mnl_attr_get_payload(lt[IFLA_VF_VLAN_INFO]);

		v->vlan = (uint16_t)vi->vlan;
		v->qos = (uint8_t)vi->qos;
		v->vlan_proto = ntohs(vi->vlan_proto);
	}
}

static int parse_one_vf(const struct nlattr *nest, struct nlw_vf_info *v)
{
	const struct nlattr *tb[IFLA_VF_MAX + 1];
	const struct ifla_vf_mac *mac;

	if (nlw_attr_parse_nested(nest, vf_policy, IFLA_VF_MAX, tb) < 0 || !tb[IFLA_VF_MAC])
		return -EBADMSG;
	memset(v, 0, sizeof(*v));
	mac = mnl_attr_get_payload(tb[IFLA_VF_MAC]);
	v->vf = (int)mac->vf;
	memcpy(v->mac, mac->mac, 6);
	v->spoofchk = v->trust = -1;
	parse_vf_vlan(tb, v);
	if (tb[IFLA_VF_RATE]) {
		const struct ifla_vf_rate *r = mnl_attr_get_payload(tb[IFLA_VF_RATE]);

		v->min_tx_rate = r->min_tx_rate;
		v->max_tx_rate = r->max_tx_rate;
	} else if (tb[IFLA_VF_TX_RATE]) {
		v->max_tx_rate =
		    ((const struct ifla_vf_tx_rate *)mnl_attr_get_payload(tb[IFLA_VF_TX_RATE]))
			->rate;
	}
	if (tb[IFLA_VF_SPOOFCHK])
		v->spoofchk = vf_bool(
		    ((const struct ifla_vf_spoofchk *)mnl_attr_get_payload(tb[IFLA_VF_SPOOFCHK]))
			->setting);
	if (tb[IFLA_VF_TRUST])
		v->trust =
		    vf_bool(((const struct ifla_vf_trust *)mnl_attr_get_payload(tb[IFLA_VF_TRUST]))
				->setting);
	if (tb[IFLA_VF_LINK_STATE])
		v->link_state = ((const struct ifla_vf_link_state *)mnl_attr_get_payload(
				     tb[IFLA_VF_LINK_STATE]))
				    ->link_state;
	return 0;
}

static const struct nlw_policy vf_link_policy[IFLA_MAX + 1] = {
    [IFLA_VFINFO_LIST] = {NLW_ATTR_NESTED, 0, 0},
};

int nlw_vf_parse(const struct nlmsghdr *nlh, struct nlw_vf_info **ret, unsigned *ret_n)
{
	const struct nlattr *tb[IFLA_MAX + 1], *a;
	_cleanup_free_ struct nlw_vf_info *v = NULL;
	unsigned n = 0, cap = 0;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct ifinfomsg)) ||
	    nlw_attr_parse(nlh, sizeof(struct ifinfomsg), vf_link_policy, IFLA_MAX, tb) < 0)
		return -EBADMSG;
	/* No IFLA_VFINFO_LIST is zero VFs (virtio-style PFs report none). */
	if (tb[IFLA_VFINFO_LIST]) {
		mnl_attr_for_each_nested (a, tb[IFLA_VFINFO_LIST]) {
			if (mnl_attr_get_type(a) != IFLA_VF_INFO)
				continue;
			if (nlw_grow((void **)&v, n, &cap, sizeof(*v)) < 0)
				return -ENOMEM;
			if (parse_one_vf(a, &v[n]) < 0)
				return -EBADMSG;
			n++;
		}
	}
	*ret = TAKE_PTR(v); /* NULL when n == 0 */
	*ret_n = n;
	return 0;
}

struct vf_get {
	struct nlw_vf_info *v;
	unsigned n;
	bool found;
};

static int vf_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct vf_get *g = data;
	int r;

	if (g->found)
		return -EBADMSG; /* a single GET answers one message */
	r = nlw_vf_parse(nlh, &g->v, &g->n);
	if (r == 0)
		g->found = true;
	return r;
}

int nlw_vf_list(struct nlw_sock *sock, int pf_ifindex, struct nlw_vf_info **ret, unsigned *ret_n)
{
	struct vf_get g = {0};
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	int r;

	if (!sock || pf_ifindex <= 0 || !ret || !ret_n)
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_GETLINK, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = pf_ifindex;
	if (!nlw_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS))
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, vf_get_cb, &g);
	if (r < 0 || !g.found) {
		free(g.v);
		return r < 0 ? r : -ENODEV;
	}
	*ret = g.v;
	*ret_n = g.n;
	return 0;
}

int nlw_vf_get(struct nlw_sock *sock, int pf_ifindex, int vf, struct nlw_vf_info *ret)
{
	_cleanup_free_ struct nlw_vf_info *v = NULL;
	unsigned n = 0;
	int r;

	if (vf < 0 || !ret)
		return -EINVAL;
	r = nlw_vf_list(sock, pf_ifindex, &v, &n);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < n; i++)
		if (v[i].vf == vf) {
			*ret = v[i];
			return 0;
		}
	return -ENOENT;
}
