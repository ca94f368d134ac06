/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Traffic control over rtnetlink (what the bandwidth plugin needs): tbf and
 * htb qdiscs, the ingress qdisc, u32 filters (match-all with a mirred
 * egress redirect, or an IPv4/IPv6 prefix to a class), IFB devices, and
 * reading a link's qdiscs back. No exec of tc.
 *
 * Conventions as the rest of nlw_: >= 0 or a negative errno, kernel
 * extended-ACK text in nlw_sock_ext_ack(). Handles are TC_H_MAKE(major, minor).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/ipaddr.h"

struct nlw_sock;

#define NLW_TC_H_ROOT 0xFFFFFFFFu
#define NLW_TC_H_INGRESS 0xFFFFFFF1u
#define NLW_TC_HANDLE(maj, min) (((uint32_t)(maj) << 16) | (uint32_t)(min))
#define NLW_TC_KIND_MAX 16

/* Token bucket in the kernel's units: bytes/s, ticks (time to send burst), bytes. */
struct nlw_tbf {
	uint64_t rate;
	uint32_t buffer;
	uint32_t limit;
};

/* Add a tbf qdisc (NLM_F_CREATE|NLM_F_EXCL). Errors: -EEXIST, -ENODEV, -EINVAL. */
int nlw_qdisc_add_tbf(struct nlw_sock *sock, int ifindex, uint32_t handle, uint32_t parent,
		      const struct nlw_tbf *t);
/* Add the ingress qdisc (handle ffff:). Errors: -EEXIST, -ENODEV. */
int nlw_qdisc_add_ingress(struct nlw_sock *sock, int ifindex);
/* Add an htb qdisc with a default class minor. */
int nlw_qdisc_add_htb(struct nlw_sock *sock, int ifindex, uint32_t handle, uint32_t parent,
		      uint32_t default_minor);
/* Add an htb class: rate and ceil in bytes/s, buffer and cbuffer in ticks. */
struct nlw_htb_class {
	uint32_t classid, parent;
	uint64_t rate;
	uint32_t buffer;
};
int nlw_class_add_htb(struct nlw_sock *sock, int ifindex, const struct nlw_htb_class *c);
/* Delete a qdisc by parent (NLW_TC_H_ROOT / NLW_TC_H_INGRESS). Errors: -ENOENT/-EINVAL (none). */
int nlw_qdisc_del(struct nlw_sock *sock, int ifindex, uint32_t parent);

/*
 * u32 filter matching every packet (one zero key), redirecting it with
 * mirred to the egress of to_ifindex, under qdisc `parent`, priority prio,
 * protocol ETH_P_ALL, classid 1:1 (as the reference plugin).
 */
int nlw_filter_add_redirect(struct nlw_sock *sock, int ifindex, uint32_t parent, uint16_t prio,
			    int to_ifindex);
/*
 * u32 filter sending packets whose source (match_src) or destination address
 * lies in prefix to classid, under qdisc parent, priority prio.
 */
struct nlw_prefix_filter {
	uint32_t parent;
	uint16_t prio;
	const struct ip_prefix *prefix;
	bool match_src;
	uint32_t classid;
};
int nlw_filter_add_prefix(struct nlw_sock *sock, int ifindex, const struct nlw_prefix_filter *f);

/* Create an IFB device (NLM_F_CREATE|NLM_F_EXCL), up, with mtu (0: default). */
int nlw_link_add_ifb(struct nlw_sock *sock, const char *name, unsigned mtu);

/* A qdisc as read back. */
struct nlw_qdisc {
	char kind[NLW_TC_KIND_MAX];
	uint32_t handle, parent;
	bool has_tbf;
	struct nlw_tbf tbf;
};

/* Qdiscs of one link (dump, filtered to ifindex). *ret owned by the caller (free()). */
int nlw_qdisc_list(struct nlw_sock *sock, int ifindex, struct nlw_qdisc **ret, unsigned *ret_n);
