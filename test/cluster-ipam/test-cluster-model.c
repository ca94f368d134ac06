/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam's data model: key encoding (fixed-width hex sorts like
 * addresses), block arithmetic (v4 /26, v6 /122, edge ordinals), the free
 * block search, and the block/handle/pool values (untrusted input).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../ipam/cluster-ipam/src/cluster-add.h"
#include "ipam/cluster-ipam.h"

static struct ip_prefix P(const char *s) {
	struct ip_prefix p;

	assert_int_equal(ip_prefix_parse(s, &p), 0);
	return p;
}

static void
test_keypart(void **state)
{
	char buf[CIPAM_KEYPART_LEN];
	struct ip_prefix p = P("10.244.1.0/26"), back;
	(void)state;

	assert_string_equal(cipam_keypart(&p, buf), "4/0af40100-26");
	assert_int_equal(cipam_keypart_parse(buf, &back), 0);
	assert_int_equal(back.prefixlen, 26);
	assert_memory_equal(&back.addr, &p.addr, 4);
	p = P("fd00:244:0:1::/122");
	assert_string_equal(cipam_keypart(&p, buf), "6/fd000244000000010000000000000000-122");
	assert_int_equal(cipam_keypart_parse(buf, &back), 0);
	assert_int_equal(back.family, AF_INET6);
	/* host bits, bad hex, bad length, upper case */
	assert_int_equal(cipam_keypart_parse("4/0af40101-26", &back), -EINVAL);
	assert_int_equal(cipam_keypart_parse("4/0af4010-26", &back), -EINVAL);
	assert_int_equal(cipam_keypart_parse("4/0af40100-33", &back), -EINVAL);
	assert_int_equal(cipam_keypart_parse("4/0AF40100-26", &back), -EINVAL);
	assert_int_equal(cipam_keypart_parse("5/0af40100-26", &back), -EINVAL);
	assert_int_equal(cipam_keypart_parse("4/0af40100", &back), -EINVAL);
}

static void test_keys_sort_like_addresses(void **state)
{
	struct ip_prefix a = P("10.244.0.128/26"), b = P("10.244.0.64/26");
	char *ka = cipam_key_block("/p", &a), *kb = cipam_key_block("/p", &b);
	(void)state;

	/* "10.244.0.128-26" < "10.244.0.64-26" as text; hex keys keep numeric order */
	assert_true(strcmp(kb, ka) < 0);
	assert_string_equal(ka, "/p/ipam/blocks/4/0af40080-26");
	free(ka);
	free(kb);
	ka = cipam_key_affinity("/p", "n1", &a);
	assert_string_equal(ka, "/p/ipam/affinity/n1/4/0af40080-26");
	free(ka);
	ka = cipam_key_handle("/p", "n1", "abc", "eth0");
	assert_string_equal(ka, "/p/ipam/handles/n1/abc/eth0");
	free(ka);
	ka = cipam_key_dir("/p", "affinity", "n1");
	assert_string_equal(ka, "/p/ipam/affinity/n1/");
	free(ka);
}

static void test_pool_range(void **state)
{
	struct cipam_pool p = {.cidr = P("10.244.0.0/16"), .block_size = 26};
	char *k, *e;
	(void)state;

	assert_int_equal(cipam_pool_block_range("/p", &p, &k, &e), 0);
	assert_string_equal(k, "/p/ipam/blocks/4/0af40000-16");
	assert_string_equal(e, "/p/ipam/blocks/4/0af4ffff.");
	/* every block key of the pool is inside [k, e) */
	{
		struct ip_prefix last = P("10.244.255.192/26");
		char *kl = cipam_key_block("/p", &last);

		assert_true(strcmp(kl, k) > 0 && strcmp(kl, e) < 0);
		free(kl);
	}
	free(k);
	free(e);
}

