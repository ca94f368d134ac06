/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Ranges: canonical defaults, the reference's range_test.go cases (host
 * bits, too small, start/end outside, explicit values), containment,
 * overlap, set validation, the round-robin iterator and address arithmetic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipam/range.h"

static struct ipam_range mk(const char *subnet, const char *start, const char *end, const char *gw)
{
	struct ipam_range_spec spec = {subnet, start, end, gw};
	struct cni_error err = {0};
	struct ipam_range r;

	if (ipam_range_init(&spec, "t", &r, &err) < 0)
		fail_msg("range %s: %s", subnet, err.msg);
	cni_error_done(&err);
	return r;
}

static void assert_addr(const struct ipam_range *r, const union ip_addr *a, const char *want)
{
	char buf[INET6_ADDRSTRLEN];

	assert_string_equal(ip_addr_fmt(r->subnet.family, a, buf), want);
}

struct canon_case {
	const char *subnet, *start, *end, *gw;
	const char *want_start, *want_end, *want_gw;
};

static const struct canon_case canon[] = {
    {"192.0.2.0/24", NULL, NULL, NULL, "192.0.2.1", "192.0.2.254", "192.0.2.1"},
    {"192.0.2.0/25", NULL, NULL, NULL, "192.0.2.1", "192.0.2.126", "192.0.2.1"},
    {"2001:DB8:1::/64", NULL, NULL, NULL, "2001:db8:1::1", "2001:db8:1:0:ffff:ffff:ffff:ffff",
     "2001:db8:1::1"},
    {"192.0.2.0/24", "192.0.2.10", "192.0.2.50", "192.0.2.254", "192.0.2.10", "192.0.2.50",
     "192.0.2.254"},
    {"10.0.0.0/30", NULL, NULL, NULL, "10.0.0.1", "10.0.0.2", "10.0.0.1"},
};

static void test_canonical(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(canon) / sizeof(canon[0]); i++) {
		const struct canon_case *c = &canon[i];
		struct ipam_range r = mk(c->subnet, c->start, c->end, c->gw);

		assert_addr(&r, &r.start, c->want_start);
		assert_addr(&r, &r.end, c->want_end);
		assert_addr(&r, &r.gateway, c->want_gw);
	}
}

struct bad_case {
	const char *subnet, *start, *end, *gw;
	const char *msg;
};

static const struct bad_case bad[] = {
    {NULL, NULL, NULL, NULL, "p.subnet: required key missing"},
    {"10.0.0.0/33", NULL, NULL, NULL, "p.subnet: not a CIDR: '10.0.0.0/33'"},
    {"10.0.0.0", NULL, NULL, NULL, "p.subnet: not a CIDR: '10.0.0.0'"},
    {"192.0.2.12/24", NULL, NULL, NULL,
     "p.subnet: '192.0.2.12/24': network has host bits set; for a subnet mask of length 24 "
     "the network address is 192.0.2.0"},
    {"2001:DB8:1::24:19ff:fee1:c44a/64", NULL, NULL, NULL,
     "for a subnet mask of length 64 the network address is 2001:db8:1::"},
    {"2001:DB8:24:19ff::/63", NULL, NULL, NULL,
     "for a subnet mask of length 63 the network address is 2001:db8:24:19fe::"},
    {"192.168.127.0/23", NULL, NULL, NULL,
     "for a subnet mask of length 23 the network address is 192.168.126.0"},
    {"192.0.2.0/31", NULL, NULL, NULL, "p.subnet: network 192.0.2.0/31 too small"},
    {"192.0.2.0/32", NULL, NULL, NULL, "too small to allocate from"},
    {"2001:db8::/127", NULL, NULL, NULL, "too small to allocate from"},
    {"192.0.2.0/24", "192.0.3.1", NULL, NULL,
     "p.rangeStart: '192.0.3.1' not in network 192.0.2.0/24"},
    {"192.0.2.0/24", NULL, "192.0.3.1", NULL,
     "p.rangeEnd: '192.0.3.1' not in network 192.0.2.0/24"},
    {"192.0.2.0/24", "192.0.2.50", "192.0.2.40", NULL,
     "p.rangeStart: '192.0.2.50' is after rangeEnd '192.0.2.40'"},
    {"192.0.2.0/24", "nope", NULL, NULL, "p.rangeStart: not an IP address: 'nope'"},
    {"192.0.2.0/24", "192.0.2.0", NULL, NULL,
     "p.rangeStart: '192.0.2.0' is the network address of 192.0.2.0/24"},
    {"192.0.2.0/24", NULL, "192.0.2.255", NULL,
     "p.rangeEnd: '192.0.2.255' is the broadcast address of 192.0.2.0/24"},
    {"192.0.2.0/24", NULL, NULL, "2001:db8::1", "p.gateway: '2001:db8::1' is not of the family"},
    {"192.0.2.0/24", NULL, NULL, "x", "p.gateway: not an IP address: 'x'"},
    {"192.0.2.0/24", NULL, NULL, "192.0.2.255", "is the broadcast address"},
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_case *c = &bad[i];
		struct ipam_range_spec spec = {c->subnet, c->start, c->end, c->gw};
		struct cni_error err = {0};
		struct ipam_range r;

		assert_int_equal(ipam_range_init(&spec, "p", &r, &err), -EINVAL);
		assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
		if (!strstr(err.msg, c->msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, c->msg);
		cni_error_done(&err);
	}
}

