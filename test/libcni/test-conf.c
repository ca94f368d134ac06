/* SPDX-License-Identifier: Apache-2.0 */
/* Protocol keys of a network config, unknown-key warnings (getters: test-conf-getters.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cni/log.h"
#include "cni/plugin.h"

struct conf_case {
	const char *json;
	bool lenient;
	int want_r;
	unsigned want_code;
	const char *msg_substr;
};

static const struct conf_case cases[] = {
    {"{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":\"bridge\"}", false, 0, 0, NULL},
    {"{\"name\":\"net1\"}", false, 0, 0, NULL},
    {"[1,2]", false, -EINVAL, CNI_ERR_DECODE, "not a JSON object"},
    {"{\"cniVersion\":\"1.0.0\"}", false, -EINVAL, CNI_ERR_INVALID_CONFIG, "missing network name"},
    {"{\"name\":\"../etc\"}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "name: invalid network name \"../etc\""},
    {"{\"name\":\"a/b\"}", false, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid network name"},
    {"{\"name\":7}", false, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid network name 7"},
    {"{\"name\":\"n\",\"cniVersion\":1}", false, -EINVAL, CNI_ERR_DECODE,
     "cniVersion: expected a string, got 1"},
    /* well-formed JSON naming no version: parsed; the skeleton answers code 1 */
    {"{\"name\":\"n\",\"cniVersion\":\"x.y\"}", false, 0, 0, NULL},
    {"{\"name\":\"n\",\"ipMasq\":\"yes\"}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "ipMasq: expected true or false, got \"yes\""},
    {"{\"name\":\"n\",\"ipMasq\":\"yes\"}", true, 0, 0, NULL},
    {"{\"name\":\"n\",\"ipam\":[]}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "ipam: expected an object, got []"},
    {"{\"name\":\"n\",\"ipam\":{\"type\":\"../x\"}}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "ipam.type: invalid plugin name '../x'"},
    {"{\"name\":\"n\",\"ipam\":{\"type\":5}}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "ipam.type: expected a string, got 5"},
    {"{\"name\":\"n\",\"args\":{\"cni\":{\"ips\":[\"10.0.0.1\",3]}}}", false, -EINVAL,
     CNI_ERR_INVALID_CONFIG, "args.cni.ips[1]: expected a string, got 3"},
    {"{\"name\":\"n\",\"cni.dev/valid-attachments\":[{\"containerID\":\"a\"}]}", false, -EINVAL,
     CNI_ERR_INVALID_CONFIG, "cni.dev/valid-attachments[0]"},
    {"{\"name\":\"n\",\"prevResult\":\"x\"}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "prevResult: expected an object, got \"x\""},
    {"{\"name\":\"n\",\"runtimeConfig\":[]}", false, -EINVAL, CNI_ERR_INVALID_CONFIG,
     "runtimeConfig: expected an object, got []"},
};

static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cni_error err = {0};
		struct cni_conf c = {0};
		json_t *root = NULL;
		int r;

		print_message("case %zu: %s\n", i, cases[i].json);
		assert_int_equal(
		    cni_json_loadb(cases[i].json, strlen(cases[i].json), "stdin", &root, &err), 0);
		r = cni_conf_parse_ex(root, cases[i].lenient, &c, &err);
		assert_int_equal(r, cases[i].want_r);
		if (r < 0) {
			assert_int_equal(err.code, cases[i].want_code);
			print_message("  msg: %s\n", err.msg);
			assert_non_null(strstr(err.msg, cases[i].msg_substr));
		}
		cni_conf_done(&c);
		cni_error_done(&err);
		json_decref(root);
	}
}

