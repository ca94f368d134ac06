/* SPDX-License-Identifier: Apache-2.0 */
/* Neighbour entries. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "internal.h"
#include "nlw/neigh.h"

/* The request for one entry, or NULL when NDA_DST does not fit. */
static struct nlmsghdr *neigh_req(union nlw_req *req, uint16_t type, uint16_t flags, int ifindex,
				  int family, const union ip_addr *addr)
{
	struct nlmsghdr *nlh;
	struct ndmsg *nd;

	nlh = nlw_req_init(req, type, flags | NLM_F_ACK, sizeof(*nd), (void **)&nd);
	nd->ndm_family = (uint8_t)family;
	nd->ndm_ifindex = ifindex;
	return nlw_put(nlh, NDA_DST, ip_addr_len(family), addr) ? nlh : NULL;
}

static bool neigh_args_valid(struct nlw_sock *sock, int ifindex, int family,
			     const union ip_addr *addr)
{
	return sock && ifindex > 0 && addr && (family == AF_INET || family == AF_INET6);
}

int nlw_neigh_add_permanent(struct nlw_sock *sock, int ifindex, int family,
			    const union ip_addr *addr, const unsigned char mac[6])
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct ndmsg *nd;

	if (!neigh_args_valid(sock, ifindex, family, addr) || !mac)
		return -EINVAL;
	nlh = neigh_req(&req, RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_REPLACE, ifindex, family, addr);
	if (!nlh || !nlw_put(nlh, NDA_LLADDR, 6, mac))
		return -EMSGSIZE;
	nd = mnl_nlmsg_get_payload(nlh);
	nd->ndm_state = NUD_PERMANENT;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_neigh_del(struct nlw_sock *sock, int ifindex, int family, const union ip_addr *addr)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!neigh_args_valid(sock, ifindex, family, addr))
		return -EINVAL;
	nlh = neigh_req(&req, RTM_DELNEIGH, 0, ifindex, family, addr);
	if (!nlh)
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

static const struct nlw_policy neigh_policy[NDA_MAX + 1] = {
    [NDA_DST] = {NLW_ATTR_BINARY, 4, 16},
    [NDA_LLADDR] = {NLW_ATTR_BINARY, 0, 32},
};

struct neigh_get {
	unsigned char *mac;
	unsigned state;
	bool found;
};

static int neigh_get_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NDA_MAX + 1];
	const struct ndmsg *nd = mnl_nlmsg_get_payload(nlh);
	struct neigh_get *g = data;
	int r;

	if (nlh->nlmsg_type != RTM_NEWNEIGH || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nd)))
		return -EBADMSG;
	r = nlw_attr_parse(nlh, sizeof(*nd), neigh_policy, NDA_MAX, tb);
	if (r < 0)
		return r;
	memset(g->mac, 0, 6);
	if (tb[NDA_LLADDR] && mnl_attr_get_payload_len(tb[NDA_LLADDR]) == 6)
		memcpy(g->mac, mnl_attr_get_payload(tb[NDA_LLADDR]), 6);
	g->state = nd->ndm_state;
	g->found = true;
	return 0;
}

int nlw_neigh_get(struct nlw_sock *sock, int ifindex, int family, const union ip_addr *addr,
		  unsigned char ret_mac[6], unsigned *ret_state)
{
	struct neigh_get g = {.mac = ret_mac};
	union nlw_req req;
	struct nlmsghdr *nlh;
	int r;

	if (!neigh_args_valid(sock, ifindex, family, addr) || !ret_mac || !ret_state)
		return -EINVAL;
	nlh = neigh_req(&req, RTM_GETNEIGH, 0, ifindex, family, addr);
	if (!nlh)
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, neigh_get_cb, &g);
	if (r < 0)
		return r;
	if (!g.found)
		return -ENOENT;
	*ret_state = g.state;
	return 0;
}

int nlw_neigh_set_proxy_delay(struct nlw_sock *sock, int family, int ifindex, unsigned ms)
{
	const char *table = family == AF_INET ? "arp_cache" : "ndisc_cache";
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct ndtmsg *ndt;
	struct nlattr *parms;

	if (!sock || ifindex <= 0 || (family != AF_INET && family != AF_INET6))
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_SETNEIGHTBL, NLM_F_ACK, sizeof(*ndt), (void **)&ndt);
	ndt->ndtm_family = (uint8_t)family;
	if (!nlw_put_str(nlh, NDTA_NAME, table) || !(parms = nlw_nest_start(nlh, NDTA_PARMS)))
		return -EMSGSIZE;
	if (!nlw_put_u32(nlh, NDTPA_IFINDEX, (uint32_t)ifindex) ||
	    !nlw_put(nlh, NDTPA_PROXY_DELAY, sizeof(uint64_t), &(uint64_t){ms}))
		return -EMSGSIZE;
	nlw_nest_end(nlh, parms);
	return nlw_talk(sock, nlh, NULL, NULL);
}
