/* SPDX-License-Identifier: Apache-2.0 */
/* The typed config getters: every type and range error, absent and null, lenient readers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cni/log.h"
#include "cni/plugin.h"

enum kind { BOOL, STRING, UINT, U64, OBJECT, ARRAY };

struct getter_case {
	enum kind kind;
	const char *value; /* JSON of member "k" of the object read; NULL: no member */
	unsigned min, max; /* UINT; ARRAY: max is the length cap */
	const char *msg;   /* the error; NULL: no error */
	const char *got;   /* the value read back (JSON), when no error and present */
};

/* Read at path "p" (so every message starts "p.k: "). */
static const struct getter_case cases[] = {
    {BOOL, "true", 0, 0, NULL, "true"},
    {BOOL, "false", 0, 0, NULL, "false"},
    {BOOL, NULL, 0, 0, NULL, NULL},
    {BOOL, "null", 0, 0, NULL, NULL},
    {BOOL, "\"yes\"", 0, 0, "p.k: expected true or false, got \"yes\"", NULL},
    {BOOL, "1", 0, 0, "p.k: expected true or false, got 1", NULL},
    {STRING, "\"cni0\"", 0, 0, NULL, "\"cni0\""},
    {STRING, "\"\"", 0, 0, NULL, "\"\""},
    {STRING, NULL, 0, 0, NULL, NULL},
    {STRING, "null", 0, 0, NULL, NULL},
    {STRING, "5", 0, 0, "p.k: expected a string, got 5", NULL},
    {STRING, "[\"a\"]", 0, 0, "p.k: expected a string, got [\"a\"]", NULL},
    {UINT, "5", 5, 255, NULL, "5"},
    {UINT, "255", 5, 255, NULL, "255"},
    {UINT, "80.0", 5, 255, NULL, "80"},
    {UINT, NULL, 5, 255, NULL, NULL},
    {UINT, "null", 5, 255, NULL, NULL},
    {UINT, "4", 5, 255, "p.k: expected an integer from 5 to 255, got 4", NULL},
    {UINT, "256", 5, 255, "p.k: expected an integer from 5 to 255, got 256", NULL},
    {UINT, "-1", 0, 255, "p.k: expected an integer from 0 to 255, got -1", NULL},
    {UINT, "80.5", 5, 255, "p.k: expected an integer from 5 to 255, got 80.5", NULL},
    {UINT, "\"80\"", 5, 255, "p.k: expected an integer from 5 to 255, got \"80\"", NULL},
    {UINT, "true", 5, 255, "p.k: expected an integer from 5 to 255, got true", NULL},
    {UINT, "2e80", 0, 65535, "p.k: expected an integer from 0 to 65535, got 2", NULL},
    {UINT, "4294967295", 0, UINT32_MAX, NULL, "4294967295"},
    {UINT, "4294967296", 0, UINT32_MAX,
     "p.k: expected an integer from 0 to 4294967295, got 4294967296", NULL},
    {U64, "0", 0, 0, NULL, "0"},
    {U64, "9223372036854775807", 0, 0, NULL, "9223372036854775807"},
    {U64, "1e3", 0, 0, NULL, "1000"},
    {U64, NULL, 0, 0, NULL, NULL},
    {U64, "-1", 0, 0, "p.k: expected a non-negative integer, got -1", NULL},
    {U64, "1.5", 0, 0, "p.k: expected a non-negative integer, got 1.5", NULL},
    {U64, "\"1\"", 0, 0, "p.k: expected a non-negative integer, got \"1\"", NULL},
    {U64, "1e19", 0, 0, "p.k: expected a non-negative integer, got 1", NULL},
    {OBJECT, "{\"a\":1}", 0, 0, NULL, "{\"a\":1}"},
    {OBJECT, NULL, 0, 0, NULL, NULL},
    {OBJECT, "[]", 0, 0, "p.k: expected an object, got []", NULL},
    {OBJECT, "\"x\"", 0, 0, "p.k: expected an object, got \"x\"", NULL},
    {ARRAY, "[1,2]", 0, 2, NULL, "[1,2]"},
    {ARRAY, "[]", 0, 2, NULL, "[]"},
    {ARRAY, NULL, 0, 2, NULL, NULL},
    {ARRAY, "[1,2,3]", 0, 2, "p.k: expected a list of at most 2 entries, got 3", NULL},
    {ARRAY, "{}", 0, 2, "p.k: expected a list of at most 2 entries, got {}", NULL},
};

static char captured[1024];

static void capture(enum cni_log_level level, const char *line, void *userdata)
{
	(void)level;
	(void)userdata;
	strncat(captured, line, sizeof(captured) - strlen(captured) - 2);
	strcat(captured, "\n");
}

