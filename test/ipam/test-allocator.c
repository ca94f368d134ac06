/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The allocator over an in-memory fake store: the reference's
 * allocator_test.go cases (round-robin table, exhaustion, release and
 * reuse order, requested addresses) plus the duplicate-allocation rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipam/allocator.h"

#define FAKE_MAX 64

struct fake_store {
	struct ipam_lease l[FAKE_MAX];
	size_t n;
	bool has_last[4];
	struct ipam_addr last[4];
	bool locked;
};

static int find(struct fake_store *f, const struct ipam_addr *ip)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->l[i].ip.family == ip->family &&
		    ip_addr_equal(ip->family, &f->l[i].ip.addr, &ip->addr))
			return (int)i;
	return -1;
}

static int f_lock(void *d)
{
	((struct fake_store *)d)->locked = true;
	return 0;
}

static int f_unlock(void *d)
{
	((struct fake_store *)d)->locked = false;
	return 0;
}

static int f_reserve(void *d, const char *id, const char *ifname, const struct ipam_addr *ip,
		     unsigned range_id)
{
	struct fake_store *f = d;

	assert_true(f->locked);
	if (find(f, ip) >= 0)
		return 0;
	f->l[f->n].ip = *ip;
	f->l[f->n].id = strdup(id);
	f->l[f->n].ifname = strdup(ifname);
	f->n++;
	f->last[range_id] = *ip;
	f->has_last[range_id] = true;
	return 1;
}

static void drop(struct fake_store *f, size_t i)
{
	free(f->l[i].id);
	free(f->l[i].ifname);
	f->l[i] = f->l[--f->n];
}

static int f_release_by_id(void *d, const char *id, const char *ifname)
{
	struct fake_store *f = d;
	int n = 0;

	for (size_t i = f->n; i-- > 0;)
		if (strcmp(f->l[i].id, id) == 0 && strcmp(f->l[i].ifname, ifname) == 0) {
			drop(f, i);
			n++;
		}
	return n;
}

static int f_release_ip(void *d, const struct ipam_addr *ip)
{
	struct fake_store *f = d;
	int i = find(f, ip);

	if (i < 0)
		return -ENOENT;
	drop(f, (size_t)i);
	return 0;
}

static int f_get_by_id(void *d, const char *id, const char *ifname, struct ipam_addr **ret,
		       size_t *ret_n)
{
	struct fake_store *f = d;
	struct ipam_addr *a = calloc(FAKE_MAX, sizeof(*a));
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->l[i].id, id) == 0 && strcmp(f->l[i].ifname, ifname) == 0)
			a[n++] = f->l[i].ip;
	*ret = a;
	*ret_n = n;
	return 0;
}

static int f_last(void *d, unsigned range_id, struct ipam_addr *ret)
{
	struct fake_store *f = d;

	if (!f->has_last[range_id])
		return -ENOENT;
	*ret = f->last[range_id];
	return 0;
}

static int f_is_free(void *d, const struct ipam_addr *ip)
{
	return find(d, ip) < 0;
}

static const struct ipam_store_ops fake_ops = {
    .lock = f_lock,
    .unlock = f_unlock,
    .reserve = f_reserve,
    .release_by_id = f_release_by_id,
    .release_ip = f_release_ip,
    .get_by_id = f_get_by_id,
    .last_reserved = f_last,
    .is_free = f_is_free,
};

static void fake_done(struct fake_store *f)
{
	while (f->n)
		drop(f, 0);
}

static void set_from(struct ipam_range_set *s, const char *const *subnets)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; subnets[i]; i++) {
		struct ipam_range_spec spec = {.subnet = subnets[i]};
		struct cni_error err = {0};
		struct ipam_range r;

		assert_int_equal(ipam_range_init(&spec, "t", &r, &err), 0);
		assert_int_equal(ipam_range_set_add(s, &r), 0);
	}
}

static void take(struct fake_store *f, const char *ip, const char *owner)
{
	struct ipam_addr a;

	assert_int_equal(ip_addr_parse(ip, &a.family, &a.addr), 0);
	f->locked = true;
	assert_int_equal(f_reserve(f, owner, "eth9", &a, 3), 1);
	f->locked = false;
}

