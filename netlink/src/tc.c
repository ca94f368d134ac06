/* SPDX-License-Identifier: Apache-2.0 */
/* Traffic control messages: qdiscs, htb classes, u32 filters, IFB links. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>
#include <net/if.h>

#include "internal.h"
#include "nlw/link.h"
#include "nlw/parse.h"
#include "nlw/tc.h"

#define CREATE_FLAGS (NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK)

/* The tc object a request names: its link, handle and parent. */
static struct tcmsg tc_obj(int ifindex, uint32_t handle, uint32_t parent)
{
	return (struct tcmsg){.tcm_family = AF_UNSPEC,
			      .tcm_ifindex = ifindex,
			      .tcm_handle = handle,
			      .tcm_parent = parent};
}

static struct nlmsghdr *tc_start(union nlw_req *req, uint16_t type, uint16_t flags,
				 struct tcmsg obj)
{
	struct tcmsg *tcm;
	struct nlmsghdr *nlh = nlw_req_init(req, type, flags, sizeof(*tcm), (void **)&tcm);

	*tcm = obj;
	return nlh;
}

static void ratespec(struct tc_ratespec *r, uint64_t rate)
{
	memset(r, 0, sizeof(*r));
	r->rate = rate >= (1ull << 32) ? ~0u : (uint32_t)rate;
}

