/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Several requests in one datagram: one send instead of one per request,
 * the kernel's answers collected afterwards.
 *
 *	struct nlw_batch b;
 *
 *	nlw_batch_begin(&b, sock);
 *	(void)nlw_route_add(sock, &r4);	   queued: returns 0
 *	(void)nlw_route_add(sock, &r6);
 *	r = nlw_batch_run(&b);		   sent, answers read; b.err[i] per request
 *
 * While a batch is attached to a socket, every request made on that socket
 * that expects nothing but the kernel's acknowledgement is queued instead of
 * sent (the call returns 0; -ENOBUFS when the batch is full, and nothing was
 * queued). A request that expects a reply (a GET, a dump) is refused with
 * -EBUSY, unless its function says it can be batched: its output then is
 * written when nlw_batch_run reads the reply, so it must outlive the run.
 * Arguments are still validated at the call (-EINVAL, -EMSGSIZE: nothing
 * queued).
 *
 * No transaction: the kernel executes every request of the datagram in order,
 * whatever became of the ones before it (rtnetlink has no rollback). err[i]
 * says which failed; the socket keeps the extended ACK of the first failure
 * (nlw_sock_ext_ack).
 */
#pragma once

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlw_sock;

#define NLW_BATCH_MAX 8
#define NLW_BATCH_BUF 8192

struct nlw_batch {
	struct nlw_sock *sock;
	unsigned n;		/* requests queued */
	int err[NLW_BATCH_MAX]; /* after nlw_batch_run: 0 or the request's -errno */
	/* private */
	size_t len;
	uint32_t seq[NLW_BATCH_MAX];
	int (*cb[NLW_BATCH_MAX])(const struct nlmsghdr *nlh, void *data);
	void *data[NLW_BATCH_MAX];
	bool answered[NLW_BATCH_MAX];
	union {
		struct nlmsghdr nlh; /* alignment */
		unsigned char buf[NLW_BATCH_BUF];
	} u;
};

/*
 * Attach an empty batch to sock (borrowed; the batch must be run or aborted
 * before the socket is used otherwise or freed). A socket has at most one
 * batch: a second begin replaces the first, which is then lost.
 */
void nlw_batch_begin(struct nlw_batch *b, struct nlw_sock *sock);

/*
 * Detach the batch, send its requests in one datagram (nothing sent when
 * empty) and read every answer. Returns 0 when each request was answered
 * (its outcome is in err[i]: 0, or the kernel's -errno), or the failure of
 * the exchange itself: the send's -errno (every err[i] is set to it), or a
 * receive error (-EPROTO: an answer to no request of the batch, -ESRCH: wrong
 * port id, -EBADMSG, -ENOBUFS: the socket overran), then the requests left
 * without an answer get it in err[i]. The first request whose err[i] < 0 is
 * nlw_batch_first_error's.
 */
int nlw_batch_run(struct nlw_batch *b);

/* Detach without sending: the queued requests are dropped. */
void nlw_batch_abort(struct nlw_batch *b);

/* Index of the first failed request after nlw_batch_run, or -1 when none failed. */
int nlw_batch_first_error(const struct nlw_batch *b);