/* Allocate for id; returns the address text or the error message. */
static int alloc(struct fake_store *f, const struct ipam_range_set *s, unsigned set_id,
		 const char *id, const char *requested, char *out, size_t len, unsigned *code)
{
	struct ipam_store st = {&fake_ops, f};
	struct ipam_addr req;
	struct ipam_alloc_request ar = {s, set_id, id, "eth0", NULL};
	struct cni_error err = {0};
	struct cni_ip ip;
	char buf[IP_PREFIX_STRLEN];
	int r;

	if (requested) {
		assert_int_equal(ip_addr_parse(requested, &req.family, &req.addr), 0);
		ar.requested = &req;
	}
	f->locked = true;
	r = ipam_allocate(&st, &ar, &ip, &err);
	f->locked = false;
	snprintf(out, len, "%s", r < 0 ? err.msg : ip_prefix_fmt(&ip.address, buf));
	*code = err.code;
	cni_error_done(&err);
	return r;
}

struct rr_case {
	const char *subnets[4];
	const char *last; /* recorded last reservation of set 0 */
	const char *taken[8];
	const char *want;
};

static const struct rr_case rr[] = {
    {{"192.168.1.0/29"}, NULL, {NULL}, "192.168.1.2/29"},
    {{"2001:db8:1::/64"}, NULL, {NULL}, "2001:db8:1::2/64"},
    {{"10.0.0.0/30"}, NULL, {NULL}, "10.0.0.2/30"},
    {{"192.168.1.0/29"}, NULL, {"192.168.1.2"}, "192.168.1.3/29"},
    {{"192.168.1.0/29"}, "192.168.1.5", {NULL}, "192.168.1.6/29"},
    {{"192.168.1.0/29"}, "192.168.1.3", {"192.168.1.4", "192.168.1.5"}, "192.168.1.6/29"},
    {{"192.168.1.0/29"}, "192.168.1.5", {"192.168.1.6"}, "192.168.1.2/29"},
    {{"192.168.1.0/29"}, "10.0.0.128", {"192.168.1.2"}, "192.168.1.3/29"},
    {{"192.168.1.0/29"},
     "192.168.1.3",
     {"192.168.1.2", "192.168.1.4", "192.168.1.5", "192.168.1.6"},
     "192.168.1.3/29"},
    {{"10.0.0.0/30", "10.0.1.0/30"}, NULL, {NULL}, "10.0.0.2/30"},
    {{"10.0.0.0/30", "10.0.1.0/30"}, "10.0.0.2", {NULL}, "10.0.1.2/30"},
    {{"10.0.0.0/30", "10.0.1.0/30", "10.0.2.0/30"}, "10.0.2.2", {NULL}, "10.0.0.2/30"},
};

