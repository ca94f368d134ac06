/* SPDX-License-Identifier: Apache-2.0 */
/* The nf_tables handle: socket, batch building, sending and ACK collection. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include <libmnl/libmnl.h>
#include <libnftnl/common.h>

#include "base/macro.h"
#include "internal.h"

static int nft_alloc(struct pw_nft **ret)
{
	struct pw_nft *nft = calloc(1, sizeof(*nft));

	if (!nft)
		return -ENOMEM;
	nft->buf = calloc(2, PW_NFT_BATCH_LIMIT); /* padding bytes go to the kernel */
	if (!nft->buf) {
		free(nft);
		return -ENOMEM;
	}
	nft->seq = (uint32_t)time(NULL);
	*ret = nft;
	return 0;
}

int pw_nft_open(struct pw_nft **ret)
{
	struct pw_nft *nft = NULL;
	int one = 1, r;

	r = nft_alloc(&nft);
	if (r < 0)
		return r;
	nft->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	if (!nft->nl) {
		r = negative_errno();
		goto out_free;
	}
	if (mnl_socket_bind(nft->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = negative_errno();
		goto out_free;
	}
	/* Both are best effort: without them errors just carry less text. */
	(void)mnl_socket_setsockopt(nft->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)mnl_socket_setsockopt(nft->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	nft->portid = mnl_socket_get_portid(nft->nl);
	*ret = nft;
	return 0;
out_free:
	pw_nft_free(nft);
	return r;
}

int pw_nft_new_recorder(struct pw_nft **ret)
{
	return nft_alloc(ret);
}

const void *pw_nft_recorded(const struct pw_nft *nft, size_t *ret_len)
{
	*ret_len = nft->recorded_len;
	return nft->recorded;
}

struct pw_nft *pw_nft_free(struct pw_nft *nft)
{
	if (!nft)
		return NULL;
	if (nft->batch)
		mnl_nlmsg_batch_stop(nft->batch);
	if (nft->nl)
		mnl_socket_close(nft->nl);
	free(nft->recorded);
	free(nft->buf);
	free(nft);
	return NULL;
}

const char *pw_nft_ext_ack(const struct pw_nft *nft)
{
	return nft->ext_ack[0] ? nft->ext_ack : NULL;
}

uint32_t nft_next_seq(struct pw_nft *nft)
{
	return ++nft->seq;
}

int nft_batch_begin(struct pw_nft *nft)
{
	if (nft->batch)
		mnl_nlmsg_batch_stop(nft->batch);
	nft->batch = mnl_nlmsg_batch_start(nft->buf, PW_NFT_BATCH_LIMIT);
	if (!nft->batch)
		return -ENOMEM;
	nft->n_msgs = 0;
	nft->overflow = false;
	nftnl_batch_begin(mnl_nlmsg_batch_current(nft->batch), nft_next_seq(nft));
	nft_batch_next(nft);
	return 0;
}

struct nlmsghdr *nft_batch_msg(struct pw_nft *nft, uint16_t type, uint16_t family, uint16_t flags)
{
	nft->n_msgs++;
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(nft->batch), type, family,
				     flags | NLM_F_ACK, nft_next_seq(nft));
}

void nft_batch_next(struct pw_nft *nft)
{
	if (!mnl_nlmsg_batch_next(nft->batch))
		nft->overflow = true;
}

/* Copy NLMSGERR_ATTR_MSG of an error reply into nft->ext_ack. */
static void parse_ext_ack(struct pw_nft *nft, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr; /* the name mnl_attr_for_each_payload uses */
	size_t off = sizeof(*e), payload_len;
	void *payload;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len < mnl_nlmsg_size(off))
		return;
	/* Without NETLINK_CAP_ACK the whole request follows the header. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(struct nlmsghdr))
			return;
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	off = MNL_ALIGN(off);
	if (off > nlh->nlmsg_len - MNL_NLMSG_HDRLEN)
		return;
	payload = (char *)mnl_nlmsg_get_payload(nlh) + off;
	payload_len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - off;
	mnl_attr_for_each_payload (payload, payload_len) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0) {
			snprintf(nft->ext_ack, sizeof(nft->ext_ack), "%s", mnl_attr_get_str(attr));
			return;
		}
	}
}

/*
 * Scan one datagram of batch replies. Returns the number of ACKs seen, or
 * the first error (negative errno).
 */
static int scan_acks(struct pw_nft *nft, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int acks = 0;

	for (; mnl_nlmsg_ok(nlh, (int)len); nlh = mnl_nlmsg_next(nlh, (int *)&len)) {
		const struct nlmsgerr *e;

		if (nlh->nlmsg_type != NLMSG_ERROR)
			continue;
		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
			return -EBADMSG;
		e = mnl_nlmsg_get_payload(nlh);
		if (e->error != 0) {
			parse_ext_ack(nft, nlh);
			return e->error;
		}
		acks++;
	}
	return acks;
}

/*
 * The kernel processes a batch synchronously inside sendmsg(), so every reply
 * is queued by the time we read: wait for one ACK per message, stop at the
 * first error and drain what is left without blocking.
 */
static int collect_acks(struct pw_nft *nft, unsigned expected)
{
	_cleanup_free_ char *rbuf = malloc(PW_NFT_RECV_MAX);
	unsigned got = 0;
	int first_err = 0;

	if (!rbuf)
		return -ENOMEM;
	while (got < expected || first_err) {
		ssize_t n = recv(mnl_socket_get_fd(nft->nl), rbuf, PW_NFT_RECV_MAX,
				 first_err ? MSG_DONTWAIT : 0);
		int r;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (first_err && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			return first_err ? first_err : -errno;
		}
		r = scan_acks(nft, rbuf, (size_t)n);
		if (r < 0 && !first_err)
			first_err = r;
		else if (r > 0)
			got += (unsigned)r;
	}
	return first_err;
}

int nft_batch_commit(struct pw_nft *nft)
{
	size_t len;

	nftnl_batch_end(mnl_nlmsg_batch_current(nft->batch), nft_next_seq(nft));
	nft_batch_next(nft);
	if (nft->overflow)
		return -EMSGSIZE;
	len = mnl_nlmsg_batch_size(nft->batch);
	nft->ext_ack[0] = '\0';
	if (!nft->nl) {
		char *copy = malloc(len);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, mnl_nlmsg_batch_head(nft->batch), len);
		free(nft->recorded);
		nft->recorded = copy;
		nft->recorded_len = len;
		return 0;
	}
	if (mnl_socket_sendto(nft->nl, mnl_nlmsg_batch_head(nft->batch), len) < 0)
		return negative_errno();
	return collect_acks(nft, nft->n_msgs);
}

