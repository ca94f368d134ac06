/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwhttp's chunked decoder: every state reached and left at a read
 * boundary (the body fed whole, byte by byte, and in two parts at every
 * split), extensions and trailers read and dropped, where the body ends,
 * and each refusal: not hex, no CRLF where one must be, bare LF, sizes past
 * the limit or past 64 bits, lines too long.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pwhttp/http.h"

#define MAX (1u << 20)

struct result {
	int r;
	char data[256];
	size_t len;
	size_t used; /* input bytes taken in all */
};

/* Feed s in parts of step bytes (0: all at once), stopping at the end or an error. */
static struct result decode_steps(const char *s, size_t n, size_t step, size_t max)
{
	struct pwhttp_chunked d;
	struct result res = {0};
	char *buf = malloc(n + 1);

	assert_non_null(buf);
	pwhttp_chunked_init(&d, max);
	for (size_t at = 0; at < n || n == 0;) {
		size_t k = step && n - at > step ? step : n - at, out, used;

		memcpy(buf, s + at, k); /* in place, as the reader decodes */
		res.r = pwhttp_chunked_decode(&d, buf, k, buf, &out, &used);
		assert_true(used <= k && out <= used);
		if (res.r >= 0) {
			assert_true(res.len + out <= sizeof(res.data));
			memcpy(res.data + res.len, buf, out);
			res.len += out;
			res.used += used;
		}
		at += k;
		if (res.r != 0 || n == 0)
			break;
	}
	free(buf);
	return res;
}

/* The same result whatever the reads: whole, byte by byte, two parts at every split. */
static struct result decode(const char *s)
{
	size_t n = strlen(s);
	struct result whole = decode_steps(s, n, 0, MAX), one = decode_steps(s, n, 1, MAX);

	assert_int_equal(one.r, whole.r);
	if (whole.r >= 0) {
		assert_int_equal(one.len, whole.len);
		assert_memory_equal(one.data, whole.data, whole.len);
		assert_int_equal(one.used, whole.used);
	}
	for (size_t split = 1; split + 1 < n; split++) {
		struct pwhttp_chunked d;
		char buf[4096];
		size_t out, used, len;
		int r;

		assert_true(n <= sizeof(buf));
		pwhttp_chunked_init(&d, MAX);
		memcpy(buf, s, n);
		r = pwhttp_chunked_decode(&d, buf, split, buf, &out, &used);
		len = out;
		if (r == 0) {
			r = pwhttp_chunked_decode(&d, buf + split, n - split, buf + len, &out,
						  &used);
			len += out;
		}
		assert_int_equal(r, whole.r);
		if (r >= 0) {
			assert_int_equal(len, whole.len);
			assert_memory_equal(buf, whole.data, len);
		}
	}
	return whole;
}

#define assert_body(s, want)                                                                       \
	do {                                                                                       \
		struct result res_ = decode(s);                                                    \
		assert_int_equal(res_.r, 1);                                                       \
		assert_int_equal(res_.len, strlen(want));                                          \
		assert_memory_equal(res_.data, want, res_.len);                                    \
		assert_int_equal(res_.used, strlen(s));                                            \
	} while (0)

static void test_chunks(void **state)
{
	(void)state;
	assert_body("0\r\n\r\n", "");
	assert_body("4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n", "{\"a\":1}");
	assert_body("A\r\n0123456789\r\n0\r\n\r\n", "0123456789");
	assert_body("a\r\n0123456789\r\n1f\r\n0123456789012345678901234567890\r\n0\r\n\r\n",
		    "01234567890123456789012345678901234567890");
	assert_body("0000000000000000000000000004\r\nabcd\r\n000\r\n\r\n", "abcd");
	/* data holding CR, LF and NUL bytes is data */
	assert_body("3\r\n\r\n\r\r\n0\r\n\r\n", "\r\n\r");
}

static void test_extensions_and_trailers(void **state)
{
	(void)state;
	assert_body("4;name=value\r\nabcd\r\n0;last\r\n\r\n", "abcd");
	assert_body("4 ;a=\"b;c\"\r\nabcd\r\n0\t\r\n\r\n", "abcd");
	assert_body("2\r\nab\r\n0\r\nX-Check: 1\r\nX-Other: two words\r\n\r\n", "ab");
}

