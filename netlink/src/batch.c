/* SPDX-License-Identifier: Apache-2.0 */
/* Several requests in one datagram, their answers collected by sequence number. */
#include <errno.h>
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

	if (b->n >= NLW_BATCH_MAX || b->len + NLMSG_ALIGN(nlh->nlmsg_len) > sizeof(b->u.buf))
		return -ENOBUFS;
	copy = (struct nlmsghdr *)(b->u.buf + b->len);
	memcpy(copy, nlh, nlh->nlmsg_len);
	/* The alignment padding goes to the kernel too: never uninitialised. */
	memset((unsigned char *)copy + nlh->nlmsg_len, 0,
	       NLMSG_ALIGN(nlh->nlmsg_len) - nlh->nlmsg_len);
	copy->nlmsg_seq = nlw_sock_next_seq(sock);
	b->seq[b->n] = copy->nlmsg_seq;
	b->cb[b->n] = cb;
	b->data[b->n] = data;
	b->answered[b->n] = false;
	b->err[b->n] = 0;
	b->len += NLMSG_ALIGN(nlh->nlmsg_len);
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

static unsigned batch_unanswered(const struct nlw_batch *b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < b->n; i++)
		n += !b->answered[i];
	return n;
}

/* One message of the answers (nlw_recv), until every request has its ACK or error. */
static int batch_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct nlw_batch *b = arg;
	int i = batch_index(b, nlh->nlmsg_seq);
	int r;

	if (i < 0 || b->answered[i])
		return -EPROTO;
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return NLW_RX_MORE;
	case NLMSG_OVERRUN:
		return -ENOBUFS;
	case NLMSG_ERROR:
		/* The socket keeps the extended ACK of the first failure only. */
		r = nlw_error_msg(b->sock, nlh, nlw_batch_first_error(b) < 0);
		if (b->err[i] == 0)
			b->err[i] = r;
		b->answered[i] = true;
		break;
	case NLMSG_DONE: /* never queued (dumps are refused), tolerated */
		b->answered[i] = true;
		break;
	default:
		if (b->cb[i] && b->err[i] == 0 && (r = b->cb[i](nlh, b->data[i])) < 0)
			b->err[i] = r;
	}
	return batch_unanswered(b) ? NLW_RX_MORE : NLW_RX_END;
}

int nlw_batch_run(struct nlw_batch *b)
{
	struct nlw_sock *s = b->sock;
	int r;

	batch_detach(b);
	if (b->n == 0)
		return 0;
	r = nlw_sock_send(s, b->u.buf, b->len);
	if (r == 0)
		r = nlw_recv(s, batch_msg, b);
	for (unsigned i = 0; r < 0 && i < b->n; i++)
		if (!b->answered[i] && b->err[i] == 0)
			b->err[i] = r;
	return r;
}