static void test_parse_fields(void **state)
{
	static const char json[] =
	    "{\"cniVersion\":\"0.4.0\",\"name\":\"mynet\",\"type\":\"bridge\",\"ipMasq\":true,"
	    "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.1.0.0/16\"},"
	    "\"dns\":{\"nameservers\":[\"10.1.0.1\"]},"
	    "\"args\":{\"cni\":{\"ips\":[\"10.1.0.7\"]}},"
	    "\"cni.dev/valid-attachments\":[{\"containerID\":\"c1\",\"ifname\":\"eth0\"}],"
	    "\"logLevel\":\"debug\"}";
	struct cni_error err = {0};
	struct cni_conf c = {0};
	json_t *root = NULL;

	(void)state;
	assert_int_equal(cni_json_loadb(json, sizeof(json) - 1, "stdin", &root, &err), 0);
	assert_int_equal(cni_conf_parse(root, &c, &err), 0);
	assert_int_equal(c.version, CNI_V040);
	assert_string_equal(c.name, "mynet");
	assert_string_equal(c.type, "bridge");
	assert_true(c.has_ip_masq && c.ip_masq);
	assert_string_equal(c.ipam_type, "host-local");
	assert_true(c.has_dns);
	assert_int_equal(c.dns.n_nameservers, 1);
	assert_int_equal(c.n_args_cni_ips, 1);
	assert_string_equal(c.args_cni_ips[0], "10.1.0.7");
	assert_true(c.has_valid_attachments);
	assert_int_equal(c.n_valid_attachments, 1);
	assert_string_equal(c.valid_attachments[0].ifname, "eth0");
	assert_string_equal(c.log_level, "debug");
	cni_conf_done(&c);
	json_decref(root);
}

static void test_empty_ipam_type_is_l2(void **state)
{
	static const char json[] = "{\"name\":\"n\",\"ipam\":{}}";
	struct cni_error err = {0};
	struct cni_conf c = {0};
	json_t *root = NULL;

	(void)state;
	assert_int_equal(cni_json_loadb(json, sizeof(json) - 1, "stdin", &root, &err), 0);
	assert_int_equal(cni_conf_parse(root, &c, &err), 0);
	assert_non_null(c.ipam);
	assert_null(c.ipam_type);
	cni_conf_done(&c);
	json_decref(root);
}

/* An integer beyond 64 bits is a config error naming its key, not a decode error. */
static void test_huge_integer_names_key(void **state)
{
	static const char json[] = "{\"name\":\"a\",\"x\":1e300,\"ipam\":{\"r\":[1,"
				   "{\"mtu\":99999999999999999999}]}}";
	static const char neg[] = "{\"name\":\"a\",\"mtu\":-99999999999999999999}";
	struct cni_error err = {0};
	json_t *root = NULL;

	(void)state;
	assert_int_equal(cni_conf_loadb(json, sizeof(json) - 1, "stdin", &root, &err), -EBADMSG);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	assert_string_equal(err.msg, "ipam.r[1].mtu: 99999999999999999999 is out of range "
				     "(integers are at most 64-bit)");
	cni_error_done(&err);
	assert_int_equal(cni_conf_loadb(neg, sizeof(neg) - 1, "stdin", &root, &err), -EBADMSG);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	assert_string_equal(err.msg, "mtu: out of range (integers are at most 64-bit)");
	cni_error_done(&err);
	/* other decode errors stay code 6 */
	assert_int_equal(cni_conf_loadb("{\"name\":", 8, "stdin", &root, &err), -EBADMSG);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	cni_error_done(&err);
	assert_null(root);
}

/* cni_json_load_journal: the first line, folded with complete update lines. */
static void journal_case(const char *text, const char *want)
{
	struct cni_error err = {0};
	json_t *got = NULL, *exp = json_loads(want, 0, NULL);

	assert_non_null(exp);
	assert_int_equal(cni_json_load_journal(text, strlen(text), "t", "a", &got, &err), 0);
	assert_true(json_equal(got, exp));
	json_decref(got);
	json_decref(exp);
}

