/* SPDX-License-Identifier: Apache-2.0 */
/* Netlink sockets, their transport and the one receive loop, without libmnl. */
#include <errno.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/netns.h"
#include "nlw/sock.h"

/* ---- the transport of a real socket: priv is the nlw_sock ---- */

static ssize_t raw_send(void *priv, const void *buf, size_t len)
{
	const struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	const struct nlw_sock *s = priv;
	ssize_t n = sendto(s->fd, buf, len, 0, (const struct sockaddr *)&kernel, sizeof(kernel));

	return n < 0 ? negative_errno() : n;
}

static ssize_t raw_recv(void *priv, void *buf, size_t len, int flags)
{
	const struct nlw_sock *s = priv;
	ssize_t n = recv(s->fd, buf, len, flags | MSG_TRUNC);

	return n < 0 ? negative_errno() : n;
}

static uint32_t raw_portid(void *priv)
{
	return ((const struct nlw_sock *)priv)->portid;
}

static void raw_close(void *priv)
{
	const struct nlw_sock *s = priv;

	if (s->fd >= 0)
		close(s->fd);
}

static const struct nlw_transport_ops raw_transport = {
    .send = raw_send,
    .recv = raw_recv,
    .portid = raw_portid,
    .close = raw_close,
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

/* Bind (the kernel picks the port id) and set the options; 0 or -errno. */
static int raw_setup(struct nlw_sock *s)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	socklen_t sa_len = sizeof(sa);
	int one = 1;

	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &sa_len) < 0 ||
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0)
		return negative_errno();
	s->portid = sa.nl_pid;
	/* Errors then carry only the header of our request, not all of it. */
	(void)setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* Old kernels refuse strict checking; dumps are re-filtered here anyway. */
	s->strict_chk =
	    setsockopt(s->fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one)) == 0;
	return 0;
}

int nlw_sock_open_protocol(int protocol, struct nlw_sock **ret_sock)
{
	struct nlw_sock *s;
	int r;

	if (!ret_sock)
		return -EINVAL;
	r = nlw_sock_new_transport(&raw_transport, NULL, protocol, &s);
	if (r < 0)
		return r;
	s->priv = s;
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
	r = s->fd < 0 ? negative_errno() : raw_setup(s);
	if (r < 0) {
		nlw_sock_free(s);
		return r;
	}
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

/* ---- the one receive loop ---- */

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
		memcpy(&s->ext_ack_offset, nlw_attr_data(tb[NLMSGERR_ATTR_OFFS]),
		       sizeof(s->ext_ack_offset));
}

int nlw_error_msg(struct nlw_sock *s, const struct nlmsghdr *nlh, bool record)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EBADMSG;
	if (e->error == 0)
		return 0; /* the ACK */
	/* Without NETLINK_CAP_ACK the kernel echoes our whole request first. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(struct nlmsghdr);
	if (record && NLMSG_LENGTH(off) <= nlh->nlmsg_len)
		record_ext_ack(s, nlh, off);
	/* A kernel error is negative; never let a positive one pass as success. */
	return e->error < 0 ? e->error : -e->error;
}

/* A dump that failed part-way reports its errno in DONE's payload. */
static int done_msg(struct nlw_sock *s, const struct nlmsghdr *nlh, bool record)
{
	int err = 0;

	if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(err)))
		memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
	if (err >= 0)
		return 0;
	if (record)
		record_ext_ack(s, nlh, sizeof(err));
	return err;
}

