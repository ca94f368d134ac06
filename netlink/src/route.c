/* SPDX-License-Identifier: Apache-2.0 */
/* Routes. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/parse.h"
#include "nlw/route.h"

static bool route_valid(const struct nlw_route *r)
{
	int f = r->dst.family;

	if (f != AF_INET && f != AF_INET6)
		return false;
	if (r->dst.prefixlen > ip_family_bits(f))
		return false;
	if (r->oif < 0 || r->type > RTN_MAX)
		return false;
	/* A blackhole/unreachable/prohibit route goes nowhere: no gateway, no device. */
	if (r->type && r->type != RTN_UNICAST && (r->has_gw || r->oif))
		return false;
	return true;
}

static bool put_metrics(struct nlmsghdr *nlh, const struct nlw_route *r)
{
	struct nlattr *m;

	if (!r->mtu && !r->advmss)
		return true;
	m = nlw_nest_start(nlh, RTA_METRICS);
	if (!m)
		return false;
	if (r->mtu && !nlw_put_u32(nlh, RTAX_MTU, r->mtu))
		return false;
	if (r->advmss && !nlw_put_u32(nlh, RTAX_ADVMSS, r->advmss))
		return false;
	nlw_nest_end(nlh, m);
	return true;
}

static bool put_route_attrs(struct nlmsghdr *nlh, const struct nlw_route *r, uint32_t table)
{
	size_t len = ip_addr_len(r->dst.family);

	if (r->dst.prefixlen && !nlw_put(nlh, RTA_DST, len, &r->dst.addr))
		return false;
	if (r->has_gw && !nlw_put(nlh, RTA_GATEWAY, len, &r->gw))
		return false;
	if (r->has_prefsrc && !nlw_put(nlh, RTA_PREFSRC, len, &r->prefsrc))
		return false;
	if (r->oif && !nlw_put_u32(nlh, RTA_OIF, (uint32_t)r->oif))
		return false;
	if (r->priority && !nlw_put_u32(nlh, RTA_PRIORITY, r->priority))
		return false;
	/* rtm_table is 8 bits; RTA_TABLE carries the full 32-bit id. */
	return nlw_put_u32(nlh, RTA_TABLE, table) && put_metrics(nlh, r);
}

/* Build RTM_NEWROUTE/RTM_DELROUTE. For delete, unset fields stay wildcards. */
static int route_req(union nlw_req *req, uint16_t type, uint16_t flags, const struct nlw_route *r,
		     struct nlmsghdr **ret)
{
	bool del = type == RTM_DELROUTE;
	uint32_t table = r->table ? r->table : RT_TABLE_MAIN;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;

	if (!route_valid(r))
		return -EINVAL;
	nlh = nlw_req_init(req, type, flags | NLM_F_ACK, sizeof(*rtm), (void **)&rtm);
	rtm->rtm_family = (uint8_t)r->dst.family;
	rtm->rtm_dst_len = r->dst.prefixlen;
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = r->protocol ? r->protocol : (del ? RTPROT_UNSPEC : RTPROT_BOOT);
	/* RT_SCOPE_NOWHERE on delete matches a route of any scope (as ip-route does). */
	rtm->rtm_scope = del ? RT_SCOPE_NOWHERE : r->scope;
	rtm->rtm_type = r->type ? r->type : (del ? RTN_UNSPEC : RTN_UNICAST);
	if (r->flags & NLW_ROUTE_ONLINK)
		rtm->rtm_flags |= RTNH_F_ONLINK;
	if (!put_route_attrs(nlh, r, table))
		return -EMSGSIZE;
	*ret = nlh;
	return 0;
}

static int route_change(struct nlw_sock *sock, uint16_t type, uint16_t flags,
			const struct nlw_route *r)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	int ret;

	if (!sock || !r)
		return -EINVAL;
	ret = route_req(&req, type, flags, r, &nlh);
	if (ret < 0)
		return ret;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_route_add(struct nlw_sock *sock, const struct nlw_route *r)
{
	return route_change(sock, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, r);
}

