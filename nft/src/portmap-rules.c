/* SPDX-License-Identifier: Apache-2.0 */
/*
 * portmap objects: maps, sets, chains and their rules, added to the current
 * batch. Pure message building (the layout is in pwnft/portmap.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_nat.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>

#include "portmap-internal.h"

#define TYPE_INET_PROTO 12
#define TYPE_INET_SERVICE 13
#define R32(i) ((uint32_t)(NFT_REG32_00 + (i)))

static uint32_t concat(const uint32_t *types, size_t n)
{
	uint32_t t = 0;

	for (size_t i = 0; i < n; i++)
		t = (t << PW_NFT_TYPE_BITS) | types[i];
	return t;
}

/* Key type and length of a set (see pw_nft_portmap_key for the layout). */
static void set_key_type(enum pw_nft_portmap_set which, int family, uint32_t *type, uint32_t *len)
{
	uint32_t a = family == AF_INET ? PW_NFT_TYPE_IPADDR : PW_NFT_TYPE_IP6ADDR;
	uint32_t alen = family == AF_INET ? 4 : 16;
	uint32_t t[4];
	size_t n = 0;

	if (which == PW_PM_HAIRPIN)
		t[n++] = a;
	if (which != PW_PM_HOSTPORTS)
		t[n++] = a;
	t[n++] = TYPE_INET_PROTO;
	t[n++] = TYPE_INET_SERVICE;
	*type = concat(t, n);
	*len = 8 + (uint32_t)(n - 2) * alen;
}

static bool is_map(enum pw_nft_portmap_set which)
{
	return which == PW_PM_HOSTPORTS || which == PW_PM_HOSTIP;
}

int pm_add_set(struct pw_nft *nft, enum pw_nft_portmap_set which, int family)
{
	const char *name = pw_nft_portmap_set_name(which, family);
	struct nftnl_set *s = name ? nft_set_ref(NFPROTO_INET, name) : NULL;
	struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
	uint32_t type, len;

	if (!s || !u || !nftnl_udata_put_strz(u, NFTNL_UDATA_SET_COMMENT, PW_NFT_PORTMAP_COMMENT)) {
		nftnl_udata_buf_free(u);
		if (s)
			nftnl_set_free(s);
		return -ENOMEM;
	}
	set_key_type(which, family, &type, &len);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, type);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, len);
	if (is_map(which)) {
		uint32_t d[2] = {family == AF_INET ? PW_NFT_TYPE_IPADDR : PW_NFT_TYPE_IP6ADDR,
				 TYPE_INET_SERVICE};

		nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_MAP);
		nftnl_set_set_u32(s, NFTNL_SET_DATA_TYPE, concat(d, 2));
		nftnl_set_set_u32(s, NFTNL_SET_DATA_LEN, family == AF_INET ? 8 : 20);
	}
	return nft_batch_new_set(nft, s, u);
}

static int x_lookup(struct nftnl_rule *r, const char *set, bool dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("lookup");

	if (e) {
		nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set);
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, R32(0));
		if (dreg)
			nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_DREG, R32(0));
	}
	return nft_expr_add(r, e);
}

static int x_nfproto(struct nftnl_rule *r, int family)
{
	uint8_t p = family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6;
	int ret = nft_expr_meta(r, NFT_META_NFPROTO, NFT_REG_1);

	return ret < 0 ? ret : nft_expr_cmp(r, NFT_CMP_EQ, &p, 1);
}

/* Load the fields of a key (saddr, daddr, l4proto, th dport) into R32(0...). */
struct key_fields {
	bool saddr, daddr;
};

static int x_key(struct nftnl_rule *r, int family, struct key_fields f)
{
	uint32_t alen = family == AF_INET ? 4 : 16, words = alen / 4, reg = 0;
	uint32_t soff = family == AF_INET ? 12 : 8, doff = family == AF_INET ? 16 : 24;
	int ret = 0;

	if (f.saddr) {
		ret = nft_expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, soff, alen, R32(reg));
		reg += words;
	}
	if (ret >= 0 && f.daddr) {
		ret = nft_expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, doff, alen, R32(reg));
		reg += words;
	}
	if (ret >= 0)
		ret = nft_expr_meta(r, NFT_META_L4PROTO, R32(reg));
	if (ret >= 0)
		ret = nft_expr_payload(r, NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, R32(reg + 1));
	return ret;
}

