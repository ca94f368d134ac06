/* SPDX-License-Identifier: Apache-2.0 */
/* base/codec.h: base64 against RFC 4648's vectors, hex, and bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/codec.h"

/* RFC 4648 section 10. */
static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};

static void test_b64_vectors(void **state)
{
	char out[16], dec[16];

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		size_t n = strlen(plain[i]);

		memset(out, 'x', sizeof(out));
		assert_int_equal(b64_encode(plain[i], n, out), strlen(enc[i]));
		assert_string_equal(out, enc[i]);
		assert_int_equal(B64_ENCODED_LEN(n), strlen(enc[i]));
		assert_int_equal(b64_decode(enc[i], strlen(enc[i]), dec), n);
		assert_memory_equal(dec, plain[i], n);
	}
}

static void test_b64_dup(void **state)
{
	char *out;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		out = b64_encode_dup(plain[i], strlen(plain[i]));
		assert_non_null(out);
		assert_string_equal(out, enc[i]);
		free(out);
		assert_int_equal(b64_decode_dup(enc[i], strlen(enc[i]), &out, &n), 0);
		assert_int_equal(n, strlen(plain[i]));
		assert_string_equal(out, plain[i]); /* NUL-terminated */
		free(out);
	}
}

/* Every byte value survives the round trip; '+' and '/' are the last two. */
static void test_b64_binary(void **state)
{
	unsigned char in[256], dec[256];
	char out[B64_ENCODED_LEN(256) + 1];

	(void)state;
	for (int i = 0; i < 256; i++)
		in[i] = (unsigned char)i;
	for (size_t len = 0; len <= sizeof(in); len++) {
		size_t k = b64_encode(in, len, out);

		assert_int_equal(b64_decode(out, k, dec), (ssize_t)len);
		assert_memory_equal(dec, in, len);
	}
	b64_encode("\xfb\xff", 2, out);
	assert_string_equal(out, "+/8=");
}

static void test_b64_bad(void **state)
{
	static const char *const bad[] = {
	    "Zg=",	/* length not a multiple of 4 */
	    "Z===",	/* '=' in the first two places */
	    "=Zg=",	/* padding first */
	    "Zm=v",	/* data after padding */
	    "Zg==Zg==", /* padding before the last group */
	    "Zm9v!A==", /* not in the alphabet */
	    "Zm9v-_==", /* the URL alphabet */
	    "Zm9 ",	/* whitespace */
	    "Zg======", /* too much padding */
	};
	char dec[16], *out = (char *)"untouched";
	size_t n = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(b64_decode(bad[i], strlen(bad[i]), dec), -EINVAL);
		assert_int_equal(b64_decode_dup(bad[i], strlen(bad[i]), &out, &n), -EINVAL);
	}
	/* A NUL inside the given length is a bad character, not the end. */
	assert_int_equal(b64_decode("Zm9v\0AAA", 8, dec), -EINVAL);
	assert_string_equal(out, "untouched");
	assert_int_equal(n, 7);
}

static void test_hex_digit(void **state)
{
	(void)state;
	for (int c = 0; c < 256; c++) {
		char s[2] = {(char)c, '\0'}, *end;
		long want = c && strchr("0123456789abcdefABCDEF", c) ? strtol(s, &end, 16) : -1;

		assert_int_equal(hex_digit((char)c), want);
	}
}

static void test_hex_round_trip(void **state)
{
	const unsigned char in[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
	unsigned char dec[sizeof(in)];
	char out[2 * sizeof(in) + 1];

	(void)state;
	*hex_encode(out, in, sizeof(in)) = '\0';
	assert_string_equal(out, "00017f80abff");
	assert_ptr_equal(hex_encode(out, in, 0), out);
	assert_int_equal(hex_decode(out, sizeof(in), dec), 0);
	assert_memory_equal(dec, in, sizeof(in));
	assert_int_equal(hex_decode("00017F80ABFF", sizeof(in), dec), 0); /* either case */
	assert_memory_equal(dec, in, sizeof(in));
}

static void test_hex_bad(void **state)
{
	unsigned char dec[4];

	(void)state;
	assert_int_equal(hex_decode("0g", 1, dec), -EINVAL);
	assert_int_equal(hex_decode("g0", 1, dec), -EINVAL);
	assert_int_equal(hex_decode("abc", 2, dec), -EINVAL); /* short: stops at the NUL */
	assert_int_equal(hex_decode("ab:d", 2, dec), -EINVAL);
	assert_int_equal(hex_decode(" a", 1, dec), -EINVAL);
	assert_int_equal(hex_decode("0x", 1, dec), -EINVAL);
	assert_int_equal(hex_decode("", 0, dec), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_b64_vectors), cmocka_unit_test(test_b64_dup),
	    cmocka_unit_test(test_b64_binary),	cmocka_unit_test(test_b64_bad),
	    cmocka_unit_test(test_hex_digit),	cmocka_unit_test(test_hex_round_trip),
	    cmocka_unit_test(test_hex_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
