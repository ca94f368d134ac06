/* SPDX-License-Identifier: Apache-2.0 */
/* base/dl.h: the soname list, the symbol table and the one error text. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/dl.h"

static size_t (*my_strlen)(const char *);
static int (*my_abs)(int);

static void test_dl_loads_and_resolves(void **state)
{
	static const char *const names[] = {"libpodwire-none.so.9", "libc.so.6", NULL};
	const struct dl_sym syms[] = {DL_SYM("strlen", my_strlen), DL_SYM("abs", my_abs)};
	char why[256];
	void *h;

	(void)state;
	h = dl_load(names, syms, 2, why, sizeof(why)); /* the second name loads */
	assert_non_null(h);
	assert_string_equal(why, "");
	assert_int_equal(my_strlen("four"), 4);
	assert_int_equal(my_abs(-3), 3);
	dlclose(h);
}

static void test_dl_no_library(void **state)
{
	static const char *const names[] = {"libpodwire-none.so.9", NULL};
	static const char *const none[] = {NULL};
	char why[256];

	(void)state;
	assert_null(dl_load(names, NULL, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "libpodwire-none.so.9")); /* dlerror's text names it */
	assert_null(dl_load(none, NULL, 0, why, sizeof(why)));
	assert_string_equal(why, "no library to load");
}

static void test_dl_missing_symbol(void **state)
{
	static const char *const names[] = {"libc.so.6", NULL};
	const struct dl_sym syms[] = {DL_SYM("strlen", my_strlen),
				      DL_SYM("podwire_no_such_symbol", my_abs)};
	char why[256];

	(void)state;
	assert_null(dl_load(names, syms, 2, why, sizeof(why)));
	assert_string_equal(why, "libc.so.6 lacks podwire_no_such_symbol");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dl_loads_and_resolves),
	    cmocka_unit_test(test_dl_no_library),
	    cmocka_unit_test(test_dl_missing_symbol),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