static void test_round_robin_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rr) / sizeof(rr[0]); i++) {
		struct fake_store f = {0};
		struct ipam_range_set s;
		char out[256];
		unsigned code;

		set_from(&s, rr[i].subnets);
		for (size_t j = 0; rr[i].taken[j]; j++)
			take(&f, rr[i].taken[j], "other");
		f.has_last[0] = rr[i].last != NULL;
		if (rr[i].last)
			ip_addr_parse(rr[i].last, &f.last[0].family, &f.last[0].addr);
		if (alloc(&f, &s, 0, "c1", NULL, out, sizeof(out), &code) < 0 ||
		    strcmp(out, rr[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, out, rr[i].want);
		ipam_range_set_done(&s);
		fake_done(&f);
	}
}

static void test_exhaustion(void **state)
{
	const char *sub[] = {"192.168.1.0/29", NULL};
	struct fake_store f = {0};
	struct ipam_range_set s;
	char out[256], id[16];
	unsigned code;

	(void)state;
	set_from(&s, sub);
	for (int i = 0; i < 5; i++) {
		snprintf(id, sizeof(id), "c%d", i);
		assert_int_equal(alloc(&f, &s, 0, id, NULL, out, sizeof(out), &code), 0);
		snprintf(id, sizeof(id), "192.168.1.%d/29", i + 2);
		assert_string_equal(out, id);
	}
	assert_int_equal(alloc(&f, &s, 0, "c9", NULL, out, sizeof(out), &code), -ENOSPC);
	assert_int_equal(code, CNI_ERR_IPAM_EXHAUSTED);
	assert_string_equal(out, "no IP addresses available in range set: 192.168.1.1-192.168.1.6");
	ipam_range_set_done(&s);
	fake_done(&f);
}

static void test_exhaustion_two_ranges(void **state)
{
	const char *sub[] = {"10.0.0.0/30", "10.0.1.0/30", NULL};
	struct fake_store f = {0};
	struct ipam_range_set s;
	char out[256];
	unsigned code;

	(void)state;
	set_from(&s, sub);
	take(&f, "10.0.0.2", "x");
	take(&f, "10.0.1.2", "y");
	assert_int_equal(alloc(&f, &s, 0, "c1", NULL, out, sizeof(out), &code), -ENOSPC);
	assert_int_equal(code, CNI_ERR_IPAM_EXHAUSTED);
	assert_non_null(strstr(out, "no IP addresses available in range set"));
	ipam_range_set_done(&s);
	fake_done(&f);
}

static void test_release_not_reused_at_once(void **state)
{
	const char *sub[] = {"192.168.1.0/29", NULL};
	struct fake_store f = {0};
	struct ipam_range_set s;
	char out[256];
	unsigned code;

	(void)state;
	set_from(&s, sub);
	assert_int_equal(alloc(&f, &s, 0, "c1", NULL, out, sizeof(out), &code), 0);
	assert_string_equal(out, "192.168.1.2/29");
	assert_int_equal(f_release_by_id(&f, "c1", "eth0"), 1);
	assert_int_equal(alloc(&f, &s, 0, "c1", NULL, out, sizeof(out), &code), 0);
	assert_string_equal(out, "192.168.1.3/29");
	ipam_range_set_done(&s);
	fake_done(&f);
}

static void test_requested(void **state)
{
	const char *sub[] = {"192.168.1.0/29", NULL};
	struct fake_store f = {0};
	struct ipam_range_set s;
	char out[256];
	unsigned code;

	(void)state;
	set_from(&s, sub);
	assert_int_equal(alloc(&f, &s, 0, "c1", "192.168.1.5", out, sizeof(out), &code), 0);
	assert_string_equal(out, "192.168.1.5/29");
	assert_int_equal(alloc(&f, &s, 0, "c2", "192.168.1.5", out, sizeof(out), &code),
			 -EADDRINUSE);
	assert_int_equal(code, CNI_ERR_IPAM_CONFLICT);
	assert_string_equal(out, "requested IP address 192.168.1.5 is not available in range set "
				 "192.168.1.1-192.168.1.6");
	assert_int_equal(alloc(&f, &s, 0, "c3", "192.168.1.7", out, sizeof(out), &code), -EINVAL);
	assert_string_equal(out, "192.168.1.7 not in range set 192.168.1.1-192.168.1.6");
	assert_int_equal(alloc(&f, &s, 0, "c3", "192.168.1.0", out, sizeof(out), &code), -EINVAL);
	assert_int_equal(code, CNI_ERR_INVALID_CONFIG);
	assert_int_equal(alloc(&f, &s, 0, "c3", "192.168.1.1", out, sizeof(out), &code), -EINVAL);
	assert_string_equal(out, "requested ip 192.168.1.1 is subnet's gateway");
	ipam_range_set_done(&s);
	fake_done(&f);
}

static void test_duplicate(void **state)
{
	const char *sub[] = {"192.168.1.0/29", NULL}, *sub2[] = {"10.9.0.0/24", NULL};
	struct fake_store f = {0};
	struct ipam_range_set s, s2;
	char out[256];
	unsigned code;

	(void)state;
	set_from(&s, sub);
	set_from(&s2, sub2);
	assert_int_equal(alloc(&f, &s, 0, "c1", NULL, out, sizeof(out), &code), 0);
	assert_int_equal(alloc(&f, &s, 0, "c1", NULL, out, sizeof(out), &code), -EEXIST);
	assert_int_equal(code, CNI_ERR_IPAM_CONFLICT);
	assert_string_equal(out,
			    "192.168.1.2 has been allocated to c1, duplicate allocation is not "
			    "allowed");
	/* Another set is fine for the same attachment. */
	assert_int_equal(alloc(&f, &s2, 1, "c1", NULL, out, sizeof(out), &code), 0);
	ipam_range_set_done(&s);
	ipam_range_set_done(&s2);
	fake_done(&f);
}

static void test_has_free(void **state)
{
	const char *sub[] = {"10.0.0.0/30", NULL};
	struct fake_store f = {0};
	struct ipam_store st = {&fake_ops, &f};
	struct ipam_range_set s;

	(void)state;
	set_from(&s, sub);
	assert_int_equal(ipam_set_has_free(&st, &s, 0), 1);
	take(&f, "10.0.0.2", "x");
	assert_int_equal(ipam_set_has_free(&st, &s, 0), 0);
	ipam_range_set_done(&s);
	fake_done(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_robin_table),
	    cmocka_unit_test(test_exhaustion),
	    cmocka_unit_test(test_exhaustion_two_ranges),
	    cmocka_unit_test(test_release_not_reused_at_once),
	    cmocka_unit_test(test_requested),
	    cmocka_unit_test(test_duplicate),
	    cmocka_unit_test(test_has_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
