/* SPDX-License-Identifier: Apache-2.0 */
/* pwhttp internals: one connection's byte stream, plain or TLS. */
#pragma once

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pwhttp/http.h"

struct pwhttp_tls_ctx;
struct pwhttp_tls_conn;

struct pwhttp_io {
	int fd;
	struct pwhttp_tls_conn *tls; /* NULL: plain */
};

/* Where a stream's body goes (pwhttp_request_stream). */
struct pwhttp_sink {
	pwhttp_body_fn fn;
	void *userdata;
	long status;  /* the response's, once its head is read */
	bool stopped; /* fn returned non-zero: the read stopped there */
};

/* Wait for events on fd until deadline: 0, -ETIMEDOUT or -errno. */
int pwhttp_wait_fd(int fd, short events, uint64_t deadline);

/* Connect to host:port (TCP, non-blocking, TCP_NODELAY) or unix_path. fd or -errno. */
int pwhttp_connect(const char *host, const char *port, const char *unix_path, uint64_t deadline);
/* Write everything to a (non-blocking) socket before deadline. 0 or -errno. */
int pwhttp_write_all(int fd, const char *p, size_t n, uint64_t deadline);

/* >0 bytes read, 0 EOF, <0 -errno (a plain fd is polled first: blocking fds work too). */
long pwhttp_io_read(struct pwhttp_io *io, char *buf, size_t cap, uint64_t deadline);
int pwhttp_io_write_all(struct pwhttp_io *io, const char *p, size_t n, uint64_t deadline);
/* pwhttp_read_response on io; with a sink, the body goes to it (resp->body stays NULL). */
int pwhttp_io_read_response(struct pwhttp_io *io, uint64_t deadline, struct pwhttp_response *resp,
			    bool *keep, struct pwhttp_sink *sink);

/*
 * der.c: der (len bytes) is a DER SEQUENCE: drop every direct child with
 * this tag (a context tag such as 0xa3), in place. The new length, or 0
 * (unchanged) when der is not a well-formed SEQUENCE.
 */
size_t pwhttp_der_drop_child(unsigned char *der, size_t len, unsigned char tag);

/* ---- tls.c: libssl through dlopen ---- */

/*
 * A verifying client context from the material, for host (the saved
 * session's key). 0 or -ELIBACC/-EKEYREJECTED/-ENOMEM, *why.
 */
int pwhttp_tls_ctx_new(const struct pwhttp_tls *m, const char *host, struct pwhttp_tls_ctx **ret,
		       const char **why);
void pwhttp_tls_ctx_free(struct pwhttp_tls_ctx *ctx);
/*
 * Handshake on the connected non-blocking fd, verifying the certificate
 * for host (a name, or an IP literal). 0, -ETIMEDOUT, -ECONNRESET or
 * -EPROTO; *why says why (static text or an internal buffer).
 */
int pwhttp_tls_connect(struct pwhttp_tls_ctx *ctx, int fd, const char *host, uint64_t deadline,
		       struct pwhttp_tls_conn **ret, const char **why);
void pwhttp_tls_conn_free(struct pwhttp_tls_conn *t);
/* Why the last read or write returned -EPROTO (OpenSSL's text). */
const char *pwhttp_tls_conn_error(const struct pwhttp_tls_conn *t);
long pwhttp_tls_read(struct pwhttp_tls_conn *t, int fd, char *buf, size_t cap, uint64_t deadline);
long pwhttp_tls_write(struct pwhttp_tls_conn *t, int fd, const char *p, size_t n,
		      uint64_t deadline);