int nlw_route_replace(struct nlw_sock *sock, const struct nlw_route *r)
{
	return route_change(sock, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, r);
}

int nlw_route_append(struct nlw_sock *sock, const struct nlw_route *r)
{
	return route_change(sock, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_APPEND, r);
}

int nlw_route_del(struct nlw_sock *sock, const struct nlw_route *r)
{
	return route_change(sock, RTM_DELROUTE, 0, r);
}

int nlw_route_del_proto(struct nlw_sock *sock, const struct ip_prefix *dst, int oif,
			const unsigned char *protos, size_t n)
{
	struct nlw_route r = {.oif = oif, .type = NLW_ROUTE_UNICAST};

	if (!dst || oif <= 0 || !protos || n == 0)
		return -EINVAL;
	r.dst = *dst;
	for (size_t i = 0; i < n; i++) {
		int ret;

		if (!protos[i])
			return -EINVAL; /* 0 would be a wildcard: any protocol */
		r.protocol = protos[i];
		ret = nlw_route_del(sock, &r);
		if (ret != -ESRCH)
			return ret < 0 ? ret : 1;
	}
	return 0;
}

static const struct nlw_policy route_policy[RTA_MAX + 1] = {
    [RTA_DST] = {NLW_ATTR_BINARY, 4, 16},     [RTA_GATEWAY] = {NLW_ATTR_BINARY, 4, 16},
    [RTA_PREFSRC] = {NLW_ATTR_BINARY, 4, 16}, [RTA_OIF] = {NLW_ATTR_U32, 0, 0},
    [RTA_PRIORITY] = {NLW_ATTR_U32, 0, 0},    [RTA_TABLE] = {NLW_ATTR_U32, 0, 0},
    [RTA_METRICS] = {NLW_ATTR_NESTED, 0, 0},
};

static const struct nlw_policy metrics_policy[RTAX_MAX + 1] = {
    [RTAX_MTU] = {NLW_ATTR_U32, 0, 0},
    [RTAX_ADVMSS] = {NLW_ATTR_U32, 0, 0},
};

/* Copy an address attribute that must be exactly as long as the family's addresses. */
static int get_addr(const struct nlattr *a, int family, union ip_addr *ret)
{
	if (mnl_attr_get_payload_len(a) != ip_addr_len(family))
		return -EBADMSG;
	memset(ret, 0, sizeof(*ret));
	memcpy(ret, mnl_attr_get_payload(a), ip_addr_len(family));
	return 0;
}

static int parse_metrics(const struct nlattr *nest, struct nlw_route *r)
{
	const struct nlattr *tb[RTAX_MAX + 1];
	int ret = nlw_attr_parse_nested(nest, metrics_policy, RTAX_MAX, tb);

	if (ret < 0)
		return ret;
	if (tb[RTAX_MTU])
		r->mtu = mnl_attr_get_u32(tb[RTAX_MTU]);
	if (tb[RTAX_ADVMSS])
		r->advmss = mnl_attr_get_u32(tb[RTAX_ADVMSS]);
	return 0;
}

static int parse_route_attrs(const struct nlattr **tb, struct nlw_route *r)
{
	int f = r->dst.family, ret = 0;

	if (tb[RTA_DST])
		ret = get_addr(tb[RTA_DST], f, &r->dst.addr);
	if (ret == 0 && tb[RTA_GATEWAY]) {
		r->has_gw = true;
		ret = get_addr(tb[RTA_GATEWAY], f, &r->gw);
	}
	if (ret == 0 && tb[RTA_PREFSRC]) {
		r->has_prefsrc = true;
		ret = get_addr(tb[RTA_PREFSRC], f, &r->prefsrc);
	}
	if (ret == 0 && tb[RTA_METRICS])
		ret = parse_metrics(tb[RTA_METRICS], r);
	if (tb[RTA_OIF])
		r->oif = (int)mnl_attr_get_u32(tb[RTA_OIF]);
	if (tb[RTA_PRIORITY])
		r->priority = mnl_attr_get_u32(tb[RTA_PRIORITY]);
	if (tb[RTA_TABLE])
		r->table = mnl_attr_get_u32(tb[RTA_TABLE]);
	return ret;
}