int nlw_qdisc_add_tbf(struct nlw_sock *sock, int ifindex, uint32_t handle, uint32_t parent,
		      const struct nlw_tbf *t)
{
	union nlw_req req;
	struct tc_tbf_qopt q;
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	bool ok;

	if (!sock || ifindex <= 0 || !t || !t->rate)
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	ratespec(&q.rate, t->rate);
	q.limit = t->limit;
	q.buffer = t->buffer;
	nlh = tc_start(&req, RTM_NEWQDISC, CREATE_FLAGS, tc_obj(ifindex, handle, parent));
	ok = nlw_put_str(nlh, TCA_KIND, "tbf");
	opts = ok ? nlw_nest_start(nlh, TCA_OPTIONS) : NULL;
	ok = opts && nlw_put(nlh, TCA_TBF_PARMS, sizeof(q), &q);
	if (ok && t->rate >= (1ull << 32))
		ok = nlw_put(nlh, TCA_TBF_RATE64, sizeof(t->rate), &t->rate);
	if (!ok)
		return -EMSGSIZE;
	nlw_nest_end(nlh, opts);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_qdisc_add_ingress(struct nlw_sock *sock, int ifindex)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0)
		return -EINVAL;
	nlh = tc_start(&req, RTM_NEWQDISC, CREATE_FLAGS,
		       tc_obj(ifindex, NLW_TC_HANDLE(0xffff, 0), NLW_TC_H_INGRESS));
	if (!nlw_put_str(nlh, TCA_KIND, "ingress"))
		return -EMSGSIZE;
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_qdisc_add_htb(struct nlw_sock *sock, int ifindex, uint32_t handle, uint32_t parent,
		      uint32_t default_minor)
{
	struct tc_htb_glob g = {.version = 3, .rate2quantum = 10, .defcls = default_minor};
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	bool ok;

	if (!sock || ifindex <= 0)
		return -EINVAL;
	nlh = tc_start(&req, RTM_NEWQDISC, CREATE_FLAGS, tc_obj(ifindex, handle, parent));
	ok = nlw_put_str(nlh, TCA_KIND, "htb");
	opts = ok ? nlw_nest_start(nlh, TCA_OPTIONS) : NULL;
	if (!opts || !nlw_put(nlh, TCA_HTB_INIT, sizeof(g), &g))
		return -EMSGSIZE;
	nlw_nest_end(nlh, opts);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_class_add_htb(struct nlw_sock *sock, int ifindex, const struct nlw_htb_class *c)
{
	struct tc_htb_opt o;
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	bool ok;

	if (!sock || ifindex <= 0 || !c || !c->rate)
		return -EINVAL;
	memset(&o, 0, sizeof(o));
	ratespec(&o.rate, c->rate);
	o.ceil = o.rate;
	o.buffer = o.cbuffer = c->buffer;
	nlh = tc_start(&req, RTM_NEWTCLASS, CREATE_FLAGS, tc_obj(ifindex, c->classid, c->parent));
	ok = nlw_put_str(nlh, TCA_KIND, "htb");
	opts = ok ? nlw_nest_start(nlh, TCA_OPTIONS) : NULL;
	ok = opts && nlw_put(nlh, TCA_HTB_PARMS, sizeof(o), &o);
	if (ok && c->rate >= (1ull << 32))
		ok = nlw_put(nlh, TCA_HTB_RATE64, sizeof(c->rate), &c->rate) &&
		     nlw_put(nlh, TCA_HTB_CEIL64, sizeof(c->rate), &c->rate);
	if (!ok)
		return -EMSGSIZE;
	nlw_nest_end(nlh, opts);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_qdisc_del(struct nlw_sock *sock, int ifindex, uint32_t parent)
{
	union nlw_req req;
	struct nlmsghdr *nlh;

	if (!sock || ifindex <= 0)
		return -EINVAL;
	nlh = tc_start(&req, RTM_DELQDISC, NLM_F_ACK, tc_obj(ifindex, 0, parent));
	return nlw_talk(sock, nlh, NULL, NULL);
}

/*
 * A u32 selector: flags and up to 4 keys (mask/value in network order, word
 * offset). Laid out for the kernel (struct tc_u32_sel, its keys[] after it)
 * only when the attribute is written: a struct cannot hold a flexible
 * array member anywhere but at its end.
 */
struct u32_sel {
	unsigned char flags, nkeys;
	struct tc_u32_key keys[4];
};

/* A u32 filter: where it hangs, what it matches, where it sends. */
struct u32_filter {
	uint32_t parent;
	uint16_t prio, proto;
	struct u32_sel sel;
	uint32_t classid;
	int to_ifindex; /* > 0: mirred redirect to this link */
};

static bool put_mirred(struct nlmsghdr *nlh, int to_ifindex)
{
	struct tc_mirred m = {
	    .action = TC_ACT_STOLEN, .eaction = TCA_EGRESS_REDIR, .ifindex = (uint32_t)to_ifindex};
	struct nlattr *acts, *act, *aopts;

	acts = nlw_nest_start(nlh, TCA_U32_ACT);
	act = acts ? nlw_nest_start(nlh, 1) : NULL;
	if (!act || !nlw_put_str(nlh, TCA_ACT_KIND, "mirred"))
		return false;
	aopts = nlw_nest_start(nlh, TCA_ACT_OPTIONS);
	if (!aopts || !nlw_put(nlh, TCA_MIRRED_PARMS, sizeof(m), &m))
		return false;
	nlw_nest_end(nlh, aopts);
	nlw_nest_end(nlh, act);
	nlw_nest_end(nlh, acts);
	return true;
}

static int add_u32(struct nlw_sock *sock, int ifindex, const struct u32_filter *f)
{
	const struct u32_sel *s = &f->sel;
	struct tc_u32_sel sel = {.flags = s->flags, .nkeys = s->nkeys};
	unsigned char buf[sizeof(sel) + sizeof(s->keys)];
	size_t sel_len = sizeof(sel) + s->nkeys * sizeof(s->keys[0]);
	struct tcmsg obj = tc_obj(ifindex, 0, f->parent);
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct nlattr *opts;
	bool ok;

	memcpy(buf, &sel, sizeof(sel));
	memcpy(buf + sizeof(sel), s->keys, s->nkeys * sizeof(s->keys[0]));
	obj.tcm_info = ((uint32_t)f->prio << 16) | htons(f->proto);
	nlh = tc_start(&req, RTM_NEWTFILTER, CREATE_FLAGS, obj);
	ok = nlw_put_str(nlh, TCA_KIND, "u32");
	opts = ok ? nlw_nest_start(nlh, TCA_OPTIONS) : NULL;
	ok = opts && nlw_put_u32(nlh, TCA_U32_CLASSID, f->classid) &&
	     nlw_put(nlh, TCA_U32_SEL, sel_len, buf);
	if (ok && f->to_ifindex > 0)
		ok = put_mirred(nlh, f->to_ifindex);
	if (!ok)
		return -EMSGSIZE;
	nlw_nest_end(nlh, opts);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_filter_add_redirect(struct nlw_sock *sock, int ifindex, uint32_t parent, uint16_t prio,
			    int to_ifindex)
{
	/* One all-zero key: matches everything. */
	struct u32_filter f = {.parent = parent,
			       .prio = prio,
			       .proto = ETH_P_ALL,
			       .sel = {.flags = TC_U32_TERMINAL, .nkeys = 1},
			       .classid = NLW_TC_HANDLE(1, 1),
			       .to_ifindex = to_ifindex};

	if (!sock || ifindex <= 0 || to_ifindex <= 0)
		return -EINVAL;
	return add_u32(sock, ifindex, &f);
}

/* The keys matching prefix at the address of header offset off: one per word, at least one. */
static void prefix_keys(const struct ip_prefix *prefix, unsigned off, struct u32_sel *s)
{
	unsigned bits = prefix->prefixlen;
	struct ip_prefix net = *prefix;

	ip_prefix_mask(&net);
	for (unsigned w = 0; w < ip_addr_len(prefix->family) / 4 && (bits || w == 0); w++) {
		struct tc_u32_key *k = &s->keys[s->nkeys++];
		unsigned b = bits > 32 ? 32 : bits;
		uint32_t v;

		memcpy(&v, net.addr.bytes + 4 * w, 4);
		k->mask = b ? htonl(0xffffffffu << (32 - b)) : 0;
		k->val = v & k->mask;
		k->off = (int)(off + 4 * w);
		bits -= b;
	}
}

int nlw_filter_add_prefix(struct nlw_sock *sock, int ifindex, const struct nlw_prefix_filter *pf)
{
	const struct ip_prefix *prefix = pf ? pf->prefix : NULL;
	bool v4 = prefix && prefix->family == AF_INET;
	struct u32_filter f = {.parent = pf ? pf->parent : 0,
			       .prio = pf ? pf->prio : 0,
			       .proto = v4 ? ETH_P_IP : ETH_P_IPV6,
			       .sel = {.flags = TC_U32_TERMINAL},
			       .classid = pf ? pf->classid : 0};

	if (!sock || ifindex <= 0 || !prefix || (!v4 && prefix->family != AF_INET6))
		return -EINVAL;
	prefix_keys(prefix, v4 ? (pf->match_src ? 12 : 16) : (pf->match_src ? 8 : 24), &f.sel);
	return add_u32(sock, ifindex, &f);
}

int nlw_link_add_ifb(struct nlw_sock *sock, const char *name, unsigned mtu)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	struct nlattr *info;
	bool ok;

	if (!sock || !nlw_ifname_valid(name))
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_NEWLINK, CREATE_FLAGS, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	ok = nlw_put_str(nlh, IFLA_IFNAME, name);
	if (ok && mtu)
		ok = nlw_put_u32(nlh, IFLA_MTU, mtu);
	info = ok ? nlw_nest_start(nlh, IFLA_LINKINFO) : NULL;
	if (!info || !nlw_put_str(nlh, IFLA_INFO_KIND, "ifb"))
		return -EMSGSIZE;
	nlw_nest_end(nlh, info);
	return nlw_talk(sock, nlh, NULL, NULL);
}

/* ---- reading qdiscs back ---- */

struct qdisc_list {
	int ifindex;
	struct nlw_qdisc *v;
	unsigned n, cap;
};

static const struct nlw_policy tca_policy[TCA_MAX + 1] = {
    [TCA_KIND] = {.kind = NLW_ATTR_STRING, .maxlen = NLW_TC_KIND_MAX},
    [TCA_OPTIONS] = {.kind = NLW_ATTR_NESTED},
};

static const struct nlw_policy tbf_policy[TCA_TBF_MAX + 1] = {
    [TCA_TBF_PARMS] = {.kind = NLW_ATTR_BINARY, .minlen = sizeof(struct tc_tbf_qopt)},
    [TCA_TBF_RATE64] = {.kind = NLW_ATTR_U64},
};

static int parse_tbf(const struct nlattr *opts, struct nlw_qdisc *q)
{
	const struct nlattr *tb[TCA_TBF_MAX + 1];
	const struct tc_tbf_qopt *p;
	int r = nlw_attr_parse_nested(opts, tbf_policy, TCA_TBF_MAX, tb);

	if (r < 0 || !tb[TCA_TBF_PARMS])
		return r;
	p = mnl_attr_get_payload(tb[TCA_TBF_PARMS]);
	q->has_tbf = true;
	q->tbf.rate = tb[TCA_TBF_RATE64] ? mnl_attr_get_u64(tb[TCA_TBF_RATE64]) : p->rate.rate;
	q->tbf.buffer = p->buffer;
	q->tbf.limit = p->limit;
	return 0;
}

static int qdisc_cb(const struct nlmsghdr *nlh, void *data)
{
	struct qdisc_list *l = data;
	const struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[TCA_MAX + 1];
	struct nlw_qdisc q;
	int r;

	if (nlh->nlmsg_type != RTM_NEWQDISC || nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*tcm)) ||
	    tcm->tcm_ifindex != l->ifindex)
		return 0;
	r = nlw_attr_parse(nlh, sizeof(*tcm), tca_policy, TCA_MAX, tb);
	if (r < 0)
		return r;
	memset(&q, 0, sizeof(q));
	q.handle = tcm->tcm_handle;
	q.parent = tcm->tcm_parent;
	if (tb[TCA_KIND])
		nlw_attr_strcpy(tb[TCA_KIND], q.kind, sizeof(q.kind));
	if (strcmp(q.kind, "tbf") == 0 && tb[TCA_OPTIONS] &&
	    (r = parse_tbf(tb[TCA_OPTIONS], &q)) < 0)
		return r;
	if (nlw_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = q;
	return 0;
}

static void qdisc_reset(void *data)
{
	struct qdisc_list *l = data;

	l->v = mfree(l->v);
	l->n = l->cap = 0;
}

int nlw_qdisc_list(struct nlw_sock *sock, int ifindex, struct nlw_qdisc **ret, unsigned *ret_n)
{
	struct qdisc_list l = {.ifindex = ifindex};
	union nlw_req req;
	struct nlmsghdr *nlh;
	int r;

	if (!sock || ifindex <= 0 || !ret || !ret_n)
		return -EINVAL;
	nlh = tc_start(&req, RTM_GETQDISC, NLM_F_DUMP, tc_obj(ifindex, 0, 0));
	r = nlw_dump(sock, nlh, qdisc_cb, qdisc_reset, &l);
	if (r < 0) {
		free(l.v);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}
