/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations shared by the nft module's source files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#include "base/ipaddr.h"
#include "nlw/sock.h"
#include "pwnft/nft.h"

struct nlmsghdr;
struct nftnl_set;
struct nftnl_udata_buf;

/* Destroy variants (kernel >= 6.3) ignore a missing object; not in 6.1 uapi headers. */
#ifndef NFT_MSG_DESTROYSETELEM
#define PW_NFT_MSG_DESTROYSETELEM 30
#else
#define PW_NFT_MSG_DESTROYSETELEM NFT_MSG_DESTROYSETELEM
#endif

/* nftables datatype ids, for set key types `nft list` can display. */
#define PW_NFT_TYPE_IPADDR 7
#define PW_NFT_TYPE_IP6ADDR 8
#define PW_NFT_TYPE_ETHERADDR 9
#define PW_NFT_TYPE_IFNAME 41
#define PW_NFT_TYPE_BITS 6

#define PW_NFT_BATCH_LIMIT (32u * 1024u)
#define PW_NFT_NAME_MAX 256
#define PW_NFT_REQ_MAX 4096

struct pw_nft {
	struct nlw_sock *sock; /* NETLINK_NETFILTER; NULL on a recorder */
	uint32_t seq;	       /* the recorder's sequence numbers */
	/* batch under construction; buf holds twice the limit (libmnl's rule) */
	char *buf;
	struct mnl_nlmsg_batch *batch;
	uint32_t first_seq, last_seq; /* its BATCH_BEGIN and its last message */
	bool overflow;
	/* recorder: last committed batch */
	char *recorded;
	size_t recorded_len;
};

/* Batch building (nft.c). */
int nft_batch_begin(struct pw_nft *nft);
/* Header of the next message in the batch (NLM_F_ACK added). */
struct nlmsghdr *nft_batch_msg(struct pw_nft *nft, uint16_t type, uint16_t family, uint16_t flags);
/* Close the current message; remembers overflow for commit. */
void nft_batch_next(struct pw_nft *nft);
/*
 * End, send (or record) and read the answers (nlw_sock_recv_until). Returns 0
 * or the first error, its extended ACK kept for pw_nft_ext_ack.
 */
int nft_batch_commit(struct pw_nft *nft);
/* Add "flush chain <name>" (DELRULE with only the chain set) to the batch. */
int nft_batch_flush_chain(struct pw_nft *nft, uint16_t family, const char *name);

/* Rule expressions (rules.c), appended to r; -ENOMEM when one cannot be made. */
struct nftnl_rule;
struct nftnl_expr;
int nft_expr_add(struct nftnl_rule *r, struct nftnl_expr *e);
int nft_expr_meta(struct nftnl_rule *r, uint32_t key, uint32_t dreg);
int nft_expr_payload(struct nftnl_rule *r, uint32_t base, uint32_t off, uint32_t len,
		     uint32_t dreg);
/* cmp and bitwise work on register 1. */
int nft_expr_cmp(struct nftnl_rule *r, uint32_t op, const void *data, uint32_t len);
int nft_expr_bitwise(struct nftnl_rule *r, const void *mask, uint32_t len);

/*
 * One GET or dump (nlh built in a caller buffer, NLM_F_DUMP for a dump) on
 * nlw's socket: cb on every reply message (nlw_msg_cb: a negative errno
 * fails the call). Errors: -ENOTCONN on a recorder, the kernel's errno
 * (-ENOENT: not there), cb's, nlw_talk's.
 */
int nft_talk(struct pw_nft *nft, struct nlmsghdr *nlh, nlw_msg_cb cb, void *data);
/* The next sequence number: the socket's, or the recorder's. */
uint32_t nft_next_seq(struct pw_nft *nft);

/* Names (names.c). */
int nft_check_network(const char *network);
int nft_format_tag(const char *container_id, const char *ifname, char *buf, size_t len);
/* Split "<cid>/<ifname>" (copy). Returns 0 or -EINVAL. */
int nft_parse_tag(const char *tag, char *cid, size_t cid_len, char *ifname, size_t if_len);
int nft_set_comment(const char *network, char *buf, size_t len);
int nft_spoof_names(const char *network, char *chain, char *ports, char *allowed, size_t len);

