/* SPDX-License-Identifier: Apache-2.0 */
/* podnet names and tags: deterministic, stable across releases, parseable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nlw/link.h"
#include "podnet/name.h"

static void veth(const char *cid, const char *ifn, unsigned attempt, char *buf)
{
	assert_int_equal(podnet_host_ifname("veth", 8, cid, ifn, attempt, buf), 0);
}

static void test_bridge_names(void **state)
{
	char a[IFNAMSIZ], b[IFNAMSIZ], c[IFNAMSIZ], d[IFNAMSIZ];

	(void)state;
	veth("c1", "eth0", 0, a);
	veth("c1", "eth0", 0, b);
	veth("c1", "eth1", 0, c);
	veth("c1", "eth0", 1, d);
	assert_string_equal(a, b); /* deterministic: DEL finds it without state */
	/* Stable across versions too: these are what every release so far derived. */
	assert_string_equal(a, "veth63f78586");
	veth("0123456789abcdef", "net1", 3, b);
	assert_string_equal(b, "vethab16e980");
	assert_int_equal(strlen(a), 12);
	assert_string_not_equal(a, c);
	assert_string_not_equal(a, d); /* retries pick another name */
	/* "c1"+"0eth" must not collide with "c10"+"eth": separators are hashed */
	veth("c10", "eth", 0, c);
	veth("c1", "0eth", 0, d);
	assert_string_not_equal(c, d);
}

static void test_long_names(void **state)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];

	(void)state;
	/* bgp-route: "pwr" + 11 hex digits of a 64-bit hash: 14 bytes. */
	assert_int_equal(podnet_host_ifname("pwr", 11, "c1", "eth0", 0, a), 0);
	assert_int_equal(strlen(a), 14);
	assert_string_equal(a, "pwr96f19677b26"); /* names are state: they never change */
	for (size_t i = 3; i < 14; i++)
		assert_non_null(strchr("0123456789abcdef", a[i]));
	assert_int_equal(podnet_host_ifname("pwr", 11, "c1", "eth0", 0, b), 0);
	assert_string_equal(a, b);
	assert_int_equal(podnet_host_ifname("pwr", 11, "c1", "eth1", 0, b), 0);
	assert_string_not_equal(a, b);
	/* Too long for IFNAMSIZ, or more digits than the hash has. */
	assert_int_equal(podnet_host_ifname("pwrx", 12, "c1", "eth0", 0, b), -EINVAL);
	assert_int_equal(podnet_host_ifname("", 17, "c1", "eth0", 0, b), -EINVAL);
	assert_int_equal(podnet_host_ifname("p", 0, "c1", "eth0", 0, b), -EINVAL);
	assert_int_equal(podnet_host_ifname("", 15, "c1", "eth0", 0, b), 0);
	assert_int_equal(strlen(b), 15);
}

static void test_alias(void **state)
{
	char a[NLW_ALIAS_MAX], b[NLW_ALIAS_MAX], copy[NLW_ALIAS_MAX], longid[300];
	const char *net, *cid, *ifn;

	(void)state;
	podnet_alias("mynet", "c1", "eth0", a);
	assert_string_equal(a, "podwire:mynet/c1/eth0");
	assert_true(podnet_alias_matches(a, "mynet", "c1", "eth0"));
	assert_false(podnet_alias_matches(a, "other", "c1", "eth0"));
	assert_false(podnet_alias_matches(a, "mynet", "c1", "eth1"));
	/* The tag of releases before the network was part of it. */
	assert_true(podnet_alias_matches("podwire:c1/eth0", "mynet", "c1", "eth0"));
	assert_false(podnet_alias_matches("podwire:c1/eth0", "mynet", "c2", "eth0"));
	assert_int_equal(podnet_alias_parse(a, copy, &net, &cid, &ifn), 0);
	assert_string_equal(net, "mynet");
	assert_string_equal(cid, "c1");
	assert_string_equal(ifn, "eth0");
	assert_int_equal(podnet_alias_parse("podwire:c1/eth0", copy, &net, &cid, &ifn), -EINVAL);
	assert_int_equal(podnet_alias_parse("other:n/c/i", copy, &net, &cid, &ifn), -EINVAL);
	assert_int_equal(podnet_alias_parse("podwire:n//i", copy, &net, &cid, &ifn), -EINVAL);
	assert_int_equal(podnet_alias_parse("podwire:n/c/i/x", copy, &net, &cid, &ifn), -EINVAL);
	/* Cut alike on ADD and DEL; a cut tag is never parsed (GC leaves it). */
	memset(longid, 'f', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	podnet_alias("n", longid, "eth0", a);
	podnet_alias("n", longid, "eth0", b);
	assert_int_equal(strlen(a), NLW_ALIAS_MAX - 1);
	assert_string_equal(a, b);
	assert_true(podnet_alias_matches(a, "n", longid, "eth0"));
	assert_int_equal(podnet_alias_parse(a, copy, &net, &cid, &ifn), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bridge_names),
	    cmocka_unit_test(test_long_names),
	    cmocka_unit_test(test_alias),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
