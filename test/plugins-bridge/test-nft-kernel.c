/* SPDX-License-Identifier: Apache-2.0 */
/* pwnft against the real nf_tables, inside a private network namespace (root). */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pwnft/nft.h"

static int setup(void **state)
{
	struct pw_nft *nft = NULL;

	/* A fresh netns for the whole process: nothing of the host is touched. */
	if (unshare(CLONE_NEWNET) < 0)
		return -1;
	if (pw_nft_open(&nft) < 0)
		return -1;
	*state = nft;
	return 0;
}

static int teardown(void **state)
{
	pw_nft_free(*state);
	return 0;
}

static struct ip_prefix pfx(const char *s)
{
	struct ip_prefix p;

	assert_int_equal(ip_prefix_parse(s, &p), 0);
	return p;
}

static void test_masq_lifecycle(void **state)
{
	struct pw_nft *nft = *state;
	struct ip_prefix a[] = {pfx("10.1.2.5/24"), pfx("fd00::5/64")};
	struct pw_nft_masq m = {
	    .network = "net1", .container_id = "c1", .ifname = "eth0", .addrs = a, .n_addrs = 2};
	struct pw_nft_masq other = m;

	other.container_id = "c2";
	assert_int_equal(pw_nft_masq_check(nft, &m), 0); /* no table yet */
	assert_int_equal(pw_nft_masq_add(nft, &m), 0);
	assert_int_equal(pw_nft_masq_add(nft, &m), 0); /* idempotent */
	assert_int_equal(pw_nft_masq_check(nft, &m), 1);
	assert_int_equal(pw_nft_masq_check(nft, &other), 0); /* tag differs */
	assert_int_equal(pw_nft_masq_del(nft, &m), 0);
	assert_int_equal(pw_nft_masq_check(nft, &m), 0);
	assert_int_equal(pw_nft_masq_del(nft, &m), 0); /* second DEL */

	/* an address reused by another attachment survives a stale DEL */
	assert_int_equal(pw_nft_masq_add(nft, &other), 0);
	assert_int_equal(pw_nft_masq_del(nft, &m), 0);
	assert_int_equal(pw_nft_masq_check(nft, &other), 1);

	/* DEL without addresses finds elements by tag */
	other.n_addrs = 0;
	assert_int_equal(pw_nft_masq_del(nft, &other), 0);
	other.n_addrs = 2;
	assert_int_equal(pw_nft_masq_check(nft, &other), 0);
}

static bool keep_c1(const char *cid, const char *ifname, void *userdata)
{
	(void)ifname;
	(void)userdata;
	return strcmp(cid, "c1") == 0;
}

static void test_gc(void **state)
{
	static const unsigned char mac[6] = {2, 0, 0, 0, 0, 9};
	struct pw_nft *nft = *state;
	struct ip_prefix a1 = pfx("10.9.0.2/24"), a2 = pfx("10.9.0.3/24"), a3 = pfx("10.8.0.3/24");
	struct pw_nft_masq m1 = {
	    .network = "gcnet", .container_id = "c1", .ifname = "eth0", .addrs = &a1, .n_addrs = 1};
	struct pw_nft_masq m2 = {
	    .network = "gcnet", .container_id = "c2", .ifname = "eth0", .addrs = &a2, .n_addrs = 1};
	/* same container on another network: not this GC's business */
	struct pw_nft_masq m3 = {.network = "othernet",
				 .container_id = "c2",
				 .ifname = "eth0",
				 .addrs = &a3,
				 .n_addrs = 1};
	struct pw_nft_spoof s2 = {.network = "gcnet",
				  .container_id = "c2",
				  .ifname = "eth0",
				  .host_ifname = "vethc2",
				  .mac = mac};

	assert_int_equal(pw_nft_masq_add(nft, &m1), 0);
	assert_int_equal(pw_nft_masq_add(nft, &m2), 0);
	assert_int_equal(pw_nft_masq_add(nft, &m3), 0);
	assert_int_equal(pw_nft_spoof_add(nft, &s2), 0);
	assert_int_equal(pw_nft_spoof_check(nft, &s2), 1);
	assert_int_equal(pw_nft_gc(nft, "gcnet", keep_c1, NULL), 3);
	assert_int_equal(pw_nft_masq_check(nft, &m1), 1);
	assert_int_equal(pw_nft_masq_check(nft, &m2), 0);
	assert_int_equal(pw_nft_masq_check(nft, &m3), 1);
	assert_int_equal(pw_nft_spoof_check(nft, &s2), 0);
	assert_int_equal(pw_nft_gc(nft, "gcnet", keep_c1, NULL), 0);
}

static void test_spoof_lifecycle(void **state)
{
	static const unsigned char mac[6] = {2, 0, 0, 0, 0, 1}, mac2[6] = {2, 0, 0, 0, 0, 2};
	struct pw_nft *nft = *state;
	struct pw_nft_spoof s = {.network = "net1",
				 .container_id = "c1",
				 .ifname = "eth0",
				 .host_ifname = "veth1",
				 .mac = mac};
	struct pw_nft_spoof wrong = s;

	wrong.mac = mac2;
	assert_int_equal(pw_nft_spoof_add(nft, &s), 0);
	assert_int_equal(pw_nft_spoof_check(nft, &s), 1);
	assert_int_equal(pw_nft_spoof_check(nft, &wrong), 0);
	assert_int_equal(pw_nft_spoof_del(nft, &s), 0);
	assert_int_equal(pw_nft_spoof_check(nft, &s), 0);
	assert_int_equal(pw_nft_spoof_del(nft, &s), 0);
	/* by tag, without keys */
	assert_int_equal(pw_nft_spoof_add(nft, &s), 0);
	s.host_ifname = NULL;
	assert_int_equal(pw_nft_spoof_del(nft, &s), 0);
	s.host_ifname = "veth1";
	assert_int_equal(pw_nft_spoof_check(nft, &s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_masq_lifecycle),
	    cmocka_unit_test(test_spoof_lifecycle),
	    cmocka_unit_test(test_gc),
	};

	return cmocka_run_group_tests_name("nft-kernel", tests, setup, teardown);
}