static void test_block_arith_v4(void **state)
{
	struct cipam_pool p = {.cidr = P("10.244.0.0/16"), .block_size = 26};
	struct ip_prefix b, ip;
	union ip_addr a;
	char buf[IP_PREFIX_STRLEN];
	(void)state;

	assert_true(cipam_pool_blocks(&p) == 1024);
	assert_int_equal(cipam_block_addrs(AF_INET, 26), 64);
	cipam_pool_block(&p, 0, &b);
	assert_string_equal(ip_prefix_fmt(&b, buf), "10.244.0.0/26");
	cipam_pool_block(&p, 1023, &b);
	assert_string_equal(ip_prefix_fmt(&b, buf), "10.244.255.192/26");
	ip = P("10.244.255.255/32");
	assert_true(cipam_pool_block_index(&p, &ip.addr) == 1023);
	assert_int_equal(cipam_block_ordinal(&b, &ip.addr), 63);
	cipam_block_addr(&b, 0, &a);
	assert_string_equal(ip_addr_fmt(AF_INET, &a, buf), "10.244.255.192");
	cipam_block_addr(&b, 63, &a);
	assert_string_equal(ip_addr_fmt(AF_INET, &a, buf), "10.244.255.255");
	/* a /32 block: one address */
	p.block_size = 32;
	assert_int_equal(cipam_block_addrs(AF_INET, 32), 1);
	assert_true(cipam_pool_blocks(&p) == 65536);
}

static void test_block_arith_v6(void **state)
{
	struct cipam_pool p = {.cidr = P("fd00:10:244::/56"), .block_size = 122};
	struct ip_prefix b, ip;
	union ip_addr a;
	char buf[IP_PREFIX_STRLEN];
	(void)state;

	assert_true(cipam_pool_blocks(&p) == (cipam_u128)1 << 66);
	assert_int_equal(cipam_block_addrs(AF_INET6, 122), 64);
	cipam_pool_block(&p, ((cipam_u128)1 << 66) - 1, &b);
	assert_string_equal(ip_prefix_fmt(&b, buf), "fd00:10:244:ff:ffff:ffff:ffff:ffc0/122");
	ip = P("fd00:10:244:ff:ffff:ffff:ffff:ffff/128");
	assert_true(cipam_pool_block_index(&p, &ip.addr) == ((cipam_u128)1 << 66) - 1);
	assert_int_equal(cipam_block_ordinal(&b, &ip.addr), 63);
	cipam_pool_block(&p, 1, &b);
	assert_string_equal(ip_prefix_fmt(&b, buf), "fd00:10:244::40/122");
	cipam_block_addr(&b, 1, &a);
	assert_string_equal(ip_addr_fmt(AF_INET6, &a, buf), "fd00:10:244::41");
	/* a pool wider than 2^120 blocks saturates instead of overflowing */
	p.cidr = P("::/0");
	p.block_size = 128;
	assert_true(cipam_pool_blocks(&p) == (cipam_u128)1 << 120);
}

static void test_free_index(void **state)
{
	cipam_u128 used[] = {0, 1, 2, 5, 6, 7}, got = 99;
	(void)state;

	assert_int_equal(cipam_free_index(used, 6, 8, 0, &got), 0);
	assert_true(got == 3);
	assert_int_equal(cipam_free_index(used, 6, 8, 5, &got), 0); /* wraps to 3 */
	assert_true(got == 3);
	assert_int_equal(cipam_free_index(used, 6, 8, 4, &got), 0);
	assert_true(got == 4);
	assert_int_equal(cipam_free_index(used, 6, 6, 5, &got), 0);
	assert_true(got == 3);
	{
		cipam_u128 full[] = {0, 1, 2, 3};

		assert_int_equal(cipam_free_index(full, 4, 4, 2, &got), -ENOSPC);
		assert_int_equal(cipam_free_index(full, 4, 5, 2, &got), 0);
		assert_true(got == 4);
	}
	assert_int_equal(cipam_free_index(NULL, 0, 1, 0, &got), 0);
	assert_true(got == 0);
}

static void test_block_take_release(void **state)
{
	struct ip_prefix cidr = P("10.0.0.0/30");
	struct cipam_block b;
	(void)state;

	assert_int_equal(cipam_block_init(&b, &cidr, "n1", 100), 0);
	assert_int_equal(b.size, 4);
	assert_int_equal(cipam_block_pick(&b), 0);
	assert_int_equal(cipam_block_take(&b, 0, "h0", 101), 0);
	assert_int_equal(cipam_block_take(&b, 0, "hx", 101), -EEXIST);
	assert_int_equal(cipam_block_pick(&b), 1);
	assert_int_equal(cipam_block_take(&b, 3, "h3", 102), 0);
	/* round robin: after 3 comes 0 (taken), then 1 */
	assert_int_equal(cipam_block_pick(&b), 1);
	assert_int_equal(cipam_block_take(&b, 1, "h1", 103), 0);
	assert_int_equal(cipam_block_take(&b, 2, "h2", 103), 0);
	assert_int_equal(cipam_block_pick(&b), -1);
	assert_false(cipam_block_release(&b, 2, "other", 104));
	assert_true(cipam_block_release(&b, 2, "h2", 104));
	assert_false(cipam_block_release(&b, 2, "h2", 104));
	assert_int_equal(b.n_used, 3);
	assert_int_equal(b.updated, 104);
	assert_int_equal(cipam_block_pick(&b), 2);
	assert_int_equal(cipam_block_take(&b, 4, "h4", 105), -EEXIST);
	cipam_block_done(&b);
}

