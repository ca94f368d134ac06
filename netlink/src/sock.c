/* SPDX-License-Identifier: Apache-2.0 */
/* Netlink sockets, the libmnl transport and the one transaction function. */
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/netns.h"
#include "nlw/sock.h"

/* ---- libmnl transport ---- */

static ssize_t mnl_tr_send(void *priv, const void *buf, size_t len)
{
	ssize_t n = mnl_socket_sendto(priv, buf, len);

	return n < 0 ? negative_errno() : n;
}

static ssize_t mnl_tr_recv(void *priv, void *buf, size_t len, int flags)
{
	/* mnl_socket_recvfrom takes no flags; peeking needs the raw fd. */
	ssize_t n = recv(mnl_socket_get_fd(priv), buf, len, flags | MSG_TRUNC);

	return n < 0 ? negative_errno() : n;
}

static uint32_t mnl_tr_portid(void *priv)
{
	return mnl_socket_get_portid(priv);
}

static void mnl_tr_close(void *priv)
{
	mnl_socket_close(priv);
}

static const struct nlw_transport_ops mnl_transport = {
    .send = mnl_tr_send,
    .recv = mnl_tr_recv,
    .portid = mnl_tr_portid,
    .close = mnl_tr_close,
};

int nlw_sock_new_transport(const struct nlw_transport_ops *ops, void *priv, int protocol,
			   struct nlw_sock **ret_sock)
{
	struct nlw_sock *s;

	if (!ops || !ops->send || !ops->recv || !ret_sock)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rbuf = malloc(NLW_RBUF_INIT);
	if (!s->rbuf) {
		free(s);
		return -ENOMEM;
	}
	s->rbuf_len = NLW_RBUF_INIT;
	s->ops = ops;
	s->priv = priv;
	s->protocol = protocol;
	s->fd = -1;
	/* Random-ish start so replies to a previous process's socket cannot match. */
	s->seq = (uint32_t)getpid() << 8;
	*ret_sock = s;
	return 0;
}

static int mnl_open(int protocol, struct mnl_socket **ret, bool *ret_strict)
{
	struct mnl_socket *nl;
	int one = 1, r;

	nl = mnl_socket_open2(protocol, SOCK_CLOEXEC);
	if (!nl)
		return negative_errno();
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	if (mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0)
		goto fail;
	/* Errors then carry only the header of our request, not all of it. */
	(void)mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Old kernels refuse strict checking; dumps are re-filtered here anyway. */
	*ret_strict = mnl_socket_setsockopt(nl, NETLINK_GET_STRICT_CHK, &one, sizeof(one)) == 0;
	*ret = nl;
	return 0;
fail:
	r = negative_errno();
	mnl_socket_close(nl);
	return r;
}

int nlw_sock_open_protocol(int protocol, struct nlw_sock **ret_sock)
{
	struct mnl_socket *nl = NULL;
	struct nlw_sock *s;
	bool strict = false;
	int r;

	if (!ret_sock)
		return -EINVAL;
	r = mnl_open(protocol, &nl, &strict);
	if (r < 0)
		return r;
	r = nlw_sock_new_transport(&mnl_transport, nl, protocol, &s);
	if (r < 0) {
		mnl_socket_close(nl);
		return r;
	}
	s->fd = mnl_socket_get_fd(nl);
	s->strict_chk = strict;
	*ret_sock = s;
	return 0;
}

int nlw_sock_open(struct nlw_sock **ret_sock)
{
	return nlw_sock_open_protocol(NETLINK_ROUTE, ret_sock);
}

struct open_args {
	int protocol;
	struct nlw_sock *sock;
};

static int open_in_netns_fn(void *arg)
{
	struct open_args *a = arg;

	return nlw_sock_open_protocol(a->protocol, &a->sock);
}

int nlw_sock_open_in_netns(int netns_fd, int protocol, struct nlw_sock **ret_sock)
{
	struct open_args a = {.protocol = protocol};
	int r;

	if (netns_fd < 0 || !ret_sock)
		return -EBADF;
	/* A socket stays in the netns it was created in: enter, create, leave. */
	r = nlw_netns_run(netns_fd, open_in_netns_fn, &a);
	if (r < 0)
		return r;
	*ret_sock = a.sock;
	return 0;
}