static void test_journal(void **state)
{
	struct cni_error err = {0};
	json_t *got = NULL;

	(void)state;
	/* Plain documents: one line, none, or pretty-printed over several. */
	journal_case("{\"a\":[1,2]}", "{\"a\":[1,2]}");
	journal_case("{\"a\":[1,2]}\n", "{\"a\":[1,2]}");
	journal_case("{\n \"a\": [1, 2]\n}\n", "{\"a\":[1,2]}");
	/* Updates replace elements, in order. */
	journal_case("{\"a\":[1,2]}\n{\"index\":1,\"value\":{\"s\":\"x\"}}\n"
		     "{\"index\":0,\"value\":3}\n{\"index\":1,\"value\":4}\n",
		     "{\"a\":[3,4]}");
	/* A torn last append (no newline) is ignored. */
	journal_case("{\"a\":[1,2]}\n{\"index\":0,\"value\":3}\n{\"index\":1,\"val",
		     "{\"a\":[3,2]}");
	journal_case("{\"a\":[1,2]}\n{\"index\":1,\"value\":5}", "{\"a\":[1,2]}");
	/* Not an update of the array (out of range, no value, garbage) ends the journal. */
	journal_case("{\"a\":[1,2]}\n{\"index\":2,\"value\":3}\n{\"index\":0,\"value\":9}\n",
		     "{\"a\":[1,2]}");
	journal_case("{\"a\":[1,2]}\n{\"index\":-1,\"value\":3}\n", "{\"a\":[1,2]}");
	journal_case("{\"a\":[1,2]}\n{\"index\":0}\n", "{\"a\":[1,2]}");
	journal_case("{\"a\":[1,2]}\n\n{\"index\":0,\"value\":3}\n", "{\"a\":[1,2]}");
	journal_case("{\"a\":[1,2]}\nxx\n", "{\"a\":[1,2]}");
	journal_case("{\"b\":1}\n{\"index\":0,\"value\":3}\n", "{\"b\":1}");
	/* A broken document is the first line's error, code 6. */
	assert_int_equal(cni_json_load_journal("{\"a\":", 5, "t", "a", &got, &err), -EBADMSG);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	assert_non_null(strstr(err.msg, "t: invalid JSON"));
	cni_error_done(&err);
	assert_null(got);
}

static void test_duplicate_keys_rejected(void **state)
{
	static const char json[] = "{\"name\":\"a\",\"name\":\"b\"}";
	struct cni_error err = {0};
	json_t *root = NULL;

	(void)state;
	assert_int_equal(cni_json_loadb(json, sizeof(json) - 1, "stdin", &root, &err), -EBADMSG);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	assert_non_null(strstr(err.msg, "duplicate object key"));
	assert_non_null(strstr(err.msg, "line 1"));
	cni_error_done(&err);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(cni_valid_name("a"));
	assert_true(cni_valid_name("0abc_d.e-f"));
	assert_false(cni_valid_name(""));
	assert_false(cni_valid_name(".."));
	assert_false(cni_valid_name("-a"));
	assert_false(cni_valid_name("a/b"));
	assert_false(cni_valid_name("a b"));
	assert_true(cni_valid_ifname("eth0"));
	assert_true(cni_valid_ifname("123456789012345"));
	assert_false(cni_valid_ifname("1234567890123456"));
	assert_false(cni_valid_ifname("."));
	assert_false(cni_valid_ifname(".."));
	assert_false(cni_valid_ifname("a/b"));
	assert_false(cni_valid_ifname("a:b"));
	assert_false(cni_valid_ifname("a b"));
	assert_false(cni_valid_ifname("a\tb"));
	assert_false(cni_valid_ifname("\xc3\xa9th0"));
	assert_false(cni_valid_ifname(""));
}

static void test_get_ci(void **state)
{
	json_t *o = json_pack("{s:i, s:i, s:i}", "HostPort", 1, "hostport", 2, "Subnet", 3);

	(void)state;
	assert_int_equal(json_integer_value(cni_json_get_ci(o, "hostport")), 2); /* exact wins */
	assert_int_equal(json_integer_value(cni_json_get_ci(o, "subnet")), 3);
	assert_null(cni_json_get_ci(o, "gateway"));
	json_decref(o);
}

/* Log capture for warnings. */
static char captured[4096];

static void capture(enum cni_log_level level, const char *line, void *userdata)
{
	(void)level;
	(void)userdata;
	strncat(captured, line, sizeof(captured) - strlen(captured) - 2);
	strcat(captured, "\n");
}

static void test_unknown_keys_warn_with_hint(void **state)
{
	static const char *const known[] = {"bridge", "isGateway", "hairpinMode", NULL};
	json_t *o =
	    json_pack("{s:s, s:b, s:b, s:i, s:s, s:i}", "name", "n", "isGatway", 1, "hairpinMod", 1,
		      "frobnicate", 1, "cniVersion", "1.0.0", "cni.dev/x", 1);

	struct cni_error err = {0};
	const struct cni_conf_reader rd = {.err = &err, .obj = o, .path = ""};

	(void)state;
	captured[0] = '\0';
	cni_log_set_sink(capture, NULL);
	assert_int_equal(cni_conf_check_keys(&rd, known, true), 0);
	cni_log_set_sink(NULL, NULL);
	assert_false(cni_error_isset(&err));
	assert_non_null(strstr(captured, "'isGatway': unknown key, ignoring (did you mean "
					 "'isGateway'?)"));
	assert_non_null(strstr(captured, "(did you mean 'hairpinMode'?)"));
	assert_non_null(strstr(captured, "'frobnicate': unknown key, ignoring\n"));
	assert_null(strstr(captured, "cniVersion"));
	assert_null(strstr(captured, "cni.dev/x"));
	json_decref(o);
}