static void test_end(void **state)
{
	const char s[] = "2\r\nab\r\n0\r\nT: 1\r\n\r\nHTTP/1.1 200 OK\r\n";
	struct result res = decode_steps(s, strlen(s), 0, MAX);
	(void)state;

	/* the next response is not taken: the body ends after the empty line */
	assert_int_equal(res.r, 1);
	assert_int_equal(res.used, strlen("2\r\nab\r\n0\r\nT: 1\r\n\r\n"));
	/* incomplete at every point before it: 0, more needed */
	for (size_t n = 0; n < res.used; n++)
		assert_int_equal(decode_steps(s, n, 0, MAX).r, 0);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
	    "\r\n",			/* no size */
	    "zz\r\n",			/* not hex */
	    "-1\r\n",			/* not hex */
	    "4x\r\nabcd\r\n0\r\n\r\n",	/* junk after the size */
	    "4 x\r\nabcd\r\n0\r\n\r\n", /* junk after white space */
	    "4\nabcd\r\n0\r\n\r\n",	/* bare LF after the size */
	    "4\rabcd\r\n0\r\n\r\n",	/* CR without LF after the size */
	    "4;a\nabcd\r\n0\r\n\r\n",	/* bare LF in an extension */
	    "4\r\nabcde\r\n0\r\n\r\n",	/* more data than the size */
	    "4\r\nabcd\n0\r\n\r\n",	/* data followed by a bare LF */
	    "4\r\nabcd\rx0\r\n\r\n",	/* data followed by CR without LF */
	    "4\r\nabcdx\n0\r\n\r\n",	/* data followed by a byte, then LF */
	    "0\r\nT: 1\nX: 2\r\n\r\n",	/* bare LF in a trailer */
	    "0\r\nT: 1\rX\r\n\r\n",	/* CR without LF in a trailer */
	    "0\r\n\n",			/* bare LF for the empty line */
	    "0\r\n\rX",			/* CR without LF for the empty line */
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("malformed: %zu\n", i);
		assert_int_equal(decode(bad[i]).r, -EBADMSG);
	}
}

static void test_limits(void **state)
{
	char line[(32u << 10) + 16], many[48u << 10];
	(void)state;

	/* one chunk past the body's room; a sum of chunks past it */
	assert_int_equal(decode_steps("11\r\n", 4, 0, 16).r, -EMSGSIZE);
	assert_int_equal(decode_steps("10\r\n", 4, 0, 16).r, 0);
	assert_int_equal(decode_steps("8\r\n01234567\r\n9\r\n", 16, 0, 16).r, -EMSGSIZE);
	/* sizes past 64 bits, whatever the room */
	assert_int_equal(decode_steps("10000000000000000\r\n", 19, 0, (size_t)-1).r, -EMSGSIZE);
	assert_int_equal(decode_steps("ffffffffffffffffff\r\n", 20, 1, (size_t)-1).r, -EMSGSIZE);
	/* a size line (an extension) or the trailers over 32 KiB */
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "1;", 2);
	assert_int_equal(decode_steps(line, sizeof(line) - 1, 0, MAX).r, -EMSGSIZE);
	memcpy(line, "0\r\n", 3);
	assert_int_equal(decode_steps(line, sizeof(line) - 1, 0, MAX).r, -EMSGSIZE);
	/* many short trailers count together */
	memcpy(many, "0\r\n", 3);
	for (size_t i = 3; i + 6 <= sizeof(many); i += 6)
		memcpy(many + i, "T: 1\r\n", 6);
	assert_int_equal(decode_steps(many, sizeof(many) / 6 * 6 - 3, 0, MAX).r, -EMSGSIZE);
	assert_int_equal(decode_steps(many, 3 + 6 * 5000, 0, MAX).r, 0); /* 25000 bytes: go on */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chunks), cmocka_unit_test(test_extensions_and_trailers),
	    cmocka_unit_test(test_end),	   cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
