/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t b64_encode(const void *in, size_t len, char *out)
{
	const unsigned char *p = in;
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		out[o++] = b64_alphabet[(v >> 18) & 63];
		out[o++] = b64_alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? b64_alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

static int b64_digit(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

/* One group of four characters; *pad: how many of them are '='. */
static int b64_quad(const char *in, bool last, uint32_t *ret, unsigned *pad)
{
	uint32_t v = 0;

	*pad = 0;
	for (int k = 0; k < 4; k++) {
		int d = 0;

		if (in[k] == '=' && last && k >= 2)
			(*pad)++;
		else if (*pad || (d = b64_digit(in[k])) < 0)
			return -EINVAL; /* data after padding, or not base64 */
		v = v << 6 | (uint32_t)d;
	}
	*ret = v;
	return 0;
}

ssize_t b64_decode(const char *in, size_t len, void *out)
{
	unsigned char *o = out;
	size_t n = 0;

	if (len % 4 != 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i += 4) {
		uint32_t v;
		unsigned pad;

		if (b64_quad(in + i, i + 4 == len, &v, &pad) < 0)
			return -EINVAL;
		o[n++] = (unsigned char)(v >> 16);
		if (pad < 2)
			o[n++] = (unsigned char)(v >> 8);
		if (pad < 1)
			o[n++] = (unsigned char)v;
	}
	return (ssize_t)n;
}

char *b64_encode_dup(const void *in, size_t len)
{
	char *out;

	if (len > SIZE_MAX / 2)
		return NULL;
	out = malloc(B64_ENCODED_LEN(len) + 1);
	if (out)
		b64_encode(in, len, out);
	return out;
}

int b64_decode_dup(const char *in, size_t len, char **ret, size_t *ret_len)
{
	char *out = malloc(B64_DECODED_MAX(len) + 1);
	ssize_t n;

	if (!out)
		return -ENOMEM;
	n = b64_decode(in, len, out);
	if (n < 0) {
		free(out);
		return (int)n;
	}
	out[n] = '\0';
	*ret = out;
	*ret_len = (size_t)n;
	return 0;
}

int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *hex_encode(char *p, const void *in, size_t len)
{
	const unsigned char *b = in;

	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		*p++ = digits[b[i] >> 4];
		*p++ = digits[b[i] & 15];
	}
	return p;
}

int hex_decode(const char *s, size_t n, void *out)
{
	unsigned char *o = out;

	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);

		if (lo < 0)
			return -EINVAL;
		o[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}
