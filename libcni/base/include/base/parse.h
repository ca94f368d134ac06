/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checked integer parsers (no atoi): whole string must be consumed, no sign
 * surprises, range checked. Locale independent.
 */
#pragma once

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Parse a decimal unsigned 64-bit number: digits only, the whole string.
 * Returns 0, -EINVAL (syntax) or -ERANGE.
 */
static inline int safe_atou64(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*s != '\0')
		return -EINVAL;
	*ret = v;
	return 0;
}

/* As safe_atou64 with an inclusive upper bound. */
static inline int safe_atou32_max(const char *s, uint32_t max, uint32_t *ret)
{
	uint64_t v;
	int r = safe_atou64(s, &v);

	if (r < 0)
		return r;
	if (v > max)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

static inline bool streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static inline bool isempty(const char *s)
{
	return !s || !*s;
}

static inline char ascii_tolower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static inline bool ascii_isalnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static inline bool ascii_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool ascii_strcaseeq(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	for (; *a && *b; a++, b++)
		if (ascii_tolower(*a) != ascii_tolower(*b))
			return false;
	return *a == *b;
}
