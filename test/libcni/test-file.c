/* SPDX-License-Identifier: Apache-2.0 */
/* base/file.h: whole writes, bounded reads, atomic replacement. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/file.h"

static int dir_setup(void **state)
{
	static char dir[64];
	int *fd = malloc(sizeof(*fd));

	snprintf(dir, sizeof(dir), "/tmp/pw-test-file.XXXXXX");
	assert_non_null(mkdtemp(dir));
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(*fd >= 0);
	assert_int_equal(setenv("PW_TEST_DIR", dir, 1), 0);
	*state = fd;
	return 0;
}

static int dir_teardown(void **state)
{
	int *fd = *state;
	char cmd[128];

	close(*fd);
	free(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", getenv("PW_TEST_DIR"));
	return system(cmd) == 0 ? 0 : -1;
}

static void test_replace_and_read(void **state)
{
	int dirfd = *(int *)*state;
	char *buf = NULL, big[1000];
	struct stat st;

	assert_int_equal(file_replace_at(dirfd, "f", "hello", 5, 0640, true), 0);
	assert_int_equal(file_read_at(dirfd, "f", 64, &buf), 5);
	assert_string_equal(buf, "hello");
	free(buf);
	assert_int_equal(fstatat(dirfd, "f", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	/* replaced whole, no temporary left */
	assert_int_equal(file_replace_at(dirfd, "f", "bye", 3, 0600, false), 0);
	assert_int_equal(file_read_at(dirfd, "f", 64, &buf), 3);
	assert_string_equal(buf, "bye");
	free(buf);
	assert_int_equal(faccessat(dirfd, ".f.tmp", F_OK, 0), -1);
	/* an empty file is an empty string; growing past the first 256 bytes works */
	assert_int_equal(file_replace_at(dirfd, "e", "", 0, 0600, false), 0);
	assert_int_equal(file_read_at(dirfd, "e", 0, &buf), 0);
	assert_string_equal(buf, "");
	free(buf);
	memset(big, 'x', sizeof(big));
	assert_int_equal(file_replace_at(dirfd, "b", big, sizeof(big), 0600, false), 0);
	assert_int_equal(file_read_at(dirfd, "b", sizeof(big), &buf), (int)sizeof(big));
	assert_int_equal(strlen(buf), sizeof(big));
	free(buf);
	/* more than max is -EFBIG; a missing file -ENOENT; a symlink is not followed */
	assert_int_equal(file_read_at(dirfd, "b", sizeof(big) - 1, &buf), -EFBIG);
	/* the prefix reader cuts instead */
	assert_int_equal(file_read_prefix_at(dirfd, "b", 10, &buf), 10);
	assert_int_equal(strlen(buf), 10);
	free(buf);
	assert_int_equal(file_read_prefix_at(dirfd, "f", 64, &buf), 3);
	assert_string_equal(buf, "bye");
	free(buf);
	assert_int_equal(file_read_at(dirfd, "nope", 10, &buf), -ENOENT);
	assert_int_equal(symlinkat("b", dirfd, "link"), 0);
	assert_int_equal(file_read_at(dirfd, "link", sizeof(big), &buf), -ELOOP);
}

static void test_write_all(void **state)
{
	int p[2];
	char got[8] = {0};

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fd_write_all(p[1], "abcdef", 6), 0);
	assert_int_equal(read(p[0], got, sizeof(got)), 6);
	assert_string_equal(got, "abcdef");
	close(p[0]);
	close(p[1]);
	assert_int_equal(fd_write_all(-1, "x", 1), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_replace_and_read, dir_setup, dir_teardown),
	    cmocka_unit_test(test_write_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
