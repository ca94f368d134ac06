/* fuzz-libs: tuning_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One sysctl key through tuning_sysctl_path: the first line is the key, the
 * rest (if any) the interface name. Whatever it accepts must be a clean
 * path below net/: no "..", no "." or empty component, no leading or
 * trailing '/', printable without spaces.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tuning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *p)
{
	size_t n = strlen(p);

	if (strncmp(p, "net/", 4) != 0 || p[n - 1] == '/' || strstr(p, "//"))
		abort();
	for (const char *c = p; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c)) {
		size_t len = strcspn(c, "/");

		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			abort();
	}
	for (const char *c = p; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size), *ifname = NULL, *nl;
	char buf[TUNING_SYSCTL_PATH_MAX];

	if (!s)
		return 0;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		ifname = nl + 1;
	}
	if (tuning_sysctl_path(s, ifname ? ifname : "eth0", buf, sizeof(buf)) == 0)
		check(buf);
	free(s);
	return 0;
}
