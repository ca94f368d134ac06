/* SPDX-License-Identifier: Apache-2.0 */
/* Interface addresses (RTM_NEWADDR / RTM_DELADDR / RTM_GETADDR). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/ipaddr.h"
#include "nlw/types.h"

struct nlw_sock;

#define NLW_ADDR_NODAD (1U << 0)	 /* IFA_F_NODAD (IPv6) */
#define NLW_ADDR_NOPREFIXROUTE (1U << 1) /* IFA_F_NOPREFIXROUTE */

/* Options for nlw_addr_add; NULL means defaults (scope universe, no flags). */
struct nlw_addr_opts {
	unsigned flags;	     /* NLW_ADDR_* */
	unsigned char scope; /* enum nlw_scope (RT_SCOPE_*); 0 = universe */
};

/* An address as read back. */
struct nlw_addr {
	int ifindex;
	struct ip_prefix prefix; /* IFA_LOCAL (v4) / IFA_ADDRESS (v6) with ifa_prefixlen */
	unsigned char scope;
	uint32_t flags; /* IFA_F_* (IFA_FLAGS if present, else ifa_flags) */
};

/*
 * Add addr (borrowed) to ifindex with NLM_F_CREATE|NLM_F_EXCL. IPv4 gets
 * IFA_LOCAL = IFA_ADDRESS and, for prefixes shorter than /31, the broadcast
 * address. Errors: -EEXIST (already there), -ENODEV, -EINVAL (bad family or
 * prefix length).
 */
int nlw_addr_add(struct nlw_sock *sock, int ifindex, const struct ip_prefix *addr,
		 const struct nlw_addr_opts *opts);

/* Delete an address. Errors: -EADDRNOTAVAIL (not there), -ENODEV. */
int nlw_addr_del(struct nlw_sock *sock, int ifindex, const struct ip_prefix *addr);

/*
 * List addresses of ifindex (0: all) and family (AF_UNSPEC: both): a dump
 * filtered by the kernel with NETLINK_GET_STRICT_CHK (and again here).
 * *ret is owned by the caller (free()); *ret is NULL when *ret_n is 0.
 * Errors: -EAGAIN (dump interrupted 5 times in a row), -ENOMEM.
 */
int nlw_addr_list(struct nlw_sock *sock, int ifindex, int family, struct nlw_addr **ret,
		  unsigned *ret_n);

/*
 * IPv6 duplicate address detection state of ifindex: 1 if some address is
 * still tentative, 0 if all settled, -EADDRNOTAVAIL if some address failed
 * DAD (IFA_F_DADFAILED), other negative errnos from nlw_addr_list.
 */
int nlw_addr_dad_state(struct nlw_sock *sock, int ifindex);

/* The same decision on an already fetched list (pure). */
int nlw_addr_dad_state_of(const struct nlw_addr *a, unsigned n);
