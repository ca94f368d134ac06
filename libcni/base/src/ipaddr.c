/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Textual IPv4/IPv6 addresses, parsed and formatted here instead of through
 * inet_pton/inet_ntop, with the same syntax and output as glibc's
 * (test-ipaddr and fuzz-ipaddr compare the two), so lease file names and
 * results do not change. It keeps plugin calls out of libc's resolver code,
 * which the kernel maps in 64 KB fault-around windows: a bridge ADD's peak
 * RSS is ~100 KB (5-6 %) lower, its CPU time within noise (bench/startup/run.sh,
 * bench/results/2026-12-07-startup.md).
 */
#include <stdio.h>

#include "base/codec.h"
#include "base/ipaddr.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Dotted quad in [s, end): exactly four decimal octets, each 0-255, without
 * leading zeros ("010" is refused, as inet_pton does). Returns 0 or -EINVAL.
 */
static int parse_v4(const char *s, const char *end, uint8_t out[4])
{
	unsigned octet = 0, value = 0, digits = 0;

	for (; s < end; s++) {
		if (is_digit(*s)) {
			if (digits == 1 && value == 0)
				return -EINVAL;
			value = value * 10 + (unsigned)(*s - '0');
			if (value > 255 || ++digits > 3)
				return -EINVAL;
			continue;
		}
		if (*s != '.' || digits == 0 || octet == 3)
			return -EINVAL;
		out[octet++] = (uint8_t)value;
		value = 0;
		digits = 0;
	}
	if (digits == 0 || octet != 3)
		return -EINVAL;
	out[3] = (uint8_t)value;
	return 0;
}

/*
 * IPv6 in RFC 4291 text form: up to eight groups of 1-4 hex digits, one "::"
 * for a run of zero groups, and optionally a dotted quad as the last 32 bits.
 */
static int parse_v6(const char *s, uint8_t out[16])
{
	uint8_t words[16] = {0};
	const char *group = s;
	unsigned n = 0, value = 0, digits = 0; /* n: bytes stored so far */
	int gap = -1;			       /* byte index of "::", if any */

	if (s[0] == ':' && s[1] != ':')
		return -EINVAL;
	if (s[0] == ':')
		s++; /* the first ':' of a leading "::" */
	for (; *s; s++) {
		int h = hex_digit(*s);

		if (h >= 0) {
			if (++digits > 4)
				return -EINVAL;
			value = (value << 4) | (unsigned)h;
			continue;
		}
		if (*s == ':') {
			if (digits == 0) {
				if (gap >= 0)
					return -EINVAL;
				gap = (int)n;
			} else {
				if (s[1] == '\0' || n == 16)
					return -EINVAL;
				words[n++] = (uint8_t)(value >> 8);
				words[n++] = (uint8_t)value;
			}
			group = s + 1;
			value = 0;
			digits = 0;
			continue;
		}
		if (*s == '.' && n <= 12) {
			if (parse_v4(group, group + strlen(group), &words[n]) < 0)
				return -EINVAL;
			n += 4;
			digits = 0;
			break;
		}
		return -EINVAL;
	}
	if (digits > 0) {
		if (n == 16)
			return -EINVAL;
		words[n++] = (uint8_t)(value >> 8);
		words[n++] = (uint8_t)value;
	}
	if (gap >= 0) {
		unsigned tail = n - (unsigned)gap;

		if (n == 16)
			return -EINVAL;
		memmove(&words[16 - tail], &words[gap], tail);
		memset(&words[gap], 0, 16 - tail - (unsigned)gap);
		n = 16;
	}
	if (n != 16)
		return -EINVAL;
	memcpy(out, words, 16);
	return 0;
}

int ip_addr_parse(const char *s, int *ret_family, union ip_addr *ret)
{
	union ip_addr a;

	memset(&a, 0, sizeof(a));
	if (!s)
		return -EINVAL;
	if (parse_v4(s, s + strlen(s), a.bytes) == 0) {
		*ret_family = AF_INET;
		*ret = a;
		return 0;
	}
	if (parse_v6(s, a.bytes) == 0) {
		*ret_family = AF_INET6;
		*ret = a;
		return 0;
	}
	return -EINVAL;
}

static char *put_v4(char *p, const uint8_t b[4])
{
	for (int i = 0; i < 4; i++) {
		if (i)
			*p++ = '.';
		p += sprintf(p, "%u", b[i]);
	}
	return p;
}

/* The longest run of two or more zero groups (the first of equal ones). */
static void longest_zero_run(const unsigned w[8], int *ret_base, int *ret_len)
{
	int base = -1, len = 0;

	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && w[j] == 0)
			j++;
		if (j - i > len && j - i >= 2) {
			base = i;
			len = j - i;
		}
		i = j > i ? j : i + 1;
	}
	*ret_base = base;
	*ret_len = len;
}

/*
 * RFC 5952 form, as glibc writes it: the longest zero run becomes "::", and
 * an address whose first 96 bits are zero (IPv4-compatible) or 0:0:0:0:0:ffff
 * (IPv4-mapped) ends in a dotted quad.
 */
static char *put_v6(char *p, const uint8_t b[16])
{
	unsigned w[8];
	int base, len;

	for (int i = 0; i < 8; i++)
		w[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
	longest_zero_run(w, &base, &len);
	for (int i = 0; i < 8; i++) {
		if (base >= 0 && i >= base && i < base + len) {
			if (i == base)
				*p++ = ':';
			continue;
		}
		if (i)
			*p++ = ':';
		if (i == 6 && base == 0 && (len == 6 || (len == 5 && w[5] == 0xffff)))
			return put_v4(p, &b[12]);
		p += sprintf(p, "%x", w[i]);
	}
	if (base >= 0 && base + len == 8)
		*p++ = ':';
	return p;
}

const char *ip_addr_fmt(int family, const union ip_addr *a, char *buf)
{
	char *end;

	if (family == AF_INET)
		end = put_v4(buf, a->bytes);
	else if (family == AF_INET6)
		end = put_v6(buf, a->bytes);
	else {
		buf[0] = '?';
		end = buf + 1;
	}
	*end = '\0';
	return buf;
}

const char *ip_prefix_fmt(const struct ip_prefix *p, char *buf)
{
	char *end;

	ip_addr_fmt(p->family, &p->addr, buf);
	end = buf + strlen(buf);
	*end++ = '/';
	sprintf(end, "%u", p->prefixlen);
	return buf;
}
