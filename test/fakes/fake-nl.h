/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fake netlink transport: records every request sent through an nlw_sock
 * and replays scripted reply datagrams (ACK, error with extended ACK,
 * multi-part dumps, NLM_F_DUMP_INTR). Replies get the sequence number of the
 * latest request when received, unless scripted with a fixed one.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;
struct nlw_sock;
struct fake_nl;

/* New fake (never NULL: aborts on OOM, it is test code). */
struct fake_nl *fake_nl_new(void);
void fake_nl_free(struct fake_nl *f);

/*
 * An nlw_sock using this fake. The socket does not own the fake: free the
 * socket first, then the fake.
 */
int fake_nl_sock(struct fake_nl *f, int protocol, struct nlw_sock **ret);

/* How many sockets on this fake have been freed (nlw_sock_free). */
size_t fake_nl_nclosed(const struct fake_nl *f);

/* Port id the fake reports for its socket (default 0 = unchecked). */
void fake_nl_set_portid(struct fake_nl *f, uint32_t portid);

/* ---- scripting replies: messages accumulate in a datagram until _flush ---- */

/*
 * Start a reply message in a scratch buffer (size FAKE_NL_MSG_MAX); fill it
 * with mnl_* calls, then fake_nl_msg_end() appends it to the current datagram.
 */
#define FAKE_NL_MSG_MAX 8192
struct nlmsghdr *fake_nl_msg_begin(struct fake_nl *f, uint16_t type, uint16_t flags);
void fake_nl_msg_end(struct fake_nl *f);
/* Append a ready message (copied). */
void fake_nl_add_msg(struct fake_nl *f, const struct nlmsghdr *nlh);
/* Close the current datagram (the next recv returns it whole). */
void fake_nl_flush(struct fake_nl *f);
/* Force seq (and portid) of the messages in the current datagram instead of the request's. */
void fake_nl_fix_seq(struct fake_nl *f, uint32_t seq, uint32_t portid);
/* The messages of the current datagram keep the seq/portid they were scripted with. */
void fake_nl_keep_seq(struct fake_nl *f);

/* Convenience: each of these appends one message and flushes. */
void fake_nl_reply_ack(struct fake_nl *f);
/* NLMSG_ERROR with -err_positive... pass a negative errno; ext_ack may be NULL. */
void fake_nl_reply_error(struct fake_nl *f, int neg_errno, const char *ext_ack);
/* NLMSG_DONE (end of a dump); flags may add NLM_F_DUMP_INTR. */
void fake_nl_reply_done(struct fake_nl *f, uint16_t flags);

/* Number of replies still queued. */
size_t fake_nl_pending(const struct fake_nl *f);

/* ---- inspecting requests ---- */
size_t fake_nl_nrequests(const struct fake_nl *f);
/* The i-th request sent (0-based), or NULL. Owned by the fake. */
const struct nlmsghdr *fake_nl_request(const struct fake_nl *f, size_t i);
/* Forget recorded requests. */
void fake_nl_clear_requests(struct fake_nl *f);

/* ---- decoding helpers for assertions ---- */
struct nlattr;
/* First attribute of `type` in nlh after a family header of hdr_len bytes, or NULL. */
const struct nlattr *fake_nl_attr(const struct nlmsghdr *nlh, size_t hdr_len, uint16_t type);
/* First attribute of `type` inside a nest, or NULL. */
const struct nlattr *fake_nl_nested(const struct nlattr *nest, uint16_t type);
/* Number of attributes of `type` inside a nest. */
unsigned fake_nl_nested_count(const struct nlattr *nest, uint16_t type);

/* ---- cmocka fixture: a fake transport and a socket on it ---- */
struct fake_fx {
	struct fake_nl *f;
	struct nlw_sock *s;
};

/* cmocka setup functions: *state becomes a struct fake_fx; -1 on failure. */
int fake_fx_setup_route(void **state);
int fake_fx_setup_rdma(void **state);
/* cmocka teardown: frees the socket, the fake and the fixture. */
int fake_fx_teardown(void **state);
