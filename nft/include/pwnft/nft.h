/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwnft: podwire's nf_tables state, spoken through libnftnl + libmnl (never
 * by exec'ing nft or iptables).
 *
 * Layout in the kernel (one table per family, named "podwire"):
 *
 *   table inet podwire
 *     set   pods-<net>-<subnet>   pod addresses of one subnet of network <net>;
 *                                 one element per attachment address, with the
 *                                 comment "<containerID>/<ifname>"
 *     chain masq-<net>-<subnet>   nat postrouting base chain, one rule:
 *           saddr @pods-... daddr != <subnet> daddr != <multicast> masquerade
 *   table bridge podwire
 *     set   spoof-ports-<net>     host veth names whose source MAC is checked
 *     set   spoof-allowed-<net>   host veth name . allowed source MAC
 *     chain spoof-<net>           filter prerouting (-300) base chain, one rule:
 *           iifname @ports  iifname . ether saddr != @allowed  drop
 *
 * Sets carry the comment "podwire:<net>" so DEL without addresses and GC find
 * a network's sets without parsing names. Per attachment only set elements are
 * added or removed (O(1) per pod); the chain's single rule is rewritten
 * (flush + add) in the same transaction on every add, which keeps it
 * idempotent without reading it back. Every change is one nfnetlink batch:
 * all or nothing.
 *
 * Conventions: functions return >= 0 on success or a negative errno. Strings
 * and arrays in params are borrowed for the call only.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipaddr.h"

struct pw_nft;

#define PW_NFT_TABLE "podwire"
/* Longest network name accepted (object names are at most 255 bytes). */
#define PW_NFT_NETWORK_MAX 128
/* Longest "<containerID>/<ifname>" tag (nf_tables user data is 256 bytes). */
#define PW_NFT_TAG_MAX 240

/*
 * Open a NETLINK_NETFILTER socket in the calling thread's netns (nlw's:
 * SOCK_CLOEXEC, extended ACKs). *ret is owned by the caller (pw_nft_free).
 * Errors: -ENOMEM, socket()/bind() errnos (-EPROTONOSUPPORT without nf_tables).
 */
int pw_nft_open(struct pw_nft **ret);

/*
 * A handle that records committed batches instead of sending them (unit
 * tests of message building). Queries against the kernel fail with -ENOTCONN.
 */
int pw_nft_new_recorder(struct pw_nft **ret);
/* The bytes of the last batch committed on a recorder, or NULL. Borrowed. */
const void *pw_nft_recorded(const struct pw_nft *nft, size_t *ret_len);

/* Close and free; accepts NULL; returns NULL. */
struct pw_nft *pw_nft_free(struct pw_nft *nft);
static inline void pw_nft_freep(struct pw_nft **p)
{
	if (*p)
		pw_nft_free(*p);
}

/*
 * The kernel's extended-ACK text of the last failed request, or NULL (also
 * for a NULL handle). Borrowed; valid until the next request.
 */
const char *pw_nft_ext_ack(const struct pw_nft *nft);

/* One attachment's masquerade entries. */
struct pw_nft_masq {
	const char *network;
	const char *container_id;
	const char *ifname;
	/* Pod addresses with their subnet's prefix length (10.1.2.5/24). */
	const struct ip_prefix *addrs;
	size_t n_addrs;
};

/*
 * Masquerade traffic from each address to destinations outside its subnet
 * (and not multicast): creates table, per-subnet set and chain as needed and
 * adds one element per address, all in one transaction. Re-adding the same
 * attachment is not an error.
 * Errors: -EINVAL (no addresses, bad family, names too long),
 * -ENAMETOOLONG (tag longer than PW_NFT_TAG_MAX), kernel errnos (e.g.
 * -EOPNOTSUPP without nat support), -ENOMEM.
 */
int pw_nft_masq_add(struct pw_nft *nft, const struct pw_nft_masq *m);

