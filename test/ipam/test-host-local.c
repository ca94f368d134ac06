/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host-local through its real handlers and the skeleton (cni_plugin_run):
 * the reference's host_local_test.go and config_test.go cases (ipam-table.h),
 * plus the resolv.conf parser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ipam-table.h"
#include "ipam/host-local.h"

static char dir[64];

static void write_file(const char *name, const char *content)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pw-host-local.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	write_file("resolv.conf", "nameserver 192.0.2.3\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_table(void **state)
{
	(void)state;
	ipam_table_run(host_local_cases, sizeof(host_local_cases) / sizeof(host_local_cases[0]),
		       &ipam_host_local_ops, dir, NULL);
}

static void test_resolv_conf(void **state)
{
	struct cni_dns dns = {0};
	char path[128];

	(void)state;
	write_file("r2", "# comment\n; other comment\n\nnameserver 192.0.2.1\nnameserver "
			 "2001:db8::53\ndomain a.example\ndomain b.example\nsearch x.example "
			 "y.example\noptions ndots:5 edns0\nbogus\n");
	snprintf(path, sizeof(path), "%s/r2", dir);
	assert_int_equal(host_local_parse_resolv_conf(path, &dns), 0);
	assert_int_equal(dns.n_nameservers, 2);
	assert_string_equal(dns.nameservers[1], "2001:db8::53");
	assert_string_equal(dns.domain, "b.example");
	assert_int_equal(dns.n_search, 2);
	assert_string_equal(dns.search[1], "y.example");
	assert_int_equal(dns.n_options, 2);
	assert_string_equal(dns.options[0], "ndots:5");
	cni_dns_done(&dns);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(host_local_parse_resolv_conf(path, &dns), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_resolv_conf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
