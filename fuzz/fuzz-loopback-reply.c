/* fuzz-libs: loopback_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loopback's address-dump callback on the messages of arbitrary datagrams
 * (what the kernel sends back). The receive loop that walks the datagram is
 * netlink/'s, fuzzed by fuzz-nlmsg-talk; here each message is cut the way it
 * does (its length inside the datagram).
 */
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loopback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lo_addrs a = {0};
	size_t off = 0;
	char *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size); /* aligned copy, as recv() fills an aligned buffer */
	while (size - off >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr *nlh = (struct nlmsghdr *)(buf + off);

		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > size - off)
			break;
		(void)lo_addr_cb(nlh, &a);
		off += NLMSG_ALIGN(nlh->nlmsg_len);
		if (off > size)
			break;
	}
	if (a.n_v4 > LO_MAX_ADDRS || a.n_v6 > LO_MAX_ADDRS)
		abort();
	free(buf);
	return 0;
}
