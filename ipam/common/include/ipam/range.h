/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Address arithmetic, ranges and range sets shared by podwire's IPAM
 * plugins (host-local, static, cluster-ipam).
 *
 * A range is {subnet, rangeStart, rangeEnd, gateway} after canonicalisation
 * (defaults filled in, every address checked against the subnet). A range
 * set is a pool of ranges of one family from which one address is
 * allocated; a pod gets one address per range set.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/ipaddr.h"
#include "cni/error.h"

/* Caps on user-controlled counts. */
#define IPAM_MAX_RANGE_SETS 16
#define IPAM_MAX_RANGES 64

/* "start-end" of one range; room for two IPv6 addresses and the dash. */
#define IPAM_RANGE_STRLEN (2 * INET6_ADDRSTRLEN + 2)

struct ipam_addr {
	int family; /* AF_INET or AF_INET6 */
	union ip_addr addr;
};

struct ipam_range {
	struct ip_prefix subnet; /* network address: host bits zero */
	union ip_addr start;	 /* inclusive */
	union ip_addr end;	 /* inclusive */
	union ip_addr gateway;	 /* never allocated */
};

struct ipam_range_set {
	struct ipam_range *ranges; /* owned */
	size_t n;
};

/* Range as given in config; any field may be NULL (absent). Borrowed strings. */
struct ipam_range_spec {
	const char *subnet;
	const char *range_start;
	const char *range_end;
	const char *gateway;
};

/* Compare two addresses of one family: <0, 0, >0 (network byte order). */
int ipam_addr_cmp(int family, const union ip_addr *a, const union ip_addr *b);
/* a + 1 in place; returns false (a unchanged) when it would wrap. */
bool ipam_addr_inc(int family, union ip_addr *a);
/* a - 1 in place; returns false (a unchanged) when it would wrap. */
bool ipam_addr_dec(int family, union ip_addr *a);
/* Last address of the prefix (the IPv4 broadcast address). */
void ipam_prefix_last(const struct ip_prefix *p, union ip_addr *ret);
/* Format an address into buf (INET6_ADDRSTRLEN bytes). Returns buf. */
const char *ipam_addr_fmt(const struct ipam_addr *a, char *buf);

/*
 * Canonicalise one range: parse the strings of spec, require a subnet
 * without host bits that leaves room for at least two hosts, default
 * gateway to network+1, rangeStart to network+1 and rangeEnd to the last
 * address (minus the broadcast for IPv4), and check every address lies in
 * the subnet, is not the network or IPv4 broadcast address, and that
 * rangeStart <= rangeEnd. `path` ("ipam.ranges[0][1]") prefixes messages,
 * which name the key and value. Returns 0, or -EINVAL with err set (code 7).
 */
int ipam_range_init(const struct ipam_range_spec *spec, const char *path, struct ipam_range *ret,
		    struct cni_error *err);

/* True if addr lies in [start, end] of r (same family). */
bool ipam_range_contains(const struct ipam_range *r, int family, const union ip_addr *addr);
/* True if the two ranges share an address (different families never do). */
bool ipam_range_overlaps(const struct ipam_range *a, const struct ipam_range *b);
/* "start-end" into buf of IPAM_RANGE_STRLEN bytes. Returns buf. */
const char *ipam_range_fmt(const struct ipam_range *r, char *buf);

static inline int ipam_range_family(const struct ipam_range *r)
{
	return r->subnet.family;
}

/*
 * Validate a range set: non-empty, one family, no two ranges overlapping.
 * Messages are prefixed with `path`. Returns 0 or -EINVAL (code 7).
 */
int ipam_range_set_validate(const struct ipam_range_set *s, const char *path,
			    struct cni_error *err);
/* Index of the range of s holding addr, or -1. */
int ipam_range_set_find(const struct ipam_range_set *s, int family, const union ip_addr *addr);
/* True if any range of a overlaps any range of b. */
bool ipam_range_set_overlaps(const struct ipam_range_set *a, const struct ipam_range_set *b);
/* "r1start-r1end,r2start-r2end,..." as a new string (NULL on ENOMEM). */
char *ipam_range_set_fmt(const struct ipam_range_set *s);
/* Append a range (copied). Returns 0, -E2BIG past IPAM_MAX_RANGES, -ENOMEM. */
int ipam_range_set_add(struct ipam_range_set *s, const struct ipam_range *r);
void ipam_range_set_done(struct ipam_range_set *s);

/*
 * Round-robin iterator over a range set, the reference's order: starting
 * after `last` (when it lies in the set) or at the first range's start,
 * walking each range from start to end and wrapping to the next range,
 * skipping each range's gateway, until the start comes round again.
 */
struct ipam_iter {
	const struct ipam_range_set *set;
	size_t idx;	 /* current range */
	bool have_cur;	 /* cur is meaningful */
	bool have_start; /* start_ip recorded */
	bool done;
	union ip_addr cur;
	union ip_addr start_ip;
};

/* last may be NULL; a last address outside the set is ignored. */
void ipam_iter_init(struct ipam_iter *it, const struct ipam_range_set *set,
		    const struct ipam_addr *last);
/*
 * Next candidate: returns true and fills *ret_addr and *ret_range (index into
 * set), or false once every address was offered.
 */
bool ipam_iter_next(struct ipam_iter *it, union ip_addr *ret_addr, size_t *ret_range);
