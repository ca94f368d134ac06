/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The invoker: plugin lookup, environment building, and running real
 * child processes (small /bin/sh scripts written per test) for stdin/stdout,
 * error JSON, stderr pass-through, timeouts and fd hygiene.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cni/invoke.h"

struct fixture {
	char dir[64];
	char dir2[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/pw-invoke-XXXXXX");
	strcpy(f->dir2, "/tmp/pw-invoke2-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_non_null(mkdtemp(f->dir2));
	*state = f;
	return 0;
}

static void rm_rf(const char *dir)
{
	char cmd[256];

	/* Test-only clean-up of a directory this test created. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->dir);
	rm_rf(f->dir2);
	free(f);
	return 0;
}

/* Write an executable /bin/sh script <dir>/<name>; returns its path (static buffer). */
static const char *script(const char *dir, const char *name, const char *body)
{
	static char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fprintf(fp, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

static int run(const char *path, const char *in, int timeout_ms, char **out, struct cni_error *err)
{
	char *env[] = {(char *)"CNI_COMMAND=ADD", (char *)"PATH=/usr/bin:/bin", NULL};
	struct cni_exec_request req = {
	    .plugin_path = path,
	    .env = env,
	    .stdin_buf = in,
	    .stdin_len = in ? strlen(in) : 0,
	    .timeout_ms = timeout_ms,
	};
	size_t len = 0;
	int r = cni_exec_plugin(&req, out, &len, err);

	if (r == 0)
		assert_int_equal(len, strlen(*out));
	return r;
}

/* ---- cni_find_plugin ---- */

static void test_find_bad_names(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	char *p = NULL;

	assert_int_equal(cni_find_plugin("", f->dir, &p, &err), -EINVAL);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "no plugin name"));
	cni_error_done(&err);

	assert_int_equal(cni_find_plugin("../bin/sh", f->dir, &p, &err), -EINVAL);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "../bin/sh"));
	cni_error_done(&err);

	assert_int_equal(cni_find_plugin("noop", "", &p, &err), -EINVAL);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "CNI_PATH"));
	cni_error_done(&err);
	assert_null(p);
}

static void test_find_order_and_skips(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	char list[256], want[256], sub[256];
	char *p = NULL;

	/* A directory of the same name in the first entry is not a plugin. */
	snprintf(sub, sizeof(sub), "%s/myplug", f->dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	script(f->dir2, "myplug", "exit 0");
	snprintf(want, sizeof(want), "%s/myplug", f->dir2);
	snprintf(list, sizeof(list), "::/nonexistent:%s::%s:", f->dir, f->dir2);
	assert_int_equal(cni_find_plugin("myplug", list, &p, &err), 0);
	assert_string_equal(p, want);
	assert_false(cni_error_isset(&err));
	free(p);

	/* First match wins. */
	script(f->dir, "other", "exit 0");
	script(f->dir2, "other", "exit 0");
	assert_int_equal(cni_find_plugin("other", list, &p, &err), 0);
	snprintf(want, sizeof(want), "%s/other", f->dir);
	assert_string_equal(p, want);
	free(p);
}

static void test_find_not_found(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	char *p = NULL;

	assert_int_equal(cni_find_plugin("absent", f->dir, &p, &err), -ENOENT);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, "\"absent\""));
	assert_non_null(strstr(err.msg, f->dir));
	assert_null(p);
	cni_error_done(&err);
}

/* ---- cni_env_build ---- */

static void test_env_build(void **state)
{
	char *base[] = {(char *)"A=1", (char *)"B=2", (char *)"A=3", (char *)"PATH=/bin", NULL};
	char *ov[] = {(char *)"B=x", (char *)"C=", (char *)"CNI_COMMAND=DEL", (char *)"B=y", NULL};
	char **env;

	(void)state;
	env = cni_env_build(base, ov);
	assert_non_null(env);
	/* Later entries win, order of first appearance is kept, no duplicates. */
	assert_string_equal(env[0], "A=3");
	assert_string_equal(env[1], "B=y");
	assert_string_equal(env[2], "PATH=/bin");
	assert_string_equal(env[3], "C=");
	assert_string_equal(env[4], "CNI_COMMAND=DEL");
	assert_null(env[5]);
	cni_env_free(env);

	/* NULL base means our environ. */
	assert_int_equal(setenv("PW_INVOKE_TEST", "yes", 1), 0);
	env = cni_env_build(NULL, NULL);
	assert_non_null(env);
	bool found = false;
	for (char **e = env; *e; e++)
		found |= strcmp(*e, "PW_INVOKE_TEST=yes") == 0;
	assert_true(found);
	cni_env_free(env);
	cni_env_free(NULL);
}

/* ---- cni_exec_plugin ---- */

