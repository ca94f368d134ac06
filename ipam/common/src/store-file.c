/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The disk store's file primitives, shared by store-disk.c (leases, state)
 * and store-index.c (the container-ID index): path components, bounded
 * reads, atomic replacement. Neither of those files depends on the other.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "internal.h"
#include "ipam/store-disk.h"

#define READ_FILE_FIRST 256

bool ipam_disk_valid_component(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > max || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

int disk_read_file(int dirfd, const char *name, size_t max, char **ret)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = max < READ_FILE_FIRST ? max : READ_FILE_FIRST;
	ssize_t n;

	if (fd < 0)
		return -errno;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	while (len < max) {
		if (len == cap) {
			size_t grown = 2 * cap < max ? 2 * cap : max;
			char *m = realloc(buf, grown + 1);

			if (!m)
				return -ENOMEM;
			buf = m;
			cap = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return (int)len;
}

/* Replace atomically through a temporary name (index and state files). */
int disk_replace_file(int dirfd, const char *name, const char *content)
{
	return file_replace_at(dirfd, name, content, strlen(content), 0600, false);
}
