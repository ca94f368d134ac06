/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Address arithmetic, range canonicalisation, range sets and the
 * round-robin iterator. Pure computation: no files, no kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "ipam/range.h"

int ipam_addr_cmp(int family, const union ip_addr *a, const union ip_addr *b)
{
	return memcmp(a->bytes, b->bytes, ip_addr_len(family));
}

bool ipam_addr_inc(int family, union ip_addr *a)
{
	union ip_addr n = *a;

	for (size_t i = ip_addr_len(family); i-- > 0;)
		if (++n.bytes[i] != 0) {
			*a = n;
			return true;
		}
	return false;
}

bool ipam_addr_dec(int family, union ip_addr *a)
{
	union ip_addr n = *a;

	for (size_t i = ip_addr_len(family); i-- > 0;)
		if (n.bytes[i]-- != 0) {
			*a = n;
			return true;
		}
	return false;
}

void ipam_prefix_last(const struct ip_prefix *p, union ip_addr *ret)
{
	struct ip_prefix net = *p;
	unsigned bits = p->prefixlen, nbytes = (unsigned)ip_addr_len(p->family);

	ip_prefix_mask(&net);
	for (unsigned i = 0; i < nbytes; i++) {
		if (bits >= 8) {
			bits -= 8;
			continue;
		}
		net.addr.bytes[i] |= (uint8_t)(0xffu >> bits);
		bits = 0;
	}
	*ret = net.addr;
}

const char *ipam_addr_fmt(const struct ipam_addr *a, char *buf)
{
	return ip_addr_fmt(a->family, &a->addr, buf);
}

static int parse_subnet(const char *s, const char *path, struct ip_prefix *ret,
			struct cni_error *err)
{
	char buf[INET6_ADDRSTRLEN], pbuf[IP_PREFIX_STRLEN];
	struct ip_prefix p, net;

	if (!s)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.subnet: required key missing", path);
	if (ip_prefix_parse(s, &p) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.subnet: not a CIDR: '%s'", path, s);
	net = p;
	ip_prefix_mask(&net);
	if (!ip_addr_equal(p.family, &p.addr, &net.addr))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.subnet: '%s': network has host bits set; for a subnet mask "
				  "of length %u the network address is %s",
				  path, s, p.prefixlen, ip_addr_fmt(p.family, &net.addr, buf));
	if (p.prefixlen + 2u > ip_family_bits(p.family))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.subnet: network %s too small to allocate from", path,
				  ip_prefix_fmt(&p, pbuf));
	*ret = p;
	return 0;
}

/* Parse an optional address key that must lie in the subnet. 0 = absent. */
static int parse_in_subnet(const char *s, const char *path, const char *key,
			   const struct ip_prefix *subnet, union ip_addr *ret,
			   struct cni_error *err)
{
	char pbuf[IP_PREFIX_STRLEN];
	union ip_addr a;
	int family;

	if (!s)
		return 0;
	if (ip_addr_parse(s, &family, &a) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.%s: not an IP address: '%s'", path, key, s);
	if (!ip_prefix_contains(subnet, family, &a))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.%s: '%s' not in network %s", path, key, s,
				  ip_prefix_fmt(subnet, pbuf));
	*ret = a;
	return 1;
}

/* The network address (and the IPv4 broadcast) are never handed out. */
static int check_reserved(const struct ipam_range *r, const union ip_addr *a, const char *path,
			  const char *key, struct cni_error *err)
{
	char buf[INET6_ADDRSTRLEN], pbuf[IP_PREFIX_STRLEN];
	int family = ipam_range_family(r);
	union ip_addr last;

	ipam_prefix_last(&r->subnet, &last);
	if (ip_addr_equal(family, a, &r->subnet.addr))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.%s: '%s' is the network address of %s", path, key,
				  ip_addr_fmt(family, a, buf), ip_prefix_fmt(&r->subnet, pbuf));
	if (family == AF_INET && ip_addr_equal(family, a, &last))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.%s: '%s' is the broadcast address of %s", path, key,
				  ip_addr_fmt(family, a, buf), ip_prefix_fmt(&r->subnet, pbuf));
	return 0;
}

