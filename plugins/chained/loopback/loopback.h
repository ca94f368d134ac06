/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loopback: sets "lo" up in the pod's network namespace (drop-in for the
 * reference plugin). It runs for every pod, so it talks to the kernel with
 * one raw netlink socket of its own instead of linking libmnl: every shared
 * library costs each process its own loader work.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"

/* lo is always ifindex 1 in every network namespace (the kernel's LOOPBACK_IFINDEX). */
#define LO_IFINDEX 1

extern const struct cni_plugin_ops loopback_ops;

/* The addresses of lo as the kernel reports them, in dump order. */
#define LO_MAX_ADDRS 8
struct lo_addrs {
	struct ip_prefix v4[LO_MAX_ADDRS], v6[LO_MAX_ADDRS];
	size_t n_v4, n_v6;
	bool truncated; /* more than LO_MAX_ADDRS of a family (the first ones are kept) */
};

/*
 * Requests (lo-nl.c). Each builds its netlink message(s) into buf and
 * returns the length, or a negative errno when buf is too small.
 * lo_req_up_dump: RTM_NEWLINK setting IFF_UP on ifindex 1 (with ACK),
 * followed in the same datagram by an RTM_GETADDR dump of every family.
 */
int lo_req_setflags(void *buf, size_t len, unsigned seq, bool up);
int lo_req_up_dump(void *buf, size_t len, unsigned seq);
int lo_req_getlink(void *buf, size_t len, unsigned seq);

/*
 * Replies (lo-nl.c), pure: one datagram in, state out.
 * lo_reply_parse: walks the messages of a datagram; records the error of
 * an NLMSG_ERROR for *seq_ack (0 = ACK), collects RTM_NEWADDR of ifindex 1
 * into addrs (may be NULL), IFF_UP of an RTM_NEWLINK for ifindex 1 into
 * *link_up (may be NULL), and sets *done on NLMSG_DONE or on the ACK/error
 * of the last request. Returns 0, the kernel's negative errno from an
 * NLMSG_ERROR, or -EBADMSG for a malformed datagram.
 */
struct lo_reply {
	unsigned seq_last; /* sequence number of the last request sent */
	bool done;	   /* the last request has been answered */
	int link_up;	   /* -1 unknown, else IFF_UP of lo */
	struct lo_addrs *addrs;
};
int lo_reply_parse(const void *buf, size_t len, struct lo_reply *st);

/*
 * Socket I/O (lo-sock.c): a NETLINK_ROUTE socket in the calling thread's
 * netns; send one datagram and read replies until st->done. Returns 0 or a
 * negative errno (socket errors, the kernel's errno, -EBADMSG).
 */
int lo_sock_open(int *ret_fd);
int lo_sock_transact(int fd, const void *req, size_t len, struct lo_reply *st);

/*
 * The pod netns (lo-sock.c): open it (O_CLOEXEC; 0 or a negative errno),
 * tell whether it is the netns this process runs in, and enter it for the
 * rest of the process (the plugin does all its kernel work there and never
 * needs the host netns again; -EINVAL: not a network namespace).
 */
int lo_netns_open(const char *path, int *ret_fd);
bool lo_netns_is_own(int fd);
int lo_netns_enter(int fd);

/* Is this a loopback address (127.0.0.0/8, ::1), as the reference checks? */
bool lo_addr_is_loopback(const struct ip_prefix *p);
