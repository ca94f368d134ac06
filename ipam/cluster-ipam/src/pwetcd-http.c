/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: the plain-HTTP/1.1 transport for http:// and unix:// endpoints
 * (keep-alive, one connection per client, Content-Length or chunked
 * bodies, every wait bounded by the client's deadline). It exists for
 * start-up cost: linking libcurl maps ~30 shared libraries into every
 * process (about 7 ms per CNI call on the benchmark machine); TLS and the
 * watch stream go through libcurl, loaded on first use.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pwetcd-internal.h"

#define MAX_HEADER 16384

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait for fd to be ready (events) until deadline: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = mono_ms();
		struct pollfd p = {.fd = fd, .events = events};
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)(deadline - now));
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int connect_addr(int family, const struct sockaddr *sa, socklen_t len, uint64_t deadline)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), r, err = 0;
	socklen_t el = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, sa, len) == 0)
		goto done;
	if (errno != EINPROGRESS) {
		r = -errno;
		close(fd);
		return r == -ENOENT ? -ECONNREFUSED : r;
	}
	r = wait_fd(fd, POLLOUT, deadline);
	if (r == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		r = -errno;
	if (r == 0 && err)
		r = -err;
	if (r < 0) {
		close(fd);
		return r;
	}
done:
	if (family != AF_UNIX) {
		int one = 1;

		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

/* Split "http://host:port" into host and port (IPv6 as [addr]). */
static int split_host(const char *base, char *host, size_t hl, char *port, size_t pl)
{
	const char *h = base + 7, *end, *colon;

	if (*h == '[') {
		end = strchr(h, ']');
		if (!end)
			return -EINVAL;
		snprintf(host, hl, "%.*s", (int)(end - h - 1), h + 1);
		colon = end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strchr(h, ':');
		snprintf(host, hl, "%.*s", (int)(colon ? (size_t)(colon - h) : strlen(h)), h);
	}
	snprintf(port, pl, "%s", colon ? colon + 1 : "80");
	return host[0] ? 0 : -EINVAL;
}

int pwetcd_http_connect(const char *base, const char *unix_path, uint64_t deadline)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	char host[256], port[16];
	int fd = -ECONNREFUSED;

	if (unix_path) {
		struct sockaddr_un sun = {.sun_family = AF_UNIX};

		if (strlen(unix_path) >= sizeof(sun.sun_path))
			return -ENAMETOOLONG;
		strcpy(sun.sun_path, unix_path);
		return connect_addr(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun), deadline);
	}
	if (split_host(base, host, sizeof(host), port, sizeof(port)) < 0)
		return -EINVAL;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -ECONNREFUSED;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_addr(ai->ai_family, ai->ai_addr, ai->ai_addrlen, deadline);
	freeaddrinfo(res);
	return fd;
}

static int write_all(int fd, const char *p, size_t n, uint64_t deadline)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		int r = wait_fd(fd, POLLOUT, deadline);

		if (r < 0)
			return r;
	}
	return 0;
}

struct rbuf {
	char *d;
	size_t len, cap, off; /* off: consumed */
};

/* Read more bytes: >0 read, 0 EOF, <0 error. */
static int fill(int fd, struct rbuf *b, uint64_t deadline, size_t max)
{
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
	for (;;) {
		int r = wait_fd(fd, POLLIN, deadline); /* first: also right for blocking fds */
		ssize_t k;

		if (r < 0)
			return r;
		k = read(fd, b->d + b->len, b->cap - b->len - 1);
		if (k >= 0) {
			b->len += (size_t)k;
			b->d[b->len] = '\0';
			return (int)(k > 0);
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
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
static long dechunk(struct rbuf *b, size_t start, size_t *ret_len)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t in = start, out = start;

		for (;;) {
			char *end, *line = strstr(b->d + in, "\r\n");
			unsigned long n;

			if (!line)
				return 0;
			n = strtoul(b->d + in, &end, 16);
			if (end == b->d + in || n > (64ul << 20))
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

/* Read one response: status and body (owned, NUL-terminated). */
int pwetcd_http_read_response(int fd, uint64_t deadline, long *status, char **body,
			      size_t *body_len, bool *keep)
{
	struct rbuf b = {0};
	char *eoh = NULL;
	const char *cl, *te, *conn;
	size_t hlen, want;
	int r = 0;

	while (!(eoh = b.d ? strstr(b.d, "\r\n\r\n") : NULL)) {
		r = fill(fd, &b, deadline, MAX_HEADER * 2);
		if (r <= 0)
			goto fail;
	}
	*eoh = '\0';
	hlen = (size_t)(eoh - b.d) + 4;
	if (sscanf(b.d, "HTTP/1.%*d %ld", status) != 1) {
		r = -EBADMSG;
		goto fail;
	}
	cl = header_value(b.d, "Content-Length");
	te = header_value(b.d, "Transfer-Encoding");
	conn = header_value(b.d, "Connection");
	*keep = !(conn && strncasecmp(conn, "close", 5) == 0);
	if (te && strncasecmp(te, "chunked", 7) == 0) {
		size_t len = 0;
		long d;

		while ((d = dechunk(&b, hlen, &len)) == 0)
			if ((r = fill(fd, &b, deadline, 64u << 20)) <= 0)
				goto fail;
		if (d < 0) {
			r = (int)d;
			goto fail;
		}
		want = len;
	} else if (cl) {
		char *end;

		if (*cl < '0' || *cl > '9') {
			r = -EBADMSG;
			goto fail;
		}
		want = strtoul(cl, &end, 10);
		if (want > (64ul << 20) || (*end != '\r' && *end != '\0' && *end != ' ')) {
			r = -EBADMSG;
			goto fail;
		}
		while (b.len < hlen + want)
			if ((r = fill(fd, &b, deadline, (64u << 20) + hlen)) <= 0)
				goto fail;
	} else { /* until EOF */
		while ((r = fill(fd, &b, deadline, 64u << 20)) > 0)
			;
		if (r < 0)
			goto fail;
		want = b.len - hlen;
		*keep = false;
	}
	memmove(b.d, b.d + hlen, want);
	b.d[want] = '\0';
	*body = b.d;
	*body_len = want;
	return 0;
fail:
	free(b.d);
	return r == 0 ? -ECONNRESET : r;
}

int pwetcd_http_post(int *fdp, const char *base, const char *unix_path, const char *path,
		     const char *body, uint64_t deadline, long *status, char **ret, size_t *ret_len)
{
	char head[512];
	bool reused = *fdp >= 0, keep = true;
	int n, r;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (*fdp < 0) {
			*fdp = pwetcd_http_connect(base, unix_path, deadline);
			if (*fdp < 0)
				return *fdp;
			reused = false;
		}
		n = snprintf(head, sizeof(head),
			     "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
			     "Content-Length: %zu\r\n\r\n",
			     path, unix_path ? "localhost" : base + 7, strlen(body));
		r = write_all(*fdp, head, (size_t)n, deadline);
		if (r >= 0)
			r = write_all(*fdp, body, strlen(body), deadline);
		if (r >= 0)
			r = pwetcd_http_read_response(*fdp, deadline, status, ret, ret_len, &keep);
		if (r >= 0 && keep)
			return 0;
		close(*fdp);
		*fdp = -1;
		if (r >= 0)
			return 0;
		/* a kept connection the server closed meanwhile: once more on a new one */
		if (!reused || (r != -ECONNRESET && r != -EPIPE))
			return r;
	}
	return -ECONNRESET;
}
