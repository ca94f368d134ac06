/* SPDX-License-Identifier: Apache-2.0 */
/* Reading links: the pure RTM_NEWLINK parser and single GET requests. */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "base/codec.h"
#include "base/macro.h"
#include "base/parse.h"
#include "internal.h"
#include "nlw/link.h"
#include "nlw/parse.h"

static const struct nlw_policy link_policy[IFLA_MAX + 1] = {
    [IFLA_ADDRESS] = {NLW_ATTR_BINARY, 0, 32},	[IFLA_IFNAME] = {NLW_ATTR_STRING, 1, IFNAMSIZ},
    [IFLA_MTU] = {NLW_ATTR_U32, 0, 0},		[IFLA_LINK] = {NLW_ATTR_U32, 0, 0},
    [IFLA_MASTER] = {NLW_ATTR_U32, 0, 0},	[IFLA_OPERSTATE] = {NLW_ATTR_U8, 0, 0},
    [IFLA_LINKINFO] = {NLW_ATTR_NESTED, 0, 0},	[IFLA_IFALIAS] = {NLW_ATTR_STRING, 1, 0},
    [IFLA_LINK_NETNSID] = {NLW_ATTR_U32, 0, 0}, [IFLA_TXQLEN] = {NLW_ATTR_U32, 0, 0},
    [IFLA_STATS64] = {NLW_ATTR_BINARY, 64, 0},	[IFLA_AF_SPEC] = {NLW_ATTR_NESTED, 0, 0},
};

/* IFLA_AF_SPEC nests one attribute per address family, typed AF_*. */
static const struct nlw_policy af_spec_policy[AF_INET6 + 1] = {
    [AF_INET6] = {NLW_ATTR_NESTED, 0, 0},
};

static const struct nlw_policy inet6_policy[IFLA_INET6_MAX + 1] = {
    [IFLA_INET6_CONF] = {NLW_ATTR_BINARY, 0, 0},
    [IFLA_INET6_ADDR_GEN_MODE] = {NLW_ATTR_U8, 0, 0},
};

static const struct nlw_policy info_policy[IFLA_INFO_MAX + 1] = {
    [IFLA_INFO_KIND] = {NLW_ATTR_STRING, 1, 0},
    [IFLA_INFO_DATA] = {NLW_ATTR_NESTED, 0, 0},
    [IFLA_INFO_SLAVE_KIND] = {NLW_ATTR_STRING, 1, 0},
    [IFLA_INFO_SLAVE_DATA] = {NLW_ATTR_NESTED, 0, 0},
};

static const struct nlw_policy br_policy[IFLA_BR_MAX + 1] = {
    [IFLA_BR_VLAN_FILTERING] = {NLW_ATTR_U8, 0, 0},
};

static const struct nlw_policy brport_policy[IFLA_BRPORT_MAX + 1] = {
    [IFLA_BRPORT_MODE] = {NLW_ATTR_U8, 0, 0},
    [IFLA_BRPORT_LEARNING] = {NLW_ATTR_U8, 0, 0},
    [IFLA_BRPORT_ISOLATED] = {NLW_ATTR_U8, 0, 0},
};

static const struct nlw_policy macvlan_policy[IFLA_MACVLAN_MAX + 1] = {
    [IFLA_MACVLAN_MODE] = {NLW_ATTR_U32, 0, 0},
    [IFLA_MACVLAN_BC_QUEUE_LEN] = {NLW_ATTR_U32, 0, 0},
};

static const struct nlw_policy vxlan_policy[IFLA_VXLAN_MAX + 1] = {
    [IFLA_VXLAN_ID] = {NLW_ATTR_U32, 0, 0},
    [IFLA_VXLAN_PORT] = {NLW_ATTR_U16, 0, 0},
};

