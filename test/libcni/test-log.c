/* SPDX-License-Identifier: Apache-2.0 */
/* log.c: logFile opening rules (plugins run as root on every node). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cni/log.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pw-test-log.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char p[128];

	(void)state;
	cni_log_reset();
	snprintf(p, sizeof(p), "%s/target", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/link", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/log", dir);
	unlink(p);
	return rmdir(dir);
}

static void path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void test_regular_file_created_0600(void **state)
{
	char p[96];
	struct stat st;
	mode_t old = umask(0);

	(void)state;
	path(p, sizeof(p), "log");
	assert_int_equal(cni_log_open_file(p), 0);
	umask(old);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	cni_log_set_level(CNI_LOG_WARNING);
	cni_log_warning("hello %d", 42);
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_size > 0);
}

static void test_symlink_refused(void **state)
{
	char target[96], link[96];
	struct stat st;
	int fd;

	(void)state;
	path(target, sizeof(target), "target");
	path(link, sizeof(link), "link");
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(cni_log_open_file(link), -ELOOP);
	cni_log_warning("must not reach the target");
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, 0);
}

static void test_fifo_and_device_refused(void **state)
{
	char fifo[96];

	(void)state;
	path(fifo, sizeof(fifo), "fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* No reader: O_NONBLOCK makes the open fail instead of blocking. */
	assert_int_equal(cni_log_open_file(fifo), -ENXIO);
	assert_int_equal(cni_log_open_file("/dev/null"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_regular_file_created_0600, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fifo_and_device_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
