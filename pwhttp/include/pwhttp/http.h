/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwhttp: podwire's one HTTP/1.1 client, for what talks to a server
 * (multinet: the kube-apiserver; pwetcd: etcd's JSON gateway, its watch
 * stream too). One kept connection per client, http://, https:// or a unix
 * socket, every wait bounded by a deadline, Content-Length, chunked or
 * until-EOF bodies, kept or streamed.
 *
 * TLS is OpenSSL's libssl, loaded with dlopen on the first https:// client:
 * a process that never talks TLS maps nothing more than libc, and one that
 * does maps libssl and libcrypto only (not libcurl, whose ~30 libraries
 * cost a cluster-ipam ADD+DEL ~14 ms: pwhttp/README.md).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TLS material, PEM, each as a file or in memory (data wins). */
struct pwhttp_tls {
	const char *ca_file;
	const char *ca_data;
	size_t ca_len;
	bool system_ca; /* no CA given: the system's trust store (else an error) */
	const char *cert_file, *key_file;
	const char *cert_data, *key_data;
	size_t cert_len, key_len;
	/*
	 * A file where the session the server last gave is kept across
	 * processes, to resume it (no certificate exchange or verification;
	 * while a session saved for this host and material is there, the CA,
	 * client certificate and key are parsed only if the server refuses
	 * it); NULL: none. The file is bound to the host and the bytes of the
	 * CA, client certificate and key: a session a client certificate
	 * authenticated is offered only by a process that read the same
	 * certificate and key. Unusable, expired
	 * or refused: a full handshake, as without. Written (0600, temp and
	 * rename, its directory made 0700 if missing) after every connection
	 * the server gave a session. It holds a resumption secret: keep it
	 * where the client key or token is kept.
	 */
	const char *session_file;
};

struct pwhttp_target {
	/* "http://host[:port][/prefix]" or "https://..."; NULL with unix_path. */
	const char *url;
	const char *unix_path;
	/* Required for https://: the server is always verified against ca_*. */
	const struct pwhttp_tls *tls;
	/* Bound on one connect + TLS handshake (0: only the request deadline). */
	unsigned connect_timeout_ms;
	const char *user_agent; /* NULL: "podwire" */
};

struct pwhttp_request {
	const char *method;  /* "GET", "POST", "PATCH", ... */
	const char *path;    /* appended to the URL's prefix */
	const char *headers; /* extra header lines, each ending in "\r\n", or NULL */
	const char *body;    /* NULL: no body */
	size_t body_len;
};

struct pwhttp_response {
	long status;
	char *body; /* owned, NUL-terminated */
	size_t body_len;
};

struct pwhttp_client;

/*
 * A client for target (copied). Connects lazily, on the first request.
 * 0, or -EINVAL (bad URL, https:// without TLS material), -ELIBACC (libssl
 * cannot be loaded), -EKEYREJECTED (CA, certificate or key unusable),
 * -ENOMEM; then *why (if not NULL) names the reason (static or the
 * client-independent OpenSSL text, valid until the next pwhttp call).
 */
int pwhttp_client_new(const struct pwhttp_target *t, struct pwhttp_client **ret, const char **why);
void pwhttp_client_free(struct pwhttp_client *c);

/*
 * One request on the kept connection (made if needed; a kept connection the
 * server closed is retried once on a new one). 0 with resp filled (any HTTP
 * status), or -ECONNREFUSED, -ETIMEDOUT, -ECONNRESET, -EPIPE, -EHOSTUNREACH
 * (transport: worth a retry), -EBADMSG (not HTTP), -EMSGSIZE, -EPROTO (TLS
 * handshake or certificate verification failed: a retry cannot help).
 * pwhttp_client_error() says more about the last failure.
 */
int pwhttp_request(struct pwhttp_client *c, const struct pwhttp_request *rq, uint64_t deadline,
		   struct pwhttp_response *resp);
const char *pwhttp_client_error(const struct pwhttp_client *c);

/*
 * A request whose response body is handed to fn as it arrives (a watch
 * stream) instead of being kept: fn is called once the head is read (data
 * NULL, len 0), then with each piece of the decoded body, and returns 0 to
 * go on or anything else to stop (the connection is then closed). The body
 * has no size limit (a chunk at most 64 MiB). 0 when the body ended, fn's
 * value, or pwhttp_request's errors (-ETIMEDOUT when the deadline passes,
 * also in the middle of the body; -ECONNRESET when the server closed it
 * before its end). A kept connection found closed is retried as by
 * pwhttp_request, only before the response's head was read.
 */
typedef int (*pwhttp_body_fn)(long status, const char *data, size_t len, void *userdata);
int pwhttp_request_stream(struct pwhttp_client *c, const struct pwhttp_request *rq,
			  uint64_t deadline, pwhttp_body_fn fn, void *userdata);

/* CLOCK_MONOTONIC in ms: the time base of every deadline. */
uint64_t pwhttp_now_ms(void);

/* ---- the response reader and its chunked decoder (exposed for tests and fuzzing) ---- */

/*
 * Read one HTTP/1.1 response from fd (untrusted): status, body (owned,
 * NUL-terminated; Content-Length, chunked, or until EOF) and whether the
 * connection may be kept (not after "Connection: close", a body until EOF,
 * or bytes past the body). 0 or -EBADMSG, -ECONNRESET (EOF early),
 * -ETIMEDOUT, -EMSGSIZE (headers over 32 KiB, body over 64 MiB).
 */
int pwhttp_read_response(int fd, uint64_t deadline, struct pwhttp_response *resp, bool *keep);

/* A chunked body being decoded: its state between reads. */
struct pwhttp_chunked {
	int state;
	uint64_t size; /* the current chunk's size, then what is left of its data */
	size_t line;   /* bytes of the current size line, or of the trailers */
	uint64_t room; /* data bytes the body may still grow by */
};
void pwhttp_chunked_init(struct pwhttp_chunked *d, size_t max);
/*
 * Decode the next n bytes of a chunked body from in: its data into out (out
 * may be in, or before it: decoding in place), *out_len bytes of it, and
 * *used bytes of input taken. 1: the body ended (last chunk and trailers
 * read; in[*used..n) comes after it), 0: all input taken, more is needed,
 * -EBADMSG: not a chunked body (a size not hex, a chunk's data not followed
 * by CRLF, a bare LF, ...), -EMSGSIZE: the data past max, or a size line or
 * the trailers over 32 KiB. After an error the decoder is not to be used.
 */
int pwhttp_chunked_decode(struct pwhttp_chunked *d, const char *in, size_t n, char *out,
			  size_t *out_len, size_t *used);