/* Calls the case's getter; *got is what it read, as JSON (owned), or NULL. */
static int get(const struct cni_conf_reader *rd, const struct getter_case *c, bool *present,
	       char **got)
{
	const json_t *j = NULL;
	const char *s = NULL;
	unsigned u = 0;
	uint64_t u64 = 0;
	bool b = false;
	int r = -1;

	*got = NULL;
	switch (c->kind) {
	case BOOL:
		if ((r = cni_conf_get_bool(rd, "k", &b, present)) == 0 && *present)
			*got = strdup(b ? "true" : "false");
		break;
	case STRING:
		if ((r = cni_conf_get_string(rd, "k", &s, present)) == 0 && *present)
			assert_true(asprintf(got, "\"%s\"", s) > 0);
		break;
	case UINT:
		if ((r = cni_conf_get_uint(rd, "k", c->min, c->max, &u, present)) == 0 && *present)
			assert_true(asprintf(got, "%u", u) > 0);
		break;
	case U64:
		if ((r = cni_conf_get_u64(rd, "k", &u64, present)) == 0 && *present)
			assert_true(asprintf(got, "%llu", (unsigned long long)u64) > 0);
		break;
	case OBJECT:
		if ((r = cni_conf_get_object(rd, "k", &j, present)) == 0 && *present)
			*got = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		break;
	case ARRAY:
		if ((r = cni_conf_get_array(rd, "k", c->max, &j, present)) == 0 && *present)
			*got = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		break;
	}
	return r;
}

static json_t *object_of(const struct getter_case *c)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "{\"k\":%s}", c->value ? c->value : "0");
	return c->value ? json_loads(buf, 0, NULL) : json_object();
}

static void check_strict(size_t i, const struct getter_case *c)
{
	struct cni_error err = {0};
	json_t *o = object_of(c);
	const struct cni_conf_reader rd = {.err = &err, .obj = o, .path = "p"};
	bool present = true;
	char *got = NULL;
	int r;

	assert_non_null(o);
	r = get(&rd, c, &present, &got);
	if (c->msg) {
		if (r != -EINVAL || !err.msg || strncmp(err.msg, c->msg, strlen(c->msg)) != 0 ||
		    err.code != CNI_ERR_INVALID_CONFIG || present)
			fail_msg("case %zu: r=%d msg=%s", i, r, err.msg ? err.msg : "(none)");
	} else {
		if (r != 0 || cni_error_isset(&err) || present != !!c->got ||
		    (c->got && strcmp(got, c->got) != 0))
			fail_msg("case %zu: r=%d present=%d got=%s", i, r, present,
				 got ? got : "(none)");
	}
	free(got);
	cni_error_done(&err);
	json_decref(o);
}

/* Lenient: a bad value is a warning with the same text, and reads as absent. */
static void check_lenient(size_t i, const struct getter_case *c)
{
	struct cni_error err = {0};
	json_t *o = object_of(c);
	const struct cni_conf_reader rd = {.err = &err, .obj = o, .path = "p", .lenient = true};
	bool present = true;
	char *got = NULL;
	int r;

	captured[0] = '\0';
	cni_log_set_sink(capture, NULL);
	r = get(&rd, c, &present, &got);
	cni_log_set_sink(NULL, NULL);
	if (r != 0 || cni_error_isset(&err) || present || got || !strstr(captured, c->msg) ||
	    !strstr(captured, ", ignoring"))
		fail_msg("case %zu: r=%d present=%d warning=%s", i, r, present, captured);
	json_decref(o);
}

static void test_getters(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_strict(i, &cases[i]);
		if (cases[i].msg)
			check_lenient(i, &cases[i]);
	}
}

/* A bad value leaves *ret as it was: the caller's default stands. */
static void test_bad_value_keeps_default(void **state)
{
	json_t *o = json_pack("{s:i, s:s}", "mtu", 70000, "s", "x");
	struct cni_error err = {0};
	struct cni_conf_reader rd = {.err = &err, .obj = o, .path = ""};
	unsigned u = 7;
	bool b = true;

	(void)state;
	assert_int_equal(cni_conf_get_uint(&rd, "mtu", 0, 65535, &u, NULL), -EINVAL);
	assert_string_equal(err.msg, "mtu: expected an integer from 0 to 65535, got 70000");
	assert_int_equal(u, 7);
	cni_error_done(&err);
	rd.lenient = true;
	assert_int_equal(cni_conf_get_bool(&rd, "s", &b, NULL), 0);
	assert_true(b);
	assert_false(cni_error_isset(&err));
	json_decref(o);
}

