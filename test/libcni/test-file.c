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

static void assert_mode(const char *path, mode_t want)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, want);
}

static void test_mkdir_parents(void **state)
{
	const char *dir = getenv("PW_TEST_DIR");
	int dirfd = *(int *)*state;
	char path[256], file[256];
	mode_t old = umask(022);

	/* three missing components, each made with the mode */
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	assert_int_equal(file_mkdir_parents(path, 0700), 0);
	assert_mode(path, 0700);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	assert_mode(path, 0700);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_mode(path, 0700);
	/* there already: 0, its mode left alone; a trailing or doubled slash is fine */
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(file_mkdir_parents(path, 0700), 0);
	assert_mode(path, 0755);
	snprintf(path, sizeof(path), "%s//a//x/", dir);
	assert_int_equal(file_mkdir_parents(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/a/x", dir);
	assert_mode(path, 0755);
	/* a regular file in the way: as the last component or as a parent */
	assert_int_equal(file_replace_at(dirfd, "f", "x", 1, 0600, false), 0);
	snprintf(file, sizeof(file), "%s/f", dir);
	assert_int_equal(file_mkdir_parents(file, 0700), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/f/sub/dir", dir);
	assert_int_equal(file_mkdir_parents(path, 0700), -ENOTDIR);
	/* a symlink to a directory is a directory */
	assert_int_equal(symlinkat("a", dirfd, "la"), 0);
	snprintf(path, sizeof(path), "%s/la/new", dir);
	assert_int_equal(file_mkdir_parents(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/a/new", dir);
	assert_mode(path, 0700);
	assert_int_equal(file_mkdir_parents("", 0700), -EINVAL);
	umask(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_replace_and_read, dir_setup, dir_teardown),
	    cmocka_unit_test(test_write_all),
	    cmocka_unit_test_setup_teardown(test_mkdir_parents, dir_setup, dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