static int parse_gateway(const char *s, const char *path, struct ipam_range *r,
			 struct cni_error *err)
{
	char pbuf[IP_PREFIX_STRLEN];
	int family = ipam_range_family(r);
	union ip_addr a;
	int f;

	r->gateway = r->subnet.addr;
	if (!s) {
		ipam_addr_inc(family, &r->gateway);
		return 0;
	}
	if (ip_addr_parse(s, &f, &a) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.gateway: not an IP address: '%s'", path, s);
	if (f != family)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.gateway: '%s' is not of the family of subnet %s", path, s,
				  ip_prefix_fmt(&r->subnet, pbuf));
	r->gateway = a;
	/* The reference accepts a gateway outside the subnet; so do we, loudly. */
	if (!ip_prefix_contains(&r->subnet, f, &a)) {
		cni_log_warning("%s.gateway: '%s' is outside subnet %s", path, s,
				ip_prefix_fmt(&r->subnet, pbuf));
		return 0;
	}
	return check_reserved(r, &a, path, "gateway", err);
}

int ipam_range_init(const struct ipam_range_spec *spec, const char *path, struct ipam_range *ret,
		    struct cni_error *err)
{
	char b1[INET6_ADDRSTRLEN], b2[INET6_ADDRSTRLEN];
	struct ipam_range r;
	int family, r1, r2;

	memset(&r, 0, sizeof(r));
	if (parse_subnet(spec->subnet, path, &r.subnet, err) < 0)
		return -EINVAL;
	family = r.subnet.family;
	if (parse_gateway(spec->gateway, path, &r, err) < 0)
		return -EINVAL;
	r.start = r.subnet.addr;
	ipam_addr_inc(family, &r.start);
	ipam_prefix_last(&r.subnet, &r.end);
	if (family == AF_INET)
		ipam_addr_dec(family, &r.end);
	r1 = parse_in_subnet(spec->range_start, path, "rangeStart", &r.subnet, &r.start, err);
	r2 = r1 < 0 ? r1
		    : parse_in_subnet(spec->range_end, path, "rangeEnd", &r.subnet, &r.end, err);
	if (r2 < 0)
		return -EINVAL;
	if ((r1 > 0 && check_reserved(&r, &r.start, path, "rangeStart", err) < 0) ||
	    (r2 > 0 && check_reserved(&r, &r.end, path, "rangeEnd", err) < 0))
		return -EINVAL;
	if (ipam_addr_cmp(family, &r.start, &r.end) > 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "%s.rangeStart: '%s' is after rangeEnd '%s'", path,
				  ip_addr_fmt(family, &r.start, b1),
				  ip_addr_fmt(family, &r.end, b2));
	*ret = r;
	return 0;
}

bool ipam_range_contains(const struct ipam_range *r, int family, const union ip_addr *addr)
{
	if (family != ipam_range_family(r))
		return false;
	return ipam_addr_cmp(family, addr, &r->start) >= 0 &&
	       ipam_addr_cmp(family, addr, &r->end) <= 0;
}

bool ipam_range_overlaps(const struct ipam_range *a, const struct ipam_range *b)
{
	int family = ipam_range_family(a);

	if (family != ipam_range_family(b))
		return false;
	return ipam_range_contains(a, family, &b->start) ||
	       ipam_range_contains(a, family, &b->end) ||
	       ipam_range_contains(b, family, &a->start) || ipam_range_contains(b, family, &a->end);
}

const char *ipam_range_fmt(const struct ipam_range *r, char *buf)
{
	char s[INET6_ADDRSTRLEN], e[INET6_ADDRSTRLEN];
	int family = ipam_range_family(r);

	snprintf(buf, IPAM_RANGE_STRLEN, "%s-%s", ip_addr_fmt(family, &r->start, s),
		 ip_addr_fmt(family, &r->end, e));
	return buf;
}

