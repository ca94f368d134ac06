/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Masquerade and MAC spoof-check objects: table, sets, base chains and their
 * single rule, added to the current batch. Pure message building.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge.h>
#include <linux/netlink.h>

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/udata.h>

#include "internal.h"

int nft_add_table(struct pw_nft *nft, uint16_t family)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr *nlh;

	if (!t)
		return -ENOMEM;
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, PW_NFT_TABLE);
	nlh = nft_batch_msg(nft, NFT_MSG_NEWTABLE, family, NLM_F_CREATE);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nft_batch_next(nft);
	nftnl_table_free(t);
	return 0;
}

int nft_batch_new_set(struct pw_nft *nft, struct nftnl_set *s, struct nftnl_udata_buf *u)
{
	struct nlmsghdr *nlh;

	nftnl_set_set_u32(s, NFTNL_SET_ID, nft_next_seq(nft));
	nftnl_set_set_data(s, NFTNL_SET_USERDATA, nftnl_udata_buf_data(u), nftnl_udata_buf_len(u));
	nlh = nft_batch_msg(nft, NFT_MSG_NEWSET, (uint16_t)nftnl_set_get_u32(s, NFTNL_SET_FAMILY),
			    NLM_F_CREATE);
	nftnl_set_nlmsg_build_payload(nlh, s);
	nft_batch_next(nft);
	nftnl_udata_buf_free(u);
	nftnl_set_free(s);
	return 0;
}

int nft_add_set(struct pw_nft *nft, uint16_t family, const char *name, const char *network,
		uint32_t key_type, uint32_t key_len)
{
	struct nftnl_set *s = nft_set_ref(family, name);
	struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
	char comment[PW_NFT_NAME_MAX];
	int r = -ENOMEM;

	if (!s || !u)
		goto fail;
	r = nft_set_comment(network, comment, sizeof(comment));
	if (r < 0)
		goto fail;
	/*
	 * nft prints a plain ifname key byte-reversed unless told it is host
	 * order (its BYTEORDER_HOST_ENDIAN, 1); addresses need no hint.
	 */
	if (key_type == PW_NFT_TYPE_IFNAME &&
	    !nftnl_udata_put_u32(u, NFTNL_UDATA_SET_KEYBYTEORDER, 1)) {
		r = -ENOMEM;
		goto fail;
	}
	if (!nftnl_udata_put_strz(u, NFTNL_UDATA_SET_COMMENT, comment)) {
		r = -ENAMETOOLONG;
		goto fail;
	}
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, key_type);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, key_len);
	return nft_batch_new_set(nft, s, u);
fail:
	nftnl_udata_buf_free(u);
	if (s)
		nftnl_set_free(s);
	return r;
}

/* Base chain (created if missing) plus a flush of its rules, in the batch. */
int nft_batch_flush_chain(struct pw_nft *nft, uint16_t family, const char *name)
{
	struct nftnl_rule *flush = nftnl_rule_alloc();
	struct nlmsghdr *nlh;

	if (!flush)
		return -ENOMEM;
	/* DELRULE with only the chain set flushes it. */
	nftnl_rule_set_str(flush, NFTNL_RULE_TABLE, PW_NFT_TABLE);
	nftnl_rule_set_str(flush, NFTNL_RULE_CHAIN, name);
	nlh = nft_batch_msg(nft, NFT_MSG_DELRULE, family, 0);
	nftnl_rule_nlmsg_build_payload(nlh, flush);
	nft_batch_next(nft);
	nftnl_rule_free(flush);
	return 0;
}

int nft_add_base_chain(struct pw_nft *nft, uint16_t family, const char *name, const char *type,
		       uint32_t hook, int32_t prio)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;

	if (!c)
		return -ENOMEM;
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, PW_NFT_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	if (type) {
		nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
		nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, prio);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	}
	nlh = nft_batch_msg(nft, NFT_MSG_NEWCHAIN, family, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nft_batch_next(nft);
	nftnl_chain_free(c);
	/* Flushed: the rule added after it is the only one. */
	return nft_batch_flush_chain(nft, family, name);
}

int nft_expr_add(struct nftnl_rule *r, struct nftnl_expr *e)
{
	if (!e)
		return -ENOMEM;
	nftnl_rule_add_expr(r, e);
	return 0;
}

int nft_expr_meta(struct nftnl_rule *r, uint32_t key, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, dreg);
	}
	return nft_expr_add(r, e);
}

int nft_expr_payload(struct nftnl_rule *r, uint32_t base, uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	}
	return nft_expr_add(r, e);
}

int nft_expr_cmp(struct nftnl_rule *r, uint32_t op, const void *data, uint32_t len)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
		nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, len);
	}
	return nft_expr_add(r, e);
}

int nft_expr_bitwise(struct nftnl_rule *r, const void *mask, uint32_t len)
{
	static const uint8_t zero[16];
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask, len);
		nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, zero, len);
	}
	return nft_expr_add(r, e);
}

static int lookup(struct nftnl_rule *r, const char *set, uint32_t sreg, bool invert)
{
	struct nftnl_expr *e = nftnl_expr_alloc("lookup");

	if (e) {
		nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
		if (invert)
			nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, NFT_LOOKUP_F_INV);
	}
	return nft_expr_add(r, e);
}

