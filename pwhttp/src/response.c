/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One HTTP/1.1 response from an untrusted server: status line, headers
 * (32 KiB at most), and a body by Content-Length, chunked, or until EOF
 * (64 MiB at most).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define MAX_HEADER (32u << 10)
#define MAX_BODY (64u << 20)

struct rbuf {
	char *d;
	size_t len, cap;
};

/* Read more bytes: 1 read, 0 EOF, <0 error. */
static int fill(struct pwhttp_io *io, struct rbuf *b, uint64_t deadline, size_t max)
{
	long k;

	if (b->len + 4096 + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8192;
		char *d;

		if (cap > max)
			return -EMSGSIZE;
		d = realloc(b->d, cap);
		if (!d)
			return -ENOMEM;
		b->d = d;
		b->cap = cap;
	}
	k = pwhttp_io_read(io, b->d + b->len, b->cap - b->len - 1, deadline);
	if (k < 0)
		return (int)k;
	b->len += (size_t)k;
	b->d[b->len] = '\0';
	return k > 0;
}

static const char *header_value(const char *hdrs, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(hdrs, "\r\n"); p; p = strstr(p + 2, "\r\n"))
		if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':')
			return p + 3 + n + strspn(p + 3 + n, " \t");
	return NULL;
}

/*
 * Decode a chunked body in place from b->d + start: 1 done (*ret_len set),
 * 0 incomplete (nothing changed: the caller reads more), <0 malformed.
 */
static int dechunk(struct rbuf *b, size_t start, size_t *ret_len)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t in = start, out = start;

		for (;;) {
			char *end, *line = strstr(b->d + in, "\r\n");
			unsigned long n;

			if (!line)
				return 0;
			n = strtoul(b->d + in, &end, 16);
			if (end == b->d + in || n > MAX_BODY)
				return -EBADMSG;
			if (b->len < (size_t)(line - b->d) + 2 + n + 2)
				return 0;
			in = (size_t)(line - b->d) + 2;
			if (n == 0) {
				*ret_len = out - start;
				break;
			}
			if (pass == 1)
				memmove(b->d + out, b->d + in, n);
			out += n;
			in += n + 2;
		}
	}
	return 1;
}

static int read_chunked(struct pwhttp_io *io, struct rbuf *b, size_t hlen, uint64_t deadline,
			size_t *want)
{
	int d, r;

	while ((d = dechunk(b, hlen, want)) == 0)
		if ((r = fill(io, b, deadline, MAX_BODY)) <= 0)
			return r;
	return d < 0 ? d : 1;
}

static int read_sized(struct pwhttp_io *io, struct rbuf *b, size_t hlen, const char *cl,
		      uint64_t deadline, size_t *want)
{
	char *end;
	int r;

	if (*cl < '0' || *cl > '9')
		return -EBADMSG;
	*want = strtoul(cl, &end, 10);
	if (*want > MAX_BODY || (*end != '\r' && *end != '\0' && *end != ' '))
		return -EBADMSG;
	while (b->len < hlen + *want)
		if ((r = fill(io, b, deadline, MAX_BODY + hlen)) <= 0)
			return r;
	return 1;
}

static int read_to_eof(struct pwhttp_io *io, struct rbuf *b, size_t hlen, uint64_t deadline,
		       size_t *want)
{
	int r;

	while ((r = fill(io, b, deadline, MAX_BODY)) > 0)
		;
	if (r < 0)
		return r;
	*want = b->len - hlen;
	return 1;
}

int pwhttp_io_read_response(struct pwhttp_io *io, uint64_t deadline, struct pwhttp_response *resp,
			    bool *keep)
{
	struct rbuf b = {0};
	const char *cl, *te, *conn;
	char *eoh;
	size_t hlen, want = 0;
	int r = 0;

	while (!(eoh = b.d ? strstr(b.d, "\r\n\r\n") : NULL)) {
		r = fill(io, &b, deadline, MAX_HEADER);
		if (r <= 0)
			goto fail;
	}
	*eoh = '\0';
	hlen = (size_t)(eoh - b.d) + 4;
	if (sscanf(b.d, "HTTP/1.%*d %ld", &resp->status) != 1) {
		r = -EBADMSG;
		goto fail;
	}
	cl = header_value(b.d, "Content-Length");
	te = header_value(b.d, "Transfer-Encoding");
	conn = header_value(b.d, "Connection");
	*keep = !(conn && strncasecmp(conn, "close", 5) == 0);
	if (te && strncasecmp(te, "chunked", 7) == 0)
		r = read_chunked(io, &b, hlen, deadline, &want);
	else if (cl)
		r = read_sized(io, &b, hlen, cl, deadline, &want);
	else if ((r = read_to_eof(io, &b, hlen, deadline, &want)) > 0)
		*keep = false;
	if (r <= 0)
		goto fail;
	memmove(b.d, b.d + hlen, want);
	b.d[want] = '\0';
	resp->body = b.d;
	resp->body_len = want;
	return 0;
fail:
	free(b.d);
	return r == 0 ? -ECONNRESET : r;
}

int pwhttp_read_response(int fd, uint64_t deadline, struct pwhttp_response *resp, bool *keep)
{
	struct pwhttp_io io = {.fd = fd};

	return pwhttp_io_read_response(&io, deadline, resp, keep);
}