int nlw_route_parse(const struct nlmsghdr *nlh, struct nlw_route *ret)
{
	const struct nlattr *tb[RTA_MAX + 1];
	const struct rtmsg *rtm;
	struct nlw_route r = {0};
	int err;

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return -EBADMSG;
	rtm = mnl_nlmsg_get_payload(nlh);
	if ((rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    rtm->rtm_dst_len > ip_family_bits(rtm->rtm_family))
		return -EBADMSG;
	err = nlw_attr_parse(nlh, sizeof(*rtm), route_policy, RTA_MAX, tb);
	if (err < 0)
		return err;
	r.dst.family = rtm->rtm_family;
	r.dst.prefixlen = rtm->rtm_dst_len;
	r.table = rtm->rtm_table;
	r.scope = rtm->rtm_scope;
	r.protocol = rtm->rtm_protocol;
	r.type = rtm->rtm_type;
	r.flags = (rtm->rtm_flags & RTNH_F_ONLINK) ? NLW_ROUTE_ONLINK : 0;
	err = parse_route_attrs(tb, &r);
	if (err < 0)
		return err;
	*ret = r;
	return 0;
}

struct route_list {
	struct nlw_route_filter f;
	struct nlw_route *v;
	unsigned n, cap;
};

static void route_list_reset(void *data)
{
	struct route_list *l = data;

	l->v = mfree(l->v);
	l->n = l->cap = 0;
}

static bool route_matches(const struct nlw_route_filter *f, const struct nlw_route *r)
{
	return (!f->table || r->table == f->table) &&
	       (!f->protocol || r->protocol == f->protocol) && (!f->oif || r->oif == f->oif) &&
	       (!f->family || r->dst.family == f->family) && (!f->type || r->type == f->type);
}

static int route_list_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct route_list *l = data;
	struct nlw_route r;
	int err;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return -EBADMSG;
	/* An AF_UNSPEC dump also returns other families (e.g. IPMR); skip them. */
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return 0;
	/* Cached (cloned) routes are the kernel's, not configuration. */
	if (rtm->rtm_flags & RTM_F_CLONED)
		return 0;
	err = nlw_route_parse(nlh, &r);
	if (err < 0)
		return err;
	if (!route_matches(&l->f, &r))
		return 0;
	if (nlw_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = r;
	return 0;
}

int nlw_route_list(struct nlw_sock *sock, const struct nlw_route_filter *f, struct nlw_route **ret,
		   unsigned *ret_n)
{
	struct route_list l = {0};
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int err;

	if (!sock || !ret || !ret_n)
		return -EINVAL;
	if (f)
		l.f = *f;
	if (l.f.family != AF_UNSPEC && l.f.family != AF_INET && l.f.family != AF_INET6)
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_GETROUTE, NLM_F_DUMP, sizeof(*rtm), (void **)&rtm);
	rtm->rtm_family = (uint8_t)l.f.family;
	rtm->rtm_protocol = l.f.protocol;
	rtm->rtm_type = l.f.type;
	rtm->rtm_table = l.f.table && l.f.table < 256 ? (uint8_t)l.f.table : RT_TABLE_UNSPEC;
	if (l.f.table && !nlw_put_u32(nlh, RTA_TABLE, l.f.table))
		return -EMSGSIZE;
	if (l.f.oif && !nlw_put_u32(nlh, RTA_OIF, (uint32_t)l.f.oif))
		return -EMSGSIZE;
	err = nlw_dump(sock, nlh, route_list_cb, route_list_reset, &l);
	if (err < 0) {
		free(l.v);
		return err;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}
