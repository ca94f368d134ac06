/* SPDX-License-Identifier: Apache-2.0 */
/* Fake netlink transport for unit tests; see fake-nl.h. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fake-nl.h"
#include "nlw/sock.h"

struct datagram {
	unsigned char *buf;
	size_t len;
	bool fixed_seq;
	bool keep_seq; /* the messages keep the seq and portid they were scripted with */
	uint32_t seq, portid;
};

struct fake_nl {
	struct datagram *q; /* replies, consumed from head */
	size_t qhead, qlen, qcap;
	struct datagram cur; /* being built */
	unsigned char scratch[FAKE_NL_MSG_MAX] __attribute__((aligned(4)));
	struct nlmsghdr **req;
	size_t nreq, reqcap;
	uint32_t last_seq, portid;
	size_t nclosed; /* sockets on this fake freed so far */
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

struct fake_nl *fake_nl_new(void)
{
	struct fake_nl *f = calloc(1, sizeof(*f));

	if (!f)
		abort();
	return f;
}

void fake_nl_clear_requests(struct fake_nl *f)
{
	for (size_t i = 0; i < f->nreq; i++)
		free(f->req[i]);
	f->nreq = 0;
}

void fake_nl_free(struct fake_nl *f)
{
	if (!f)
		return;
	for (size_t i = f->qhead; i < f->qlen; i++)
		free(f->q[i].buf);
	free(f->q);
	free(f->cur.buf);
	fake_nl_clear_requests(f);
	free(f->req);
	free(f);
}

static void record_request(struct fake_nl *f, const struct nlmsghdr *nlh)
{
	if (f->nreq == f->reqcap) {
		f->reqcap = f->reqcap ? f->reqcap * 2 : 8;
		f->req = xrealloc(f->req, f->reqcap * sizeof(*f->req));
	}
	f->req[f->nreq] = xrealloc(NULL, nlh->nlmsg_len);
	memcpy(f->req[f->nreq++], nlh, nlh->nlmsg_len);
	f->last_seq = nlh->nlmsg_seq;
}

/* A datagram of several requests (nlw_batch) is recorded as one request each. */
static ssize_t fake_send(void *priv, const void *buf, size_t len)
{
	struct fake_nl *f = priv;
	const unsigned char *p = buf;
	size_t off = 0;

	while (off < len) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)(p + off);

		if (len - off < sizeof(*nlh) || nlh->nlmsg_len < sizeof(*nlh) ||
		    nlh->nlmsg_len > len - off)
			return -EINVAL;
		off += MNL_ALIGN(nlh->nlmsg_len);
	}
	for (off = 0; off < len; off += MNL_ALIGN(((const struct nlmsghdr *)(p + off))->nlmsg_len))
		record_request(f, (const struct nlmsghdr *)(p + off));
	return (ssize_t)len;
}

/* Stamp the latest request's sequence number on every message of d. */
static void stamp_seq(struct fake_nl *f, struct datagram *d)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)d->buf;
	int n = (int)d->len;

	if (d->keep_seq)
		return;
	for (; mnl_nlmsg_ok(nlh, n); nlh = (struct nlmsghdr *)mnl_nlmsg_next(nlh, &n)) {
		nlh->nlmsg_seq = d->fixed_seq ? d->seq : f->last_seq;
		nlh->nlmsg_pid = d->fixed_seq ? d->portid : f->portid;
	}
}

static ssize_t fake_recv(void *priv, void *buf, size_t len, int flags)
{
	struct fake_nl *f = priv;
	struct datagram *d;
	size_t full;

	if (f->qhead == f->qlen && (flags & MSG_DONTWAIT))
		return -EAGAIN; /* nothing queued */
	if (f->qhead == f->qlen)
		return -ETIMEDOUT; /* a real socket would block forever: fail the test */
	d = &f->q[f->qhead];
	full = d->len;
	if (flags & MSG_PEEK)
		return (ssize_t)full;
	stamp_seq(f, d);
	memcpy(buf, d->buf, full < len ? full : len);
	free(d->buf);
	f->qhead++;
	return (ssize_t)full;
}

static uint32_t fake_portid(void *priv)
{
	return ((struct fake_nl *)priv)->portid;
}

/* The socket never owns the fake: closing only counts. */
static void fake_close(void *priv)
{
	((struct fake_nl *)priv)->nclosed++;
}

size_t fake_nl_nclosed(const struct fake_nl *f)
{
	return f->nclosed;
}