/* Receive one datagram into the socket buffer, growing it first if needed. */
static ssize_t recv_datagram(struct nlw_sock *s, int flags)
{
	ssize_t n;

	do
		n = s->ops->recv(s->priv, NULL, 0, MSG_PEEK | MSG_TRUNC | flags);
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

/* Every message header lies inside the datagram: never walk one unchecked. */
static bool datagram_valid(const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;
		size_t step;

		if (len < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
			return false;
		step = NLMSG_ALIGN(nlh->nlmsg_len);
		if (step >= len)
			return true;
		p += step;
		len -= step;
	}
	return true;
}

int nlw_recv(struct nlw_sock *s, int (*fn)(const struct nlmsghdr *nlh, void *arg), void *arg)
{
	uint32_t portid = s->ops->portid ? s->ops->portid(s->priv) : 0;
	int flags = 0;

	for (;;) {
		ssize_t n = recv_datagram(s, flags);
		const struct nlmsghdr *nlh;

		if (n == -EAGAIN && flags)
			return 0; /* everything already queued has been read */
		if (n < 0)
			return (int)n;
		if (!datagram_valid(s->rbuf, (size_t)n))
			return -EBADMSG;
		for (size_t off = 0; off < (size_t)n; off += NLMSG_ALIGN(nlh->nlmsg_len)) {
			int r;

			nlh = (const struct nlmsghdr *)((const char *)s->rbuf + off);
			if (portid && nlh->nlmsg_pid && nlh->nlmsg_pid != portid)
				return -ESRCH;
			r = fn(nlh, arg);
			if (r < 0 || r == NLW_RX_END)
				return r < 0 ? r : 0;
			if (r == NLW_RX_QUEUED)
				flags = MSG_DONTWAIT;
		}
	}
}

/* One exchange of nlw_sock_recv_until. */
struct exchange {
	struct nlw_sock *sock;
	uint32_t first, last;
	nlw_msg_cb cb;
	void *data;
	int err; /* the first failure */
};

/* The ACK, error or DONE answering one request of the exchange. */
static int answer(struct exchange *x, const struct nlmsghdr *nlh)
{
	int r = nlh->nlmsg_type == NLMSG_ERROR ? nlw_error_msg(x->sock, nlh, x->err == 0)
					       : done_msg(x->sock, nlh, x->err == 0);

	if (r < 0 && x->err == 0)
		x->err = r;
	if (nlh->nlmsg_seq == x->last)
		return NLW_RX_END;
	return r < 0 ? NLW_RX_QUEUED : NLW_RX_MORE;
}

static int exchange_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct exchange *x = arg;
	int r;

	if (nlh->nlmsg_seq - x->first > x->last - x->first)
		return -EPROTO;
	/*
	 * NLM_F_DUMP_INTR: the dump raced with a change, so what we saw may be
	 * inconsistent. Never use it; read the rest and let nlw_dump retry.
	 */
	if ((nlh->nlmsg_flags & NLM_F_DUMP_INTR) && x->err == 0)
		x->err = -EINTR;
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return NLW_RX_MORE;
	case NLMSG_OVERRUN:
		return -ENOBUFS;
	case NLMSG_ERROR:
	case NLMSG_DONE:
		return answer(x, nlh);
	default:
		if (x->cb && x->err == 0 && (r = x->cb(nlh, x->data)) < 0)
			x->err = r;
		return NLW_RX_MORE;
	}
}

int nlw_sock_recv_until(struct nlw_sock *s, uint32_t first, uint32_t last, nlw_msg_cb cb,
			void *data)
{
	struct exchange x = {s, first, last, cb, data, 0};
	int r = nlw_recv(s, exchange_msg, &x);

	return r < 0 ? r : x.err;
}

uint32_t nlw_sock_next_seq(struct nlw_sock *s)
{
	if (++s->seq == 0)
		s->seq = 1;
	return s->seq;
}

int nlw_sock_send(struct nlw_sock *s, const void *buf, size_t len)
{
	ssize_t n;

	s->ext_ack[0] = '\0';
	s->ext_ack_offset = 0;
	n = s->ops->send(s->priv, buf, len);
	if (n < 0)
		return (int)n;
	return (size_t)n == len ? 0 : -EIO;
}

int nlw_talk(struct nlw_sock *s, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data)
{
	int r;

	/* A reply would arrive after this function returned: never queued. */
	if (s->batch)
		return cb ? -EBUSY : nlw_batch_queue(s, nlh, NULL, NULL);
	nlh->nlmsg_seq = nlw_sock_next_seq(s);
	r = nlw_sock_send(s, nlh, nlh->nlmsg_len);
	return r < 0 ? r : nlw_sock_recv_until(s, nlh->nlmsg_seq, nlh->nlmsg_seq, cb, data);
}

int nlw_talk_batchable(struct nlw_sock *s, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data)
{
	if (s->batch)
		return nlw_batch_queue(s, nlh, cb, data);
	return nlw_talk(s, nlh, cb, data);
}

/* Bounded restarts of an interrupted dump (as netlinksafe does). */
#define DUMP_RETRIES 5

int nlw_dump(struct nlw_sock *s, struct nlmsghdr *nlh, nlw_msg_cb cb, void (*reset)(void *),
	     void *data)
{
	for (int i = 0; i < DUMP_RETRIES; i++) {
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
