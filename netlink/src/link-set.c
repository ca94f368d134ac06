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

static bool put_inet_conf(struct nlmsghdr *nlh, const struct nlw_link_conf *c)
{
	struct nlattr *af, *conf;

	af = nlw_nest_start(nlh, AF_INET);
	conf = af ? nlw_nest_start(nlh, IFLA_INET_CONF) : NULL;
	if (!conf)
		return false;
	for (unsigned i = 0; i < c->n_inet; i++)
		if (!nlw_put_u32(nlh, c->inet[i].id, c->inet[i].value))
			return false;
	nlw_nest_end(nlh, conf);
	nlw_nest_end(nlh, af);
	return true;
}

static bool put_af_spec(struct nlmsghdr *nlh, const struct nlw_link_conf *c)
{
	struct nlattr *spec = nlw_nest_start(nlh, IFLA_AF_SPEC), *af;

	if (!spec || (c->n_inet > 0 && !put_inet_conf(nlh, c)))
		return false;
	if (c->inet6_addr_gen_mode >= 0) {
		af = nlw_nest_start(nlh, AF_INET6);
		if (!af ||
		    !nlw_put_u8(nlh, IFLA_INET6_ADDR_GEN_MODE, (uint8_t)c->inet6_addr_gen_mode))
			return false;
		nlw_nest_end(nlh, af);
	}
	nlw_nest_end(nlh, spec);
	return true;
}

static bool link_conf_valid(const struct nlw_link_conf *c)
{
	if (!c || c->n_inet > NLW_INET_CONF_MAX || c->inet6_addr_gen_mode > 255)
		return false;
	if (c->alias && strlen(c->alias) >= NLW_ALIAS_MAX)
		return false;
	for (unsigned i = 0; i < c->n_inet; i++)
		if (c->inet[i].id == 0)
			return false;
	return c->alias || c->n_inet > 0 || c->inet6_addr_gen_mode >= 0;
}

int nlw_link_set_conf(struct nlw_sock *sock, int ifindex, const struct nlw_link_conf *c)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0 || !link_conf_valid(c))
		return -EINVAL;
	nlh = setlink_start(&req, ifindex, 0, 0);
	if (c->alias && !nlw_put(nlh, IFLA_IFALIAS, strlen(c->alias), c->alias))
		return -EMSGSIZE;
	if ((c->n_inet > 0 || c->inet6_addr_gen_mode >= 0) && !put_af_spec(nlh, c))
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
