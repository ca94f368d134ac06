/* SPDX-License-Identifier: Apache-2.0 */
/* Whole writes, bounded whole reads, atomic replacement. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"

#define READ_FIRST 256

int fd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make room for at least one more byte (and the NUL) below max + 1. */
static int grow(char **buf, size_t *cap, size_t max)
{
	size_t want = *cap ? *cap * 2 : READ_FIRST;
	char *m;

	if (want > max + 1)
		want = max + 1; /* one byte past max tells a file that is too big */
	m = realloc(*buf, want + 1);
	if (!m)
		return -ENOMEM;
	*buf = m;
	*cap = want;
	return 0;
}

/* Read to the end, or to max bytes: over max, -EFBIG unless `cut`. */
static int read_bounded(int fd, size_t max, bool cut, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;
	int r;

	if (max >= INT_MAX)
		return -EINVAL;
	for (;;) {
		ssize_t n;

		if (len == cap && (r = grow(&buf, &cap, max)) < 0)
			return r;
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max && !cut)
			return -EFBIG;
		if (len >= max && cut) {
			len = max;
			break;
		}
	}
	if (!buf && (r = grow(&buf, &cap, max)) < 0)
		return r;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return (int)len;
}

int fd_read_all(int fd, size_t max, char **ret)
{
	return read_bounded(fd, max, false, ret);
}

static int read_at(int dirfd, const char *name, size_t max, bool cut, char **ret)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	return read_bounded(fd, max, cut, ret);
}

int file_read_at(int dirfd, const char *name, size_t max, char **ret)
{
	return read_at(dirfd, name, max, false, ret);
}

int file_read_prefix_at(int dirfd, const char *name, size_t max, char **ret)
{
	return read_at(dirfd, name, max, true, ret);
}

int file_replace_at(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		    bool sync)
{
	char tmp[NAME_MAX + 1];
	_cleanup_close_ int fd = -1;
	int r;

	if ((size_t)snprintf(tmp, sizeof(tmp), ".%.200s.%d.tmp", name, (int)getpid()) >=
	    sizeof(tmp))
		return -ENAMETOOLONG;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	r = fchmod(fd, mode) < 0 ? -errno : 0; /* whatever the umask */
	if (r >= 0)
		r = fd_write_all(fd, buf, len);
	if (r >= 0 && sync && fsync(fd) < 0)
		r = -errno;
	if (r >= 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

int file_replace(const char *path, const void *buf, size_t len, mode_t mode, bool sync)
{
	_cleanup_free_ char *dir = strdup(path);
	_cleanup_close_ int dirfd = -1;
	char *slash = dir ? strrchr(dir, '/') : NULL;

	if (!dir)
		return -ENOMEM;
	if (!slash)
		return file_replace_at(AT_FDCWD, path, buf, len, mode, sync);
	*slash = '\0';
	dirfd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	return file_replace_at(dirfd, slash + 1, buf, len, mode, sync);
}

/* 0 when path is a directory, -ENOTDIR when it is something else, or -errno. */
static int is_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

/* One component: made, or there already as a directory. */
static int mkdir_one(const char *path, mode_t mode)
{
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	return is_dir(path);
}

int file_mkdir_parents(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = NULL;
	int r;

	if (!path || !path[0])
		return -EINVAL;
	/* Almost always there already, or only the last component missing: one call. */
	r = mkdir_one(path, mode);
	if (r != -ENOENT)
		return r;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/' || s[-1] == '/')
			continue;
		*s = '\0';
		r = mkdir_one(p, mode);
		*s = '/';
		if (r < 0)
			return r;
	}
	return mkdir_one(p, mode);
}