/* Receive replies to one request until DONE (dump) or one message (get). */
static int talk(struct pw_nft *nft, struct nlmsghdr *nlh, mnl_cb_t cb, void *data, bool dump)
{
	_cleanup_free_ char *rbuf = NULL;
	uint32_t seq;
	int r;

	if (!nft->nl)
		return -ENOTCONN;
	rbuf = malloc(PW_NFT_RECV_MAX);
	if (!rbuf)
		return -ENOMEM;
	seq = nft_next_seq(nft);
	nlh->nlmsg_seq = seq;
	nft->ext_ack[0] = '\0';
	if (mnl_socket_sendto(nft->nl, nlh, nlh->nlmsg_len) < 0)
		return negative_errno();
	do {
		ssize_t n = mnl_socket_recvfrom(nft->nl, rbuf, PW_NFT_RECV_MAX);

		if (n < 0)
			return negative_errno();
		/* Only for the ext-ACK text; mnl_cb_run reports the errno below. */
		(void)scan_acks(nft, rbuf, (size_t)n);
		r = mnl_cb_run(rbuf, (size_t)n, seq, nft->portid, cb, data);
		if (r < 0)
			return negative_errno();
	} while (dump && r > MNL_CB_STOP);
	return 0;
}

int nft_dump(struct pw_nft *nft, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return talk(nft, nlh, cb, data, true);
}

int nft_get(struct pw_nft *nft, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return talk(nft, nlh, cb, data, false);
}