struct nlw_sock *nlw_sock_free(struct nlw_sock *s)
{
	if (!s)
		return NULL;
	if (s->ops && s->ops->close)
		s->ops->close(s->priv);
	free(s->rbuf);
	free(s);
	return NULL;
}

const char *nlw_sock_ext_ack(const struct nlw_sock *s)
{
	return s && s->ext_ack[0] ? s->ext_ack : NULL;
}

/* ---- the transaction ---- */

struct talk_ctx {
	struct nlw_sock *sock;
	nlw_msg_cb cb;
	void *data;
	int err;
	bool cb_failed; /* err came from the caller's callback, not from the kernel */
};

static const struct nlw_policy ext_ack_policy[NLMSGERR_ATTR_MAX + 1] = {
    [NLMSGERR_ATTR_MSG] = {NLW_ATTR_STRING, 1, NLW_EXT_ACK_MAX},
    [NLMSGERR_ATTR_OFFS] = {NLW_ATTR_U32, 0, 0},
};

/* Record NLMSGERR_ATTR_MSG/OFFS of an error or DONE message carrying TLVs. */
static void record_ext_ack(struct nlw_sock *s, const struct nlmsghdr *nlh, size_t tlv_offset)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlw_attr_parse(nlh, tlv_offset, ext_ack_policy, NLMSGERR_ATTR_MAX, tb) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nlw_attr_strcpy(tb[NLMSGERR_ATTR_MSG], s->ext_ack, sizeof(s->ext_ack));
	if (tb[NLMSGERR_ATTR_OFFS])
		s->ext_ack_offset = mnl_attr_get_u32(tb[NLMSGERR_ATTR_OFFS]);
}

int nlw_error_msg(struct nlw_sock *s, const struct nlmsghdr *nlh, bool record)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return -EBADMSG;
	if (e->error == 0)
		return 0; /* the ACK */
	/* Without NETLINK_CAP_ACK the kernel echoes our whole request first. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += MNL_ALIGN(e->msg.nlmsg_len) - sizeof(struct nlmsghdr);
	if (record && mnl_nlmsg_size(off) <= nlh->nlmsg_len)
		record_ext_ack(s, nlh, off);
	/* A kernel error is negative; never let a positive one pass as success. */
	return e->error < 0 ? e->error : -e->error;
}

static int on_error(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *c = data;
	int r = nlw_error_msg(c->sock, nlh, true);

	if (r == 0)
		return MNL_CB_STOP; /* the ACK */
	c->err = r;
	return MNL_CB_ERROR;
}

static int on_done(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *c = data;
	int err = 0;

	/* A dump that failed part-way reports its errno in DONE's payload. */
	if (nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(int)))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err < 0) {
		record_ext_ack(c->sock, nlh, sizeof(int));
		c->err = err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static int on_overrun(const struct nlmsghdr *nlh _unused_, void *data)
{
	struct talk_ctx *c = data;

	c->err = -ENOBUFS;
	return MNL_CB_ERROR;
}

static int on_data(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *c = data;
	int r;

	if (!c->cb)
		return MNL_CB_OK;
	r = c->cb(nlh, c->data);
	if (r < 0) {
		c->err = r;
		c->cb_failed = true;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* Not const: mnl_cb_run2 takes a non-const array (never written). */
static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
    [NLMSG_ERROR] = on_error,
    [NLMSG_DONE] = on_done,
    [NLMSG_OVERRUN] = on_overrun,
};

/* Receive one datagram into the socket buffer, growing it first if needed. */
ssize_t nlw_sock_recv_datagram(struct nlw_sock *s)
{
	ssize_t n;

	do
		n = s->ops->recv(s->priv, NULL, 0, MSG_PEEK | MSG_TRUNC);
	while (n == -EINTR);
	if (n < 0)
		return n;
	if ((size_t)n > s->rbuf_len) {
		void *p = realloc(s->rbuf, (size_t)n);

		if (!p)
			return -ENOMEM;
		s->rbuf = p;
		s->rbuf_len = (size_t)n;
	}
	do
		n = s->ops->recv(s->priv, s->rbuf, s->rbuf_len, 0);
	while (n == -EINTR);
	if (n >= 0 && (size_t)n > s->rbuf_len)
		return -EMSGSIZE;
	return n;
}

/*
 * Every message header lies inside the datagram. mnl_nlmsg_ok compares the
 * length as a signed int, so a length above INT_MAX would slip through it;
 * the kernel never sends one, but we never walk a datagram unchecked.
 */
bool nlw_datagram_valid(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;
		size_t step;

		if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
			return false;
		step = MNL_ALIGN(nlh->nlmsg_len);
		if (step >= len)
			return true;
		p += step;
		len -= step;
	}
	return true;
}

/* Does this datagram end the exchange (DONE or ERROR/ACK of our sequence)? */
static bool datagram_ends(const void *buf, size_t len, uint32_t seq)
{
	const struct nlmsghdr *nlh = buf;
	int n = (int)len;

	for (; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n))
		if (nlh->nlmsg_seq == seq &&
		    (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR))
			return true;
	return false;
}

