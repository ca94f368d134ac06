/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Address parsing and formatting (base/ipaddr.h), checked against glibc's
 * inet_pton/inet_ntop: the same strings must be accepted with the same
 * bytes, and the same bytes must print the same text, because lease file
 * names and results written by earlier versions depend on it.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/ipaddr.h"
#include "base/parse.h"

/* Deterministic generator so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

/* Parse s both ways; fail with the string if they disagree. */
static void check_parse(const char *s)
{
	union ip_addr ours, theirs;
	int fam = 0, want_fam = 0, r;

	memset(&theirs, 0, sizeof(theirs));
	if (inet_pton(AF_INET, s, &theirs.in) == 1)
		want_fam = AF_INET;
	else if (inet_pton(AF_INET6, s, &theirs.in6) == 1)
		want_fam = AF_INET6;
	r = ip_addr_parse(s, &fam, &ours);
	if ((r == 0) != (want_fam != 0) || (r == 0 && fam != want_fam) ||
	    (r == 0 && memcmp(&ours, &theirs, ip_addr_len(fam)) != 0))
		fail_msg("ip_addr_parse(\"%s\") = %d (family %d), inet_pton says family %d", s, r,
			 fam, want_fam);
}

/* Format bytes both ways and parse our text back. */
static void check_format(int family, const union ip_addr *a)
{
	char ours[INET6_ADDRSTRLEN], theirs[INET6_ADDRSTRLEN];
	union ip_addr back;
	int fam;

	assert_non_null(inet_ntop(family, a, theirs, sizeof(theirs)));
	ip_addr_fmt(family, a, ours);
	if (strcmp(ours, theirs) != 0)
		fail_msg("ip_addr_fmt gives \"%s\", inet_ntop \"%s\"", ours, theirs);
	assert_int_equal(ip_addr_parse(ours, &fam, &back), 0);
	assert_int_equal(fam, family);
	assert_memory_equal(&back, a, ip_addr_len(family));
}