static void test_exec_stdin_env_stdout(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "echo", "printf '%s|' \"$CNI_COMMAND\"; cat");
	char *out = NULL;

	assert_int_equal(run(p, "{\"name\":\"n\"}", 5000, &out, &err), 0);
	assert_string_equal(out, "ADD|{\"name\":\"n\"}");
	free(out);

	/* No stdin, no output: an empty NUL-terminated buffer. */
	p = script(f->dir, "quiet", "exit 0");
	assert_int_equal(run(p, NULL, 0, &out, &err), 0);
	assert_string_equal(out, "");
	free(out);
	assert_false(cni_error_isset(&err));
}

static void test_exec_large_io(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	size_t n = 3u << 20;
	char *big = malloc(n + 1), *out = NULL;
	const char *p;

	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	/* Round trip a buffer larger than any pipe: needs the poll loop. */
	p = script(f->dir, "cat", "exec cat");
	assert_int_equal(run(p, big, 10000, &out, &err), 0);
	assert_int_equal(strlen(out), n);
	assert_memory_equal(out, big, n);
	free(out);

	/* A child that ignores its stdin must not kill us with SIGPIPE. */
	p = script(f->dir, "ignore", "echo ok");
	assert_int_equal(run(p, big, 10000, &out, &err), 0);
	assert_string_equal(out, "ok\n");
	free(out);
	free(big);
}

static void test_exec_output_cap(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "flood", "head -c 5000000 /dev/zero");
	char *out = NULL;

	assert_int_equal(run(p, NULL, 10000, &out, &err), -EMSGSIZE);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, "more than"));
	assert_null(out);
	cni_error_done(&err);
}

static void test_exec_error_json(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "err",
			       "echo '{\"cniVersion\":\"1.0.0\",\"code\":42,\"msg\":\"boom\","
			       "\"details\":\"it broke\"}'; exit 1");
	char *out = NULL;

	assert_true(run(p, "{}", 5000, &out, &err) < 0);
	assert_int_equal(err.code, 42);
	assert_string_equal(err.msg, "boom");
	assert_string_equal(err.details, "it broke");
	assert_null(out);
	cni_error_done(&err);

	/* Code 50 of STATUS comes through unchanged. */
	p = script(f->dir, "err50", "echo '{\"code\":50,\"msg\":\"not ready\"}'; exit 1");
	assert_true(run(p, "{}", 5000, &out, &err) < 0);
	assert_int_equal(err.code, 50);
	assert_string_equal(err.msg, "not ready");
	assert_null(err.details);
	cni_error_done(&err);
}

static void test_exec_error_unparsable(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "garbage", "echo 'not json'; exit 3");
	char *out = NULL;

	assert_true(run(p, NULL, 5000, &out, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, "exit status 3"));
	assert_non_null(strstr(err.msg, "not json"));
	cni_error_done(&err);

	p = script(f->dir, "silent", "exit 2");
	assert_true(run(p, NULL, 5000, &out, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, "no error message"));
	assert_non_null(strstr(err.msg, "exit status 2"));
	cni_error_done(&err);

	p = script(f->dir, "suicide", "kill -9 $$");
	assert_true(run(p, NULL, 5000, &out, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, "signal 9"));
	cni_error_done(&err);

	/* Exit 0 with nothing special is not an error even with an error-looking body. */
	p = script(f->dir, "zero", "echo '{\"code\":7}'");
	assert_int_equal(run(p, NULL, 5000, &out, &err), 0);
	free(out);
}

static void test_exec_missing_binary(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	char path[128];
	char *out = NULL;

	snprintf(path, sizeof(path), "%s/nope", f->dir);
	assert_int_equal(run(path, NULL, 1000, &out, &err), -ENOENT);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, path));
	cni_error_done(&err);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool pid_gone(pid_t pid)
{
	char path[64], buf[256];
	FILE *fp;
	bool gone;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return true;
	/* A zombie waiting for init to reap it is dead too. */
	gone = fgets(buf, sizeof(buf), fp) && strstr(buf, ") Z ");
	fclose(fp);
	return gone;
}

static void test_exec_timeout_kills_group(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	char body[512], pidfile[128];
	char *out = NULL;
	int64_t t0;
	long gpid = 0;
	FILE *fp;

	snprintf(pidfile, sizeof(pidfile), "%s/grandchild.pid", f->dir);
	/* The grandchild keeps stdout open: only killing the group ends it. */
	snprintf(body, sizeof(body), "sleep 30 & echo $! > %s; wait", pidfile);
	const char *p = script(f->dir, "hang", body);

	t0 = mono_ms();
	assert_int_equal(run(p, "{}", 300, &out, &err), -ETIMEDOUT);
	assert_true(mono_ms() - t0 < 3000);
	assert_int_equal(err.code, 11);
	assert_non_null(strstr(err.msg, "timed out"));
	assert_null(out);
	cni_error_done(&err);

	fp = fopen(pidfile, "re");
	assert_non_null(fp);
	assert_int_equal(fscanf(fp, "%ld", &gpid), 1);
	fclose(fp);
	for (int i = 0; i < 100 && !pid_gone((pid_t)gpid); i++)
		usleep(20000);
	assert_true(pid_gone((pid_t)gpid));
}

