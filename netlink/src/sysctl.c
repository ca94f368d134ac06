/* SPDX-License-Identifier: Apache-2.0 */
/* sysctl (/proc/sys) and sysfs reads relative to a root directory fd. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "nlw/netns.h"
#include "nlw/sysctl.h"

/* Relative path, non-empty components, no "." or "..", printable ASCII. */
static bool relpath_valid(const char *p)
{
	const char *c = p;

	if (isempty(p) || p[0] == '/')
		return false;
	for (;;) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if (c[i] <= ' ' || c[i] > '~')
				return false;
		if (c[n] == '\0')
			return true;
		c += n + 1;
	}
}

int nlw_sysctl_path_valid(const char *path)
{
	if (!path || strncmp(path, "net/", 4) != 0 || !relpath_valid(path))
		return -EINVAL;
	return 0;
}

/* Open <root>/<prefix><path>; root < 0 means the absolute default root. */
static int open_under(int root_fd, const char *def_root, const char *prefix, const char *path,
		      int flags)
{
	char full[PATH_MAX];
	int n, fd;

	if (root_fd < 0)
		n = snprintf(full, sizeof(full), "%s/%s%s", def_root, prefix, path);
	else
		n = snprintf(full, sizeof(full), "%s%s", prefix, path);
	if (n < 0 || (size_t)n >= sizeof(full))
		return -ENAMETOOLONG;
	fd = openat(root_fd < 0 ? AT_FDCWD : root_fd, full, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? negative_errno() : fd;
}

static int read_fd_str(int fd, char *buf, size_t len)
{
	ssize_t n;

	if (len == 0)
		return -ENOBUFS;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	if ((size_t)n >= len)
		return -ENOBUFS;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int nlw_sysctl_set(int procfs_root_fd, const char *path, const char *value)
{
	_cleanup_close_ int fd = -1;
	size_t len;
	ssize_t n;

	if (nlw_sysctl_path_valid(path) < 0 || !value)
		return -EINVAL;
	fd = open_under(procfs_root_fd, "/proc", "sys/", path, O_WRONLY);
	if (fd < 0)
		return fd;
	len = strlen(value);
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	return (size_t)n == len ? 0 : -EIO;
}

int nlw_sysctl_get(int procfs_root_fd, const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = -1;

	if (nlw_sysctl_path_valid(path) < 0 || !buf)
		return -EINVAL;
	fd = open_under(procfs_root_fd, "/proc", "sys/", path, O_RDONLY);
	if (fd < 0)
		return fd;
	return read_fd_str(fd, buf, len);
}

struct sysctl_args {
	int procfs_root_fd;
	const char *path;
	const char *value;
	char *buf;
	size_t len;
};

static int sysctl_set_fn(void *arg)
{
	struct sysctl_args *a = arg;

	return nlw_sysctl_set(a->procfs_root_fd, a->path, a->value);
}

static int sysctl_get_fn(void *arg)
{
	struct sysctl_args *a = arg;

	return nlw_sysctl_get(a->procfs_root_fd, a->path, a->buf, a->len);
}

int nlw_sysctl_set_in_netns(int netns_fd, int procfs_root_fd, const char *path, const char *value)
{
	struct sysctl_args a = {procfs_root_fd, path, value, NULL, 0};

	if (nlw_sysctl_path_valid(path) < 0 || !value)
		return -EINVAL;
	/* /proc/sys/net shows the netns of whoever opens the file: open it in there. */
	return nlw_netns_run(netns_fd, sysctl_set_fn, &a);
}

int nlw_sysctl_get_in_netns(int netns_fd, int procfs_root_fd, const char *path, char *buf,
			    size_t len)
{
	struct sysctl_args a = {procfs_root_fd, path, NULL, buf, len};

	if (nlw_sysctl_path_valid(path) < 0 || !buf)
		return -EINVAL;
	return nlw_netns_run(netns_fd, sysctl_get_fn, &a);
}

int nlw_sysfs_read_str(int root_fd, const char *relpath, char *buf, size_t len)
{
	_cleanup_close_ int fd = -1;

	if (root_fd < 0 || !relpath_valid(relpath) || !buf)
		return -EINVAL;
	/* sysfs paths go through symlinks (class/net/x/device): follow them. */
	fd = openat(root_fd, relpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	return read_fd_str(fd, buf, len);
}

int nlw_sysfs_read_u32(int root_fd, const char *relpath, unsigned *ret)
{
	char buf[32];
	uint32_t v;
	int r;

	r = nlw_sysfs_read_str(root_fd, relpath, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = safe_atou32_max(buf, UINT32_MAX, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int nlw_sysfs_read_link(int root_fd, const char *relpath, char *buf, size_t len)
{
	ssize_t n;

	if (root_fd < 0 || !relpath_valid(relpath) || !buf || len == 0)
		return -EINVAL;
	n = readlinkat(root_fd, relpath, buf, len);
	if (n < 0)
		return negative_errno();
	if ((size_t)n >= len)
		return -ENOBUFS;
	buf[n] = '\0';
	return 0;
}

int nlw_sysfs_read_link_base(int root_fd, const char *relpath, char *buf, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	size_t n;
	int r;

	r = nlw_sysfs_read_link(root_fd, relpath, target, sizeof(target));
	if (r < 0)
		return r;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	n = strlen(base);
	if (n == 0)
		return -EINVAL;
	if (n >= len)
		return -ENOBUFS;
	memcpy(buf, base, n + 1);
	return 0;
}