static int x_dnat(struct nftnl_rule *r, int family)
{
	struct nftnl_expr *e = nftnl_expr_alloc("nat");
	uint32_t preg = family == AF_INET ? R32(1) : R32(4);

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_TYPE, NFT_NAT_DNAT);
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_FAMILY,
				   family == AF_INET ? NFPROTO_IPV4 : NFPROTO_IPV6);
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_REG_ADDR_MIN, R32(0));
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_REG_ADDR_MAX, R32(0));
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_REG_PROTO_MIN, preg);
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_REG_PROTO_MAX, preg);
		nftnl_expr_set_u32(e, NFTNL_EXPR_NAT_FLAGS,
				   NF_NAT_RANGE_MAP_IPS | NF_NAT_RANGE_PROTO_SPECIFIED);
	}
	return nft_expr_add(r, e);
}

/* ct status & dnat != 0 */
static int x_ct_dnat(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("ct");
	uint32_t mask = IPS_DST_NAT, zero = 0;
	int ret;

	if (e) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, NFT_CT_STATUS);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_DREG, NFT_REG_1);
	}
	ret = nft_expr_add(r, e);
	if (ret >= 0)
		ret = nft_expr_bitwise(r, &mask, sizeof(mask));
	return ret < 0 ? ret : nft_expr_cmp(r, NFT_CMP_NEQ, &zero, sizeof(zero));
}

static int x_jump_local(struct nftnl_rule *r)
{
	struct nftnl_expr *fib = nftnl_expr_alloc("fib"), *imm;
	uint32_t local = RTN_LOCAL;
	int ret;

	if (fib) {
		nftnl_expr_set_u32(fib, NFTNL_EXPR_FIB_DREG, NFT_REG_1);
		nftnl_expr_set_u32(fib, NFTNL_EXPR_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE);
		nftnl_expr_set_u32(fib, NFTNL_EXPR_FIB_FLAGS, NFTA_FIB_F_DADDR);
	}
	ret = nft_expr_add(r, fib);
	if (ret >= 0)
		ret = nft_expr_cmp(r, NFT_CMP_EQ, &local, sizeof(local));
	if (ret < 0)
		return ret;
	imm = nftnl_expr_alloc("immediate");
	if (imm) {
		nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(imm, NFTNL_EXPR_IMM_VERDICT, NFT_JUMP);
		nftnl_expr_set_str(imm, NFTNL_EXPR_IMM_CHAIN, PM_CHAIN_DNAT);
	}
	return nft_expr_add(r, imm);
}

/* One rule of the plan: which chain and what it matches. */
static int build_rule(struct nftnl_rule *r, const void *arg)
{
	const struct pm_rule *pr = arg;
	static const uint8_t lo_mask[4] = {255, 0, 0, 0}, lo_net[4] = {127, 0, 0, 0};
	const char *set = pw_nft_portmap_set_name(pr->set, pr->family);
	int ret = 0;

	if (pr->kind == PM_RULE_JUMP_LOCAL)
		return x_jump_local(r);
	ret = x_nfproto(r, pr->family);
	if (ret >= 0 && pr->kind == PM_RULE_MASQ)
		ret = x_ct_dnat(r);
	if (ret >= 0 && pr->set == PW_PM_LOCALHOST) {
		ret = nft_expr_payload(r, NFT_PAYLOAD_NETWORK_HEADER, 12, 4, NFT_REG_1);
		if (ret >= 0)
			ret = nft_expr_bitwise(r, lo_mask, 4);
		if (ret >= 0)
			ret = nft_expr_cmp(r, NFT_CMP_EQ, lo_net, 4);
	}
	if (ret >= 0)
		ret = x_key(r, pr->family,
			    (struct key_fields){.saddr = pr->set == PW_PM_HAIRPIN,
						.daddr = pr->set != PW_PM_HOSTPORTS});
	if (ret >= 0)
		ret = x_lookup(r, set, pr->kind == PM_RULE_DNAT);
	if (ret >= 0)
		ret = pr->kind == PM_RULE_DNAT ? x_dnat(r, pr->family)
					       : nft_expr_add(r, nftnl_expr_alloc("masq"));
	return ret;
}

int pm_add_rule(struct pw_nft *nft, const struct pm_rule *pr)
{
	return nft_add_rule(nft, NFPROTO_INET, pr->chain, build_rule, pr);
}
