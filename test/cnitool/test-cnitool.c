/* SPDX-License-Identifier: Apache-2.0 */
/* cnitool helpers: SHA-512 vectors, container ID, paths, CNI_ARGS, --timeout. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cnitool.h"
#include "sha512.h"

static void hex(const uint8_t *d, char *out)
{
	for (int i = 0; i < SHA512_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha512_vectors(void **state)
{
	/* FIPS 180-4 examples (one block, two blocks). */
	static const struct {
		const char *in, *want;
	} v[] = {
	    {"abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
	    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
	     "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	     "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
	     "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"},
	};
	uint8_t d[SHA512_DIGEST_SIZE];
	char h[2 * SHA512_DIGEST_SIZE + 1];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		sha512(v[i].in, strlen(v[i].in), d);
		hex(d, h);
		assert_string_equal(h, v[i].want);
	}
}

static void test_sha512_padding_boundaries(void **state)
{
	/* Lengths around the 112/128-byte padding edges; bytes (i*7+3)&255. */
	static const struct {
		size_t n;
		const char *want;
	} v[] = {
	    {0, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
		"47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"},
	    {111, "68cffa6d0d76f309c9ce0d35280939f8e25990c43b7b086ccdf709be35b07d4d"
		  "dba599541ff2b1c19d34ea49aeafb9659adb7ac3c0b078bb30a22d57fc6687ef"},
	    {112, "d0865c524d1dddf7c23b799c413f5adcd7caefd3f66a9b49750ec81066012c25"
		  "a8bcf94ddea6dc525691673097ca40e0101e897fc97218cfdb0704084e2bef4b"},
	    {127, "e0b6a20f1c0c88970a9340152cd5a1c1ecf3d3b8de55102741879438079473540"
		  "133b812706e5dbec322c8c9523b6fc8c6d16ee626e87ad5fe3d2916afedc369"},
	    {128, "99b16f17aa0b969a5b8f08f367719d516e330ccd2660b6f0688ec031dbc783de"
		  "50a1cd185a2568dba75070a2403d17d4741d163578515dfd2ff756ddfe4d47b1"},
	    {129, "a1556e29185778aa5991e34b8884c840d589f0fbb4b8ed590e51e9ac4eb03a00"
		  "8125000db2671f8fe7f485b59a77b518670078ecb41a54b4cd02a7f1d2ca4c6d"},
	    {1000, "00e36fccf193e59697a92b5ab24666ce6326d7fa16bf10832d0991ddc591112e"
		   "9dfa6a636950ed9c4d67344a760654c2ff7785e1d60094d651038735b5dccabd"},
	};
	uint8_t buf[1000], d[SHA512_DIGEST_SIZE];
	char h[2 * SHA512_DIGEST_SIZE + 1];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)((i * 7 + 3) & 255);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sha512(buf, v[i].n, d);
		hex(d, h);
		if (strcmp(h, v[i].want) != 0)
			fail_msg("length %zu: got %s", v[i].n, h);
	}
}

static void test_container_id(void **state)
{
	char id[CNITOOL_CONTAINER_ID_LEN];

	(void)state;
	/* Values computed with another SHA-512 implementation, as upstream derives them. */
	cnitool_container_id("/var/run/netns/blue", id);
	assert_string_equal(id, "cnitool-296747069b8a02dc4e2a");
	cnitool_container_id("/run/netns/pw-demo-a", id);
	assert_string_equal(id, "cnitool-ee85f2d2871ee769f47c");
}

static void test_abs_path(void **state)
{
	static const struct {
		const char *in, *want;
	} v[] = {
	    {"/run/netns/x", "/run/netns/x"},
	    {"/run//netns/./x/", "/run/netns/x"},
	    {"/run/netns/../netns/x", "/run/netns/x"},
	    {"/../../x", "/x"},
	    {"/", "/"},
	    {"sub/../y", "/tmp/y"},
	    {"x", "/tmp/x"},
	    {"..", "/"},
	};
	char *p;

	(void)state;
	assert_int_equal(chdir("/tmp"), 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(cnitool_abs_path(v[i].in, &p), 0);
		if (strcmp(p, v[i].want) != 0)
			fail_msg("%s: got %s want %s", v[i].in, p, v[i].want);
		free(p);
	}
	assert_int_equal(cnitool_abs_path("", &p), -EINVAL);
}

static void test_cni_args(void **state)
{
	static const char *const bad[] = {"A", "A=", "=b", "A=b=c", "A=b;", "A=b;;C=d", ";"};
	struct cni_runtime_arg *a = NULL;
	struct cni_error err = {0};
	size_t n = 0;

	(void)state;
	assert_int_equal(cnitool_parse_cni_args("K8S_POD_NAME=p;IgnoreUnknown=1", &a, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(a[0].key, "K8S_POD_NAME");
	assert_string_equal(a[0].value, "p");
	assert_string_equal(a[1].key, "IgnoreUnknown");
	assert_string_equal(a[1].value, "1");
	cnitool_args_free(a, n);
	assert_int_equal(cnitool_parse_cni_args("", &a, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(cnitool_parse_cni_args(NULL, &a, &n, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cnitool_parse_cni_args(bad[i], &a, &n, &err), -EINVAL);
		assert_int_equal(err.code, 4);
		assert_non_null(strstr(err.msg, "CNI_ARGS"));
		cni_error_done(&err);
	}
	assert_int_equal(cnitool_parse_cni_args("A=b=c", &a, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "\"A=b=c\""));
	cni_error_done(&err);
}

static void test_timeout(void **state)
{
	static const struct {
		const char *in;
		int r, ms;
	} v[] = {
	    {"30", 0, 30000},	 {"0", 0, 0},	      {"250ms", 0, 250},	{"5s", 0, 5000},
	    {"2m", 0, 120000},	 {"", -EINVAL, 0},    {"s", -EINVAL, 0},	{"-1", -EINVAL, 0},
	    {"1.5", -EINVAL, 0}, {"10h", -EINVAL, 0}, {"99999999", -ERANGE, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int ms = -1, r = cnitool_parse_timeout(v[i].in, &ms);

		if (r != v[i].r || (r == 0 && ms != v[i].ms))
			fail_msg("\"%s\": r=%d ms=%d", v[i].in, r, ms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha512_vectors), cmocka_unit_test(test_sha512_padding_boundaries),
	    cmocka_unit_test(test_container_id),   cmocka_unit_test(test_abs_path),
	    cmocka_unit_test(test_cni_args),	   cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests_name("cnitool", tests, NULL, NULL);
}
