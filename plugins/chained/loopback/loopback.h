/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loopback: sets "lo" up in the pod's network namespace (drop-in for the
 * reference plugin). It runs for every pod, so it is linked statically and
 * without libmnl: netlink/'s socket and receive loop (nlw_core), podnet's
 * netns rules and error helper (podnet_rules), and its own three requests.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"

struct nlmsghdr;
struct nlw_sock;

/* lo is always ifindex 1 in every network namespace (the kernel's LOOPBACK_IFINDEX). */
#define LO_IFINDEX 1

extern const struct cni_plugin_ops loopback_ops;

/* The addresses of lo as the kernel reports them, in dump order. */
#define LO_MAX_ADDRS 8
struct lo_addrs {
	struct ip_prefix v4[LO_MAX_ADDRS], v6[LO_MAX_ADDRS];
	size_t n_v4, n_v6;
	bool truncated; /* more than LO_MAX_ADDRS of a family (the first ones are kept) */
};

/*
 * The requests (lo-nl.c), each one nlw_talk on a socket in the pod netns;
 * errors are nlw's (the kernel's -errno, -EBADMSG, ...):
 * lo_set_up: RTM_NEWLINK setting or clearing IFF_UP of ifindex 1. 0 or -errno.
 * lo_is_up: RTM_GETLINK of ifindex 1: 1 up, 0 down (or no answer), -errno.
 * lo_addrs_get: RTM_GETADDR dump of every family, lo's addresses into addrs.
 */
int lo_set_up(struct nlw_sock *s, bool up);
int lo_is_up(struct nlw_sock *s);
int lo_addrs_get(struct nlw_sock *s, struct lo_addrs *addrs);

/*
 * The dump's callback (pure, for the fuzzer): an RTM_NEWADDR of ifindex 1
 * goes into addrs (struct lo_addrs *), other messages are skipped; a
 * truncated message or address is -EBADMSG.
 */
int lo_addr_cb(const struct nlmsghdr *nlh, void *addrs);

/* Is this a loopback address (127.0.0.0/8, ::1), as the reference checks? */
bool lo_addr_is_loopback(const struct ip_prefix *p);
