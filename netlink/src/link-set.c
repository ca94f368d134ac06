/* SPDX-License-Identifier: Apache-2.0 */
/* Changing existing links (RTM_SETLINK by ifindex) and deleting them. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>

#include "internal.h"
#include "nlw/link.h"

static struct nlmsghdr *setlink_start(union nlw_req *req, int ifindex, unsigned flags,
				      unsigned change)
{
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;

	nlh = nlw_req_init(req, RTM_SETLINK, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	ifi->ifi_change = change;
	return nlh;
}

static int set_flags(struct nlw_sock *sock, int ifindex, unsigned flags, unsigned change)
{
	union nlw_req req;

	if (!sock || ifindex <= 0)
		return -EINVAL;
	return nlw_talk(sock, setlink_start(&req, ifindex, flags, change), NULL, NULL);
}

int nlw_link_set_up(struct nlw_sock *sock, int ifindex)
{
	return set_flags(sock, ifindex, IFF_UP, IFF_UP);
}

int nlw_link_set_down(struct nlw_sock *sock, int ifindex)
{
	return set_flags(sock, ifindex, 0, IFF_UP);
}

int nlw_link_set_promisc(struct nlw_sock *sock, int ifindex, bool on)
{
	return set_flags(sock, ifindex, on ? IFF_PROMISC : 0, IFF_PROMISC);
}

int nlw_link_set_allmulti(struct nlw_sock *sock, int ifindex, bool on)
{
	return set_flags(sock, ifindex, on ? IFF_ALLMULTI : 0, IFF_ALLMULTI);
}

static int set_u32(struct nlw_sock *sock, int ifindex, uint16_t type, uint32_t v)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0)
		return -EINVAL;
	nlh = setlink_start(&req, ifindex, 0, 0);
	if (!nlw_put_u32(nlh, type, v))
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_link_set_master(struct nlw_sock *sock, int ifindex, int master_ifindex)
{
	if (master_ifindex < 0)
		return -EINVAL;
	return set_u32(sock, ifindex, IFLA_MASTER, (uint32_t)master_ifindex);
}

int nlw_link_set_mtu(struct nlw_sock *sock, int ifindex, unsigned mtu)
{
	if (mtu == 0)
		return -EINVAL;
	return set_u32(sock, ifindex, IFLA_MTU, mtu);
}

int nlw_link_set_txqlen(struct nlw_sock *sock, int ifindex, unsigned txqlen)
{
	return set_u32(sock, ifindex, IFLA_TXQLEN, txqlen);
}

int nlw_link_set_mac(struct nlw_sock *sock, int ifindex, const unsigned char mac[NLW_MAC_LEN])
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0 || !mac)
		return -EINVAL;
	nlh = setlink_start(&req, ifindex, 0, 0);
	if (!nlw_put(nlh, IFLA_ADDRESS, NLW_MAC_LEN, mac))
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_link_set_alias(struct nlw_sock *sock, int ifindex, const char *alias)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0 || !alias || strlen(alias) >= NLW_ALIAS_MAX)
		return -EINVAL;
	nlh = setlink_start(&req, ifindex, 0, 0);
	/* Sent without the NUL (as ip-link does); an empty payload clears the alias. */
	if (!nlw_put(nlh, IFLA_IFALIAS, strlen(alias), alias))
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_link_set_name(struct nlw_sock *sock, int ifindex, const char *name)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0 || !nlw_ifname_valid(name))
		return -EINVAL;
	nlh = setlink_start(&req, ifindex, 0, 0);
	if (!nlw_put_str(nlh, IFLA_IFNAME, name))
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_link_set_netns(struct nlw_sock *sock, int ifindex, int netns_fd, const char *new_name)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	bool ok;

	if (!sock || ifindex <= 0 || netns_fd < 0 || (new_name && !nlw_ifname_valid(new_name)))
		return -EINVAL;
	nlh = setlink_start(&req, ifindex, 0, 0);
	ok = nlw_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)netns_fd);
	/* With a netns move, IFLA_IFNAME names the device in the target netns. */
	if (ok && new_name)
		ok = nlw_put_str(nlh, IFLA_IFNAME, new_name);
	if (!ok)
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

static int dellink(struct nlw_sock *sock, int ifindex, const char *name)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	int r;

	nlh = nlw_req_init(&req, RTM_DELLINK, NLM_F_ACK, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	if (name && !nlw_put_str(nlh, IFLA_IFNAME, name))
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, NULL, NULL);
	/* As for GETLINK: an unknown name may come back as -EINVAL. */
	if (r == -EINVAL && name)
		return -ENODEV;
	return r;
}

int nlw_link_del(struct nlw_sock *sock, int ifindex)
{
	if (!sock || ifindex <= 0)
		return -EINVAL;
	return dellink(sock, ifindex, NULL);
}

int nlw_link_del_by_name(struct nlw_sock *sock, const char *name)
{
	if (!sock || !nlw_ifname_valid(name))
		return -EINVAL;
	return dellink(sock, 0, name);
}
