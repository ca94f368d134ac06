/* SPDX-License-Identifier: Apache-2.0 */
/* A client: its target, the TLS context, and the one kept connection. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

struct pwhttp_client {
	bool https;
	char host[256]; /* for connect and certificate verification */
	char port[8];
	char authority[300]; /* the Host header */
	char *prefix;	     /* the URL's path, "" if none */
	char *unix_path;
	char *user_agent;
	unsigned connect_timeout_ms;
	struct pwhttp_tls_ctx *tls_ctx;
	struct pwhttp_io io;
	const char *error;
	char error_buf[320];
};

/* scheme://authority[/prefix] into the client's fields. */
static int parse_url(struct pwhttp_client *c, const char *url)
{
	const char *a, *end, *colon = NULL, *path;
	size_t hl;

	if (strncmp(url, "https://", 8) == 0)
		c->https = true, a = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		a = url + 7;
	else
		return -EINVAL;
	path = a + strcspn(a, "/?#");
	if (*path == '?' || *path == '#' || memchr(a, '@', (size_t)(path - a)))
		return -EINVAL;
	if (*a == '[') {
		end = memchr(a, ']', (size_t)(path - a));
		if (!end || (end + 1 != path && end[1] != ':'))
			return -EINVAL;
		hl = (size_t)(end - a - 1);
		a++;
		colon = end + 1 != path ? end + 1 : NULL;
	} else {
		colon = memchr(a, ':', (size_t)(path - a));
		hl = (size_t)((colon ? colon : path) - a);
	}
	if (hl == 0 || hl >= sizeof(c->host) || (size_t)(path - url) >= sizeof(c->authority))
		return -EINVAL;
	memcpy(c->host, a, hl);
	c->host[hl] = '\0';
	snprintf(c->port, sizeof(c->port), "%.*s", colon ? (int)(path - colon - 1) : 0,
		 colon ? colon + 1 : "");
	if (!c->port[0])
		snprintf(c->port, sizeof(c->port), "%s", c->https ? "443" : "80");
	if (strspn(c->port, "0123456789") != strlen(c->port) || atoi(c->port) > 65535 ||
	    atoi(c->port) < 1)
		return -EINVAL;
	snprintf(c->authority, sizeof(c->authority), "%.*s", (int)(path - url) - (c->https ? 8 : 7),
		 url + (c->https ? 8 : 7));
	c->prefix = strndup(path, strlen(path) - (path[0] && path[strlen(path) - 1] == '/'));
	return c->prefix ? 0 : -ENOMEM;
}

