/* SPDX-License-Identifier: Apache-2.0 */
/* Interface addresses. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/addr.h"
#include "nlw/parse.h"

static bool prefix_valid(const struct ip_prefix *p)
{
	return p && (p->family == AF_INET || p->family == AF_INET6) &&
	       p->prefixlen <= ip_family_bits(p->family);
}

static void v4_broadcast(const struct ip_prefix *p, union ip_addr *ret)
{
	uint32_t host = p->prefixlen == 0 ? 0xffffffffu : (0xffffffffu >> p->prefixlen);

	ret->in.s_addr = p->addr.in.s_addr | htonl(host);
}

static struct nlmsghdr *addr_req(union nlw_req *req, uint16_t type, uint16_t flags, int ifindex,
				 const struct ip_prefix *p, bool *ok)
{
	struct ifaddrmsg *ifa;
	struct nlmsghdr *nlh;
	size_t len = ip_addr_len(p->family);

	nlh = nlw_req_init(req, type, flags, sizeof(*ifa), (void **)&ifa);
	ifa->ifa_family = (uint8_t)p->family;
	ifa->ifa_prefixlen = p->prefixlen;
	ifa->ifa_index = (uint32_t)ifindex;
	/* No peer: IFA_LOCAL and IFA_ADDRESS are the same, as ip-address sends them. */
	*ok = nlw_put(nlh, IFA_LOCAL, len, &p->addr) && nlw_put(nlh, IFA_ADDRESS, len, &p->addr);
	return nlh;
}

int nlw_addr_add(struct nlw_sock *sock, int ifindex, const struct ip_prefix *addr,
		 const struct nlw_addr_opts *opts)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	uint32_t flags = 0;
	bool ok;

	if (!sock || ifindex <= 0 || !prefix_valid(addr))
		return -EINVAL;
	nlh =
	    addr_req(&req, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, ifindex, addr, &ok);
	if (opts) {
		struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);

		ifa->ifa_scope = opts->scope;
		flags |= (opts->flags & NLW_ADDR_NODAD) ? IFA_F_NODAD : 0;
		flags |= (opts->flags & NLW_ADDR_NOPREFIXROUTE) ? IFA_F_NOPREFIXROUTE : 0;
	}
	if (ok && addr->family == AF_INET && addr->prefixlen < 31) {
		union ip_addr brd;

		v4_broadcast(addr, &brd);
		ok = nlw_put(nlh, IFA_BROADCAST, 4, &brd);
	}
	/* IFA_F_NOPREFIXROUTE does not fit ifa_flags (8 bits): use IFA_FLAGS. */
	if (ok && flags)
		ok = nlw_put_u32(nlh, IFA_FLAGS, flags);
	if (!ok)
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_addr_del(struct nlw_sock *sock, int ifindex, const struct ip_prefix *addr)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	bool ok;

	if (!sock || ifindex <= 0 || !prefix_valid(addr))
		return -EINVAL;
	nlh = addr_req(&req, RTM_DELADDR, NLM_F_ACK, ifindex, addr, &ok);
	if (!ok)
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

static const struct nlw_policy addr_policy[IFA_MAX + 1] = {
    [IFA_ADDRESS] = {NLW_ATTR_BINARY, 4, 16},
    [IFA_LOCAL] = {NLW_ATTR_BINARY, 4, 16},
    [IFA_FLAGS] = {NLW_ATTR_U32, 0, 0},
};

int nlw_addr_parse(const struct nlmsghdr *nlh, struct nlw_addr *ret)
{
	const struct nlattr *tb[IFA_MAX + 1], *a;
	const struct ifaddrmsg *ifa;
	struct nlw_addr out = {0};
	int r;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return -EBADMSG;
	ifa = mnl_nlmsg_get_payload(nlh);
	if ((ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6) ||
	    ifa->ifa_prefixlen > ip_family_bits(ifa->ifa_family))
		return -EBADMSG;
	r = nlw_attr_parse(nlh, sizeof(*ifa), addr_policy, IFA_MAX, tb);
	if (r < 0)
		return r;
	/* IFA_LOCAL is the interface's own address; IFA_ADDRESS is the peer if one is set. */
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!a || mnl_attr_get_payload_len(a) != ip_addr_len(ifa->ifa_family))
		return -EBADMSG;
	out.ifindex = (int)ifa->ifa_index;
	out.prefix.family = ifa->ifa_family;
	out.prefix.prefixlen = ifa->ifa_prefixlen;
	memcpy(&out.prefix.addr, mnl_attr_get_payload(a), ip_addr_len(ifa->ifa_family));
	out.scope = ifa->ifa_scope;
	out.flags = tb[IFA_FLAGS] ? mnl_attr_get_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
	*ret = out;
	return 0;
}

struct addr_list {
	int ifindex, family;
	struct nlw_addr *v;
	unsigned n, cap;
};

static void addr_list_reset(void *data)
{
	struct addr_list *l = data;

	l->v = mfree(l->v);
	l->n = l->cap = 0;
}

static int addr_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct addr_list *l = data;
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct nlw_addr a;
	int r;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifa)))
		return -EBADMSG;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 0;
	r = nlw_addr_parse(nlh, &a);
	if (r < 0)
		return r;
	/* Old kernels ignore the filter without strict checking: re-check. */
	if ((l->ifindex && a.ifindex != l->ifindex) || (l->family && a.prefix.family != l->family))
		return 0;
	if (nlw_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = a;
	return 0;
}

int nlw_addr_list(struct nlw_sock *sock, int ifindex, int family, struct nlw_addr **ret,
		  unsigned *ret_n)
{
	union nlw_req req;
	struct ifaddrmsg *ifa;
	struct nlmsghdr *nlh;
	struct addr_list l = {.ifindex = ifindex, .family = family};
	int r;

	if (!sock || ifindex < 0 || !ret || !ret_n ||
	    (family != AF_UNSPEC && family != AF_INET && family != AF_INET6))
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa), (void **)&ifa);
	ifa->ifa_family = (uint8_t)family;
	ifa->ifa_index = (uint32_t)ifindex;
	r = nlw_dump(sock, nlh, addr_list_cb, addr_list_reset, &l);
	if (r < 0) {
		free(l.v);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}

int nlw_addr_dad_state_of(const struct nlw_addr *a, unsigned n)
{
	int tentative = 0;

	for (unsigned i = 0; i < n; i++) {
		if (a[i].prefix.family != AF_INET6)
			continue;
		if (a[i].flags & IFA_F_DADFAILED)
			return -EADDRNOTAVAIL;
		if (a[i].flags & IFA_F_TENTATIVE)
			tentative = 1;
	}
	return tentative;
}

int nlw_addr_dad_state(struct nlw_sock *sock, int ifindex)
{
	_cleanup_free_ struct nlw_addr *a = NULL;
	unsigned n = 0;
	int r;

	r = nlw_addr_list(sock, ifindex, AF_INET6, &a, &n);
	if (r < 0)
		return r;
	return nlw_addr_dad_state_of(a, n);
}
