/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: the plain-HTTP/1.1 transport for http:// and unix:// endpoints
 * (keep-alive, one connection per client, Content-Length or chunked
 * bodies, every wait bounded by the client's deadline), on pwhttp's socket
 * layer. It exists for start-up cost: linking libcurl maps ~30 shared
 * libraries into every process (about 7 ms per CNI call on the benchmark
 * machine); TLS and the watch stream go through libcurl, loaded on first use.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pwetcd-internal.h"
#include "pwhttp/http.h"

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
	char host[256], port[16];
	int fd;

	if (unix_path)
		return pwhttp_connect(NULL, NULL, unix_path, deadline);
	if (split_host(base, host, sizeof(host), port, sizeof(port)) < 0)
		return -EINVAL;
	fd = pwhttp_connect(host, port, NULL, deadline);
	return fd == -EHOSTUNREACH ? -ECONNREFUSED : fd;
}

int pwetcd_http_read_response(int fd, uint64_t deadline, long *status, char **body,
			      size_t *body_len, bool *keep)
{
	struct pwhttp_response resp;
	int r = pwhttp_read_response(fd, deadline, &resp, keep);

	if (r < 0)
		return r;
	*status = resp.status;
	*body = resp.body;
	*body_len = resp.body_len;
	return 0;
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
		r = pwhttp_write_all(*fdp, head, (size_t)n, deadline);
		if (r >= 0)
			r = pwhttp_write_all(*fdp, body, strlen(body), deadline);
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
