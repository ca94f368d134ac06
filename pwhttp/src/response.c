/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One HTTP/1.1 response from an untrusted server: status line, headers
 * (32 KiB at most), and a body by Content-Length, chunked, or until EOF,
 * kept (64 MiB at most) or handed to a function as it arrives (a stream).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define MAX_HEADER (32u << 10)
#define MAX_BODY (64u << 20)
#define STREAM_BUF (64u << 10) /* a stream's buffer: one read at a time */

struct rbuf {
	char *d;
	size_t len, cap;
	size_t kept; /* the body: decoded bytes kept at the front */
};

/* Read more bytes into b (which may grow up to max): 1 read, 0 EOF, <0 error. */
static int fill(struct pwhttp_io *io, struct rbuf *b, uint64_t deadline, size_t max)
{
	long k;

	if (b->len + 1 >= b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8192;
		char *d;

		if (b->cap >= max)
			return -EMSGSIZE;
		d = realloc(b->d, cap < max ? cap : max);
		if (!d)
			return -ENOMEM;
		b->d = d;
		b->cap = cap < max ? cap : max;
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

enum body_kind { BODY_SIZED, BODY_CHUNKED, BODY_EOF };

/* What the head says about the body, and how far it has been read. */
struct body {
	enum body_kind kind;
	uint64_t left; /* BODY_SIZED: bytes still to come */
	struct pwhttp_chunked ch;
};

/* Content-Length: digits only (0 or -EBADMSG). */
static int content_length(const char *v, uint64_t *ret)
{
	char *end;

	if (*v < '0' || *v > '9')
		return -EBADMSG;
	errno = 0;
	*ret = strtoull(v, &end, 10);
	if (errno || (*end != '\r' && *end != '\0' && *end != ' ' && *end != '\t'))
		return -EBADMSG;
	return 0;
}

/* The head (NUL-terminated) into status, body and keep: 0 or -EBADMSG. */
static int parse_head(const char *head, long *status, struct body *body, bool *keep)
{
	const char *cl = header_value(head, "Content-Length");
	const char *te = header_value(head, "Transfer-Encoding");
	const char *conn = header_value(head, "Connection");

	if (sscanf(head, "HTTP/1.%*d %ld", status) != 1)
		return -EBADMSG;
	*keep = !(conn && strncasecmp(conn, "close", 5) == 0);
	*body = (struct body){.kind = BODY_EOF};
	if (te && strncasecmp(te, "chunked", 7) == 0) {
		body->kind = BODY_CHUNKED;
		pwhttp_chunked_init(&body->ch, MAX_BODY);
	} else if (cl) {
		body->kind = BODY_SIZED;
		return content_length(cl, &body->left);
	} else {
		*keep = false; /* the body ends with the connection */
	}
	return 0;
}

/* Read the head, parse it, and keep in b only what was read past it. 0 or -errno. */
static int read_head(struct pwhttp_io *io, struct rbuf *b, uint64_t deadline, long *status,
		     struct body *body, bool *keep)
{
	char *eoh;
	size_t hlen;
	int r;

	while (!(eoh = b->d ? strstr(b->d, "\r\n\r\n") : NULL))
		if ((r = fill(io, b, deadline, MAX_HEADER)) <= 0)
			return r == 0 ? -ECONNRESET : r;
	*eoh = '\0';
	r = parse_head(b->d, status, body, keep);
	hlen = (size_t)(eoh - b->d) + 4;
	b->len -= hlen;
	memmove(b->d, b->d + hlen, b->len + 1);
	return r;
}

/*
 * Decode p[0..n), in place: *out data bytes at p, *used input bytes taken.
 * 1 the body is complete, 0 more is needed, <0 malformed.
 */
static int body_decode(struct body *body, char *p, size_t n, size_t *out, size_t *used)
{
	switch (body->kind) {
	case BODY_SIZED:
		*out = *used = n < body->left ? n : (size_t)body->left;
		body->left -= *out;
		return body->left == 0;
	case BODY_CHUNKED:
		return pwhttp_chunked_decode(&body->ch, p, n, p, out, used);
	default:
		*out = *used = n;
		return 0; /* complete at EOF */
	}
}

/*
 * The body after the head: decoded in place after the bytes kept (b->kept),
 * or handed to sink and dropped. 0 (*keep false when bytes follow it), the
 * sink's stop value (sink->stopped), or -errno.
 */
static int read_body(struct pwhttp_io *io, struct rbuf *b, uint64_t deadline, struct body *body,
		     struct pwhttp_sink *sink, bool *keep)
{
	size_t max = sink ? STREAM_BUF : MAX_BODY + STREAM_BUF; /* room for a chunk's framing */
	int r;

	for (;;) {
		size_t out, used, n = b->len - b->kept;
		int done = body_decode(body, b->d + b->kept, n, &out, &used);

		if (done < 0)
			return done;
		if (sink && out > 0 &&
		    (r = sink->fn(sink->status, b->d, out, sink->userdata)) != 0) {
			sink->stopped = true;
			return r;
		}
		if (!sink)
			b->kept += out;
		if (b->kept > MAX_BODY)
			return -EMSGSIZE; /* until EOF: the others are bounded by the head */
		if (done) {
			*keep = *keep && used == n;
			return 0;
		}
		b->len = b->kept;
		if (sink)
			body->ch.room = MAX_BODY; /* a stream's limit is per chunk */
		r = fill(io, b, deadline, max);
		if (r <= 0)
			return r < 0 ? r : body->kind == BODY_EOF ? 0 : -ECONNRESET;
	}
}

int pwhttp_io_read_response(struct pwhttp_io *io, uint64_t deadline, struct pwhttp_response *resp,
			    bool *keep, struct pwhttp_sink *sink)
{
	struct rbuf b = {0};
	struct body body;
	int r = read_head(io, &b, deadline, &resp->status, &body, keep);

	if (r == 0 && !sink && body.kind == BODY_SIZED && body.left > MAX_BODY)
		r = -EMSGSIZE;
	if (r == 0 && sink) {
		sink->status = resp->status;
		r = sink->fn(resp->status, NULL, 0, sink->userdata); /* the head: go on? */
		sink->stopped = r != 0;
	}
	if (r == 0)
		r = read_body(io, &b, deadline, &body, sink, keep);
	if (r != 0 || sink) {
		free(b.d);
		return r;
	}
	b.d[b.kept] = '\0';
	resp->body = b.d;
	resp->body_len = b.kept;
	return 0;
}

int pwhttp_read_response(int fd, uint64_t deadline, struct pwhttp_response *resp, bool *keep)
{
	struct pwhttp_io io = {.fd = fd};

	return pwhttp_io_read_response(&io, deadline, resp, keep, NULL);
}