/*
 * Remove the attachment's elements. With addresses: destroys exactly those
 * elements (missing ones, sets or tables are fine). Without addresses (DEL
 * with no prevResult): scans the network's sets for elements tagged with the
 * attachment. Idempotent. Errors: -EINVAL, kernel errnos, -ENOMEM.
 */
int pw_nft_masq_del(struct pw_nft *nft, const struct pw_nft_masq *m);

/*
 * Are all the attachment's elements present with its tag? Single GET per
 * element, no dumps. Returns 1 yes, 0 if one is missing or carries another
 * tag, negative errno on failure.
 */
int pw_nft_masq_check(struct pw_nft *nft, const struct pw_nft_masq *m);

/* One attachment's MAC spoof check. */
struct pw_nft_spoof {
	const char *network;
	const char *container_id;
	const char *ifname;
	const char *host_ifname;  /* bridge port (host veth) */
	const unsigned char *mac; /* 6 bytes: the only source MAC allowed */
};

/*
 * Drop frames entering the bridge from host_ifname whose source MAC is not
 * mac. One transaction. Errors as pw_nft_masq_add.
 */
int pw_nft_spoof_add(struct pw_nft *nft, const struct pw_nft_spoof *s);

/*
 * Remove the attachment's spoof-check elements: exactly these keys when
 * host_ifname and mac are set, else by scanning for the tag. Idempotent.
 */
int pw_nft_spoof_del(struct pw_nft *nft, const struct pw_nft_spoof *s);

/* 1 if both elements are present with the attachment's tag, 0 if not, <0 error. */
int pw_nft_spoof_check(struct pw_nft *nft, const struct pw_nft_spoof *s);

/* Decide whether an attachment is still valid (GC). */
typedef bool (*pw_nft_keep_fn)(const char *container_id, const char *ifname, void *userdata);

/*
 * Remove every element of `network`'s sets (both tables) whose attachment
 * keep() rejects; elements without a parseable tag are kept. One transaction
 * per table. Returns the number of elements removed or a negative errno.
 */
int pw_nft_gc(struct pw_nft *nft, const char *network, pw_nft_keep_fn keep, void *userdata);

/*
 * Once none of a network's sets holds an element (after its last DEL, or a
 * GC), remove its sets and the chains that use them, per table (masquerade
 * in inet, spoof check in bridge). The tables stay (shared). The caller
 * holds the network's nftables lock, which every ADD of the network takes
 * around its elements, so no ADD can add to a set being removed. Returns
 * the number of sets removed, or a negative errno.
 */
int pw_nft_drop_network_if_empty(struct pw_nft *nft, const char *network);

/* One element of a podwire set, as pw_nft_list_elems reports it (all borrowed). */
struct pw_nft_elem {
	uint32_t family;     /* NFPROTO_INET or NFPROTO_BRIDGE */
	const char *set;     /* "pods-<net>-<subnet>", "spoof-ports-<net>", ... */
	const char *network; /* from the set's "podwire:<net>" comment */
	const void *key;     /* the element's key bytes (address, ifname, ifname . MAC) */
	uint32_t key_len;
	const char *tag; /* "<containerID>/<ifname>", or "" when untagged */
};

typedef int (*pw_nft_elem_fn)(const struct pw_nft_elem *el, void *userdata);

/*
 * Inspection: every element of every podwire set (both tables, any network),
 * fn called once per element; a negative return from fn stops the walk and is
 * returned. One set dump per table plus one element dump per set.
 * Errors: kernel errnos (no table is not one), -ENOMEM, -ENOTCONN (recorder).
 */
int pw_nft_list_elems(struct pw_nft *nft, pw_nft_elem_fn fn, void *userdata);

/*
 * Object names used for a network (exposed for tests and diagnostics).
 * buf must hold 256 bytes. Errors: -EINVAL (network invalid or too long).
 */
int pw_nft_masq_set_name(const char *network, const struct ip_prefix *subnet, char *buf,
			 size_t len);
int pw_nft_masq_chain_name(const char *network, const struct ip_prefix *subnet, char *buf,
			   size_t len);
