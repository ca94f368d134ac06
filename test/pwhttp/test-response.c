/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwhttp's HTTP/1.1 response reader: Content-Length, chunked
 * bodies split across reads, Connection: close, read until EOF, and
 * malformed or truncated answers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pwhttp/http.h"

static int read_response(int fd, uint64_t deadline, long *status, char **body, size_t *len,
			 bool *keep)
{
	struct pwhttp_response resp;
	int r = pwhttp_read_response(fd, deadline, &resp, keep);

	*body = NULL;
	if (r == 0) {
		*status = resp.status;
		*body = resp.body;
		*len = resp.body_len;
	}
	return r;
}

static uint64_t soon(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u + 2000u;
}

/* Feed parts from a child (with pauses, so they arrive in separate reads). */
static int feed(const char *const *parts, size_t n, bool close_after, pid_t *pid)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	*pid = fork();
	if (*pid == 0) {
		close(sv[0]);
		for (size_t i = 0; i < n; i++) {
			if (write(sv[1], parts[i], strlen(parts[i])) < 0)
				_exit(1);
			usleep(20000);
		}
		if (!close_after)
			usleep(3000000);
		_exit(0);
	}
	close(sv[1]);
	return sv[0];
}

static int read_parts(const char *const *parts, size_t n, bool close_after, long *status,
		      char **body, size_t *len, bool *keep)
{
	pid_t pid;
	int fd = feed(parts, n, close_after, &pid), r;

	r = read_response(fd, soon(), status, body, len, keep);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return r;
}

#define HDR "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"

static void test_content_length(void **state)
{
	const char *parts[] = {HDR "Content-Length: 7\r\n\r\n{\"a\"", ":1}"};
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_parts(parts, 2, false, &st, &b, &len, &keep), 0);
	assert_int_equal(st, 200);
	assert_string_equal(b, "{\"a\":1}");
	assert_int_equal(len, 7);
	assert_true(keep);
	free(b);
}

static void test_chunked_split(void **state)
{
	const char *parts[] = {HDR "Transfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n",
			       "3\r\n:1}\r\n", "0\r\n", "\r\n"};
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_parts(parts, 4, false, &st, &b, &len, &keep), 0);
	assert_string_equal(b, "{\"a\":1}");
	assert_true(keep);
	free(b);
}

static void test_close_and_eof(void **state)
{
	const char *parts[] = {"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n",
			       "{\"code\":14}"};
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_parts(parts, 2, true, &st, &b, &len, &keep), 0);
	assert_int_equal(st, 503);
	assert_string_equal(b, "{\"code\":14}");
	assert_false(keep);
	free(b);
}

static void test_bad(void **state)
{
	const char *garbage[] = {"<html>hello</html>\r\n\r\n"};
	const char *truncated[] = {HDR "Content-Length: 70\r\n\r\n{\"a\""};
	const char *badchunk[] = {HDR "Transfer-Encoding: chunked\r\n\r\nzz\r\n"};
	const char *nohead[] = {"HTTP/1.1 200 OK\r\n"};
	long st;
	char *b = NULL;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_parts(garbage, 1, true, &st, &b, &len, &keep), -EBADMSG);
	assert_int_equal(read_parts(truncated, 1, true, &st, &b, &len, &keep), -ECONNRESET);
	assert_int_equal(read_parts(badchunk, 1, true, &st, &b, &len, &keep), -EBADMSG);
	assert_int_equal(read_parts(nohead, 1, true, &st, &b, &len, &keep), -ECONNRESET);
}

static void test_timeout(void **state)
{
	const char *parts[] = {HDR "Content-Length: 10\r\n\r\n{"};
	struct timespec ts;
	pid_t pid;
	int fd = feed(parts, 1, false, &pid);
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	assert_int_equal(
	    read_response(fd, (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u + 200u,
			  &st, &b, &len, &keep),
	    -ETIMEDOUT);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_trailers_kept_connection(void **state)
{
	/* the trailers are read with the body: the next response starts clean */
	const char *parts[] = {HDR
			       "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\nX-T: 1\r\n\r\n",
			       HDR "Content-Length: 2\r\n\r\ncd"};
	pid_t pid;
	int fd = feed(parts, 2, false, &pid);
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_response(fd, soon(), &st, &b, &len, &keep), 0);
	assert_string_equal(b, "ab");
	assert_true(keep);
	free(b);
	assert_int_equal(read_response(fd, soon(), &st, &b, &len, &keep), 0);
	assert_string_equal(b, "cd");
	free(b);
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_past_the_body(void **state)
{
	/* bytes after the body: read, but the connection is not kept */
	const char *sized[] = {HDR "Content-Length: 2\r\n\r\nabXX"};
	const char *chunked[] = {HDR "Transfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\nXX"};
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_parts(sized, 1, false, &st, &b, &len, &keep), 0);
	assert_string_equal(b, "ab");
	assert_false(keep);
	free(b);
	assert_int_equal(read_parts(chunked, 1, false, &st, &b, &len, &keep), 0);
	assert_string_equal(b, "ab");
	assert_false(keep);
	free(b);
}

static void test_limits(void **state)
{
	const char *sized[] = {HDR "Content-Length: 67108865\r\n\r\n"};
	const char *chunked[] = {HDR "Transfer-Encoding: chunked\r\n\r\n4000001\r\n"};
	const char *overflow[] = {HDR "Content-Length: 99999999999999999999999\r\n\r\n"};
	const char *cut[] = {HDR "Transfer-Encoding: chunked\r\n\r\n4\r\nab"};
	long st;
	char *b;
	size_t len;
	bool keep;
	(void)state;

	assert_int_equal(read_parts(sized, 1, false, &st, &b, &len, &keep), -EMSGSIZE);
	assert_int_equal(read_parts(chunked, 1, false, &st, &b, &len, &keep), -EMSGSIZE);
	assert_int_equal(read_parts(overflow, 1, false, &st, &b, &len, &keep), -EBADMSG);
	assert_int_equal(read_parts(cut, 1, true, &st, &b, &len, &keep), -ECONNRESET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_content_length), cmocka_unit_test(test_chunked_split),
	    cmocka_unit_test(test_close_and_eof),  cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_timeout),	   cmocka_unit_test(test_trailers_kept_connection),
	    cmocka_unit_test(test_past_the_body),  cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