static void test_gateway_outside_subnet_allowed(void **state)
{
	struct ipam_range r = mk("192.0.2.0/24", NULL, NULL, "10.9.9.9");

	(void)state;
	assert_addr(&r, &r.gateway, "10.9.9.9");
}

static void test_contains(void **state)
{
	struct ipam_range r = mk("192.0.2.0/24", "192.0.2.10", "192.0.2.20", NULL);
	struct ipam_range r6 = mk("2001:db8:1::/64", NULL, NULL, NULL);
	union ip_addr a;
	int f = 0;

	(void)state;
	ip_addr_parse("192.0.2.10", &f, &a);
	assert_true(ipam_range_contains(&r, f, &a));
	ip_addr_parse("192.0.2.20", &f, &a);
	assert_true(ipam_range_contains(&r, f, &a));
	ip_addr_parse("192.0.2.9", &f, &a);
	assert_false(ipam_range_contains(&r, f, &a));
	ip_addr_parse("192.0.2.21", &f, &a);
	assert_false(ipam_range_contains(&r, f, &a));
	ip_addr_parse("2001:db8:1:0:ffff:ffff:ffff:ffff", &f, &a);
	assert_true(ipam_range_contains(&r6, f, &a));
	assert_false(ipam_range_contains(&r, f, &a));
	ip_addr_parse("2001:db8:2::", &f, &a);
	assert_false(ipam_range_contains(&r6, f, &a));
	ip_addr_parse("2001:db8:1::", &f, &a);
	assert_false(ipam_range_contains(&r6, f, &a)); /* before rangeStart ::1 */
}

static void test_overlap(void **state)
{
	struct ipam_range a = mk("10.0.0.0/24", NULL, NULL, NULL);
	struct ipam_range b = mk("10.0.1.0/24", NULL, NULL, NULL);
	struct ipam_range v6 = mk("2001:db8::/64", NULL, NULL, NULL);
	struct ipam_range big = mk("10.0.0.0/20", NULL, NULL, NULL);
	struct ipam_range lo = mk("10.0.0.0/24", "10.0.0.1", "10.0.0.127", NULL);
	struct ipam_range hi = mk("10.0.0.0/24", "10.0.0.128", "10.0.0.254", NULL);
	struct ipam_range lo2 = mk("10.0.0.0/24", "10.0.0.1", "10.0.0.128", NULL);

	(void)state;
	assert_false(ipam_range_overlaps(&a, &b));
	assert_false(ipam_range_overlaps(&a, &v6));
	assert_true(ipam_range_overlaps(&a, &a));
	assert_true(ipam_range_overlaps(&a, &big));
	assert_true(ipam_range_overlaps(&big, &a));
	assert_false(ipam_range_overlaps(&lo, &hi));
	assert_true(ipam_range_overlaps(&lo2, &hi));
}

static void test_set_validate(void **state)
{
	struct ipam_range r[] = {
	    mk("10.1.0.0/22", NULL, NULL, NULL),
	    mk("10.1.2.0/24", NULL, NULL, NULL),
	    mk("2001:db8::/64", NULL, NULL, NULL),
	};
	struct ipam_range_set s = {r, 2}, mixed = {&r[1], 2}, empty = {NULL, 0};
	struct cni_error err = {0};

	(void)state;
	assert_int_equal(ipam_range_set_validate(&s, "ipam.ranges[0]", &err), -EINVAL);
	assert_string_equal(err.msg, "ipam.ranges[0]: subnets 10.1.0.1-10.1.3.254 and "
				     "10.1.2.1-10.1.2.254 overlap");
	cni_error_done(&err);
	assert_int_equal(ipam_range_set_validate(&mixed, "ipam.ranges[0]", &err), -EINVAL);
	assert_string_equal(err.msg, "ipam.ranges[0]: mixed address families");
	cni_error_done(&err);
	assert_int_equal(ipam_range_set_validate(&empty, "x", &err), -EINVAL);
	assert_string_equal(err.msg, "x: empty range set");
	cni_error_done(&err);
}

static void test_set_fmt(void **state)
{
	struct ipam_range r[] = {mk("192.168.1.0/29", NULL, NULL, NULL),
				 mk("192.168.2.0/29", NULL, NULL, NULL)};
	struct ipam_range_set s = {r, 2};
	char *str = ipam_range_set_fmt(&s);

	(void)state;
	assert_string_equal(str, "192.168.1.1-192.168.1.6,192.168.2.1-192.168.2.6");
	free(str);
}

