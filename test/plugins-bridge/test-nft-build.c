/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwnft message building: batches recorded (not sent) and decoded back with
 * libnftnl's own parsers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <netinet/in.h>

#include <libmnl/libmnl.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include "pwnft/nft.h"

#define MSG(t) ((NFNL_SUBSYS_NFTABLES << 8) | (t))

static struct ip_prefix pfx(const char *s)
{
	struct ip_prefix p;

	assert_int_equal(ip_prefix_parse(s, &p), 0);
	return p;
}

/* Message types of the recorded batch, in order. Returns the count. */
static size_t batch_types(const struct pw_nft *nft, uint16_t *types, size_t max,
			  const struct nlmsghdr **msgs)
{
	size_t len, n = 0;
	const struct nlmsghdr *nlh = pw_nft_recorded(nft, &len);
	int rem = (int)len;

	assert_non_null(nlh);
	for (; mnl_nlmsg_ok(nlh, rem) && n < max; nlh = mnl_nlmsg_next(nlh, &rem)) {
		msgs[n] = nlh;
		types[n++] = nlh->nlmsg_type;
	}
	return n;
}

static void test_names(void **state)
{
	struct ip_prefix a = pfx("10.1.2.5/24"), b = pfx("fd00::5/64");
	char buf[256];

	(void)state;
	assert_int_equal(pw_nft_masq_set_name("mynet", &a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pods-mynet-10.1.2.0-24");
	assert_int_equal(pw_nft_masq_chain_name("mynet", &b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "masq-mynet-fd00__-64");
	assert_int_equal(pw_nft_masq_set_name("a/b", &a, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pw_nft_masq_set_name("", &a, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pw_nft_masq_set_name("-x", &a, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pw_nft_masq_set_name("mynet", &a, buf, 10), -ENAMETOOLONG);
}

static int comment_cb(const struct nftnl_udata *attr, void *data)
{
	if (nftnl_udata_type(attr) == NFTNL_UDATA_SET_ELEM_COMMENT)
		*(const char **)data = nftnl_udata_get(attr);
	return 0;
}

/* Decode a NEWSETELEM: set name, the one element's key and comment. */
static void assert_elem(const struct nlmsghdr *nlh, const char *set, const void *key,
			size_t key_len, const char *tag)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct nftnl_set_elems_iter *it;
	struct nftnl_set_elem *e;
	const char *comment = NULL;
	const void *k, *u;
	uint32_t klen = 0, ulen = 0;

	assert_int_equal(nftnl_set_elems_nlmsg_parse(nlh, s), 0);
	assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_NAME), set);
	assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_TABLE), "podwire");
	it = nftnl_set_elems_iter_create(s);
	e = nftnl_set_elems_iter_next(it);
	assert_non_null(e);
	k = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &klen);
	assert_int_equal(klen, key_len);
	assert_memory_equal(k, key, key_len);
	u = nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &ulen);
	assert_non_null(u);
	nftnl_udata_parse(u, ulen, comment_cb, &comment);
	assert_non_null(comment);
	assert_string_equal(comment, tag);
	assert_null(nftnl_set_elems_iter_next(it));
	nftnl_set_elems_iter_destroy(it);
	nftnl_set_free(s);
}

static int expr_name_cb(struct nftnl_expr *e, void *data)
{
	char *names = data;

	strcat(names, nftnl_expr_get_str(e, NFTNL_EXPR_NAME));
	strcat(names, " ");
	return 0;
}

static void assert_rule_exprs(const struct nlmsghdr *nlh, const char *chain, const char *want)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	char names[256] = "";

	assert_int_equal(nftnl_rule_nlmsg_parse(nlh, r), 0);
	assert_string_equal(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN), chain);
	nftnl_expr_foreach(r, expr_name_cb, names);
	assert_string_equal(names, want);
	nftnl_rule_free(r);
}

