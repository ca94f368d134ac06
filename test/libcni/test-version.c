/* SPDX-License-Identifier: Apache-2.0 */
/* Version parsing and the error helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "cni/error.h"
#include "cni/version.h"

static void test_version_parse(void **state)
{
	static const struct {
		const char *in;
		int r;
		enum cni_version v;
	} cases[] = {
	    {NULL, 0, CNI_V010},
	    {"", 0, CNI_V010},
	    {"0.1.0", 0, CNI_V010},
	    {"0.2.0", 0, CNI_V020},
	    {"0.3.0", 0, CNI_V030},
	    {"0.3.1", 0, CNI_V031},
	    {"0.4.0", 0, CNI_V040},
	    {"1.0.0", 0, CNI_V100},
	    {"1.1.0", 0, CNI_V110},
	    {"1.1", 0, CNI_V110},
	    {"1", 0, CNI_V100},
	    {"0.5.0", -EPROTONOSUPPORT, CNI_V_INVALID},
	    {"2.0.0", -EPROTONOSUPPORT, CNI_V_INVALID},
	    {"1.0.0-rc1", -EINVAL, CNI_V_INVALID},
	    {"v1.0.0", -EINVAL, CNI_V_INVALID},
	    {"1..0", -EINVAL, CNI_V_INVALID},
	    {"01.0.0", -EINVAL, CNI_V_INVALID},
	    {"1.0.0.0", -EINVAL, CNI_V_INVALID},
	    {"a.b.c", -EINVAL, CNI_V_INVALID},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum cni_version v = CNI_V_INVALID;

		print_message("case '%s'\n", cases[i].in ? cases[i].in : "(null)");
		assert_int_equal(cni_version_parse(cases[i].in, &v), cases[i].r);
		if (cases[i].r == 0)
			assert_int_equal(v, cases[i].v);
	}
	assert_string_equal(cni_version_str(CNI_V110), "1.1.0");
	assert_true(cni_version_is_legacy(CNI_V020));
	assert_true(cni_version_is_040(CNI_V031));
	assert_true(cni_version_is_100(CNI_V100));
}

static void test_semver_cmp(void **state)
{
	struct cni_semver a, b;

	(void)state;
	assert_int_equal(cni_semver_parse("0.4.0", &a), 0);
	assert_int_equal(cni_semver_parse("0.10.0", &b), 0);
	assert_true(cni_semver_cmp(&a, &b) < 0);
	assert_int_equal(cni_semver_parse("1.0", &b), 0);
	assert_true(cni_semver_cmp(&b, &a) > 0);
	assert_int_equal(cni_semver_cmp(&a, &a), 0);
}

static void test_errorf_first_wins(void **state)
{
	struct cni_error e = {0};

	(void)state;
	assert_int_equal(cni_errorf(&e, CNI_ERR_INVALID_CONFIG, -EINVAL, "mtu: bad '%s'", "x"),
			 -EINVAL);
	assert_int_equal(cni_errorf(&e, CNI_ERR_IO, -EIO, "later"), -EIO);
	assert_int_equal(e.code, CNI_ERR_INVALID_CONFIG);
	assert_string_equal(e.msg, "mtu: bad 'x'");
	assert_null(e.details); /* EINVAL adds no detail */
	cni_error_done(&e);
	assert_int_equal(e.code, 0);
}

static void test_wrap_and_detail(void **state)
{
	struct cni_error e = {0};

	(void)state;
	cni_errorf(&e, CNI_ERR_PLUGIN, -EEXIST, "create veth 'veth1'");
	assert_string_equal(e.details, "File exists");
	cni_error_wrapf(&e, -EEXIST, "bridge '%s'", "cni0");
	assert_string_equal(e.msg, "bridge 'cni0': create veth 'veth1'");
	cni_error_add_detail(&e, "kernel: name in use");
	assert_string_equal(e.details, "File exists; kernel: name in use");
	cni_error_done(&e);
}

static void test_from_errno(void **state)
{
	static const struct {
		int r;
		unsigned code;
	} map[] = {
	    {-EAGAIN, CNI_ERR_TRY_AGAIN},    {-EBUSY, CNI_ERR_TRY_AGAIN},
	    {-ETIMEDOUT, CNI_ERR_TRY_AGAIN}, {-EIO, CNI_ERR_IO},
	    {-ENOENT, CNI_ERR_PLUGIN},	     {-EPERM, CNI_ERR_PLUGIN},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		struct cni_error e = {0};

		cni_error_from_errno(&e, map[i].r);
		assert_int_equal(e.code, map[i].code);
		assert_string_equal(e.msg, strerror(-map[i].r));
		cni_error_done(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_version_parse),     cmocka_unit_test(test_semver_cmp),
	    cmocka_unit_test(test_errorf_first_wins), cmocka_unit_test(test_wrap_and_detail),
	    cmocka_unit_test(test_from_errno),
	};

	return cmocka_run_group_tests_name("cni_version_error", tests, NULL, NULL);
}
