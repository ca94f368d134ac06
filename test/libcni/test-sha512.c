/* SPDX-License-Identifier: Apache-2.0 */
/* base/sha512.h: FIPS 180-4 vectors and the lengths around the padding edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/sha512.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha512_vectors),
	    cmocka_unit_test(test_sha512_padding_boundaries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
