/* SPDX-License-Identifier: Apache-2.0 */
/* flock()-based locks on shared host resources, one file per netns and resource. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "podnet/lock.h"
#include "podnet/podnet.h"

#define LOCK_DIR_DEFAULT "/run/podwire"

static const char *lock_dir(void)
{
	const char *d = getenv("PODWIRE_LOCK_DIR");

	return d && d[0] == '/' ? d : LOCK_DIR_DEFAULT;
}

/* The calling thread's netns, as "<dev>-<ino>" of /proc/self/ns/net. */
static int netns_id(char *buf, size_t len)
{
	struct stat st;

	if (stat("/proc/thread-self/ns/net", &st) < 0)
		return -errno;
	snprintf(buf, len, "%lx-%lx", (unsigned long)st.st_dev, (unsigned long)st.st_ino);
	return 0;
}

static int open_lock_file(const char *dir, const char *file, int *ret_fd)
{
	char path[512];
	int fd;

	int r = file_mkdir_parents(dir, 0700);

	if (r < 0)
		return r;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int podnet_lock_fd(const char *kind, const char *name, int *ret_fd)
{
	char id[64], file[256];
	const char *dir = lock_dir();
	int r, fd = -1;

	r = netns_id(id, sizeof(id));
	if (r >= 0 &&
	    (size_t)snprintf(file, sizeof(file), "%s.%s.%s.lock", kind, id, name) >= sizeof(file))
		r = -ENAMETOOLONG;
	if (r >= 0)
		r = open_lock_file(dir, file, &fd);
	while (r >= 0 && flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			r = -errno;
			close(fd);
		}
	}
	if (r < 0)
		return r;
	*ret_fd = fd;
	return 0;
}

int podnet_lock(struct cni_ctx *ctx, const char *kind, const char *name, int *ret_fd)
{
	int r = podnet_lock_fd(kind, name, ret_fd);

	if (r < 0)
		return podnet_fail(ctx, NULL, r, "lock %s '%s' (in %s)", kind, name, lock_dir());
	return 0;
}

int podnet_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* closing the only descriptor drops the flock */
	return -1;
}
