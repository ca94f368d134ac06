/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwhttp's client: which URLs it takes, what it sends (request line with the
 * URL's prefix, Host, headers, body), one kept connection for several
 * requests, a new one after "Connection: close" or when the server dropped
 * the kept one, errors for a server that is not there, and TLS material
 * that cannot be used.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pwhttp/http.h"

struct server {
	char dir[64], path[96];
	int log[2]; /* the server writes each request it read here */
	pid_t pid;
};

/* What the server does on each accepted connection: answers per connection. */
struct script {
	int conns;	      /* connections to accept */
	int answers[4];	      /* requests answered on connection i */
	const char *last_hdr; /* extra header on the last answer of a connection */
	/* the first connection's first answer: these parts, 20 ms apart (NULL-ended) */
	const char *const *raw;
};

static void write_raw(int fd, const char *const *parts)
{
	for (; *parts; parts++) {
		if (write(fd, *parts, strlen(*parts)) < 0)
			_exit(1);
		usleep(20000);
	}
}

static ssize_t read_request(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	char *eoh;

	while (len + 1 < cap) {
		ssize_t k = read(fd, buf + len, cap - len - 1);

		if (k <= 0)
			return -1;
		len += (size_t)k;
		buf[len] = '\0';
		eoh = strstr(buf, "\r\n\r\n");
		if (eoh) {
			const char *cl = strcasestr(buf, "Content-Length: ");
			size_t want =
			    (size_t)(eoh - buf) + 4 + (cl ? strtoul(cl + 16, NULL, 10) : 0);

			if (len >= want)
				return (ssize_t)len;
		}
	}
	return -1;
}

static void serve(int lfd, int logfd, const struct script *s)
{
	for (int c = 0; c < s->conns; c++) {
		int fd = accept(lfd, NULL, NULL);

		for (int i = 0; fd >= 0 && i < s->answers[c]; i++) {
			char buf[4096], out[256];
			bool last = i + 1 == s->answers[c];
			ssize_t n = read_request(fd, buf, sizeof(buf));
			int m;

			if (n < 0)
				break;
			if (write(logfd, buf, (size_t)n + 1) < 0)
				_exit(1);
			if (s->raw && c == 0 && i == 0) {
				write_raw(fd, s->raw);
				continue;
			}
			m = snprintf(out, sizeof(out),
				     "HTTP/1.1 200 OK\r\n%sContent-Length: 8\r\n\r\nconn%d-r%d",
				     last && s->last_hdr ? s->last_hdr : "", c, i);
			if (write(fd, out, (size_t)m) < 0)
				_exit(1);
		}
		if (fd >= 0)
			close(fd);
	}
	_exit(0);
}

static void server_start(struct server *sv, const struct script *s)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int lfd;

	snprintf(sv->dir, sizeof(sv->dir), "/tmp/pwhttp-test.XXXXXX");
	assert_non_null(mkdtemp(sv->dir));
	snprintf(sv->path, sizeof(sv->path), "%s/s", sv->dir);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sv->path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv->log), 0);
	sv->pid = fork();
	assert_true(sv->pid >= 0);
	if (sv->pid == 0) {
		alarm(10); /* a failed test never stops it: it stops itself */
		close(sv->log[0]);
		serve(lfd, sv->log[1], s);
	}
	close(lfd);
	close(sv->log[1]);
}