/* Element helpers (elem.c). */
/* A set object naming table PW_NFT_TABLE, set `name` and family, for elements. */
struct nftnl_set *nft_set_ref(uint16_t family, const char *name);
/* Append an element with key (borrowed, copied) and optional tag to set s. */
int nft_elem_add(struct nftnl_set *s, const void *key, size_t key_len, const char *tag);
/* The same with a map's data (data_len 0: none). */
int nft_elem_add_data(struct nftnl_set *s, const void *key, size_t key_len, const void *data,
		      size_t data_len, const char *tag);
/* Comment of an element's user data into buf ("" if none). */
void nft_elem_tag(const void *udata, uint32_t len, char *buf, size_t buf_len);
/* Comment of a set's user data into buf ("" if none). */
void nft_set_tag(const void *udata, uint32_t len, char *buf, size_t buf_len);
/* Add one NEWSETELEM/DESTROYSETELEM message for set s (its elements) to the batch. */
int nft_batch_elems(struct pw_nft *nft, uint16_t type, uint16_t flags, struct nftnl_set *s);
/* nft_talk's callback filling the nftnl_set `set` with the elements of a reply. */
int nft_elems_cb(const struct nlmsghdr *nlh, void *set);
/* Is the element key in set (family/table/name) present with tag? 1/0/-errno. */
int nft_elem_present(struct pw_nft *nft, uint16_t family, const char *set, const void *key,
		     size_t key_len, const char *tag);

/* Scan (scan.c): delete elements of network's sets in family whose tag matches. */
typedef bool (*nft_tag_pred)(const char *tag, void *userdata);
int nft_scan_delete(struct pw_nft *nft, uint16_t family, const char *network, nft_tag_pred pred,
		    void *userdata);
/* Dump set s's elements into s (no table or set: none). 0 or -errno. */
int nft_list_elems(struct pw_nft *nft, struct nftnl_set *s);
/*
 * Move the elements of `from` whose tag matches into a new set object `*ret`
 * (same table/name/family). Returns the count moved or -ENOMEM.
 */
int nft_pick_elems(struct nftnl_set *from, nft_tag_pred pred, void *userdata,
		   struct nftnl_set **ret);

/* Objects built into the current batch (rules.c). */
int nft_add_table(struct pw_nft *nft, uint16_t family);
/* A rule appended to chain, its expressions from build(r, arg), into the batch. */
int nft_add_rule(struct pw_nft *nft, uint16_t family, const char *chain,
		 int (*build)(struct nftnl_rule *, const void *), const void *arg);
/*
 * NEWSET of set s (name, family, key and flags set) with user data u into the
 * batch, under the batch's next set ID; frees s and u. Returns 0.
 */
int nft_batch_new_set(struct pw_nft *nft, struct nftnl_set *s, struct nftnl_udata_buf *u);
/* Named set (created if missing) tagged "podwire:<network>". */
int nft_add_set(struct pw_nft *nft, uint16_t family, const char *name, const char *network,
		uint32_t key_type, uint32_t key_len);
/*
 * Base chain (created if missing, policy accept), or a regular chain when
 * type is NULL, followed by a flush of its rules.
 */
int nft_add_base_chain(struct pw_nft *nft, uint16_t family, const char *name, const char *type,
		       uint32_t hook, int32_t prio);
/* inet: nfproto, saddr @set, daddr != subnet, daddr != multicast, masquerade. */
int nft_add_masq_rule(struct pw_nft *nft, const char *chain, const char *set,
		      const struct ip_prefix *subnet);
/* bridge: iifname @ports, iifname . ether saddr != @allowed, drop. */
int nft_add_spoof_rule(struct pw_nft *nft, const char *chain, const char *ports,
		       const char *allowed);