static const struct nlw_transport_ops fake_ops = {
    .send = fake_send,
    .recv = fake_recv,
    .portid = fake_portid,
    .close = fake_close,
};

int fake_nl_sock(struct fake_nl *f, int protocol, struct nlw_sock **ret)
{
	return nlw_sock_new_transport(&fake_ops, f, protocol, ret);
}

void fake_nl_set_portid(struct fake_nl *f, uint32_t portid)
{
	f->portid = portid;
}

struct nlmsghdr *fake_nl_msg_begin(struct fake_nl *f, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(f->scratch, 0, sizeof(f->scratch));
	nlh = mnl_nlmsg_put_header(f->scratch);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	return nlh;
}

void fake_nl_add_msg(struct fake_nl *f, const struct nlmsghdr *nlh)
{
	size_t len = MNL_ALIGN(nlh->nlmsg_len);

	f->cur.buf = xrealloc(f->cur.buf, f->cur.len + len);
	memset(f->cur.buf + f->cur.len, 0, len);
	memcpy(f->cur.buf + f->cur.len, nlh, nlh->nlmsg_len);
	f->cur.len += len;
}

void fake_nl_msg_end(struct fake_nl *f)
{
	fake_nl_add_msg(f, (const struct nlmsghdr *)f->scratch);
}

void fake_nl_fix_seq(struct fake_nl *f, uint32_t seq, uint32_t portid)
{
	f->cur.fixed_seq = true;
	f->cur.seq = seq;
	f->cur.portid = portid;
}

void fake_nl_keep_seq(struct fake_nl *f)
{
	f->cur.keep_seq = true;
}

void fake_nl_flush(struct fake_nl *f)
{
	if (f->qlen == f->qcap) {
		f->qcap = f->qcap ? f->qcap * 2 : 8;
		f->q = xrealloc(f->q, f->qcap * sizeof(*f->q));
	}
	f->q[f->qlen++] = f->cur;
	memset(&f->cur, 0, sizeof(f->cur));
}

void fake_nl_reply_error(struct fake_nl *f, int neg_errno, const char *ext_ack)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, NLMSG_ERROR, NLM_F_CAPPED);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = neg_errno;
	e->msg.nlmsg_len = sizeof(struct nlmsghdr);
	if (ext_ack) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, ext_ack);
	}
	fake_nl_msg_end(f);
	fake_nl_flush(f);
}

void fake_nl_reply_ack(struct fake_nl *f)
{
	fake_nl_reply_error(f, 0, NULL);
}

void fake_nl_reply_done(struct fake_nl *f, uint16_t flags)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, NLMSG_DONE, NLM_F_MULTI | flags);
	int *err = mnl_nlmsg_put_extra_header(nlh, sizeof(int));

	*err = 0;
	fake_nl_msg_end(f);
	fake_nl_flush(f);
}

size_t fake_nl_pending(const struct fake_nl *f)
{
	return f->qlen - f->qhead;
}

size_t fake_nl_nrequests(const struct fake_nl *f)
{
	return f->nreq;
}

const struct nlmsghdr *fake_nl_request(const struct fake_nl *f, size_t i)
{
	return i < f->nreq ? f->req[i] : NULL;
}

const struct nlattr *fake_nl_attr(const struct nlmsghdr *nlh, size_t hdr_len, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each (a, nlh, hdr_len)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

const struct nlattr *fake_nl_nested(const struct nlattr *nest, uint16_t type)
{
	const struct nlattr *a;

	if (!nest)
		return NULL;
	mnl_attr_for_each_nested (a, nest)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

unsigned fake_nl_nested_count(const struct nlattr *nest, uint16_t type)
{
	const struct nlattr *a;
	unsigned n = 0;

	if (!nest)
		return 0;
	mnl_attr_for_each_nested (a, nest)
		n += mnl_attr_get_type(a) == type;
	return n;
}

static int fake_fx_setup(void **state, int protocol)
{
	struct fake_fx *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	x->f = fake_nl_new();
	if (!x->f || fake_nl_sock(x->f, protocol, &x->s) < 0) {
		fake_nl_free(x->f);
		free(x);
		return -1;
	}
	*state = x;
	return 0;
}

int fake_fx_setup_route(void **state)
{
	return fake_fx_setup(state, NETLINK_ROUTE);
}

int fake_fx_setup_rdma(void **state)
{
	return fake_fx_setup(state, NETLINK_RDMA);
}

int fake_fx_teardown(void **state)
{
	struct fake_fx *x = *state;

	nlw_sock_free(x->s);
	fake_nl_free(x->f);
	free(x);
	return 0;
}
