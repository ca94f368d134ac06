/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A netlink socket bound to one network namespace, with a replaceable
 * transport so unit tests can record requests and script replies.
 *
 * Conventions of the whole nlw_ API: every fallible function returns >= 0 on
 * success and a negative errno on failure. When the kernel rejected a request
 * the errno is the kernel's and the extended-ACK text (if any) is kept on the
 * socket until the next request: nlw_sock_ext_ack().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h> /* NETLINK_ROUTE, NETLINK_RDMA for the protocol arguments */
#include <sys/types.h>

struct nlw_batch;

/*
 * Transport seam. Production: libmnl on a real AF_NETLINK socket. Tests: the
 * fake in test/fakes/fake-nl.h.
 *  send:   send one request datagram; returns bytes sent or -errno.
 *  recv:   receive one datagram into buf (len bytes). flags is 0 or
 *          MSG_PEEK|MSG_TRUNC (then only the datagram size is wanted and the
 *          datagram stays queued). Returns the datagram's full length (may be
 *          > len with MSG_TRUNC) or -errno.
 *  portid: our port id (0 lets replies from any port through).
 *  close:  release priv; may be NULL.
 */
struct nlw_transport_ops {
	ssize_t (*send)(void *priv, const void *buf, size_t len);
	ssize_t (*recv)(void *priv, void *buf, size_t len, int flags);
	uint32_t (*portid)(void *priv);
	void (*close)(void *priv);
};

#define NLW_EXT_ACK_MAX 256

struct nlw_sock {
	const struct nlw_transport_ops *ops;
	void *priv;
	int protocol;	 /* NETLINK_ROUTE, NETLINK_RDMA, ... */
	uint32_t seq;	 /* last sequence number used */
	bool strict_chk; /* NETLINK_GET_STRICT_CHK accepted by the kernel */
	int fd;		 /* real socket fd, -1 for a fake transport */
	void *rbuf;	 /* receive buffer, grows on demand (peek) */
	size_t rbuf_len;
	char ext_ack[NLW_EXT_ACK_MAX]; /* "" when the last request had none */
	uint32_t ext_ack_offset;       /* NLMSGERR_ATTR_OFFS of the last error, 0 if none */
	struct nlw_batch *batch;       /* requests are queued there while set (nlw/batch.h) */
};

/*
 * Open a NETLINK_ROUTE socket in the calling thread's current netns:
 * SOCK_CLOEXEC, NETLINK_EXT_ACK, NETLINK_CAP_ACK, NETLINK_GET_STRICT_CHK (an
 * old kernel refusing strict checking is recorded in ->strict_chk, not an
 * error). *ret_sock is owned by the caller (nlw_sock_free).
 * Errors: -ENOMEM, or the socket()/bind() errno (e.g. -EPROTONOSUPPORT).
 */
int nlw_sock_open(struct nlw_sock **ret_sock);

/* As nlw_sock_open for another netlink protocol (e.g. NETLINK_RDMA). */
int nlw_sock_open_protocol(int protocol, struct nlw_sock **ret_sock);

/*
 * Open a socket of `protocol` inside the netns `netns_fd` (borrowed, not
 * closed): the calling thread enters that netns, creates the socket and
 * returns to its original netns before this function returns. The socket
 * keeps operating in netns_fd's namespace afterwards.
 * Errors: -EBADF/-EINVAL (not a netns fd), -EPERM (setns), socket errors.
 * If returning to the original netns fails the process aborts: continuing in
 * the wrong namespace would silently configure the wrong network.
 */
int nlw_sock_open_in_netns(int netns_fd, int protocol, struct nlw_sock **ret_sock);

/*
 * Wrap a caller-supplied transport (tests). ops must outlive the socket; priv
 * is owned by the socket if ops->close is set. Errors: -ENOMEM, -EINVAL.
 */
int nlw_sock_new_transport(const struct nlw_transport_ops *ops, void *priv, int protocol,
			   struct nlw_sock **ret_sock);

/* Close and free; accepts NULL; returns NULL. */
struct nlw_sock *nlw_sock_free(struct nlw_sock *sock);

static inline void nlw_sock_freep(struct nlw_sock **s)
{
	if (*s)
		nlw_sock_free(*s);
}
#define _cleanup_nlw_sock_ __attribute__((cleanup(nlw_sock_freep)))

/*
 * The kernel's extended-ACK message of the last failed request on this socket,
 * or NULL if it gave none. Borrowed: valid until the next request.
 */
const char *nlw_sock_ext_ack(const struct nlw_sock *sock);