/* Not an object (NULL, a list): every key reads as absent. */
static void test_not_an_object(void **state)
{
	json_t *arr = json_pack("[i]", 1);
	struct cni_error err = {0};
	const struct cni_conf_reader none = {.err = &err, .path = "x"};
	const struct cni_conf_reader list = {.err = &err, .obj = arr, .path = "x"};
	const char *s = "kept";
	bool present = true;

	(void)state;
	assert_int_equal(cni_conf_get_string(&none, "k", &s, &present), 0);
	assert_false(present);
	present = true;
	assert_int_equal(cni_conf_get_string(&list, "0", &s, &present), 0);
	assert_false(present);
	assert_string_equal(s, "kept");
	assert_false(cni_error_isset(&err));
	json_decref(arr);
}

/* ci: an exact match wins, else any case (containerd's "Mtu"); not ci: exact only. */
static void test_case_insensitive(void **state)
{
	json_t *o = json_pack("{s:i, s:i, s:i}", "MTU", 1, "Burst", 2, "burst", 3);
	struct cni_error err = {0};
	struct cni_conf_reader rd = {.err = &err, .obj = o, .path = "runtimeConfig"};
	unsigned u = 0;
	bool present = false;

	(void)state;
	assert_int_equal(cni_conf_get_uint(&rd, "mtu", 0, 9, &u, &present), 0);
	assert_false(present);
	rd.ci = true;
	assert_int_equal(cni_conf_get_uint(&rd, "mtu", 0, 9, &u, &present), 0);
	assert_true(present);
	assert_int_equal(u, 1);
	assert_int_equal(cni_conf_get_uint(&rd, "burst", 0, 9, &u, &present), 0);
	assert_int_equal(u, 3);
	rd = cni_conf_at(&rd, o, "runtimeConfig.bandwidth");
	assert_true(rd.ci);
	assert_int_equal(cni_conf_get_uint(&rd, "mtu", 0, 0, &u, &present), -EINVAL);
	assert_string_equal(err.msg,
			    "runtimeConfig.bandwidth.mtu: expected an integer from 0 to 0, got 1");
	cni_error_done(&err);
	json_decref(o);
}

/* The plugin's reader: strict on ADD, CHECK, STATUS; lenient on DEL and GC. */
static void test_ctx_reader(void **state)
{
	static const struct {
		enum cni_command cmd;
		bool lenient;
	} cmds[] = {
	    {CNI_CMD_ADD, false}, {CNI_CMD_CHECK, false}, {CNI_CMD_STATUS, false},
	    {CNI_CMD_DEL, true},  {CNI_CMD_GC, true},
	};
	json_t *o = json_object();

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct cni_ctx ctx = {.command = cmds[i].cmd};
		struct cni_conf_reader rd = cni_ctx_reader(&ctx, o, "ipam");

		assert_ptr_equal(rd.err, &ctx.err);
		assert_ptr_equal(rd.obj, o);
		assert_string_equal(rd.path, "ipam");
		assert_int_equal(rd.lenient, cmds[i].lenient);
		assert_false(rd.ci);
	}
	json_decref(o);
}

static void test_invalid_and_bad_value(void **state)
{
	json_t *v = json_string("x");
	struct cni_error err = {0};
	struct cni_conf_reader rd = {.err = &err, .path = "vlanTrunk[0]"};

	(void)state;
	assert_int_equal(cni_conf_invalid(&rd, CNI_ERR_INVALID_ENV, "a %s", "b"), -EINVAL);
	assert_int_equal(err.code, CNI_ERR_INVALID_ENV);
	assert_string_equal(err.msg, "a b");
	cni_error_done(&err);
	assert_int_equal(cni_conf_bad_value(&rd, NULL, v, "expected an object"), -EINVAL);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	assert_string_equal(err.msg, "vlanTrunk[0]: expected an object, got \"x\"");
	cni_error_done(&err);
	rd.path = "";
	assert_int_equal(cni_conf_bad_value(&rd, "mac", v, "expected a MAC"), -EINVAL);
	assert_string_equal(err.msg, "mac: expected a MAC, got \"x\"");
	cni_error_done(&err);
	rd.lenient = true;
	captured[0] = '\0';
	cni_log_set_sink(capture, NULL);
	assert_int_equal(cni_conf_invalid(&rd, CNI_ERR_INVALID_CONFIG, "mtu: too big"), 0);
	cni_log_set_sink(NULL, NULL);
	assert_false(cni_error_isset(&err));
	assert_non_null(strstr(captured, "mtu: too big, ignoring"));
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_getters),	  cmocka_unit_test(test_bad_value_keeps_default),
	    cmocka_unit_test(test_not_an_object), cmocka_unit_test(test_case_insensitive),
	    cmocka_unit_test(test_ctx_reader),	  cmocka_unit_test(test_invalid_and_bad_value),
	};

	return cmocka_run_group_tests_name("cni_conf_getters", tests, NULL, NULL);
}