static void test_block_json_roundtrip(void **state)
{
	struct ip_prefix cidr = P("10.0.0.64/26");
	struct cipam_block b, c;
	const char *why = NULL;
	char *s;
	(void)state;

	assert_int_equal(cipam_block_init(&b, &cidr, "n1", 7), 0);
	assert_int_equal(cipam_block_take(&b, 63, "n1/c/eth0", 8), 0);
	s = cipam_block_json(&b);
	assert_string_equal(s,
			    "{\"cidr\":\"10.0.0.64/26\",\"claimed\":7,\"next\":0,\"node\":\"n1\","
			    "\"seq\":1,\"updated\":8,\"used\":{\"63\":\"n1/c/eth0\"}}");
	assert_int_equal(cipam_block_parse(s, strlen(s), &cidr, &c, &why), 0);
	assert_int_equal(c.n_used, 1);
	assert_string_equal(c.used[63], "n1/c/eth0");
	assert_string_equal(c.node, "n1");
	cipam_block_done(&c);
	/* the key must match the value */
	{
		struct ip_prefix other = P("10.0.0.0/26");

		assert_int_equal(cipam_block_parse(s, strlen(s), &other, &c, &why), -EBADMSG);
		assert_string_equal(why, "block: cidr differs from its key");
	}
	free(s);
	cipam_block_done(&b);
}

static void test_block_parse_bad(void **state)
{
	static const char *const bad[] = {
	    "",
	    "[]",
	    "{}",
	    "{\"cidr\":\"10.0.0.1/26\"}",
	    "{\"cidr\":\"10.0.0.0/8\"}",
	    "{\"cidr\":\"10.0.0.0/26\",\"used\":{\"64\":\"h\"}}",
	    "{\"cidr\":\"10.0.0.0/26\",\"used\":{\"-1\":\"h\"}}",
	    "{\"cidr\":\"10.0.0.0/26\",\"used\":{\"1\":\"\"}}",
	    "{\"cidr\":\"10.0.0.0/26\",\"used\":{\"1\":5}}",
	    "{\"cidr\":\"10.0.0.0/26\",\"used\":[]}",
	    "{\"cidr\":\"10.0.0.0/26\",\"next\":64}",
	    "{\"cidr\":\"10.0.0.0/26\",\"seq\":-1}",
	    "{\"cidr\":\"10.0.0.0/26\",\"node\":\"\"}",
	    "{\"cidr\":\"10.0.0.0/26\",\"node\":1}",
	    "{\"cidr\":\"10.0.0.0/26\",\"cidr\":\"10.0.0.0/26\"}",
	};
	struct cipam_block b;
	const char *why;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		assert_int_equal(cipam_block_parse(bad[i], strlen(bad[i]), NULL, &b, &why),
				 -EBADMSG);
		assert_non_null(why);
	}
}

static void test_handle_json(void **state)
{
	char id[] = "n1/c1/eth0", node[] = "n1", cid[] = "c1", ifname[] = "eth0", net[] = "net";
	struct cipam_handle h = {.id = id,
				 .node = node,
				 .container_id = cid,
				 .ifname = ifname,
				 .network = net,
				 .created = 5,
				 .n_ips = 2};
	struct cipam_handle g;
	const char *why;
	char *s;
	(void)state;

	h.ips[0] = P("10.0.0.5/26");
	h.ips[1] = P("fd00::5/122");
	s = cipam_handle_json(&h);
	assert_string_equal(s, "{\"containerID\":\"c1\",\"created\":5,\"id\":\"n1/c1/eth0\","
			       "\"ifname\":\"eth0\",\"ips\":[\"10.0.0.5/26\",\"fd00::5/122\"],"
			       "\"network\":\"net\",\"node\":\"n1\"}");
	assert_int_equal(cipam_handle_parse(s, strlen(s), &g, &why), 0);
	assert_int_equal(g.n_ips, 2);
	assert_string_equal(g.network, "net");
	assert_null(g.pod);
	cipam_handle_done(&g);
	free(s);
	assert_int_equal(cipam_handle_parse("{\"id\":\"a\",\"node\":\"n\",\"containerID\":\"c\","
					    "\"ifname\":\"e\",\"ips\":[]}",
					    71, &g, &why),
			 -EBADMSG);
	assert_int_equal(cipam_handle_parse("{\"id\":\"a\"}", 10, &g, &why), -EBADMSG);
}

