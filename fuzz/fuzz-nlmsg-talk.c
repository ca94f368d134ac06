/* fuzz-libs: nlw */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The transaction layer on arbitrary replies: the input is split into reply
 * datagrams (2-byte length prefixes) served by an in-memory transport to
 * nlw_addr_list (a dump) and nlw_link_get_by_index (GET + ACK). Sequence
 * numbers are stamped like the kernel would, so the fuzzer reaches the
 * ACK/error/ext-ack/DONE/DUMP_INTR paths instead of the sequence check.
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "nlw/nlw.h"

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

struct feed {
	const uint8_t *data;
	size_t size, off;
	uint32_t seq;
};

static ssize_t f_send(void *priv, const void *buf, size_t len)
{
	struct feed *f = priv;

	f->seq = ((const struct nlmsghdr *)buf)->nlmsg_seq;
	return (ssize_t)len;
}

/* Next datagram: [u16 len][bytes]; returns its length or -1 at the end. */
static ssize_t next_len(const struct feed *f)
{
	size_t len;

	if (f->off + 2 > f->size)
		return -1;
	len = (size_t)f->data[f->off] | (size_t)f->data[f->off + 1] << 8;
	if (len > f->size - f->off - 2)
		len = f->size - f->off - 2;
	return (ssize_t)len;
}

static ssize_t f_recv(void *priv, void *buf, size_t len, int flags)
{
	struct feed *f = priv;
	ssize_t n = next_len(f);
	struct nlmsghdr *nlh;
	size_t off = 0, got;

	if (n < 0)
		return -ETIMEDOUT;
	if (flags & MSG_PEEK)
		return n;
	got = (size_t)n < len ? (size_t)n : len;
	memcpy(buf, f->data + f->off + 2, got);
	f->off += 2 + (size_t)n;
	while ((nlh = msg_at(buf, got, &off)))
		nlh->nlmsg_seq = f->seq;
	return n;
}

static uint32_t f_portid(void *priv)
{
	(void)priv;
	return 0;
}

static const struct nlw_transport_ops ops = {f_send, f_recv, f_portid, NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed f = {data, size, 0, 0};
	struct nlw_sock *s = NULL;
	struct nlw_addr *a = NULL;
	struct nlw_link l;
	unsigned n = 0;

	if (nlw_sock_new_transport(&ops, &f, NETLINK_ROUTE, &s) < 0)
		return 0;
	if (nlw_addr_list(s, 0, AF_UNSPEC, &a, &n) == 0)
		free(a);
	(void)nlw_sock_ext_ack(s);
	(void)nlw_link_get_by_index(s, 1, &l);
	nlw_sock_free(s);
	return 0;
}