static int parse_bridge_data(const struct nlattr *data, struct nlw_link *l)
{
	const struct nlattr *tb[IFLA_BR_MAX + 1];
	int r = nlw_attr_parse_nested(data, br_policy, IFLA_BR_MAX, tb);

	if (r == 0 && tb[IFLA_BR_VLAN_FILTERING]) {
		l->has_vlan_filtering = true;
		l->vlan_filtering = mnl_attr_get_u8(tb[IFLA_BR_VLAN_FILTERING]) != 0;
	}
	return r;
}

static int parse_macvlan_data(const struct nlattr *data, struct nlw_link *l)
{
	const struct nlattr *tb[IFLA_MACVLAN_MAX + 1];
	int r = nlw_attr_parse_nested(data, macvlan_policy, IFLA_MACVLAN_MAX, tb);

	if (r == 0 && tb[IFLA_MACVLAN_MODE])
		l->macvlan_mode = mnl_attr_get_u32(tb[IFLA_MACVLAN_MODE]);
	if (r == 0 && tb[IFLA_MACVLAN_BC_QUEUE_LEN])
		l->macvlan_bc_queue_len = mnl_attr_get_u32(tb[IFLA_MACVLAN_BC_QUEUE_LEN]);
	return r;
}

static int parse_vxlan_data(const struct nlattr *data, struct nlw_link *l)
{
	const struct nlattr *tb[IFLA_VXLAN_MAX + 1];
	int r = nlw_attr_parse_nested(data, vxlan_policy, IFLA_VXLAN_MAX, tb);

	if (r < 0)
		return r;
	if (tb[IFLA_VXLAN_ID])
		l->vxlan_id = mnl_attr_get_u32(tb[IFLA_VXLAN_ID]);
	if (tb[IFLA_VXLAN_PORT])
		l->vxlan_port = ntohs(mnl_attr_get_u16(tb[IFLA_VXLAN_PORT]));
	return 0;
}

static int parse_kind_data(const struct nlattr *data, struct nlw_link *l)
{
	if (streq(l->kind, "bridge"))
		return parse_bridge_data(data, l);
	if (streq(l->kind, "macvlan"))
		return parse_macvlan_data(data, l);
	if (streq(l->kind, "vxlan"))
		return parse_vxlan_data(data, l);
	return 0;
}

static int parse_brport(const struct nlattr *data, struct nlw_link *l)
{
	const struct nlattr *tb[IFLA_BRPORT_MAX + 1];
	int r = nlw_attr_parse_nested(data, brport_policy, IFLA_BRPORT_MAX, tb);

	if (r < 0)
		return r;
	l->has_brport = true;
	l->hairpin = tb[IFLA_BRPORT_MODE] && mnl_attr_get_u8(tb[IFLA_BRPORT_MODE]);
	l->learning = tb[IFLA_BRPORT_LEARNING] && mnl_attr_get_u8(tb[IFLA_BRPORT_LEARNING]);
	l->isolated = tb[IFLA_BRPORT_ISOLATED] && mnl_attr_get_u8(tb[IFLA_BRPORT_ISOLATED]);
	return 0;
}

static int parse_linkinfo(const struct nlattr *info, struct nlw_link *l)
{
	const struct nlattr *tb[IFLA_INFO_MAX + 1];
	int r = nlw_attr_parse_nested(info, info_policy, IFLA_INFO_MAX, tb);

	if (r < 0)
		return r;
	if (tb[IFLA_INFO_KIND])
		nlw_attr_strcpy(tb[IFLA_INFO_KIND], l->kind, sizeof(l->kind));
	if (tb[IFLA_INFO_SLAVE_KIND])
		nlw_attr_strcpy(tb[IFLA_INFO_SLAVE_KIND], l->slave_kind, sizeof(l->slave_kind));
	if (tb[IFLA_INFO_DATA]) {
		r = parse_kind_data(tb[IFLA_INFO_DATA], l);
		if (r < 0)
			return r;
	}
	if (tb[IFLA_INFO_SLAVE_DATA] && streq(l->slave_kind, "bridge"))
		return parse_brport(tb[IFLA_INFO_SLAVE_DATA], l);
	return 0;
}

