/* SPDX-License-Identifier: Apache-2.0 */
/* static IPAM through its handlers and the skeleton (static-table.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ipam/static.h"
#include "static-table.h"

static void test_table(void **state)
{
	char dir[64];
	char cmd[128];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/pw-static.XXXXXX");
	assert_non_null(mkdtemp(dir));
	ipam_table_run(static_cases, sizeof(static_cases) / sizeof(static_cases[0]),
		       &ipam_static_ops, dir, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