int ipam_range_set_validate(const struct ipam_range_set *s, const char *path, struct cni_error *err)
{
	char b1[IPAM_RANGE_STRLEN], b2[IPAM_RANGE_STRLEN];

	if (s->n == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "%s: empty range set",
				  path);
	for (size_t i = 0; i < s->n; i++) {
		if (ipam_range_family(&s->ranges[i]) != ipam_range_family(&s->ranges[0]))
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "%s: mixed address families", path);
		for (size_t j = 0; j < i; j++)
			if (ipam_range_overlaps(&s->ranges[i], &s->ranges[j]))
				return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
						  "%s: subnets %s and %s overlap", path,
						  ipam_range_fmt(&s->ranges[j], b1),
						  ipam_range_fmt(&s->ranges[i], b2));
	}
	return 0;
}

int ipam_range_set_find(const struct ipam_range_set *s, int family, const union ip_addr *addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (ipam_range_contains(&s->ranges[i], family, addr))
			return (int)i;
	return -1;
}

bool ipam_range_set_overlaps(const struct ipam_range_set *a, const struct ipam_range_set *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (ipam_range_overlaps(&a->ranges[i], &b->ranges[j]))
				return true;
	return false;
}

char *ipam_range_set_fmt(const struct ipam_range_set *s)
{
	char buf[IPAM_RANGE_STRLEN];
	size_t len = 0, cap = s->n * IPAM_RANGE_STRLEN + 1;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < s->n; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "",
					ipam_range_fmt(&s->ranges[i], buf));
	return out;
}

int ipam_range_set_add(struct ipam_range_set *s, const struct ipam_range *r)
{
	struct ipam_range *n;

	if (s->n >= IPAM_MAX_RANGES)
		return -E2BIG;
	n = reallocarray_safe(s->ranges, s->n + 1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n[s->n++] = *r;
	s->ranges = n;
	return 0;
}

void ipam_range_set_done(struct ipam_range_set *s)
{
	s->ranges = mfree(s->ranges);
	s->n = 0;
}

void ipam_iter_init(struct ipam_iter *it, const struct ipam_range_set *set,
		    const struct ipam_addr *last)
{
	int idx = last ? ipam_range_set_find(set, last->family, &last->addr) : -1;

	memset(it, 0, sizeof(*it));
	it->set = set;
	it->done = set->n == 0;
	if (idx >= 0) {
		it->idx = (size_t)idx;
		it->cur = last->addr;
		it->have_cur = true;
	}
}

/* One step of the walk; false when the start came round again. */
static bool iter_step(struct ipam_iter *it)
{
	const struct ipam_range *r = &it->set->ranges[it->idx];
	int family = ipam_range_family(r);

	if (!it->have_cur) {
		it->cur = r->start;
		it->have_cur = true;
	} else if (ip_addr_equal(family, &it->cur, &r->end) || !ipam_addr_inc(family, &it->cur)) {
		it->idx = (it->idx + 1) % it->set->n;
		it->cur = it->set->ranges[it->idx].start;
	}
	if (!it->have_start) {
		it->start_ip = it->cur;
		it->have_start = true;
		return true;
	}
	return !ip_addr_equal(family, &it->cur, &it->start_ip);
}

bool ipam_iter_next(struct ipam_iter *it, union ip_addr *ret_addr, size_t *ret_range)
{
	while (!it->done) {
		const struct ipam_range *r;

		if (!iter_step(it)) {
			it->done = true;
			break;
		}
		r = &it->set->ranges[it->idx];
		if (ip_addr_equal(ipam_range_family(r), &it->cur, &r->gateway))
			continue;
		*ret_addr = it->cur;
		*ret_range = it->idx;
		return true;
	}
	return false;
}