static void test_masq_add_batch(void **state)
{
	struct ip_prefix addrs[] = {pfx("10.1.2.5/24"), pfx("10.1.2.6/24"), pfx("fd00::5/64")};
	static const uint16_t want[] = {
	    NFNL_MSG_BATCH_BEGIN,    MSG(NFT_MSG_NEWTABLE),   MSG(NFT_MSG_NEWSET),
	    MSG(NFT_MSG_NEWCHAIN),   MSG(NFT_MSG_DELRULE),    MSG(NFT_MSG_NEWRULE),
	    MSG(NFT_MSG_NEWSET),     MSG(NFT_MSG_NEWCHAIN),   MSG(NFT_MSG_DELRULE),
	    MSG(NFT_MSG_NEWRULE),    MSG(NFT_MSG_NEWSETELEM), MSG(NFT_MSG_NEWSETELEM),
	    MSG(NFT_MSG_NEWSETELEM), NFNL_MSG_BATCH_END,
	};
	const struct nlmsghdr *msgs[32];
	struct pw_nft *nft = NULL;
	uint16_t types[32];
	size_t n;

	(void)state;
	assert_int_equal(pw_nft_new_recorder(&nft), 0);
	assert_int_equal(pw_nft_masq_add(nft, &(struct pw_nft_masq){.network = "mynet",
								    .container_id = "c1",
								    .ifname = "eth0",
								    .addrs = addrs,
								    .n_addrs = 3}),
			 0);
	n = batch_types(nft, types, 32, msgs);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	assert_memory_equal(types, want, sizeof(want));
	/* the subnet's set/chain once (two pods of 10.1.2.0/24), one element per address */
	assert_rule_exprs(msgs[5], "masq-mynet-10.1.2.0-24",
			  "meta cmp payload lookup payload bitwise cmp payload bitwise cmp masq ");
	assert_rule_exprs(msgs[9], "masq-mynet-fd00__-64",
			  "meta cmp payload lookup payload bitwise cmp payload bitwise cmp masq ");
	assert_elem(msgs[10], "pods-mynet-10.1.2.0-24", &addrs[0].addr.in, 4, "c1/eth0");
	assert_elem(msgs[11], "pods-mynet-10.1.2.0-24", &addrs[1].addr.in, 4, "c1/eth0");
	assert_elem(msgs[12], "pods-mynet-fd00__-64", &addrs[2].addr.in6, 16, "c1/eth0");
	/* every change message asks for an ACK: failures cannot vanish */
	for (size_t i = 1; i + 1 < n; i++)
		assert_true(msgs[i]->nlmsg_flags & NLM_F_ACK);
	pw_nft_free(nft);
}

static void test_spoof_add_batch(void **state)
{
	static const unsigned char mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
	unsigned char port_key[16] = "veth1234", allowed_key[24] = "veth1234";
	const struct nlmsghdr *msgs[32];
	struct pw_nft *nft = NULL;
	uint16_t types[32];
	size_t n;

	(void)state;
	memcpy(allowed_key + 16, mac, 6);
	assert_int_equal(pw_nft_new_recorder(&nft), 0);
	assert_int_equal(pw_nft_spoof_add(nft, &(struct pw_nft_spoof){.network = "mynet",
								      .container_id = "c1",
								      .ifname = "eth0",
								      .host_ifname = "veth1234",
								      .mac = mac}),
			 0);
	n = batch_types(nft, types, 32, msgs);
	assert_int_equal(n, 10);
	assert_int_equal(types[5], MSG(NFT_MSG_DELRULE));
	assert_rule_exprs(msgs[6], "spoof-mynet", "meta lookup meta payload lookup immediate ");
	assert_elem(msgs[7], "spoof-ports-mynet", port_key, 16, "c1/eth0");
	assert_elem(msgs[8], "spoof-allowed-mynet", allowed_key, 24, "c1/eth0");
	pw_nft_free(nft);
}

static void test_bad_params(void **state)
{
	struct ip_prefix a = pfx("10.1.2.5/24");
	struct pw_nft *nft = NULL;
	char longid[300];

	(void)state;
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(pw_nft_new_recorder(&nft), 0);
	assert_int_equal(pw_nft_masq_add(nft, &(struct pw_nft_masq){.network = "n",
								    .container_id = "c1",
								    .ifname = "eth0",
								    .addrs = &a,
								    .n_addrs = 0}),
			 -EINVAL);
	assert_int_equal(pw_nft_masq_add(nft, &(struct pw_nft_masq){.network = "n",
								    .container_id = "c/1",
								    .ifname = "eth0",
								    .addrs = &a,
								    .n_addrs = 1}),
			 -EINVAL);
	assert_int_equal(pw_nft_masq_add(nft, &(struct pw_nft_masq){.network = "n",
								    .container_id = longid,
								    .ifname = "eth0",
								    .addrs = &a,
								    .n_addrs = 1}),
			 -ENAMETOOLONG);
	assert_int_equal(pw_nft_spoof_add(nft, &(struct pw_nft_spoof){.network = "n",
								      .container_id = "c1",
								      .ifname = "eth0"}),
			 -EINVAL);
	/* queries need a kernel */
	assert_int_equal(pw_nft_masq_check(nft, &(struct pw_nft_masq){.network = "n",
								      .container_id = "c1",
								      .ifname = "eth0",
								      .addrs = &a,
								      .n_addrs = 1}),
			 -ENOTCONN);
	pw_nft_free(nft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_masq_add_batch),
	    cmocka_unit_test(test_spoof_add_batch),
	    cmocka_unit_test(test_bad_params),
	};

	return cmocka_run_group_tests_name("nft-build", tests, NULL, NULL);
}
