/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations shared by the netlink/ sources. */
#pragma once

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nlw/sock.h"
#include "base/macro.h"

/* Requests are small; replies use the socket's growing receive buffer. */
#define NLW_REQ_SIZE 4096
#define NLW_RBUF_INIT 32768
/* Bounded restarts of an interrupted dump (as netlinksafe does). */
#define NLW_DUMP_RETRIES 5

/* Aligned request buffer (a union rather than casts). */
union nlw_req {
	struct nlmsghdr nlh;
	char buf[NLW_REQ_SIZE];
};

/*
 * Start a request in req: type, flags | NLM_F_REQUEST, and a zeroed family
 * header of hdr_len bytes; *ret_hdr points at it (may be NULL if hdr_len 0).
 */
struct nlmsghdr *nlw_req_init(union nlw_req *req, uint16_t type, uint16_t flags, size_t hdr_len,
			      void **ret_hdr);

/* Checked attribute puts against the NLW_REQ_SIZE buffer; false when full. */
bool nlw_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v);
bool nlw_put_u16(struct nlmsghdr *nlh, uint16_t type, uint16_t v);
bool nlw_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v);
bool nlw_put_str(struct nlmsghdr *nlh, uint16_t type, const char *s);
bool nlw_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data);
struct nlattr *nlw_nest_start(struct nlmsghdr *nlh, uint16_t type);
/* Append raw bytes (e.g. a struct ifinfomsg inside VETH_INFO_PEER), aligned. */
bool nlw_put_raw(struct nlmsghdr *nlh, const void *data, size_t len);

/*
 * Reply callback: called for each data message (type >= NLMSG_MIN_TYPE).
 * Return >= 0 to continue, negative errno to abort the transaction.
 */
typedef int (*nlw_msg_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * The one transaction function: assign a fresh sequence number, send, then
 * receive and dispatch with mnl_cb_run2 (our own NLMSG_ERROR/NLMSG_DONE
 * handlers record errno and the extended ACK) until ACK, DONE or error.
 * Sequence and port id of every reply are checked. Returns 0, the kernel's
 * negative errno, -EPROTO (bad sequence), -ESRCH (bad port id), -EBADMSG,
 * or -EINTR when a dump reported NLM_F_DUMP_INTR (the rest of the dump has
 * been drained; see nlw_dump).
 */
int nlw_talk(struct nlw_sock *sock, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);

/*
 * As nlw_talk, but with a batch attached to the socket the request is queued
 * even though it has a reply callback: only for callers whose `data` outlives
 * nlw_batch_run (the caller's output, never a local of the function).
 */
int nlw_talk_batchable(struct nlw_sock *sock, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);

/* sock.c for batch.c: the next sequence number (never 0), one datagram into
 * sock->rbuf (grown as needed; its length or -errno), the datagram check, the
 * extended ACK of an NLMSG_ERROR message recorded on the socket. */
uint32_t nlw_sock_next_seq(struct nlw_sock *sock);
ssize_t nlw_sock_recv_datagram(struct nlw_sock *sock);
bool nlw_datagram_valid(const void *buf, size_t len);
int nlw_error_msg(struct nlw_sock *sock, const struct nlmsghdr *nlh, bool record_ext_ack);

/* batch.c for sock.c: queue a request into the socket's batch (0, -ENOBUFS). */
int nlw_batch_queue(struct nlw_sock *sock, const struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);

/*
 * A dump with bounded restarts: reset(data) before each attempt, at most
 * NLW_DUMP_RETRIES attempts, then -EAGAIN.
 */
int nlw_dump(struct nlw_sock *sock, struct nlmsghdr *nlh, nlw_msg_cb cb, void (*reset)(void *),
	     void *data);

/* Table-driven attribute validation (STYLE F.38). */
enum nlw_attr_kind {
	NLW_ATTR_UNUSED = 0, /* not in the policy: skipped */
	NLW_ATTR_U8,
	NLW_ATTR_U16,
	NLW_ATTR_U32,
	NLW_ATTR_U64,
	NLW_ATTR_STRING, /* NUL-terminated within the payload, maxlen includes the NUL */
	NLW_ATTR_NESTED,
	NLW_ATTR_BINARY, /* minlen..maxlen bytes (maxlen 0: unbounded) */
};

struct nlw_policy {
	uint8_t kind;
	uint16_t minlen;
	uint16_t maxlen;
};

/*
 * Fill tb[0..max] (zeroed first) from the attributes of nlh starting at
 * payload offset `offset`, or from a nest. Unknown types and types outside
 * the policy are skipped; a known attribute of the wrong size is -EBADMSG.
 */
int nlw_attr_parse(const struct nlmsghdr *nlh, size_t offset, const struct nlw_policy *policy,
		   unsigned max, const struct nlattr **tb);
int nlw_attr_parse_nested(const struct nlattr *nest, const struct nlw_policy *policy, unsigned max,
			  const struct nlattr **tb);

/* Copy a validated string attribute into buf (truncating safely). */
void nlw_attr_strcpy(const struct nlattr *a, char *buf, size_t len);

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
