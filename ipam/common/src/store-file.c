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
	/* A longer file is cut at max: its prefix is what the parsers look at. */
	return file_read_prefix_at(dirfd, name, max, ret);
}

/* Replace atomically through a temporary name (index and state files). */
int disk_replace_file(int dirfd, const char *name, const char *content)
{
	return file_replace_at(dirfd, name, content, strlen(content), 0600, false);
}