int pwhttp_client_new(const struct pwhttp_target *t, struct pwhttp_client **ret, const char **why)
{
	struct pwhttp_client *c = calloc(1, sizeof(*c));
	const char *dummy;
	int r;

	if (!why)
		why = &dummy;
	if (!c)
		return -ENOMEM;
	c->io.fd = -1;
	c->connect_timeout_ms = t->connect_timeout_ms;
	if (t->unix_path) {
		snprintf(c->authority, sizeof(c->authority), "localhost");
		c->unix_path = strdup(t->unix_path);
		c->prefix = strdup("");
		r = c->unix_path && c->prefix ? 0 : -ENOMEM;
	} else {
		r = t->url ? parse_url(c, t->url) : -EINVAL;
		if (r == -EINVAL)
			*why = "not an http:// or https:// URL";
	}
	if (r == 0 && !(c->user_agent = strdup(t->user_agent ? t->user_agent : "podwire")))
		r = -ENOMEM;
	if (r == 0 && c->https && !t->tls) {
		*why = "https:// needs a CA";
		r = -EINVAL;
	}
	if (r == 0 && c->https)
		r = pwhttp_tls_ctx_new(t->tls, c->host, &c->tls_ctx, why);
	if (r < 0) {
		pwhttp_client_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

static void drop_connection(struct pwhttp_client *c)
{
	pwhttp_tls_conn_free(c->io.tls);
	c->io.tls = NULL;
	if (c->io.fd >= 0)
		close(c->io.fd);
	c->io.fd = -1;
}

void pwhttp_client_free(struct pwhttp_client *c)
{
	if (!c)
		return;
	drop_connection(c);
	pwhttp_tls_ctx_free(c->tls_ctx);
	free(c->prefix);
	free(c->unix_path);
	free(c->user_agent);
	free(c);
}

const char *pwhttp_client_error(const struct pwhttp_client *c)
{
	return c->error ? c->error : "no error";
}

static void set_error(struct pwhttp_client *c, const char *what, int r)
{
	snprintf(c->error_buf, sizeof(c->error_buf), "%s: %s", what, strerror(-r));
	c->error = c->error_buf;
}

static int open_connection(struct pwhttp_client *c, uint64_t deadline)
{
	uint64_t d = deadline;
	const char *why = NULL;
	int r;

	if (c->connect_timeout_ms && pwhttp_now_ms() + c->connect_timeout_ms < d)
		d = pwhttp_now_ms() + c->connect_timeout_ms;
	c->io.fd = pwhttp_connect(c->host, c->port, c->unix_path, d);
	if (c->io.fd < 0) {
		r = c->io.fd;
		c->io.fd = -1;
		set_error(c, "connect", r);
		return r;
	}
	if (!c->https)
		return 0;
	r = pwhttp_tls_connect(c->tls_ctx, c->io.fd, c->host, d, &c->io.tls, &why);
	if (r < 0) {
		snprintf(c->error_buf, sizeof(c->error_buf), "%s", why);
		c->error = c->error_buf;
		drop_connection(c);
	}
	return r;
}

static char *build_head(const struct pwhttp_client *c, const struct pwhttp_request *rq)
{
	char *head = NULL, len[40] = "";

	if (rq->body)
		snprintf(len, sizeof(len), "Content-Length: %zu\r\n", rq->body_len);
	if (asprintf(&head, "%s %s%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n%s%s\r\n",
		     rq->method, c->prefix, rq->path, c->authority, c->user_agent,
		     rq->headers ? rq->headers : "", len) < 0)
		return NULL;
	return head;
}

/* One request as it goes out, and where its response's body goes. */
struct call {
	const char *head;
	const struct pwhttp_request *rq;
	struct pwhttp_sink *sink; /* NULL: kept in the response */
};

static int send_request(struct pwhttp_client *c, const char *head, const struct pwhttp_request *rq,
			uint64_t deadline)
{
	int r = pwhttp_io_write_all(&c->io, head, strlen(head), deadline);

	if (r >= 0 && rq->body)
		r = pwhttp_io_write_all(&c->io, rq->body, rq->body_len, deadline);
	return r;
}

static int exchange(struct pwhttp_client *c, const struct call *call, uint64_t deadline,
		    struct pwhttp_response *resp, bool *keep)
{
	int r = send_request(c, call->head, call->rq, deadline);

	if (r >= 0)
		return pwhttp_io_read_response(&c->io, deadline, resp, keep, call->sink);
	/*
	 * The server closed while we wrote. It may have said why first (a TLS
	 * alert: no or a refused client certificate; or an early HTTP answer).
	 */
	if ((r == -EPIPE || r == -ECONNRESET) && c->io.tls) {
		int why = pwhttp_io_read_response(&c->io, deadline, resp, keep, call->sink);

		if (why == 0)
			*keep = false;
		if (why == 0 || why == -EPROTO)
			r = why;
	}
	return r;
}

/* Worth one more try on a new connection: a kept one the server closed meanwhile. */
static bool retry(int r, bool reused, const struct pwhttp_sink *sink)
{
	if (!reused || (r != -ECONNRESET && r != -EPIPE))
		return false;
	return !sink || sink->status == 0; /* a stream: only before its head */
}

static int request(struct pwhttp_client *c, const struct pwhttp_request *rq, uint64_t deadline,
		   struct pwhttp_response *resp, struct pwhttp_sink *sink)
{
	char *head = build_head(c, rq);
	const struct call call = {.head = head, .rq = rq, .sink = sink};
	bool keep = true, reused;
	int r = -ECONNRESET;

	if (!head)
		return -ENOMEM;
	*resp = (struct pwhttp_response){0};
	for (int attempt = 0; attempt < 2; attempt++) {
		/* kept: made before this request, the server may have closed it */
		reused = c->io.fd >= 0;
		if (c->io.fd < 0 && (r = open_connection(c, deadline)) < 0) {
			if (reused && attempt == 0 && (r == -ECONNRESET || r == -EPIPE))
				continue;
			free(head);
			return r; /* c->error set */
		}
		r = exchange(c, &call, deadline, resp, &keep);
		if (r == -EPROTO && c->io.tls) {
			snprintf(c->error_buf, sizeof(c->error_buf), "%s",
				 pwhttp_tls_conn_error(c->io.tls));
			c->error = c->error_buf;
		}
		if (r != 0 || !keep)
			drop_connection(c);
		if (r >= 0 || !retry(r, reused, sink))
			break;
	}
	if (r < 0 && r != -EPROTO && !(sink && sink->stopped))
		set_error(c, "request", r);
	free(head);
	return r;
}

int pwhttp_request(struct pwhttp_client *c, const struct pwhttp_request *rq, uint64_t deadline,
		   struct pwhttp_response *resp)
{
	return request(c, rq, deadline, resp, NULL);
}

int pwhttp_request_stream(struct pwhttp_client *c, const struct pwhttp_request *rq,
			  uint64_t deadline, pwhttp_body_fn fn, void *userdata)
{
	struct pwhttp_sink sink = {.fn = fn, .userdata = userdata};
	struct pwhttp_response resp;

	return request(c, rq, deadline, &resp, &sink);
}