/* daddr != prefix: load, mask, compare. */
static int daddr_not_in(struct nftnl_rule *r, const struct ip_prefix *p)
{
	uint32_t alen = (uint32_t)ip_addr_len(p->family);
	uint32_t off = p->family == AF_INET ? 16 : 24;
	struct ip_prefix net = *p, mask = {.family = p->family};
	int ret;

	memset(mask.addr.bytes, 0xff, sizeof(mask.addr.bytes));
	mask.prefixlen = p->prefixlen;
	ip_prefix_mask(&mask);
	ip_prefix_mask(&net);
	ret = nft_expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, off, alen, NFT_REG_1);
	if (ret >= 0 && p->prefixlen < ip_family_bits(p->family))
		ret = nft_expr_bitwise(r, mask.addr.bytes, alen);
	if (ret >= 0)
		ret = nft_expr_cmp(r, NFT_CMP_NEQ, net.addr.bytes, alen);
	return ret;
}

static int masq_exprs(struct nftnl_rule *r, const char *set, const struct ip_prefix *subnet)
{
	struct ip_prefix mcast = {.family = subnet->family};
	uint8_t proto = subnet->family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6;
	uint32_t alen = (uint32_t)ip_addr_len(subnet->family);
	uint32_t soff = subnet->family == AF_INET ? 12 : 8;
	int ret;

	if (subnet->family == AF_INET) {
		mcast.addr.bytes[0] = 224; /* 224.0.0.0/4 */
		mcast.prefixlen = 4;
	} else {
		mcast.addr.bytes[0] = 0xff; /* ff00::/8 */
		mcast.prefixlen = 8;
	}
	/* An inet table needs the family check before any network-header load. */
	ret = nft_expr_meta(r, NFT_META_NFPROTO, NFT_REG_1);
	if (ret >= 0)
		ret = nft_expr_cmp(r, NFT_CMP_EQ, &proto, 1);
	if (ret >= 0)
		ret = nft_expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, soff, alen, NFT_REG_1);
	if (ret >= 0)
		ret = lookup(r, set, NFT_REG_1, false);
	if (ret >= 0)
		ret = daddr_not_in(r, subnet);
	if (ret >= 0)
		ret = daddr_not_in(r, &mcast);
	if (ret >= 0)
		ret = nft_expr_add(r, nftnl_expr_alloc("masq"));
	return ret;
}

static int spoof_exprs(struct nftnl_rule *r, const char *ports, const char *allowed)
{
	struct nftnl_expr *verdict;
	int ret;

	ret = nft_expr_meta(r, NFT_META_IIFNAME, NFT_REG_1);
	if (ret >= 0)
		ret = lookup(r, ports, NFT_REG_1, false);
	/* Concatenation iifname . ether saddr: 16 bytes, then 6 (padded to 8). */
	if (ret >= 0)
		ret = nft_expr_meta(r, NFT_META_IIFNAME, NFT_REG32_00);
	if (ret >= 0)
		ret = nft_expr_payload(r, NFT_PAYLOAD_LL_HEADER, 6, 6, NFT_REG32_04);
	if (ret >= 0)
		ret = lookup(r, allowed, NFT_REG32_00, true);
	if (ret < 0)
		return ret;
	verdict = nftnl_expr_alloc("immediate");
	if (verdict) {
		nftnl_expr_set_u32(verdict, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(verdict, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
	}
	return nft_expr_add(r, verdict);
}

int nft_add_rule(struct pw_nft *nft, uint16_t family, const char *chain,
		 int (*build)(struct nftnl_rule *, const void *), const void *arg)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr *nlh;
	int ret;

	if (!r)
		return -ENOMEM;
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, PW_NFT_TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, family);
	ret = build(r, arg);
	if (ret >= 0) {
		nlh = nft_batch_msg(nft, NFT_MSG_NEWRULE, family, NLM_F_CREATE | NLM_F_APPEND);
		nftnl_rule_nlmsg_build_payload(nlh, r);
		nft_batch_next(nft);
	}
	nftnl_rule_free(r);
	return ret;
}

struct masq_arg {
	const char *set;
	const struct ip_prefix *subnet;
};

static int build_masq(struct nftnl_rule *r, const void *arg)
{
	const struct masq_arg *a = arg;

	return masq_exprs(r, a->set, a->subnet);
}

int nft_add_masq_rule(struct pw_nft *nft, const char *chain, const char *set,
		      const struct ip_prefix *subnet)
{
	struct masq_arg a = {.set = set, .subnet = subnet};

	return nft_add_rule(nft, NFPROTO_INET, chain, build_masq, &a);
}

struct spoof_arg {
	const char *ports, *allowed;
};

static int build_spoof(struct nftnl_rule *r, const void *arg)
{
	const struct spoof_arg *a = arg;

	return spoof_exprs(r, a->ports, a->allowed);
}

int nft_add_spoof_rule(struct pw_nft *nft, const char *chain, const char *ports,
		       const char *allowed)
{
	struct spoof_arg a = {.ports = ports, .allowed = allowed};

	return nft_add_rule(nft, NFPROTO_BRIDGE, chain, build_spoof, &a);
}
