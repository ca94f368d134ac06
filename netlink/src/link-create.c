/* SPDX-License-Identifier: Apache-2.0 */
/* Creating links: veth (peer directly in another netns), bridge, macvlan, vxlan. */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <string.h>

#include "internal.h"
#include "nlw/link.h"

/* Start RTM_NEWLINK create (CREATE|EXCL|ACK) with the common attributes. */
static struct nlmsghdr *newlink_start(union nlw_req *req, const char *name, unsigned mtu,
				      const unsigned char *mac, bool up, bool *ok)
{
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;

	nlh = nlw_req_init(req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, sizeof(*ifi),
			   (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	if (up) {
		ifi->ifi_flags = IFF_UP;
		ifi->ifi_change = IFF_UP;
	}
	*ok = nlw_put_str(nlh, IFLA_IFNAME, name);
	if (*ok && mtu)
		*ok = nlw_put_u32(nlh, IFLA_MTU, mtu);
	if (*ok && mac)
		*ok = nlw_put(nlh, IFLA_ADDRESS, NLW_MAC_LEN, mac);
	return nlh;
}

/* VETH_INFO_PEER carries a whole ifinfomsg followed by the peer's attributes. */
static bool put_veth_peer(struct nlmsghdr *nlh, const struct nlw_veth_params *p)
{
	struct ifinfomsg peer = {.ifi_family = AF_UNSPEC};
	unsigned mtu = p->peer_mtu ? p->peer_mtu : p->mtu;
	struct nlattr *nest;
	bool ok;

	nest = nlw_nest_start(nlh, VETH_INFO_PEER);
	if (!nest)
		return false;
	ok = nlw_put_raw(nlh, &peer, sizeof(peer)) && nlw_put_str(nlh, IFLA_IFNAME, p->peer_name);
	if (ok && mtu)
		ok = nlw_put_u32(nlh, IFLA_MTU, mtu);
	if (ok && p->peer_mac)
		ok = nlw_put(nlh, IFLA_ADDRESS, NLW_MAC_LEN, p->peer_mac);
	if (ok && p->peer_netns_fd >= 0)
		ok = nlw_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)p->peer_netns_fd);
	if (ok)
		nlw_nest_end(nlh, nest);
	return ok;
}

/* Open IFLA_LINKINFO{KIND, DATA{...}}; the caller fills DATA and closes both. */
static bool linkinfo_start(struct nlmsghdr *nlh, const char *kind, struct nlattr **info,
			   struct nlattr **data)
{
	*info = nlw_nest_start(nlh, IFLA_LINKINFO);
	if (!*info || !nlw_put_str(nlh, IFLA_INFO_KIND, kind))
		return false;
	*data = nlw_nest_start(nlh, IFLA_INFO_DATA);
	return *data != NULL;
}

static void linkinfo_end(struct nlmsghdr *nlh, struct nlattr *info, struct nlattr *data)
{
	nlw_nest_end(nlh, data);
	nlw_nest_end(nlh, info);
}

