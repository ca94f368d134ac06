/* fuzz-libs: nlw */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pure netlink reply parsers on arbitrary datagrams: every message of
 * the input goes to the parser for its type (links also to the VF parser,
 * anything else to the RDMA parser). Parsers must reject, never over-read.
 */
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nlw/nlw.h"
#include "nlw/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Next message or NULL; stricter than mnl_nlmsg_ok, which takes lengths > INT_MAX. */
static struct nlmsghdr *msg_at(void *buf, size_t len, size_t *off)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)buf + *off);

	if (*off >= len || len - *off < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
	    nlh->nlmsg_len > len - *off)
		return NULL;
	*off += MNL_ALIGN(nlh->nlmsg_len);
	return nlh;
}

static void parse_one(const struct nlmsghdr *nlh)
{
	struct nlw_vf_info *vfs = NULL;
	struct nlw_rdma_dev dev;
	struct nlw_route route;
	struct nlw_addr addr;
	struct nlw_link link;
	unsigned n = 0;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
		(void)nlw_link_parse(nlh, &link);
		if (nlw_vf_parse(nlh, &vfs, &n) == 0)
			free(vfs);
		break;
	case RTM_NEWADDR:
		(void)nlw_addr_parse(nlh, &addr);
		break;
	case RTM_NEWROUTE:
		(void)nlw_route_parse(nlh, &route);
		break;
	default:
		(void)nlw_rdma_dev_parse(nlh, &dev);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct nlmsghdr *nlh;
	size_t off = 0;
	void *buf;

	if (size > 1 << 20)
		return 0;
	/* Replies arrive in an aligned receive buffer; so does the fuzz input. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	while ((nlh = msg_at(buf, size, &off)))
		parse_one(nlh);
	free(buf);
	return 0;
}
