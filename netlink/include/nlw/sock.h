/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A netlink socket bound to one network namespace, with a replaceable
 * transport so unit tests can record requests and script replies, and the
 * one receive loop every netlink exchange of podwire goes through
 * (rtnetlink, RDMA, nf_tables). Library nlw_core: no libmnl.
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
 * Transport seam. Production: a real AF_NETLINK socket. Tests: the
 * fake in test/fakes/fake-nl.h.
 *  send:   send one request datagram; returns bytes sent or -errno.
 *  recv:   receive one datagram into buf (len bytes). flags is 0 or
 *          MSG_PEEK|MSG_TRUNC (then only the datagram size is wanted and the
 *          datagram stays queued), that with MSG_DONTWAIT too (-EAGAIN when
 *          nothing is queued). Returns the datagram's full length (may be
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
	uint32_t portid; /* of the real socket */
	void *rbuf;	 /* receive buffer, grows on demand (peek) */
	size_t rbuf_len;
	char ext_ack[NLW_EXT_ACK_MAX]; /* "" when the last request had none */
	uint32_t ext_ack_offset;       /* NLMSGERR_ATTR_OFFS of the last error, 0 if none */
	struct nlw_batch *batch;       /* requests are queued there while set (nlw/batch.h) */
};

/*
 * Open a NETLINK_ROUTE socket in the calling thread's current netns, bound
 * (the kernel picks the port id): SOCK_CLOEXEC, NETLINK_EXT_ACK,
 * NETLINK_CAP_ACK, NETLINK_GET_STRICT_CHK (an old kernel refusing strict
 * checking is recorded in ->strict_chk, not an error). *ret_sock is owned by
 * the caller (nlw_sock_free).
 * Errors: -ENOMEM, or the socket()/bind() errno (e.g. -EPROTONOSUPPORT).
 */
int nlw_sock_open(struct nlw_sock **ret_sock);

/* As nlw_sock_open for another netlink protocol (NETLINK_RDMA, NETLINK_NETFILTER). */
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

/*
 * Reply callback: called for each data message (type >= NLMSG_MIN_TYPE).
 * Return >= 0 to continue, a negative errno to fail the exchange (the rest of
 * it is still read off the socket, without the callback).
 */
typedef int (*nlw_msg_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * The transaction of one request nlh (NLM_F_ACK, or a dump): a fresh
 * sequence number, send, then nlw_sock_recv_until that number. With a batch
 * attached (nlw/batch.h) an acknowledgement-only request is queued instead
 * (0), one with a callback refused (-EBUSY). Returns as nlw_sock_recv_until.
 */
int nlw_talk(struct nlw_sock *sock, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);

/*
 * A dump through nlw_talk with bounded restarts: reset(data) (may be NULL)
 * before each attempt; after 5 attempts interrupted by NLM_F_DUMP_INTR,
 * -EAGAIN. A partial dump is never returned.
 */
int nlw_dump(struct nlw_sock *sock, struct nlmsghdr *nlh, nlw_msg_cb cb, void (*reset)(void *),
	     void *data);

/* The next sequence number of this socket (never 0), for requests sent with nlw_sock_send. */
uint32_t nlw_sock_next_seq(struct nlw_sock *sock);

/*
 * Send one datagram of ready requests (len bytes, sequence numbers set) and
 * forget the previous extended ACK. Returns 0, the send's -errno, or -EIO
 * when the datagram went out short.
 */
int nlw_sock_send(struct nlw_sock *sock, const void *buf, size_t len);

/*
 * Receive the answers to the requests numbered first..last sent in one
 * datagram (each with NLM_F_ACK, or a dump; first == last for one request):
 * cb(nlh, data) (may be NULL) on every data message until the exchange
 * fails. It ends with the ACK, error or NLMSG_DONE of `last`; an error
 * answering an earlier request ends it too, once the answers already queued
 * are read (a kernel that runs the datagram as one batch, as nf_tables does,
 * has queued them all inside sendmsg). Returns 0 or the first failure: the
 * kernel's -errno (its extended ACK kept, nlw_sock_ext_ack), also from a
 * failing dump's NLMSG_DONE; cb's; -EINTR when a dump was flagged
 * NLM_F_DUMP_INTR (the rest read; see nlw_dump); or, ending the exchange at
 * once, -EPROTO (an answer numbered outside first..last), -ESRCH (another
 * port id), -ENOBUFS (NLMSG_OVERRUN or the socket overran), -EBADMSG
 * (message lengths that do not fit the datagram), a receive -errno.
 */
int nlw_sock_recv_until(struct nlw_sock *sock, uint32_t first, uint32_t last, nlw_msg_cb cb,
			void *data);
