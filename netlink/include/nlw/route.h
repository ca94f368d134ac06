/* SPDX-License-Identifier: Apache-2.0 */
/* Routes (RTM_NEWROUTE / RTM_DELROUTE / RTM_GETROUTE). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/ipaddr.h"
#include "nlw/types.h"

struct nlw_sock;

enum nlw_route_type {
	NLW_ROUTE_UNICAST = 1,	 /* RTN_UNICAST */
	NLW_ROUTE_BLACKHOLE = 6, /* RTN_BLACKHOLE */
	NLW_ROUTE_UNREACHABLE = 7,
	NLW_ROUTE_PROHIBIT = 8,
};

#define NLW_ROUTE_ONLINK (1U << 0) /* RTNH_F_ONLINK: gateway on link without a covering route */

/*
 * A route. Zero means "default" for every field: table 0 = main (254),
 * protocol 0 = boot (as ip-route), type 0 = unicast, scope 0 = universe,
 * priority/mtu/advmss 0 = not set. dst.family selects the family.
 */
struct nlw_route {
	struct ip_prefix dst;
	bool has_gw;
	union ip_addr gw; /* same family as dst */
	bool has_prefsrc;
	union ip_addr prefsrc;
	int oif; /* 0: none */
	uint32_t table;
	unsigned char scope;	/* enum nlw_scope (RT_SCOPE_*) */
	unsigned char protocol; /* RTPROT_* */
	unsigned char type;	/* enum nlw_route_type */
	uint32_t priority;	/* RTA_PRIORITY (metric) */
	uint32_t mtu;		/* RTA_METRICS/RTAX_MTU */
	uint32_t advmss;	/* RTA_METRICS/RTAX_ADVMSS */
	unsigned flags;		/* NLW_ROUTE_* */
};

/*
 * Add (NLM_F_CREATE|NLM_F_EXCL). Errors: -EEXIST (same key exists),
 * -ENETUNREACH (gateway not reachable), -ENODEV (oif), -EINVAL.
 */
int nlw_route_add(struct nlw_sock *sock, const struct nlw_route *r);
/* Create or replace (NLM_F_CREATE|NLM_F_REPLACE). Errors as nlw_route_add minus -EEXIST. */
int nlw_route_replace(struct nlw_sock *sock, const struct nlw_route *r);
/* Create without EXCL/REPLACE (NLM_F_CREATE|NLM_F_APPEND; IPv6 ECMP-like add). */
int nlw_route_append(struct nlw_sock *sock, const struct nlw_route *r);
/*
 * Delete the route matching the set fields (dst, table, gw, oif, priority,
 * protocol, type). Errors: -ESRCH (no such route), -EINVAL.
 */
int nlw_route_del(struct nlw_sock *sock, const struct nlw_route *r);

/*
 * Delete the route to dst on oif whose protocol is one of protos[0..n)
 * (tried in that order; any metric, table main): one RTM_DELROUTE per
 * protocol until the kernel finds one, no dump. For a link's own routes
 * whose destinations are known (a pod's host routes), this replaces a
 * table walk, which costs milliseconds at tens of thousands of routes.
 * Returns 1 when a route was deleted, 0 when none of those protocols has
 * one there (-ESRCH each), or a negative errno (-EINVAL: bad dst, oif or n).
 */
int nlw_route_del_proto(struct nlw_sock *sock, const struct ip_prefix *dst, int oif,
			const unsigned char *protos, size_t n);

/* Filter for nlw_route_list: zero fields match everything. */
struct nlw_route_filter {
	int family;		/* AF_INET, AF_INET6 or AF_UNSPEC */
	uint32_t table;		/* 0: all tables */
	unsigned char protocol; /* 0: any */
	int oif;		/* 0: any */
	unsigned char type;	/* enum nlw_route_type; 0: any */
};

/*
 * Dump routes matching the filter (kernel-filtered with strict checking,
 * and re-checked here; cached/cloned routes are skipped). *ret is owned by
 * the caller (free()). Errors: -EAGAIN (dump interrupted 5 times), -ENOMEM.
 */
int nlw_route_list(struct nlw_sock *sock, const struct nlw_route_filter *f, struct nlw_route **ret,
		   unsigned *ret_n);
