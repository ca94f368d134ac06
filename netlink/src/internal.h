/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations shared by the netlink/ sources. No libmnl here: the
 * sources of nlw_core (sock.c, attr.c, batch.c, netns.c) never include it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nlw/msg.h"
#include "nlw/sock.h"
#include "base/macro.h"

#define NLW_RBUF_INIT 32768

/*
 * As nlw_talk, but with a batch attached to the socket the request is queued
 * even though it has a reply callback: only for callers whose `data` outlives
 * nlw_batch_run (the caller's output, never a local of the function).
 */
int nlw_talk_batchable(struct nlw_sock *sock, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);

/*
 * The one receive loop (sock.c): read datagrams (grown, checked), drop none,
 * hand every message from our port id (-ESRCH otherwise) to fn. fn returns
 * NLW_RX_MORE, NLW_RX_QUEUED (from now on read only what is already queued;
 * the loop ends when nothing is) or NLW_RX_END, or a negative errno that
 * ends the loop at once. Returns 0 or that errno (receive errors, -EBADMSG).
 */
enum { NLW_RX_MORE, NLW_RX_QUEUED, NLW_RX_END };
int nlw_recv(struct nlw_sock *sock, int (*fn)(const struct nlmsghdr *nlh, void *arg), void *arg);

/* The error of an NLMSG_ERROR message (0 for an ACK), its extended ACK
 * recorded on the socket when record_ext_ack; -EBADMSG when truncated. */
int nlw_error_msg(struct nlw_sock *sock, const struct nlmsghdr *nlh, bool record_ext_ack);

/* batch.c for sock.c: queue a request into the socket's batch (0, -ENOBUFS). */
int nlw_batch_queue(struct nlw_sock *sock, const struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);

/* Validate an interface name: 1..IFNAMSIZ-1 bytes, no '/', ':' or whitespace. */
bool nlw_ifname_valid(const char *name);

/*
 * Room for one more element of `size` bytes in *v (n in use, *cap
 * allocated), doubling from 8. 0 or -ENOMEM.
 */
static inline int nlw_grow(void **v, unsigned n, unsigned *cap, size_t size)
{
	unsigned c = *cap ? *cap * 2 : 8;
	void *p;

	if (n < *cap)
		return 0;
	p = reallocarray_safe(*v, c, size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}
