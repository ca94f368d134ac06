/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One address type shared by libcni (results), netlink (requests) and IPAM.
 * Parsing and formatting live in src/ipaddr.c (same syntax and output as
 * inet_pton/inet_ntop); the small helpers stay inline here.
 */
#pragma once

#include <arpa/inet.h> /* INET6_ADDRSTRLEN */
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "base/parse.h"

union ip_addr {
	struct in_addr in;
	struct in6_addr in6;
	uint8_t bytes[16];
};

struct ip_prefix {
	int family; /* AF_INET or AF_INET6 */
	union ip_addr addr;
	unsigned char prefixlen;
};

/* Max length of "addr/128" including NUL. */
#define IP_PREFIX_STRLEN (INET6_ADDRSTRLEN + 4)

static inline size_t ip_addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

static inline unsigned ip_family_bits(int family)
{
	return family == AF_INET6 ? 128 : 32;
}

/*
 * Parse a plain IPv4/IPv6 address, with exactly inet_pton's syntax: IPv4
 * dotted quads only (no "010.1.1.1" surprises: leading zeros are refused).
 * Returns 0 or -EINVAL.
 */
int ip_addr_parse(const char *s, int *ret_family, union ip_addr *ret);

/*
 * Parse "addr/len". With prefix_optional, a bare address gets the full
 * length (/32 or /128). Host bits are kept (an interface address, not a
 * network). Returns 0 or -EINVAL.
 */
static inline int ip_prefix_parse_full(const char *s, bool prefix_optional, struct ip_prefix *ret)
{
	char buf[IP_PREFIX_STRLEN];
	const char *slash;
	struct ip_prefix p;
	uint32_t len;
	size_t n;

	if (!s)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	slash = strchr(s, '/');
	n = slash ? (size_t)(slash - s) : strlen(s);
	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (ip_addr_parse(buf, &p.family, &p.addr) < 0)
		return -EINVAL;
	if (!slash) {
		if (!prefix_optional)
			return -EINVAL;
		p.prefixlen = (unsigned char)ip_family_bits(p.family);
	} else {
		if (safe_atou32_max(slash + 1, ip_family_bits(p.family), &len) < 0)
			return -EINVAL;
		if (slash[1] == '0' && slash[2] != '\0') /* "/024" */
			return -EINVAL;
		p.prefixlen = (unsigned char)len;
	}
	*ret = p;
	return 0;
}

static inline int ip_prefix_parse(const char *s, struct ip_prefix *ret)
{
	return ip_prefix_parse_full(s, false, ret);
}

/*
 * Format an address as inet_ntop does; buf must hold INET6_ADDRSTRLEN bytes.
 * An unknown family gives "?". Returns buf.
 */
const char *ip_addr_fmt(int family, const union ip_addr *a, char *buf);

/* Format "addr/len"; buf must hold IP_PREFIX_STRLEN bytes. Returns buf. */
const char *ip_prefix_fmt(const struct ip_prefix *p, char *buf);

static inline bool ip_addr_equal(int family, const union ip_addr *a, const union ip_addr *b)
{
	return memcmp(a, b, ip_addr_len(family)) == 0;
}

/* Same family, address and prefix length. */
static inline bool ip_prefix_equal(const struct ip_prefix *a, const struct ip_prefix *b)
{
	return a->family == b->family && a->prefixlen == b->prefixlen &&
	       ip_addr_equal(a->family, &a->addr, &b->addr);
}

/* Zero the host bits: 10.1.2.3/24 -> 10.1.2.0/24. */
static inline void ip_prefix_mask(struct ip_prefix *p)
{
	unsigned bits = p->prefixlen, nbytes = (unsigned)ip_addr_len(p->family);

	for (unsigned i = 0; i < nbytes; i++) {
		if (bits >= 8) {
			bits -= 8;
			continue;
		}
		p->addr.bytes[i] &= (uint8_t)(0xff00u >> bits);
		bits = 0;
	}
}

/* True if addr (same family) lies inside the network of p. */
static inline bool ip_prefix_contains(const struct ip_prefix *p, int family, const union ip_addr *a)
{
	struct ip_prefix net = *p, probe;

	if (family != p->family)
		return false;
	probe.family = family;
	probe.addr = *a;
	probe.prefixlen = p->prefixlen;
	ip_prefix_mask(&net);
	ip_prefix_mask(&probe);
	return ip_addr_equal(family, &net.addr, &probe.addr);
}

/* No host bits set: 10.1.2.0/24 is a network, 10.1.2.3/24 is not. */
static inline bool ip_prefix_is_network(const struct ip_prefix *p)
{
	struct ip_prefix m = *p;

	ip_prefix_mask(&m);
	return ip_addr_equal(p->family, &m.addr, &p->addr);
}

/* Is this the default route destination (0.0.0.0/0 or ::/0)? */
static inline bool ip_prefix_is_default(const struct ip_prefix *p)
{
	return p->prefixlen == 0;
}
