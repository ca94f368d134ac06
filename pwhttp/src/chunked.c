/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The chunked transfer coding (RFC 9112, 7.1), decoded incrementally as the
 * bytes arrive: each byte is looked at once, whatever the reads' sizes.
 *
 *   chunk      = size [ BWS ";" extension ] CRLF data CRLF
 *   last-chunk = 1*"0" [ BWS ";" extension ] CRLF
 *   body       = *chunk last-chunk *( trailer-field CRLF ) CRLF
 *
 * Extensions and trailer fields are read and dropped. Every CR must be
 * followed by LF: a bare LF, a size that is not hex, data not followed by
 * CRLF are -EBADMSG; a chunk past the body's room, a size or trailer section
 * over MAX_LINE are -EMSGSIZE.
 */
#include <errno.h>
#include <string.h>

#include "base/codec.h"
#include "pwhttp/http.h"

#define MAX_LINE (32u << 10) /* a size line, or all trailers: as the headers' limit */

enum {
	CH_SIZE0,      /* the first digit of a size */
	CH_SIZE,       /* more digits, white space, ";" or CR */
	CH_BWS,	       /* white space after the size: more, ";" or CR */
	CH_EXT,	       /* an extension, up to CR */
	CH_SIZE_LF,    /* LF after the size line */
	CH_DATA,       /* size bytes of data */
	CH_DATA_CR,    /* CR after the data */
	CH_DATA_LF,    /* LF after the data */
	CH_TRAILER0,   /* a trailer field, or CR of the empty line that ends the body */
	CH_TRAILER,    /* a trailer field, up to CR */
	CH_TRAILER_LF, /* LF after a trailer field */
	CH_END_LF,     /* LF of the empty line: the body ends */
	CH_DONE,
};

void pwhttp_chunked_init(struct pwhttp_chunked *d, size_t max)
{
	*d = (struct pwhttp_chunked){.state = CH_SIZE0, .room = max};
}

/* One more digit of the size: 0, or -EMSGSIZE past the room (which no overflow can reach). */
static int size_digit(struct pwhttp_chunked *d, int v)
{
	if ((uint64_t)v > d->room || d->size > (d->room - (uint64_t)v) / 16)
		return -EMSGSIZE;
	d->size = d->size * 16 + (uint64_t)v;
	return 0;
}

/* The byte after the size's digits. */
static int after_size(struct pwhttp_chunked *d, char c)
{
	if (c == '\r')
		d->state = CH_SIZE_LF;
	else if (c == ';')
		d->state = CH_EXT;
	else if (c == ' ' || c == '\t')
		d->state = CH_BWS;
	else
		return -EBADMSG;
	return 0;
}

/* The size line, byte by byte. */
static int size_line(struct pwhttp_chunked *d, char c)
{
	if (++d->line > MAX_LINE)
		return -EMSGSIZE;
	switch (d->state) {
	case CH_SIZE0:
		d->state = CH_SIZE;
		return hex_digit(c) < 0 ? -EBADMSG : size_digit(d, hex_digit(c));
	case CH_SIZE:
		return hex_digit(c) >= 0 ? size_digit(d, hex_digit(c)) : after_size(d, c);
	case CH_BWS:
		return c == ' ' || c == '\t'   ? 0
		       : c == ';' || c == '\r' ? after_size(d, c)
					       : -EBADMSG;
	default: /* CH_EXT */
		if (c == '\n')
			return -EBADMSG;
		if (c == '\r')
			d->state = CH_SIZE_LF;
		return 0;
	}
}

/* The trailer section: fields up to the empty line, byte by byte. */
static int trailers(struct pwhttp_chunked *d, char c)
{
	if (++d->line > MAX_LINE)
		return -EMSGSIZE;
	if (c == '\n')
		return -EBADMSG; /* every LF expected is taken by the state before */
	if (c == '\r')
		d->state = d->state == CH_TRAILER0 ? CH_END_LF : CH_TRAILER_LF;
	else
		d->state = CH_TRAILER;
	return 0;
}

/* A byte that must be LF, and the state it leads to. */
static int expect_lf(struct pwhttp_chunked *d, char c)
{
	if (c != '\n')
		return -EBADMSG;
	switch (d->state) {
	case CH_SIZE_LF:
		d->state = d->size ? CH_DATA : CH_TRAILER0;
		d->line = 0;
		break;
	case CH_DATA_LF:
		d->state = CH_SIZE0;
		d->line = 0;
		break;
	case CH_TRAILER_LF:
		d->state = CH_TRAILER0;
		break;
	default: /* CH_END_LF */
		d->state = CH_DONE;
	}
	return 0;
}

/* One byte outside the data. */
static int step(struct pwhttp_chunked *d, char c)
{
	switch (d->state) {
	case CH_SIZE0:
	case CH_SIZE:
	case CH_BWS:
	case CH_EXT:
		return size_line(d, c);
	case CH_DATA_CR:
		d->state = CH_DATA_LF;
		return c == '\r' ? 0 : -EBADMSG;
	case CH_TRAILER0:
	case CH_TRAILER:
		return trailers(d, c);
	default:
		return expect_lf(d, c);
	}
}

int pwhttp_chunked_decode(struct pwhttp_chunked *d, const char *in, size_t n, char *out,
			  size_t *out_len, size_t *used)
{
	size_t i = 0, o = 0;
	int r = 0;

	while (i < n && d->state != CH_DONE && r == 0) {
		if (d->state == CH_DATA) {
			size_t k = n - i < d->size ? n - i : (size_t)d->size;

			memmove(out + o, in + i, k);
			i += k;
			o += k;
			d->size -= k;
			d->room -= k;
			if (d->size == 0)
				d->state = CH_DATA_CR;
		} else {
			r = step(d, in[i++]);
		}
	}
	*out_len = o;
	*used = i;
	return r < 0 ? r : d->state == CH_DONE;
}