/*
 * The values' bytes, as every version wrote them: compact, keys sorted as
 * strcmp() orders them (a block's ordinals too), jansson's escapes; a
 * string that is not UTF-8 makes no value, or leaves an optional member out.
 */
static void test_value_bytes(void **state)
{
	struct ip_prefix cidr = P("10.0.0.0/24");
	static const unsigned ords[] = {2, 100, 0, 10, 1};
	char id[] = "n/c/eth0", node[] = "n", cid[] = "c", ifname[] = "eth0", bad[] = "\xc0\xaf";
	struct cipam_handle h = {.id = id,
				 .node = node,
				 .container_id = cid,
				 .ifname = ifname,
				 .network = bad,
				 .pod = (char *)"ns/p\x1f",
				 .created = 3,
				 .n_ips = 1};
	struct cipam_block b;
	char *s;
	(void)state;

	assert_int_equal(cipam_block_init(&b, &cidr, "q\"\\\n\xc3\xa9", 1), 0);
	for (size_t i = 0; i < sizeof(ords) / sizeof(ords[0]); i++)
		assert_int_equal(cipam_block_take(&b, ords[i], "n/c/eth0", 2), 0);
	s = cipam_block_json(&b);
	assert_string_equal(s, "{\"cidr\":\"10.0.0.0/24\",\"claimed\":1,\"next\":2,\"node\":"
			       "\"q\\\"\\\\\\n\xc3\xa9\",\"seq\":5,\"updated\":2,\"used\":{\"0\":"
			       "\"n/c/eth0\",\"1\":\"n/c/eth0\",\"10\":\"n/c/eth0\",\"100\":"
			       "\"n/c/eth0\",\"2\":\"n/c/eth0\"}}");
	free(s);
	free(b.used[10]);
	b.used[10] = strdup(bad);
	assert_null(cipam_block_json(&b));
	cipam_block_done(&b);
	h.ips[0] = P("10.0.0.5/24");
	s = cipam_handle_json(&h); /* network left out */
	assert_string_equal(s, "{\"containerID\":\"c\",\"created\":3,\"id\":\"n/c/eth0\","
			       "\"ifname\":\"eth0\",\"ips\":[\"10.0.0.5/24\"],\"node\":\"n\","
			       "\"pod\":\"ns/p\\u001F\"}");
	free(s);
	h.container_id = bad;
	assert_null(cipam_handle_json(&h));
}

static void test_pool_json(void **state)
{
	struct cipam_pool p = {.cidr = P("fd00:10:244::/56"), .block_size = 122}, q;
	const char *why;
	char *s = cipam_pool_json(&p);
	(void)state;

	assert_string_equal(s, "{\"blockSize\":122,\"cidr\":\"fd00:10:244::/56\"}");
	assert_int_equal(cipam_pool_parse(s, strlen(s), &q, &why), 0);
	assert_int_equal(q.block_size, 122);
	free(s);
	assert_int_equal(
	    cipam_pool_parse("{\"cidr\":\"10.0.0.0/16\",\"blockSize\":8}", 37, &q, &why), -EBADMSG);
	assert_int_equal(cipam_pool_parse("{\"cidr\":\"10.0.0.0/16\"}", 22, &q, &why), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keypart),
	    cmocka_unit_test(test_keys_sort_like_addresses),
	    cmocka_unit_test(test_pool_range),
	    cmocka_unit_test(test_block_arith_v4),
	    cmocka_unit_test(test_block_arith_v6),
	    cmocka_unit_test(test_free_index),
	    cmocka_unit_test(test_block_take_release),
	    cmocka_unit_test(test_block_json_roundtrip),
	    cmocka_unit_test(test_block_parse_bad),
	    cmocka_unit_test(test_handle_json),
	    cmocka_unit_test(test_value_bytes),
	    cmocka_unit_test(test_pool_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
