/* SPDX-License-Identifier: Apache-2.0 */
/* base/fmt.h: the padded number formatting, checked against printf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/fmt.h"

static void check(uint64_t v, unsigned width)
{
	char ours[80], theirs[80];

	*fmt_dec(ours, v, width) = '\0';
	snprintf(theirs, sizeof(theirs), "%0*llu", (int)width, (unsigned long long)v);
	assert_string_equal(ours, theirs);
}

static void test_fmt_like_printf(void **state)
{
	static const uint64_t values[] = {0,   1,   9,	       10,	   15,		16,
					  255, 256, 999999999, 1000000000, 0xffffffffu, UINT64_MAX};

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		for (unsigned w = 0; w <= 24; w++)
			check(values[i], w);
}

static void test_fmt_no_nul(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_ptr_equal(fmt_dec(buf, 42, 4), buf + 4);
	assert_memory_equal(buf, "0042xxxx", 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fmt_like_printf),
	    cmocka_unit_test(test_fmt_no_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
