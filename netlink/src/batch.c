/* SPDX-License-Identifier: Apache-2.0 */
/* Several requests in one datagram, their answers collected by sequence number. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <string.h>

#include "internal.h"
#include "nlw/batch.h"

void nlw_batch_begin(struct nlw_batch *b, struct nlw_sock *sock)
{
	b->sock = sock;
	b->n = 0;
	b->len = 0;
	sock->batch = b;
}

static void batch_detach(struct nlw_batch *b)
{
	if (b->sock && b->sock->batch == b)
		b->sock->batch = NULL;
}

void nlw_batch_abort(struct nlw_batch *b)
{
	batch_detach(b);
	b->n = 0;
	b->len = 0;
}

int nlw_batch_queue(struct nlw_sock *sock, const struct nlmsghdr *nlh, nlw_msg_cb cb, void *data)
{
	struct nlw_batch *b = sock->batch;
	struct nlmsghdr *copy;

	if (b->n >= NLW_BATCH_MAX || b->len + MNL_ALIGN(nlh->nlmsg_len) > sizeof(b->u.buf))
		return -ENOBUFS;
	copy = (struct nlmsghdr *)(b->u.buf + b->len);
	memcpy(copy, nlh, nlh->nlmsg_len);
	/* The alignment padding goes to the kernel too: never uninitialised. */
	memset((unsigned char *)copy + nlh->nlmsg_len, 0,
	       MNL_ALIGN(nlh->nlmsg_len) - nlh->nlmsg_len);
	copy->nlmsg_seq = nlw_sock_next_seq(sock);
	b->seq[b->n] = copy->nlmsg_seq;
	b->cb[b->n] = cb;
	b->data[b->n] = data;
	b->answered[b->n] = false;
	b->err[b->n] = 0;
	b->len += MNL_ALIGN(nlh->nlmsg_len);
	b->n++;
	return 0;
}

int nlw_batch_first_error(const struct nlw_batch *b)
{
	for (unsigned i = 0; i < b->n; i++)
		if (b->err[i] < 0)
			return (int)i;
	return -1;
}

static int batch_index(const struct nlw_batch *b, uint32_t seq)
{
	for (unsigned i = 0; i < b->n; i++)
		if (b->seq[i] == seq)
			return (int)i;
	return -1;
}

/* One message of an answer datagram. Returns 0, or the exchange's -errno. */
static int batch_msg(struct nlw_batch *b, const struct nlmsghdr *nlh, uint32_t portid)
{
	int i = batch_index(b, nlh->nlmsg_seq);
	int r;

	if (portid && nlh->nlmsg_pid && nlh->nlmsg_pid != portid)
		return -ESRCH;
	if (i < 0 || b->answered[i])
		return -EPROTO;
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return 0;
	case NLMSG_OVERRUN:
		return -ENOBUFS;
	case NLMSG_ERROR:
		/* The socket keeps the extended ACK of the first failure only. */
		r = nlw_error_msg(b->sock, nlh, nlw_batch_first_error(b) < 0);
		if (b->err[i] == 0)
			b->err[i] = r;
		b->answered[i] = true;
		return 0;
	case NLMSG_DONE: /* never queued (dumps are refused), tolerated */
		b->answered[i] = true;
		return 0;
	default:
		if (b->cb[i] && b->err[i] == 0 && (r = b->cb[i](nlh, b->data[i])) < 0)
			b->err[i] = r;
		return 0;
	}
}

static unsigned batch_unanswered(const struct nlw_batch *b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < b->n; i++)
		n += !b->answered[i];
	return n;
}

/* Read answer datagrams until every request has its ACK or error. */
static int batch_collect(struct nlw_batch *b)
{
	struct nlw_sock *s = b->sock;
	uint32_t portid = s->ops->portid ? s->ops->portid(s->priv) : 0;

	while (batch_unanswered(b) > 0) {
		ssize_t n = nlw_sock_recv_datagram(s);
		const struct nlmsghdr *nlh = s->rbuf;
		int len, r;

		if (n < 0)
			return (int)n;
		if (!nlw_datagram_valid(s->rbuf, (size_t)n))
			return -EBADMSG;
		len = (int)n;
		for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
			if ((r = batch_msg(b, nlh, portid)) < 0)
				return r;
	}
	return 0;
}

int nlw_batch_run(struct nlw_batch *b)
{
	struct nlw_sock *s = b->sock;
	ssize_t sent;
	int r;

	batch_detach(b);
	if (b->n == 0)
		return 0;
	s->ext_ack[0] = '\0';
	s->ext_ack_offset = 0;
	sent = s->ops->send(s->priv, b->u.buf, b->len);
	r = sent < 0 ? (int)sent : (size_t)sent == b->len ? 0 : -EIO;
	if (r == 0)
		r = batch_collect(b);
	for (unsigned i = 0; r < 0 && i < b->n; i++)
		if (!b->answered[i] && b->err[i] == 0)
			b->err[i] = r;
	return r;
}