/* A key known but for letter case is an error on a strict reader, naming path and key. */
static void test_case_miss_is_error(void **state)
{
	static const char *const known[] = {"vlan", "caFile", NULL};
	static const struct {
		const char *json, *path;
		bool lenient, ci, protocol;
		const char *want; /* error message, NULL: no error */
	} miss_cases[] = {
	    {"{\"vLan\":5}", "", false, false, false, "'vLan': unknown key (did you mean 'vlan'?)"},
	    {"{\"CAFILE\":\"x\"}", "ipam.etcd", false, false, false,
	     "ipam.etcd.'CAFILE': unknown key (did you mean 'caFile'?)"},
	    {"{\"CNIVersion\":\"1.0.0\"}", "", false, false, true,
	     "'CNIVersion': unknown key (did you mean 'cniVersion'?)"},
	    {"{\"CNIVersion\":\"1.0.0\"}", "", false, false, false, NULL}, /* not a protocol obj */
	    {"{\"vLan\":5}", "", true, false, false, NULL},		   /* DEL, GC: a warning */
	    {"{\"vLan\":5}", "", false, true, false, NULL}, /* read case-insensitively */
	    {"{\"vlann\":5, \"vlan\":1}", "", false, false, false, NULL}, /* typo: a warning */
	    {"{\"vlan\":5, \"cni.dev/VLAN\":1}", "", false, false, false, NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(miss_cases) / sizeof(miss_cases[0]); i++) {
		json_t *o = json_loads(miss_cases[i].json, 0, NULL);
		struct cni_error err = {0};
		const struct cni_conf_reader rd = {.err = &err,
						   .obj = o,
						   .path = miss_cases[i].path,
						   .lenient = miss_cases[i].lenient,
						   .ci = miss_cases[i].ci};
		int r = cni_conf_check_keys(&rd, known, miss_cases[i].protocol);

		if (miss_cases[i].want) {
			assert_int_equal(r, -EINVAL);
			assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
			assert_string_equal(err.msg, miss_cases[i].want);
		} else {
			assert_int_equal(r, 0);
			assert_false(cni_error_isset(&err));
		}
		cni_error_done(&err);
		json_decref(o);
	}
	assert_string_equal(cni_key_case_miss("IPMASQ", (const char *const[]){"ipMasq", NULL}),
			    "ipMasq");
	assert_null(cni_key_case_miss("ipMasqq", (const char *const[]){"ipMasq", NULL}));
}

/* Reals are whole numbers only inside json_int_t's range (2e80 was UB when cast). */
static void test_json_whole_number(void **state)
{
	static const struct {
		const char *json;
		bool ok;
		long long value;
	} wn_cases[] = {
	    {"1500", true, 1500}, {"1500.0", true, 1500}, {"-7.0", true, -7},
	    {"1500.5", false, 0}, {"2e80", false, 0},	  {"-2e80", false, 0},
	    {"9.3e18", false, 0}, {"-9.3e18", false, 0},  {"\"1\"", false, 0},
	    {"true", false, 0},	  {"null", false, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(wn_cases) / sizeof(wn_cases[0]); i++) {
		json_t *v = json_loads(wn_cases[i].json, JSON_DECODE_ANY, NULL);
		json_int_t got = 0;

		assert_non_null(v);
		assert_int_equal(cni_json_whole_number(v, &got), wn_cases[i].ok);
		if (wn_cases[i].ok)
			assert_int_equal(got, wn_cases[i].value);
		json_decref(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_table),
	    cmocka_unit_test(test_parse_fields),
	    cmocka_unit_test(test_empty_ipam_type_is_l2),
	    cmocka_unit_test(test_duplicate_keys_rejected),
	    cmocka_unit_test(test_journal),
	    cmocka_unit_test(test_huge_integer_names_key),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_get_ci),
	    cmocka_unit_test(test_unknown_keys_warn_with_hint),
	    cmocka_unit_test(test_case_miss_is_error),
	    cmocka_unit_test(test_json_whole_number),
	};

	return cmocka_run_group_tests_name("cni_conf", tests, NULL, NULL);
}