/* The next request the server read, or "" when there is none. */
static const char *server_request(struct server *sv)
{
	static char buf[4096];
	ssize_t n = recv(sv->log[0], buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void server_stop(struct server *sv)
{
	kill(sv->pid, SIGKILL);
	waitpid(sv->pid, NULL, 0);
	close(sv->log[0]);
	unlink(sv->path);
	rmdir(sv->dir);
}

static struct pwhttp_client *client_for(const struct server *sv)
{
	struct pwhttp_target t = {.unix_path = sv->path, .user_agent = "pwhttp-test"};
	struct pwhttp_client *c = NULL;

	assert_int_equal(pwhttp_client_new(&t, &c, NULL), 0);
	return c;
}

static void get(struct pwhttp_client *c, const char *path, const char *want_body)
{
	struct pwhttp_request rq = {.method = "GET", .path = path};
	struct pwhttp_response resp;

	assert_int_equal(pwhttp_request(c, &rq, pwhttp_now_ms() + 2000, &resp), 0);
	assert_int_equal(resp.status, 200);
	assert_string_equal(resp.body, want_body);
	free(resp.body);
}

static void test_request_bytes(void **state)
{
	const struct script s = {.conns = 1, .answers = {1}};
	struct pwhttp_request rq = {.method = "PATCH",
				    .path = "/api/v1/x",
				    .headers = "Authorization: Bearer t\r\n",
				    .body = "{\"a\":1}",
				    .body_len = 7};
	struct pwhttp_response resp;
	struct pwhttp_client *c;
	struct server sv;
	(void)state;

	server_start(&sv, &s);
	c = client_for(&sv);
	assert_int_equal(pwhttp_request(c, &rq, pwhttp_now_ms() + 2000, &resp), 0);
	assert_string_equal(resp.body, "conn0-r0");
	assert_int_equal(resp.body_len, 8);
	free(resp.body);
	assert_string_equal(server_request(&sv), "PATCH /api/v1/x HTTP/1.1\r\nHost: localhost\r\n"
						 "User-Agent: pwhttp-test\r\n"
						 "Authorization: Bearer t\r\n"
						 "Content-Length: 7\r\n\r\n{\"a\":1}");
	pwhttp_client_free(c);
	server_stop(&sv);
}

static void test_kept_connection(void **state)
{
	const struct script s = {.conns = 1, .answers = {3}};
	struct pwhttp_client *c;
	struct server sv;
	(void)state;

	server_start(&sv, &s);
	c = client_for(&sv);
	get(c, "/a", "conn0-r0");
	get(c, "/b", "conn0-r1");
	get(c, "/c", "conn0-r2"); /* one connection: the server accepts only one */
	assert_string_equal(server_request(&sv), "GET /a HTTP/1.1\r\nHost: localhost\r\n"
						 "User-Agent: pwhttp-test\r\n\r\n");
	pwhttp_client_free(c);
	server_stop(&sv);
}

/* Two GETs that must go out on two connections, pause_us apart. */
static void two_connections(const struct script *s, useconds_t pause_us)
{
	struct pwhttp_client *c;
	struct server sv;

	server_start(&sv, s);
	c = client_for(&sv);
	get(c, "/a", "conn0-r0");
	usleep(pause_us);
	get(c, "/b", "conn1-r0");
	pwhttp_client_free(c);
	server_stop(&sv);
}

static void test_connection_close(void **state)
{
	const struct script s = {
	    .conns = 2, .answers = {1, 1}, .last_hdr = "Connection: close\r\n"};
	(void)state;

	two_connections(&s, 0);
}

static void test_dropped_kept_connection(void **state)
{
	/* The server answers once and closes without saying so: the client's
	 * next request finds the kept connection dead and retries on a new one. */
	const struct script s = {.conns = 2, .answers = {1, 1}};
	(void)state;

	two_connections(&s, 50000);
}

static void test_no_server(void **state)
{
	struct pwhttp_target t = {.url = "http://127.0.0.1:1"};
	struct pwhttp_request rq = {.method = "GET", .path = "/"};
	struct pwhttp_response resp;
	struct pwhttp_client *c = NULL;
	(void)state;

	assert_int_equal(pwhttp_client_new(&t, &c, NULL), 0);
	assert_int_equal(pwhttp_request(c, &rq, pwhttp_now_ms() + 2000, &resp), -ECONNREFUSED);
	assert_non_null(strstr(pwhttp_client_error(c), "connect"));
	pwhttp_client_free(c);
}

static void test_urls(void **state)
{
	static const char *const bad[] = {
	    "ftp://h",	      "http://",      "http://:80", "http://h:0",
	    "http://h:65536", "http://h:8a",  "http://u@h", "http://[::1",
	    "http://[::1]x",  "http://h?x=1", "http://h#f", "h:80",
	};
	static const char *const good[] = {
	    "http://h", "http://h:8080", "http://[::1]:2379", "http://h/prefix/", "http://h:1/p/q",
	};
	struct pwhttp_client *c;
	const char *why;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pwhttp_target t = {.url = bad[i]};

		why = NULL;
		c = NULL;
		print_message("bad url %s\n", bad[i]);
		assert_int_equal(pwhttp_client_new(&t, &c, &why), -EINVAL);
		assert_non_null(why);
		assert_null(c);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct pwhttp_target t = {.url = good[i]};

		c = NULL;
		assert_int_equal(pwhttp_client_new(&t, &c, NULL), 0);
		pwhttp_client_free(c);
	}
}

static void test_tls_material(void **state)
{
	struct pwhttp_tls none = {0}, missing = {.ca_file = "/nonexistent/ca.crt"},
			  junk = {.ca_data = "not a certificate", .ca_len = 17};
	struct pwhttp_target t = {.url = "https://127.0.0.1:6443"};
	struct pwhttp_client *c = NULL;
	const char *why = NULL;
	(void)state;

	assert_int_equal(pwhttp_client_new(&t, &c, &why), -EINVAL); /* https without a CA */
	assert_string_equal(why, "https:// needs a CA");
	t.tls = &none;
	assert_int_equal(pwhttp_client_new(&t, &c, &why), -EKEYREJECTED);
	assert_non_null(strstr(why, "CA"));
	t.tls = &missing;
	assert_int_equal(pwhttp_client_new(&t, &c, &why), -EKEYREJECTED);
	t.tls = &junk;
	assert_int_equal(pwhttp_client_new(&t, &c, &why), -EKEYREJECTED);
	assert_null(c);
}

/* What a stream's function saw. */
struct seen {
	long status;
	char data[256];
	size_t len;
	int calls;
	int stop_after; /* stop (with 7) after this many pieces, -1 at the head; 0: never */
};

static int on_body(long status, const char *data, size_t len, void *userdata)
{
	struct seen *w = userdata;

	w->status = status;
	if (!data) /* the head */
		return len == 0 && w->stop_after < 0 ? 7 : 0;
	assert_true(w->len + len < sizeof(w->data));
	memcpy(w->data + w->len, data, len);
	w->len += len;
	return ++w->calls == w->stop_after ? 7 : 0;
}

#define CHUNKED_HEAD "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

static void test_stream(void **state)
{
	/* in pieces as they come, then the kept connection answers the next request */
	static const char *const parts[] = {CHUNKED_HEAD "6\r\nline1\n", "\r\n6\r\nline2\n\r\n",
					    "0\r\n\r\n", NULL};
	const struct script s = {.conns = 1, .answers = {2}, .raw = parts};
	struct pwhttp_request rq = {
	    .method = "POST", .path = "/v3/watch", .body = "{}", .body_len = 2};
	struct seen w = {0};
	struct pwhttp_client *c;
	struct server sv;
	(void)state;

	server_start(&sv, &s);
	c = client_for(&sv);
	assert_int_equal(pwhttp_request_stream(c, &rq, pwhttp_now_ms() + 2000, on_body, &w), 0);
	assert_int_equal(w.status, 200);
	assert_int_equal(w.len, 12);
	assert_memory_equal(w.data, "line1\nline2\n", 12);
	assert_true(w.calls >= 2); /* each piece when it came */
	get(c, "/b", "conn0-r1");
	pwhttp_client_free(c);
	server_stop(&sv);
}

static void test_stream_stop(void **state)
{
	/* the function stops it (in the body, at the head): its value, a new connection */
	static const char *const parts[] = {CHUNKED_HEAD "3\r\nabc\r\n", NULL};
	const struct script s = {.conns = 3, .answers = {1, 1, 1}, .raw = parts};
	struct pwhttp_request rq = {.method = "GET", .path = "/"};
	struct seen w = {.stop_after = 1}, head = {.stop_after = -1};
	struct pwhttp_client *c;
	struct server sv;
	(void)state;

	server_start(&sv, &s);
	c = client_for(&sv);
	assert_int_equal(pwhttp_request_stream(c, &rq, pwhttp_now_ms() + 2000, on_body, &w), 7);
	assert_memory_equal(w.data, "abc", 3);
	assert_int_equal(pwhttp_request_stream(c, &rq, pwhttp_now_ms() + 2000, on_body, &head), 7);
	assert_int_equal(head.status, 200);
	assert_int_equal(head.len, 0);
	get(c, "/b", "conn2-r0");
	pwhttp_client_free(c);
	server_stop(&sv);
}

static void test_stream_deadline(void **state)
{
	/* the deadline passes in the middle of the body: -ETIMEDOUT after what came */
	static const char *const parts[] = {
	    "HTTP/1.1 503 Unavailable\r\nContent-Length: 10\r\n\r\n{\"a\"", NULL};
	const struct script s = {.conns = 1, .answers = {2}, .raw = parts}; /* open after */
	struct pwhttp_request rq = {.method = "GET", .path = "/"};
	struct seen w = {0};
	struct pwhttp_client *c;
	struct server sv;
	uint64_t t0 = pwhttp_now_ms();
	(void)state;

	server_start(&sv, &s);
	c = client_for(&sv);
	assert_int_equal(pwhttp_request_stream(c, &rq, t0 + 300, on_body, &w), -ETIMEDOUT);
	assert_true(pwhttp_now_ms() - t0 < 1000);
	assert_int_equal(w.status, 503);
	assert_memory_equal(w.data, "{\"a\"", 4);
	pwhttp_client_free(c);
	server_stop(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_bytes),    cmocka_unit_test(test_kept_connection),
	    cmocka_unit_test(test_connection_close), cmocka_unit_test(test_dropped_kept_connection),
	    cmocka_unit_test(test_no_server),	     cmocka_unit_test(test_urls),
	    cmocka_unit_test(test_tls_material),     cmocka_unit_test(test_stream),
	    cmocka_unit_test(test_stream_stop),	     cmocka_unit_test(test_stream_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
