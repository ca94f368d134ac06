/* SPDX-License-Identifier: Apache-2.0 */
/* cnitool helpers: container ID, paths, CNI_ARGS, --timeout. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cnitool.h"

static void test_container_id(void **state)
{
	char id[CNITOOL_CONTAINER_ID_LEN];

	(void)state;
	/* Values computed with another SHA-512 implementation, as upstream derives them. */
	cnitool_container_id("/var/run/netns/blue", id);
	assert_string_equal(id, "cnitool-296747069b8a02dc4e2a");
	cnitool_container_id("/run/netns/pw-demo-a", id);
	assert_string_equal(id, "cnitool-ee85f2d2871ee769f47c");
}

static void test_abs_path(void **state)
{
	static const struct {
		const char *in, *want;
	} v[] = {
	    {"/run/netns/x", "/run/netns/x"},
	    {"/run//netns/./x/", "/run/netns/x"},
	    {"/run/netns/../netns/x", "/run/netns/x"},
	    {"/../../x", "/x"},
	    {"/", "/"},
	    {"sub/../y", "/tmp/y"},
	    {"x", "/tmp/x"},
	    {"..", "/"},
	};
	char *p;

	(void)state;
	assert_int_equal(chdir("/tmp"), 0);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(cnitool_abs_path(v[i].in, &p), 0);
		if (strcmp(p, v[i].want) != 0)
			fail_msg("%s: got %s want %s", v[i].in, p, v[i].want);
		free(p);
	}
	assert_int_equal(cnitool_abs_path("", &p), -EINVAL);
}

static void test_cni_args(void **state)
{
	static const char *const bad[] = {"A", "A=", "=b", "A=b=c", "A=b;", "A=b;;C=d", ";"};
	struct cni_runtime_arg *a = NULL;
	struct cni_error err = {0};
	size_t n = 0;

	(void)state;
	assert_int_equal(cnitool_parse_cni_args("K8S_POD_NAME=p;IgnoreUnknown=1", &a, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(a[0].key, "K8S_POD_NAME");
	assert_string_equal(a[0].value, "p");
	assert_string_equal(a[1].key, "IgnoreUnknown");
	assert_string_equal(a[1].value, "1");
	cnitool_args_free(a, n);
	assert_int_equal(cnitool_parse_cni_args("", &a, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(cnitool_parse_cni_args(NULL, &a, &n, &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cnitool_parse_cni_args(bad[i], &a, &n, &err), -EINVAL);
		assert_int_equal(err.code, 4);
		assert_non_null(strstr(err.msg, "CNI_ARGS"));
		cni_error_done(&err);
	}
	assert_int_equal(cnitool_parse_cni_args("A=b=c", &a, &n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "\"A=b=c\""));
	cni_error_done(&err);
}

static void test_timeout(void **state)
{
	static const struct {
		const char *in;
		int r, ms;
	} v[] = {
	    {"30", 0, 30000},	 {"0", 0, 0},	      {"250ms", 0, 250},	{"5s", 0, 5000},
	    {"2m", 0, 120000},	 {"", -EINVAL, 0},    {"s", -EINVAL, 0},	{"-1", -EINVAL, 0},
	    {"1.5", -EINVAL, 0}, {"10h", -EINVAL, 0}, {"99999999", -ERANGE, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int ms = -1, r = cnitool_parse_timeout(v[i].in, &ms);

		if (r != v[i].r || (r == 0 && ms != v[i].ms))
			fail_msg("\"%s\": r=%d ms=%d", v[i].in, r, ms);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_container_id),
	    cmocka_unit_test(test_abs_path),
	    cmocka_unit_test(test_cni_args),
	    cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests_name("cnitool", tests, NULL, NULL);
}
