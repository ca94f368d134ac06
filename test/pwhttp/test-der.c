/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwhttp_der_drop_child: the peer certificate out of a saved TLS session.
 * Short and long length forms, the outer length shrinking a form, nothing
 * to drop, and malformed input left exactly as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

static void test_short_form(void **state)
{
	(void)state;
	/* SEQUENCE { INTEGER 1, [3] { OCTET STRING "ab" }, OCTET STRING "z" } */
	unsigned char der[] = {0x30, 0x0c, 0x02, 0x01, 0x01, 0xa3, 0x04,
			       0x04, 0x02, 'a',	 'b',  0x04, 0x01, 'z'};
	const unsigned char want[] = {0x30, 0x06, 0x02, 0x01, 0x01, 0x04, 0x01, 'z'};

	assert_int_equal(pwhttp_der_drop_child(der, sizeof(der), 0xa3), sizeof(want));
	assert_memory_equal(der, want, sizeof(want));
}

/* A 300-byte [3] and a 200-byte OCTET STRING: the outer length goes from 0x82 to 0x81. */
static void test_long_form(void **state)
{
	unsigned char der[4 + 4 + 300 + 3 + 200];
	size_t n;

	(void)state;
	memset(der, 0, sizeof(der));
	der[0] = 0x30, der[1] = 0x82, der[2] = (sizeof(der) - 4) >> 8,
	der[3] = (sizeof(der) - 4) & 0xff;
	der[4] = 0xa3, der[5] = 0x82, der[6] = 300 >> 8, der[7] = 300 & 0xff;
	memset(der + 8, 0x55, 300);
	der[308] = 0x04, der[309] = 0x81, der[310] = 200;
	memset(der + 311, 0x66, 200);
	n = pwhttp_der_drop_child(der, sizeof(der), 0xa3);
	assert_int_equal(n, 3 + 3 + 200);
	assert_int_equal(der[0], 0x30);
	assert_int_equal(der[1], 0x81);
	assert_int_equal(der[2], 203);
	assert_int_equal(der[3], 0x04);
	assert_int_equal(der[4], 0x81);
	assert_int_equal(der[5], 200);
	assert_int_equal(der[6], 0x66);
	assert_int_equal(der[205], 0x66);
}

static void test_nothing_to_drop(void **state)
{
	(void)state;
	unsigned char der[] = {0x30, 0x03, 0x02, 0x01, 0x07};
	const unsigned char want[] = {0x30, 0x03, 0x02, 0x01, 0x07};

	assert_int_equal(pwhttp_der_drop_child(der, sizeof(der), 0xa3), sizeof(want));
	assert_memory_equal(der, want, sizeof(want));
}

static void assert_refused(const unsigned char *in, size_t len)
{
	unsigned char copy[64];

	assert_true(len <= sizeof(copy));
	memcpy(copy, in, len);
	assert_int_equal(pwhttp_der_drop_child(copy, len, 0xa3), 0);
	assert_memory_equal(copy, in, len);
}

static void test_malformed_untouched(void **state)
{
	(void)state;
	/* The [3] comes first, the child after it is cut short: nothing moves. */
	const unsigned char cut_child[] = {0x30, 0x07, 0xa3, 0x02, 0x04, 0x00, 0x04, 0x05, 'x'};
	const unsigned char not_seq[] = {0x31, 0x03, 0x02, 0x01, 0x01};
	const unsigned char outer_short[] = {0x30, 0x09, 0x02, 0x01, 0x01};
	const unsigned char trailing[] = {0x30, 0x03, 0x02, 0x01, 0x01, 0x00};
	const unsigned char high_tag[] = {0x30, 0x03, 0x1f, 0x01, 0x01};
	const unsigned char len_of_len[] = {0x30, 0x80, 0x02, 0x01, 0x01};
	const unsigned char huge[] = {0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	const unsigned char len_cut[] = {0x30, 0x84, 0x00, 0x00};

	assert_refused(cut_child, sizeof(cut_child));
	assert_refused(not_seq, sizeof(not_seq));
	assert_refused(outer_short, sizeof(outer_short));
	assert_refused(trailing, sizeof(trailing));
	assert_refused(high_tag, sizeof(high_tag));
	assert_refused(len_of_len, sizeof(len_of_len));
	assert_refused(huge, sizeof(huge));
	assert_refused(len_cut, sizeof(len_cut));
	assert_int_equal(pwhttp_der_drop_child((unsigned char[]){0x30}, 1, 0xa3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_short_form),
	    cmocka_unit_test(test_long_form),
	    cmocka_unit_test(test_nothing_to_drop),
	    cmocka_unit_test(test_malformed_untouched),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