/* The first 8 u64 of struct rtnl_link_stats64 (the kernel's layout, unaligned-safe copy). */
static void parse_stats64(const struct nlattr *a, struct nlw_link *l)
{
	uint64_t v[8];

	memcpy(v, mnl_attr_get_payload(a), sizeof(v));
	l->has_stats = true;
	l->stats = (struct nlw_link_stats){
	    .rx_packets = v[0],
	    .tx_packets = v[1],
	    .rx_bytes = v[2],
	    .tx_bytes = v[3],
	    .rx_errors = v[4],
	    .tx_errors = v[5],
	    .rx_dropped = v[6],
	    .tx_dropped = v[7],
	};
}

/* IFLA_INET6_CONF is the inet6_dev's devconf as an array of s32, indexed by DEVCONF_*. */
static int32_t inet6_conf_at(const struct nlattr *conf, unsigned idx)
{
	int32_t v;

	memcpy(&v, (const unsigned char *)mnl_attr_get_payload(conf) + idx * sizeof(v), sizeof(v));
	return v;
}

static int parse_af_spec(const struct nlattr *spec, struct nlw_link *l)
{
	const struct nlattr *af[AF_INET6 + 1], *tb[IFLA_INET6_MAX + 1];
	unsigned n;
	int r;

	r = nlw_attr_parse_nested(spec, af_spec_policy, AF_INET6, af);
	if (r >= 0 && af[AF_INET6])
		r = nlw_attr_parse_nested(af[AF_INET6], inet6_policy, IFLA_INET6_MAX, tb);
	if (r < 0 || !af[AF_INET6])
		return r;
	if (tb[IFLA_INET6_ADDR_GEN_MODE])
		l->inet6_addr_gen_mode = mnl_attr_get_u8(tb[IFLA_INET6_ADDR_GEN_MODE]);
	n = tb[IFLA_INET6_CONF] ? mnl_attr_get_payload_len(tb[IFLA_INET6_CONF]) / sizeof(int32_t)
				: 0;
	if (n <= DEVCONF_FORWARDING || n <= DEVCONF_ACCEPT_DAD || n <= DEVCONF_DISABLE_IPV6)
		return 0; /* an old kernel's shorter array: leave has_inet6_conf false */
	l->has_inet6_conf = true;
	l->inet6_forwarding = inet6_conf_at(tb[IFLA_INET6_CONF], DEVCONF_FORWARDING);
	l->inet6_accept_dad = inet6_conf_at(tb[IFLA_INET6_CONF], DEVCONF_ACCEPT_DAD);
	l->inet6_disable_ipv6 = inet6_conf_at(tb[IFLA_INET6_CONF], DEVCONF_DISABLE_IPV6);
	return 0;
}

