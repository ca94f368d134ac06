/* fuzz-libs: loopback_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/* loopback's netlink reply parser on arbitrary datagrams (what the kernel sends back). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lo_addrs a = {0};
	struct lo_reply st = {.seq_last = 2, .link_up = -1, .addrs = &a};
	void *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size); /* aligned copy, as recv() fills an aligned buffer */
	(void)lo_reply_parse(buf, size, &st);
	if (a.n_v4 > LO_MAX_ADDRS || a.n_v6 > LO_MAX_ADDRS)
		abort();
	free(buf);
	return 0;
}