static void test_parse_cases(void **state)
{
	static const char *const cases[] = {
	    "0.0.0.0",
	    "255.255.255.255",
	    "10.1.2.3",
	    "1.2.3",
	    "1.2.3.4.5",
	    "1.2.3.",
	    ".1.2.3",
	    "1..2.3",
	    "256.1.1.1",
	    "01.2.3.4",
	    "1.2.3.04",
	    "1.2.3.0",
	    "0.0.0.00",
	    "1.2.3.4 ",
	    " 1.2.3.4",
	    "1.2.3.4/24",
	    "1.2.3.999",
	    "1111.1.1.1",
	    "",
	    ".",
	    "::",
	    ":",
	    ":::",
	    "::1",
	    "1::",
	    "1:",
	    ":1",
	    "1::2::3",
	    "1:2:3:4:5:6:7:8",
	    "1:2:3:4:5:6:7:8:9",
	    "1:2:3:4:5:6:7::",
	    "::2:3:4:5:6:7:8",
	    "1:2:3:4:5:6:7:8::",
	    "::1:2:3:4:5:6:7:8",
	    "1:2:3:4::5:6:7:8",
	    "12345::",
	    "1234::",
	    "0001:0002::",
	    "ABCD::ef",
	    "g::",
	    "::1.2.3.4",
	    "::ffff:1.2.3.4",
	    "1:2:3:4:5:6:1.2.3.4",
	    "1:2:3:4:5:6:7:1.2.3.4",
	    "1:2:3:4:5::1.2.3.4",
	    "::1.2.3",
	    "::1.2.3.4.5",
	    "::01.2.3.4",
	    "1.2.3.4::",
	    "::1.2.3.4:5",
	    "::a.2.3.4",
	    "::1234.1.1.1",
	    "fe80::1%eth0",
	    "2001:db8::/32",
	    "1:2:3:4:5:6:7:",
	    ":1:2:3:4:5:6:7",
	    "::ffff:255.255.255.255",
	    "::0.0.0.0",
	    "1::1.2.3.4",
	    "1:2:3:4:5:6:7:8.1.1.1",
	    "::ffff:1.2.3.256",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_parse(cases[i]);
}

/* Random strings over the characters that matter, many of them near-valid. */
static void test_parse_random(void **state)
{
	static const char alphabet[] = "0123456789abcdefABCDEF::::....g ";
	char s[48];

	(void)state;
	for (int n = 0; n < 300000; n++) {
		size_t len = rng() % 40;

		for (size_t i = 0; i < len; i++)
			s[i] = alphabet[rng() % (sizeof(alphabet) - 1)];
		s[len] = '\0';
		check_parse(s);
	}
}

/* Addresses with zero runs, ffff groups and IPv4 tails, as text variants. */
static void random_v6(union ip_addr *a)
{
	for (int w = 0; w < 8; w++) {
		uint32_t kind = rng() % 8;
		uint16_t v = kind < 4 ? 0 : kind == 4 ? 0xffff : kind == 5 ? 1 : (uint16_t)rng();

		a->bytes[2 * w] = (uint8_t)(v >> 8);
		a->bytes[2 * w + 1] = (uint8_t)v;
	}
	if (rng() % 4 == 0) /* IPv4-mapped or -compatible */
		memset(a->bytes, 0, 10 + (rng() % 2) * 2);
	if (rng() % 8 == 0)
		a->bytes[10] = a->bytes[11] = 0xff;
}

static void test_format_random(void **state)
{
	(void)state;
	for (int n = 0; n < 200000; n++) {
		union ip_addr a;

		memset(&a, 0, sizeof(a));
		random_v6(&a);
		check_format(AF_INET6, &a);
		for (int i = 0; i < 4; i++)
			a.bytes[i] = (uint8_t)(rng() % 3 == 0 ? 0 : rng());
		check_format(AF_INET, &a);
	}
}

/* Every address, written uncompressed with random case and padding, parses alike. */
static void test_parse_expanded(void **state)
{
	(void)state;
	for (int n = 0; n < 100000; n++) {
		union ip_addr a;
		char s[64], *p = s;

		random_v6(&a);
		for (int w = 0; w < 8; w++) {
			unsigned v = (unsigned)a.bytes[2 * w] << 8 | a.bytes[2 * w + 1];
			const char *sep = w ? ":" : "";

			if (rng() % 2)
				p += sprintf(p, "%s%04X", sep, v);
			else
				p += sprintf(p, "%s%x", sep, v);
		}
		check_parse(s);
	}
}

static void test_prefix_fmt(void **state)
{
	static const char *const cases[] = {"10.0.0.0/8", "0.0.0.0/0", "2001:db8::1/64", "::/0",
					    "::ffff:10.1.2.3/128"};
	char buf[IP_PREFIX_STRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ip_prefix p;

		assert_int_equal(ip_prefix_parse(cases[i], &p), 0);
		assert_string_equal(ip_prefix_fmt(&p, buf), cases[i]);
	}
}

static void test_unknown_family(void **state)
{
	union ip_addr a;
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_string_equal(ip_addr_fmt(AF_UNSPEC, &a, buf), "?");
}

static void test_safe_atou64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(safe_atou64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(safe_atou64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(safe_atou64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(safe_atou64("99999999999999999999", &v), -ERANGE);
	assert_int_equal(safe_atou64("", &v), -EINVAL);
	assert_int_equal(safe_atou64("-1", &v), -EINVAL);
	assert_int_equal(safe_atou64("+1", &v), -EINVAL);
	assert_int_equal(safe_atou64(" 1", &v), -EINVAL);
	assert_int_equal(safe_atou64("1 ", &v), -EINVAL);
	assert_int_equal(safe_atou64("12a", &v), -EINVAL);
	assert_int_equal(safe_atou64(NULL, &v), -EINVAL);
	assert_int_equal(safe_atou64("000123", &v), 0);
	assert_int_equal(v, 123);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_cases),	  cmocka_unit_test(test_parse_random),
	    cmocka_unit_test(test_format_random), cmocka_unit_test(test_parse_expanded),
	    cmocka_unit_test(test_prefix_fmt),	  cmocka_unit_test(test_unknown_family),
	    cmocka_unit_test(test_safe_atou64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