int nlw_link_add_veth(struct nlw_sock *sock, const struct nlw_veth_params *p)
{
	union nlw_req req;
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;
	bool ok;

	if (!sock || !p || !nlw_ifname_valid(p->name) || !nlw_ifname_valid(p->peer_name) ||
	    p->master < 0)
		return -EINVAL;
	nlh = newlink_start(&req, p->name, p->mtu, p->mac, p->up, &ok);
	if (ok && p->master)
		ok = nlw_put_u32(nlh, IFLA_MASTER, (uint32_t)p->master);
	ok = ok && linkinfo_start(nlh, "veth", &info, &data) && put_veth_peer(nlh, p);
	if (!ok)
		return -EMSGSIZE;
	linkinfo_end(nlh, info, data);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_link_add_bridge(struct nlw_sock *sock, const struct nlw_bridge_params *p)
{
	union nlw_req req;
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;
	bool ok;

	if (!sock || !p || !nlw_ifname_valid(p->name))
		return -EINVAL;
	nlh = newlink_start(&req, p->name, p->mtu, p->mac, p->up, &ok);
	ok = ok && linkinfo_start(nlh, "bridge", &info, &data);
	if (ok && p->has_vlan_filtering)
		ok = nlw_put_u8(nlh, IFLA_BR_VLAN_FILTERING, p->vlan_filtering);
	if (!ok)
		return -EMSGSIZE;
	linkinfo_end(nlh, info, data);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_bridge_set_vlan_filtering(struct nlw_sock *sock, int ifindex, bool on)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0)
		return -EINVAL;
	/* Changing IFLA_INFO_DATA needs RTM_NEWLINK on the existing device (no CREATE). */
	nlh = nlw_req_init(&req, RTM_NEWLINK, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (!linkinfo_start(nlh, "bridge", &info, &data) ||
	    !nlw_put_u8(nlh, IFLA_BR_VLAN_FILTERING, on))
		return -EMSGSIZE;
	linkinfo_end(nlh, info, data);
	return nlw_talk(sock, nlh, NULL, NULL);
}

static bool macvlan_mode_valid(enum nlw_macvlan_mode m)
{
	return m == 0 || m == NLW_MACVLAN_PRIVATE || m == NLW_MACVLAN_VEPA ||
	       m == NLW_MACVLAN_BRIDGE || m == NLW_MACVLAN_PASSTHRU || m == NLW_MACVLAN_SOURCE;
}

int nlw_link_add_macvlan(struct nlw_sock *sock, const struct nlw_macvlan_params *p)
{
	union nlw_req req;
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;
	bool ok;

	if (!sock || !p || !nlw_ifname_valid(p->name) || p->parent <= 0 ||
	    !macvlan_mode_valid(p->mode))
		return -EINVAL;
	nlh = newlink_start(&req, p->name, p->mtu, p->mac, false, &ok);
	ok = ok && nlw_put_u32(nlh, IFLA_LINK, (uint32_t)p->parent);
	if (ok && p->netns_fd >= 0)
		ok = nlw_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)p->netns_fd);
	ok = ok && linkinfo_start(nlh, "macvlan", &info, &data) &&
	     nlw_put_u32(nlh, IFLA_MACVLAN_MODE, p->mode ? p->mode : NLW_MACVLAN_BRIDGE);
	if (ok && p->bc_queue_len)
		ok = nlw_put_u32(nlh, IFLA_MACVLAN_BC_QUEUE_LEN, p->bc_queue_len);
	if (!ok)
		return -EMSGSIZE;
	linkinfo_end(nlh, info, data);
	return nlw_talk(sock, nlh, NULL, NULL);
}

static bool put_vxlan_addrs(struct nlmsghdr *nlh, const struct nlw_vxlan_params *p)
{
	bool v6 = p->family == AF_INET6;
	size_t len = v6 ? 16 : 4;
	bool ok = true;

	if (p->has_local)
		ok = nlw_put(nlh, v6 ? IFLA_VXLAN_LOCAL6 : IFLA_VXLAN_LOCAL, len, p->local);
	if (ok && p->has_group)
		ok = nlw_put(nlh, v6 ? IFLA_VXLAN_GROUP6 : IFLA_VXLAN_GROUP, len, p->group);
	return ok;
}

int nlw_link_add_vxlan(struct nlw_sock *sock, const struct nlw_vxlan_params *p)
{
	union nlw_req req;
	struct nlattr *info, *data;
	struct nlmsghdr *nlh;
	bool ok;

	if (!sock || !p || !nlw_ifname_valid(p->name) || p->vni >= (1U << 24) || p->dev < 0)
		return -EINVAL;
	if ((p->has_local || p->has_group) && p->family != AF_INET && p->family != AF_INET6)
		return -EINVAL;
	nlh = newlink_start(&req, p->name, p->mtu, p->mac, false, &ok);
	ok = ok && linkinfo_start(nlh, "vxlan", &info, &data) &&
	     nlw_put_u32(nlh, IFLA_VXLAN_ID, p->vni) && put_vxlan_addrs(nlh, p) &&
	     nlw_put_u8(nlh, IFLA_VXLAN_LEARNING, p->learning);
	if (ok && p->dev)
		ok = nlw_put_u32(nlh, IFLA_VXLAN_LINK, (uint32_t)p->dev);
	if (ok && p->port)
		ok = nlw_put_u16(nlh, IFLA_VXLAN_PORT, htons(p->port));
	if (!ok)
		return -EMSGSIZE;
	linkinfo_end(nlh, info, data);
	return nlw_talk(sock, nlh, NULL, NULL);
}
