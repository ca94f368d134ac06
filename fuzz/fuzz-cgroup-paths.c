/* fuzz-libs: podwire_node_lib cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-nodelay's readers of /proc/self/mountinfo and /proc/self/cgroup, with
 * every output size from 1 to 64 bytes: what they return is
 * NUL-terminated within the buffer, an absolute path, and (cgroup) a copy of
 * the input's bytes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodelay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int r, const char *buf, size_t size)
{
	if (r == 0 && (strnlen(buf, size) >= size))
		abort();
	if (r != 0 && r != -ENOENT && r != -ENAMETOOLONG)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), buf[64];

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (size_t n = 1; n <= sizeof(buf); n++) {
		int r = pwn_cgroup2_mount(s, buf, n);

		check(r, buf, n);
		r = pwn_cgroup_self_path(s, buf, n);
		check(r, buf, n);
		if (r == 0 && (buf[0] != '/' || !strstr(s, buf)))
			abort();
	}
	free(s);
	return 0;
}