uint32_t nlw_sock_next_seq(struct nlw_sock *s)
{
	if (++s->seq == 0)
		s->seq = 1;
	return s->seq;
}

static int send_request(struct nlw_sock *s, struct nlmsghdr *nlh)
{
	ssize_t n;

	nlh->nlmsg_seq = nlw_sock_next_seq(s);
	s->ext_ack[0] = '\0';
	s->ext_ack_offset = 0;
	n = s->ops->send(s->priv, nlh, nlh->nlmsg_len);
	if (n < 0)
		return (int)n;
	return (size_t)n == nlh->nlmsg_len ? 0 : -EIO;
}

/*
 * After mnl_cb_run2 stopped with an error: the error to report, and whether
 * the rest of the exchange must still be read off the socket first.
 */
static int run_error(const struct talk_ctx *c, bool *ret_drain)
{
	*ret_drain = false;
	if (c->cb_failed) {
		/* Our parser gave up; the kernel is still sending. */
		*ret_drain = true;
		return c->err;
	}
	if (c->err)
		return c->err; /* NLMSG_ERROR or a failed DONE: the exchange is over */
	if (errno == EINTR) {
		/*
		 * NLM_F_DUMP_INTR: the dump raced with a change, so what we saw
		 * may be inconsistent. Never use it; drain and let nlw_dump retry.
		 */
		*ret_drain = true;
		return -EINTR;
	}
	return negative_errno(); /* -EPROTO (sequence), -ESRCH (port id) */
}

int nlw_talk(struct nlw_sock *s, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data)
{
	struct talk_ctx c = {.sock = s, .cb = cb, .data = data};
	bool draining = false;
	uint32_t portid;
	int r, err = 0;

	/* A reply would arrive after this function returned: never queued. */
	if (s->batch)
		return cb ? -EBUSY : nlw_batch_queue(s, nlh, NULL, NULL);
	r = send_request(s, nlh);
	if (r < 0)
		return r;
	portid = s->ops->portid ? s->ops->portid(s->priv) : 0;
	for (;;) {
		ssize_t n = nlw_sock_recv_datagram(s);

		if (n < 0)
			return (int)n;
		if (!nlw_datagram_valid(s->rbuf, (size_t)n))
			return -EBADMSG;
		if (!draining) {
			r = mnl_cb_run2(s->rbuf, (size_t)n, s->seq, portid, on_data, &c, ctl_cbs,
					ARRAY_SIZE(ctl_cbs));
			if (r == MNL_CB_STOP)
				return c.err;
			if (r == MNL_CB_OK)
				continue;
			err = run_error(&c, &draining);
			if (!draining)
				return err;
		}
		/* Read up to our DONE/ERROR so the next request starts on a clean socket. */
		if (datagram_ends(s->rbuf, (size_t)n, s->seq))
			return err;
	}
}

int nlw_talk_batchable(struct nlw_sock *s, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data)
{
	if (s->batch)
		return nlw_batch_queue(s, nlh, cb, data);
	return nlw_talk(s, nlh, cb, data);
}

int nlw_dump(struct nlw_sock *s, struct nlmsghdr *nlh, nlw_msg_cb cb, void (*reset)(void *),
	     void *data)
{
	for (int i = 0; i < NLW_DUMP_RETRIES; i++) {
		int r;

		if (reset)
			reset(data);
		r = nlw_talk(s, nlh, cb, data);
		if (r != -EINTR)
			return r;
	}
	if (reset)
		reset(data);
	return -EAGAIN;
}