int nlw_link_parse(const struct nlmsghdr *nlh, struct nlw_link *ret)
{
	const struct nlattr *tb[IFLA_MAX + 1];
	const struct ifinfomsg *ifi;
	struct nlw_link l = {.link_netnsid = -1, .inet6_addr_gen_mode = -1};
	int r;

	if (nlh->nlmsg_type != RTM_NEWLINK || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return -EBADMSG;
	ifi = mnl_nlmsg_get_payload(nlh);
	r = nlw_attr_parse(nlh, sizeof(*ifi), link_policy, IFLA_MAX, tb);
	if (r < 0)
		return r;
	/* ifi_index 0 only occurs in create requests, which tests decode with this parser. */
	if (!tb[IFLA_IFNAME] || ifi->ifi_index < 0)
		return -EBADMSG;
	l.ifindex = ifi->ifi_index;
	l.flags = ifi->ifi_flags;
	l.promisc = (ifi->ifi_flags & IFF_PROMISC) != 0;
	l.allmulti = (ifi->ifi_flags & IFF_ALLMULTI) != 0;
	nlw_attr_strcpy(tb[IFLA_IFNAME], l.name, sizeof(l.name));
	if (tb[IFLA_IFALIAS])
		nlw_attr_strcpy(tb[IFLA_IFALIAS], l.alias, sizeof(l.alias));
	if (tb[IFLA_MTU])
		l.mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_TXQLEN]) {
		l.txqlen = mnl_attr_get_u32(tb[IFLA_TXQLEN]);
		l.has_txqlen = true;
	}
	if (tb[IFLA_ADDRESS] && mnl_attr_get_payload_len(tb[IFLA_ADDRESS]) == NLW_MAC_LEN) {
		memcpy(l.mac, mnl_attr_get_payload(tb[IFLA_ADDRESS]), NLW_MAC_LEN);
		l.has_mac = true;
	}
	if (tb[IFLA_MASTER])
		l.master = (int)mnl_attr_get_u32(tb[IFLA_MASTER]);
	if (tb[IFLA_OPERSTATE])
		l.operstate = mnl_attr_get_u8(tb[IFLA_OPERSTATE]);
	if (tb[IFLA_LINK])
		l.link = (int)mnl_attr_get_u32(tb[IFLA_LINK]);
	if (tb[IFLA_LINK_NETNSID])
		l.link_netnsid = (int)mnl_attr_get_u32(tb[IFLA_LINK_NETNSID]);
	if (tb[IFLA_STATS64])
		parse_stats64(tb[IFLA_STATS64], &l);
	if (tb[IFLA_LINKINFO]) {
		r = parse_linkinfo(tb[IFLA_LINKINFO], &l);
		if (r < 0)
			return r;
	}
	if (tb[IFLA_AF_SPEC] && (r = parse_af_spec(tb[IFLA_AF_SPEC], &l)) < 0)
		return r;
	*ret = l;
	return 0;
}

struct get_ctx {
	struct nlw_link *out;
	bool found;
};

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct get_ctx *c = data;
	int r = nlw_link_parse(nlh, c->out);

	if (r == 0)
		c->found = true;
	return r;
}

static int link_get(struct nlw_sock *sock, int ifindex, const char *name, struct nlw_link *ret)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	struct get_ctx c = {.out = ret};
	bool ok = true;
	int r;

	nlh = nlw_req_init(&req, RTM_GETLINK, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (name)
		ok = nlw_put_str(nlh, IFLA_IFNAME, name);
	/* Statistics are the bulk of a link message and nobody here reads them. */
	ok = ok && nlw_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	if (!ok)
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, get_cb, &c);
	/*
	 * GETLINK by name answers -EINVAL rather than -ENODEV on some kernels
	 * when the name is unknown (as systemd's rtnl_get_link_info notes).
	 */
	if (r == -EINVAL && name)
		return -ENODEV;
	if (r < 0)
		return r;
	return c.found ? 0 : -ENODEV;
}

int nlw_link_get_by_name(struct nlw_sock *sock, const char *name, struct nlw_link *ret)
{
	if (!sock || !ret || !nlw_ifname_valid(name))
		return -EINVAL;
	return link_get(sock, 0, name, ret);
}

int nlw_link_get_by_index(struct nlw_sock *sock, int ifindex, struct nlw_link *ret)
{
	if (!sock || !ret || ifindex <= 0)
		return -EINVAL;
	return link_get(sock, ifindex, NULL, ret);
}

const char *nlw_mac_fmt(const unsigned char mac[NLW_MAC_LEN], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
		 mac[5]);
	return buf;
}

int nlw_mac_parse(const char *s, unsigned char mac[NLW_MAC_LEN])
{
	unsigned char m[NLW_MAC_LEN];

	if (!s || strlen(s) != 17)
		return -EINVAL;
	for (int i = 0; i < NLW_MAC_LEN; i++) {
		if (hex_decode(s + 3 * i, 1, &m[i]) < 0 ||
		    (i < NLW_MAC_LEN - 1 && s[3 * i + 2] != ':'))
			return -EINVAL;
	}
	memcpy(mac, m, NLW_MAC_LEN);
	return 0;
}