static void test_exec_no_fd_leak(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "fds",
			       "if [ -e /proc/$$/fd/50 ]; then echo leaked; else echo clean; fi");
	char *out = NULL;
	int fd = open("/dev/null", O_RDONLY); /* deliberately without O_CLOEXEC */

	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, 50), 50);
	assert_int_equal(run(p, NULL, 5000, &out, &err), 0);
	assert_string_equal(out, "clean\n");
	free(out);
	close(50);
	close(fd);
}

static void test_exec_stderr_passthrough(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "talk", "echo to-stderr-123 >&2; echo '{}'");
	char logpath[128], buf[256] = {0};
	char *out = NULL;
	int saved, fd;

	snprintf(logpath, sizeof(logpath), "%s/stderr.log", f->dir);
	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	int r = run(p, NULL, 5000, &out, &err);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	close(fd);
	assert_int_equal(r, 0);
	assert_string_equal(out, "{}\n");
	free(out);

	fd = open(logpath, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	close(fd);
	assert_string_equal(buf, "to-stderr-123\n");
}

struct txtbsy {
	int fd;
	int delay_ms;
};

static void *close_later(void *arg)
{
	struct txtbsy *t = arg;

	usleep((useconds_t)t->delay_ms * 1000);
	close(t->fd);
	return NULL;
}

static void test_exec_retries_text_file_busy(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "busy", "echo ran");
	char path[256], *out = NULL;
	struct txtbsy t = {.delay_ms = 1200};
	pthread_t th;

	strcpy(path, p);
	/* An open writer makes execve fail with ETXTBSY until it closes. */
	t.fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(t.fd >= 0);
	assert_int_equal(pthread_create(&th, NULL, close_later, &t), 0);
	assert_int_equal(run(path, NULL, 0, &out, &err), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_string_equal(out, "ran\n");
	free(out);
}

static void count_call(void *data)
{
	(*(int *)data)++;
}

/* A process started ahead: matched by path and env, fed later, timed from then. */
static void test_exec_started(void **state)
{
	struct fixture *f = *state;
	char *env[] = {(char *)"CNI_COMMAND=ADD", (char *)"PATH=/usr/bin:/bin", NULL};
	char *other[] = {(char *)"CNI_COMMAND=DEL", (char *)"PATH=/usr/bin:/bin", NULL};
	char *shorter[] = {(char *)"CNI_COMMAND=ADD", NULL};
	const char *path = script(f->dir, "echo", "cat; echo \" $CNI_COMMAND\"");
	struct cni_exec_started *s = NULL;
	struct cni_error err = {0};
	struct cni_exec_request req = {
	    .plugin_path = path, .env = env, .stdin_buf = "fed", .stdin_len = 3, .timeout_ms = 200};
	char *out = NULL;
	int calls = 0;

	assert_int_equal(cni_exec_start(path, env, &s), 0);
	assert_true(cni_exec_started_is(s, path, env));
	assert_false(cni_exec_started_is(s, path, other));
	assert_false(cni_exec_started_is(s, path, shorter));
	assert_false(cni_exec_started_is(s, "/bin/true", env));
	assert_false(cni_exec_started_is(NULL, path, env));
	/* Waiting longer than the timeout before being fed is fine. */
	usleep(300 * 1000);
	req.started = s;
	req.running = count_call;
	req.running_data = &calls;
	assert_int_equal(cni_exec_plugin(&req, &out, NULL, &err), 0);
	assert_string_equal(out, "fed ADD\n");
	assert_int_equal(calls, 1);
	free(out);
	/* Never fed: killed and reaped by free. */
	assert_int_equal(cni_exec_start(path, env, &s), 0);
	cni_exec_started_free(s);
	cni_exec_started_free(NULL);
	assert_int_equal(cni_exec_start("/nonexistent/plugin", env, &s), -ENOENT);
}

static void test_exec_sigchld_ignored(void **state)
{
	struct fixture *f = *state;
	struct cni_error err = {0};
	const char *p = script(f->dir, "fine", "echo '{}'");
	char *out = NULL;
	int r;

	/* A runtime that ignores SIGCHLD loses exit statuses: say so, never hang. */
	signal(SIGCHLD, SIG_IGN);
	r = run(p, NULL, 5000, &out, &err);
	signal(SIGCHLD, SIG_DFL);
	assert_int_equal(r, -ECHILD);
	assert_int_equal(err.code, CNI_ERR_DELEGATE);
	assert_non_null(strstr(err.msg, "SIGCHLD"));
	cni_error_done(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_find_bad_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_find_order_and_skips, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_find_not_found, setup, teardown),
	    cmocka_unit_test(test_env_build),
	    cmocka_unit_test_setup_teardown(test_exec_stdin_env_stdout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_large_io, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_output_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_error_json, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_error_unparsable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_missing_binary, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_timeout_kills_group, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_no_fd_leak, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_stderr_passthrough, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_retries_text_file_busy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_started, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exec_sigchld_ignored, setup, teardown),
	};

	return cmocka_run_group_tests_name("invoke", tests, NULL, NULL);
}
