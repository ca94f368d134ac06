/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Just enough DER to take one optional field out of a SEQUENCE: the peer
 * certificate of a saved TLS session (see session_save in tls.c). Input is
 * what OpenSSL's i2d wrote; anything unexpected leaves it alone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"

/* One TLV at p[0..len): tag, header size, content length; false when malformed. */
static bool der_tlv(const unsigned char *p, size_t len, unsigned char *tag, size_t *hdr,
		    size_t *clen)
{
	size_t n, l = 0;

	if (len < 2 || (p[0] & 0x1f) == 0x1f) /* multi-byte tags: never in a session */
		return false;
	*tag = p[0];
	if (!(p[1] & 0x80)) {
		*hdr = 2;
		*clen = p[1];
	} else {
		n = p[1] & 0x7f;
		if (n == 0 || n > sizeof(size_t) || n > len - 2)
			return false;
		for (size_t i = 0; i < n; i++)
			l = (l << 8) | p[2 + i];
		*hdr = 2 + n;
		*clen = l;
	}
	return *clen <= len - *hdr;
}

/* The DER length field for n into buf (at most 1 + sizeof(size_t) bytes): its size. */
static size_t der_len(size_t n, unsigned char *buf)
{
	size_t k = 0;

	if (n < 0x80) {
		buf[0] = (unsigned char)n;
		return 1;
	}
	for (size_t v = n; v; v >>= 8)
		k++;
	buf[0] = (unsigned char)(0x80 | k);
	for (size_t i = 0; i < k; i++)
		buf[1 + i] = (unsigned char)(n >> (8 * (k - 1 - i)));
	return 1 + k;
}

/* Does body[0..len) split into whole TLVs? Checked before anything moves. */
static bool children_valid(const unsigned char *body, size_t len)
{
	unsigned char t;

	for (size_t i = 0, h = 0, c = 0; i < len; i += h + c)
		if (!der_tlv(body + i, len - i, &t, &h, &c))
			return false;
	return true;
}

size_t pwhttp_der_drop_child(unsigned char *der, size_t len, unsigned char tag)
{
	unsigned char t, lenbuf[1 + sizeof(size_t)];
	size_t hdr, clen, kept = 0, ln;
	unsigned char *body;

	if (!der_tlv(der, len, &t, &hdr, &clen) || t != 0x30 || hdr + clen != len)
		return 0;
	body = der + hdr;
	if (!children_valid(body, clen))
		return 0;
	for (size_t i = 0, h = 0, c = 0; i < clen; i += h + c) {
		(void)der_tlv(body + i, clen - i, &t, &h, &c); /* valid: children_valid */
		if (t != tag) {
			memmove(body + kept, body + i, h + c);
			kept += h + c;
		}
	}
	ln = der_len(kept, lenbuf);
	memmove(der + 1 + ln, body, kept); /* 1 + ln <= hdr: a shorter body, no longer header */
	memcpy(der + 1, lenbuf, ln);
	return 1 + ln + kept;
}