/* Collect the iterator's output as "a b c". */
static void walk(const struct ipam_range_set *s, const char *last, char *out, size_t len)
{
	struct ipam_addr l, *lp = NULL;
	struct ipam_iter it;
	union ip_addr a;
	char buf[INET6_ADDRSTRLEN];
	size_t idx, n = 0;

	if (last) {
		ip_addr_parse(last, &l.family, &l.addr);
		lp = &l;
	}
	out[0] = '\0';
	ipam_iter_init(&it, s, lp);
	while (ipam_iter_next(&it, &a, &idx) && n < len)
		n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "",
				      ip_addr_fmt(ipam_range_family(&s->ranges[idx]), &a, buf));
}

static void test_iterator(void **state)
{
	struct ipam_range r = mk("192.168.1.0/29", NULL, NULL, NULL);
	struct ipam_range_set s = {&r, 1};
	char out[512];

	(void)state;
	walk(&s, NULL, out, sizeof(out));
	assert_string_equal(out, "192.168.1.2 192.168.1.3 192.168.1.4 192.168.1.5 192.168.1.6");
	walk(&s, "192.168.1.6", out, sizeof(out));
	assert_string_equal(out, "192.168.1.2 192.168.1.3 192.168.1.4 192.168.1.5 192.168.1.6");
	walk(&s, "192.168.1.3", out, sizeof(out));
	assert_string_equal(out, "192.168.1.4 192.168.1.5 192.168.1.6 192.168.1.2 192.168.1.3");
	walk(&s, "10.0.0.128", out, sizeof(out)); /* outside: from the start */
	assert_string_equal(out, "192.168.1.2 192.168.1.3 192.168.1.4 192.168.1.5 192.168.1.6");
}

/* Reference test 18: two ranges 192.168.1.0-3 and 192.168.2.0-3 (built by hand). */
static void test_iterator_multi_range(void **state)
{
	struct ipam_range r[2];
	struct ipam_range_set s = {r, 2};
	char out[512];

	(void)state;
	for (int i = 0; i < 2; i++) {
		char sub[32], gw[32];
		int f;

		snprintf(sub, sizeof(sub), "192.168.%d.0", i + 1);
		snprintf(gw, sizeof(gw), "192.168.%d.1", i + 1);
		memset(&r[i], 0, sizeof(r[i]));
		ip_prefix_parse("192.168.1.0/24", &r[i].subnet);
		ip_addr_parse(sub, &f, &r[i].subnet.addr);
		r[i].start = r[i].subnet.addr;
		r[i].end = r[i].start;
		r[i].end.bytes[3] = 3;
		ip_addr_parse(gw, &f, &r[i].gateway);
	}
	walk(&s, "192.168.1.3", out, sizeof(out));
	assert_string_equal(out, "192.168.2.0 192.168.2.2 192.168.2.3 192.168.1.0 192.168.1.2 "
				 "192.168.1.3");
	walk(&s, NULL, out, sizeof(out));
	assert_string_equal(out, "192.168.1.0 192.168.1.2 192.168.1.3 192.168.2.0 192.168.2.2 "
				 "192.168.2.3");
}

static void test_arith(void **state)
{
	union ip_addr a;
	char buf[INET6_ADDRSTRLEN];
	struct ip_prefix p;
	int f = 0;

	(void)state;
	ip_addr_parse("10.0.0.255", &f, &a);
	assert_true(ipam_addr_inc(f, &a));
	assert_string_equal(ip_addr_fmt(f, &a, buf), "10.0.1.0");
	assert_true(ipam_addr_dec(f, &a));
	assert_string_equal(ip_addr_fmt(f, &a, buf), "10.0.0.255");
	ip_addr_parse("255.255.255.255", &f, &a);
	assert_false(ipam_addr_inc(f, &a));
	ip_addr_parse("0.0.0.0", &f, &a);
	assert_false(ipam_addr_dec(f, &a));
	ip_addr_parse("2001:db8::ffff:ffff", &f, &a);
	assert_true(ipam_addr_inc(f, &a));
	assert_string_equal(ip_addr_fmt(f, &a, buf), "2001:db8::1:0:0");
	ip_prefix_parse("10.1.0.0/22", &p);
	ipam_prefix_last(&p, &a);
	assert_string_equal(ip_addr_fmt(p.family, &a, buf), "10.1.3.255");
	ip_prefix_parse("2001:db8::/63", &p);
	ipam_prefix_last(&p, &a);
	assert_string_equal(ip_addr_fmt(p.family, &a, buf), "2001:db8:0:1:ffff:ffff:ffff:ffff");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_gateway_outside_subnet_allowed),
	    cmocka_unit_test(test_contains),
	    cmocka_unit_test(test_overlap),
	    cmocka_unit_test(test_set_validate),
	    cmocka_unit_test(test_set_fmt),
	    cmocka_unit_test(test_iterator),
	    cmocka_unit_test(test_iterator_multi_range),
	    cmocka_unit_test(test_arith),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
