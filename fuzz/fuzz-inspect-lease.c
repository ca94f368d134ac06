/* fuzz-libs: podwire_inspect_lib */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-inspect's reader of host-local lease files ("<containerID>\r\n
 * <ifname>"): whatever it accepts is printable ASCII without '/', a
 * container ID of 1..255 bytes and an ifname shorter than IFNAMSIZ.
 */
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ident(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f || s[i] == '/')
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cid = NULL, *ifname = NULL;

	if (pi_parse_lease((const char *)data, size, &cid, &ifname) == 0) {
		check_ident(cid, 255);
		if (ifname)
			check_ident(ifname, IFNAMSIZ - 1);
	} else if (cid || ifname) {
		abort();
	}
	free(cid);
	free(ifname);
	return 0;
}
