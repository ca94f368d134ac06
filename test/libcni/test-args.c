/* SPDX-License-Identifier: Apache-2.0 */
/* CNI_ARGS parsing: the reference's strictness, table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cni/args.h"

struct args_case {
	const char *in;
	int want_r;
	size_t want_n;
	bool ignore_unknown;
	const char *msg_substr;
};

static const struct args_case cases[] = {
    {NULL, 0, 0, false, NULL},
    {"", 0, 0, false, NULL},
    {"IP=10.0.0.5", 0, 1, false, NULL},
    {"IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0;"
     "K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_UID=u-1",
     0, 5, true, NULL},
    {"IgnoreUnknown=TRUE", 0, 1, true, NULL},
    {"IgnoreUnknown=false;A=b", 0, 2, false, NULL},
    {"IgnoreUnknown=0", 0, 1, false, NULL},
    {"IgnoreUnknown=yes", -EINVAL, 0, false, "IgnoreUnknown: not a boolean: 'yes'"},
    {"A=b=c", -EINVAL, 0, false, "invalid pair 'A=b=c'"},
    {"A", -EINVAL, 0, false, "invalid pair 'A'"},
    {"=v", -EINVAL, 0, false, "invalid pair '=v'"},
    {"A=b;", -EINVAL, 0, false, "invalid pair ''"},
    {";A=b", -EINVAL, 0, false, "invalid pair ''"},
    {"A=", 0, 1, false, NULL},
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cni_error err = {0};
		struct cni_args a = {0};
		int r = cni_args_parse(cases[i].in, &a, &err);

		print_message("case %zu: '%s'\n", i, cases[i].in ? cases[i].in : "(null)");
		assert_int_equal(r, cases[i].want_r);
		if (r == 0) {
			assert_int_equal(a.n, cases[i].want_n);
			assert_int_equal(a.ignore_unknown, cases[i].ignore_unknown);
		} else {
			assert_int_equal(err.code, CNI_ERR_INVALID_ENV);
			assert_non_null(strstr(err.msg, cases[i].msg_substr));
		}
		cni_args_done(&a);
		cni_error_done(&err);
	}
}

static void test_get_later_wins(void **state)
{
	struct cni_error err = {0};
	struct cni_args a = {0};

	(void)state;
	assert_int_equal(cni_args_parse("MAC=aa:bb:cc:dd:ee:01;MAC=aa:bb:cc:dd:ee:02", &a, &err),
			 0);
	assert_string_equal(cni_args_get(&a, "MAC"), "aa:bb:cc:dd:ee:02");
	assert_null(cni_args_get(&a, "mac")); /* keys are case-sensitive */
	cni_args_done(&a);
}

static void test_unknown_keys(void **state)
{
	static const char *const known[] = {"IP", "MAC", NULL};
	struct cni_error err = {0};
	struct cni_args a = {0};

	(void)state;
	assert_int_equal(cni_args_parse("IP=10.0.0.1;K8S_POD_NAME=x;FOO=bar", &a, &err), 0);
	assert_int_equal(cni_args_check_known(&a, known, &err), -EINVAL);
	assert_int_equal(err.code, CNI_ERR_INVALID_ENV);
	assert_non_null(strstr(err.msg, "\"K8S_POD_NAME=x\" \"FOO=bar\""));
	cni_error_done(&err);
	cni_args_done(&a);

	assert_int_equal(cni_args_parse("IgnoreUnknown=1;FOO=bar", &a, &err), 0);
	assert_int_equal(cni_args_check_known(&a, known, &err), 0);
	cni_args_done(&a);
}

static void test_too_many(void **state)
{
	char buf[CNI_ARGS_MAX * 8 + 16] = "";
	struct cni_error err = {0};
	struct cni_args a = {0};

	(void)state;
	for (int i = 0; i <= CNI_ARGS_MAX; i++)
		sprintf(buf + strlen(buf), "%sK%d=v", i ? ";" : "", i);
	assert_int_equal(cni_args_parse(buf, &a, &err), -E2BIG);
	assert_int_equal(err.code, CNI_ERR_INVALID_ENV);
	cni_error_done(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_table),
	    cmocka_unit_test(test_get_later_wins),
	    cmocka_unit_test(test_unknown_keys),
	    cmocka_unit_test(test_too_many),
	};

	return cmocka_run_group_tests_name("cni_args", tests, NULL, NULL);
}
