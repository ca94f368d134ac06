/* SPDX-License-Identifier: Apache-2.0 */
/* The nf_tables handle: batches built with libnftnl, sent and answered on nlw's socket. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include <libmnl/libmnl.h>
#include <libnftnl/common.h>

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
	*ret = nft;
	return 0;
}

int pw_nft_open(struct pw_nft **ret)
{
	struct pw_nft *nft = NULL;
	int r = nft_alloc(&nft);

	if (r < 0)
		return r;
	r = nlw_sock_open_protocol(NETLINK_NETFILTER, &nft->sock);
	if (r < 0) {
		pw_nft_free(nft);
		return r;
	}
	*ret = nft;
	return 0;
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
	nlw_sock_free(nft->sock);
	free(nft->recorded);
	free(nft->buf);
	free(nft);
	return NULL;
}

const char *pw_nft_ext_ack(const struct pw_nft *nft)
{
	return nft ? nlw_sock_ext_ack(nft->sock) : NULL;
}

uint32_t nft_next_seq(struct pw_nft *nft)
{
	return nft->sock ? nlw_sock_next_seq(nft->sock) : ++nft->seq;
}

int nft_batch_begin(struct pw_nft *nft)
{
	if (nft->batch)
		mnl_nlmsg_batch_stop(nft->batch);
	nft->batch = mnl_nlmsg_batch_start(nft->buf, PW_NFT_BATCH_LIMIT);
	if (!nft->batch)
		return -ENOMEM;
	nft->overflow = false;
	nft->first_seq = nft_next_seq(nft);
	nft->last_seq = nft->first_seq;
	nftnl_batch_begin(mnl_nlmsg_batch_current(nft->batch), nft->first_seq);
	nft_batch_next(nft);
	return 0;
}

struct nlmsghdr *nft_batch_msg(struct pw_nft *nft, uint16_t type, uint16_t family, uint16_t flags)
{
	nft->last_seq = nft_next_seq(nft);
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(nft->batch), type, family,
				     flags | NLM_F_ACK, nft->last_seq);
}

void nft_batch_next(struct pw_nft *nft)
{
	if (!mnl_nlmsg_batch_next(nft->batch))
		nft->overflow = true;
}

int nft_batch_commit(struct pw_nft *nft)
{
	size_t len;
	int r;

	nftnl_batch_end(mnl_nlmsg_batch_current(nft->batch), nft_next_seq(nft));
	nft_batch_next(nft);
	if (nft->overflow)
		return -EMSGSIZE;
	len = mnl_nlmsg_batch_size(nft->batch);
	if (!nft->sock) {
		char *copy = malloc(len);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, mnl_nlmsg_batch_head(nft->batch), len);
		free(nft->recorded);
		nft->recorded = copy;
		nft->recorded_len = len;
		return 0;
	}
	/*
	 * The kernel runs the batch inside sendmsg(): every message's ACK (or
	 * error) is queued by then. A batch without messages has no answer.
	 */
	r = nlw_sock_send(nft->sock, mnl_nlmsg_batch_head(nft->batch), len);
	if (r < 0 || nft->last_seq == nft->first_seq)
		return r;
	return nlw_sock_recv_until(nft->sock, nft->first_seq, nft->last_seq, NULL, NULL);
}

int nft_talk(struct pw_nft *nft, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data)
{
	if (!nft->sock)
		return -ENOTCONN;
	nlh->nlmsg_flags |= NLM_F_ACK; /* a GET's answer, then the ACK ends it */
	return nlw_talk(nft->sock, nlh, cb, data);
}
