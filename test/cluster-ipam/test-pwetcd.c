/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: request bodies and the parsers, against responses
 * recorded from etcd 3.4.23 (including the omitted-default cases).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "pwetcd/etcd.h"

#define HDR                                                                                        \
	"\"header\":{\"cluster_id\":\"13551787383666069607\",\"member_id\":"                       \
	"\"6094581469650864925\",\"revision\":\"3\",\"raft_term\":\"2\"}"

static void test_prefix_end(void **state)
{
	size_t n;
	char *e;
	(void)state;

	e = pwetcd_prefix_end("/a/", 3, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(e, "/a0", 3);
	free(e);
	e = pwetcd_prefix_end("a\xff", 2, &n);
	assert_int_equal(n, 1);
	assert_memory_equal(e, "b", 1);
	free(e);
	e = pwetcd_prefix_end("\xff", 1, &n);
	assert_int_equal(n, 1);
	assert_int_equal(e[0], 0);
	free(e);
}

static void test_range_found(void **state)
{
	const char *body = "{" HDR ",\"kvs\":[{\"key\":\"Zm9v\",\"create_revision\":\"2\","
			   "\"mod_revision\":\"3\",\"version\":\"2\",\"value\":\"YmFy\","
			   "\"lease\":\"77\"}],\"count\":\"1\"}";
	struct pwetcd_range_result r;
	(void)state;

	assert_int_equal(pwetcd_parse_range(body, strlen(body), &r, NULL), 0);
	assert_int_equal(r.revision, 3);
	assert_int_equal(r.n_kvs, 1);
	assert_string_equal(r.kvs[0].key, "foo");
	assert_string_equal(r.kvs[0].value, "bar");
	assert_int_equal(r.kvs[0].value_len, 3);
	assert_int_equal(r.kvs[0].create_revision, 2);
	assert_int_equal(r.kvs[0].mod_revision, 3);
	assert_int_equal(r.kvs[0].version, 2);
	assert_int_equal(r.kvs[0].lease, 77);
	assert_int_equal(r.count, 1);
	assert_false(r.more);
	pwetcd_range_result_done(&r);
}

static void test_range_empty_omits_kvs(void **state)
{
	const char *body = "{" HDR "}";
	struct pwetcd_range_result r;
	(void)state;

	assert_int_equal(pwetcd_parse_range(body, strlen(body), &r, NULL), 0);
	assert_int_equal(r.n_kvs, 0);
	assert_null(r.kvs);
	assert_int_equal(r.count, 0);
	assert_int_equal(r.revision, 3);
}

static void test_range_keys_only_more(void **state)
{
	const char *body =
	    "{" HDR ",\"kvs\":[{\"key\":\"YQ==\",\"create_revision\":\"11\","
	    "\"mod_revision\":\"11\",\"version\":\"1\"}],\"more\":true,\"count\":\"3\"}";
	struct pwetcd_range_result r;
	(void)state;

	assert_int_equal(pwetcd_parse_range(body, strlen(body), &r, NULL), 0);
	assert_true(r.more);
	assert_int_equal(r.count, 3);
	assert_null(r.kvs[0].value);
	pwetcd_range_result_done(&r);
}

static void test_range_malformed(void **state)
{
	static const char *const bad[] = {
	    "",
	    "[]",
	    "{\"kvs\":{}}",
	    "{\"kvs\":[{\"value\":\"YQ==\"}]}",
	    "{\"kvs\":[{\"key\":\"!\"}]}",
	    "{\"count\":\"x\"}",
	    "{\"count\":true}",
	    "{\"more\":\"yes\"}",
	    "{\"header\":[]}",
	    "{\"error\":\"illegal base64 data at input byte 0\",\"message\":\"x\",\"code\":3}",
	    "{\"a\":1,\"a\":2}",
	};
	struct pwetcd_range_result r;
	const char *why;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		assert_int_equal(pwetcd_parse_range(bad[i], strlen(bad[i]), &r, &why), -EBADMSG);
		assert_non_null(why);
	}
}

static void test_txn_failed_has_no_succeeded(void **state)
{
	const char *body =
	    "{" HDR ",\"responses\":[{\"response_range\":{\"header\":{\"revision\":\"4\"},"
	    "\"kvs\":[{\"key\":\"Zm9v\",\"create_revision\":\"4\",\"mod_revision\":\"4\","
	    "\"version\":\"1\",\"value\":\"YmFy\"}],\"count\":\"1\"}}]}";
	struct pwetcd_txn_result t;
	(void)state;

	assert_int_equal(pwetcd_parse_txn(body, strlen(body), &t, NULL), 0);
	assert_false(t.succeeded);
	assert_int_equal(t.n_ops, 1);
	assert_int_equal(t.ops[0].kind, PWETCD_OP_RANGE);
	assert_int_equal(t.ops[0].range.n_kvs, 1);
	assert_int_equal(t.ops[0].range.kvs[0].mod_revision, 4);
	pwetcd_txn_result_done(&t);
}

static void test_txn_succeeded(void **state)
{
	const char *body =
	    "{" HDR ",\"succeeded\":true,\"responses\":[{\"response_put\":{\"header\":"
	    "{\"revision\":\"6\"}}},{\"response_delete_range\":{\"header\":{},"
	    "\"deleted\":\"1\"}},{\"response_range\":{\"header\":{\"revision\":\"3\"}}}]}";
	struct pwetcd_txn_result t;
	(void)state;

	assert_int_equal(pwetcd_parse_txn(body, strlen(body), &t, NULL), 0);
	assert_true(t.succeeded);
	assert_int_equal(t.revision, 3);
	assert_int_equal(t.n_ops, 3);
	assert_int_equal(t.ops[0].kind, PWETCD_OP_PUT);
	assert_int_equal(t.ops[1].kind, PWETCD_OP_DELETE);
	assert_int_equal(t.ops[1].deleted, 1);
	assert_int_equal(t.ops[2].kind, PWETCD_OP_RANGE);
	assert_int_equal(t.ops[2].range.n_kvs, 0);
	pwetcd_txn_result_done(&t);
}

static void test_txn_malformed(void **state)
{
	static const char *const bad[] = {
	    "{\"succeeded\":\"true\"}",
	    "{\"responses\":{}}",
	    "{\"responses\":[{}]}",
	    "{\"responses\":[1]}",
	    "{\"responses\":[{\"response_range\":{\"kvs\":[1]}}]}",
	    "null",
	};
	struct pwetcd_txn_result t;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pwetcd_parse_txn(bad[i], strlen(bad[i]), &t, NULL), -EBADMSG);
}

static void test_txn_json(void **state)
{
	struct pwetcd_txn *t = pwetcd_txn_new();
	struct pwetcd_range_req rr = {.key = "/a/", .prefix = true, .keys_only = true};
	char *s;
	(void)state;

	assert_int_equal(pwetcd_txn_cmp(t, "foo", PWETCD_TARGET_MOD, PWETCD_EQUAL, 4), 0);
	assert_int_equal(pwetcd_txn_cmp(t, "h", PWETCD_TARGET_VERSION, PWETCD_EQUAL, 0), 0);
	assert_int_equal(pwetcd_txn_put(t, PWETCD_SUCCESS, "foo", "bar", 3, 0), 0);
	assert_int_equal(pwetcd_txn_delete(t, PWETCD_SUCCESS, "x", false), 0);
	assert_int_equal(pwetcd_txn_range(t, PWETCD_FAILURE, &rr), 0);
	assert_int_equal(pwetcd_txn_ops(t), 2);
	s = pwetcd_txn_json(t);
	assert_string_equal(
	    s,
	    "{\"compare\":[{\"key\":\"Zm9v\",\"target\":\"MOD\",\"result\":\"EQUAL\","
	    "\"mod_revision\":\"4\"},{\"key\":\"aA==\",\"target\":\"VERSION\",\"result\":"
	    "\"EQUAL\",\"version\":\"0\"}],\"success\":[{\"request_put\":{\"key\":\"Zm9v\","
	    "\"value\":\"YmFy\"}},{\"request_delete_range\":{\"key\":\"eA==\"}}],\"failure\":"
	    "[{\"request_range\":{\"key\":\"L2Ev\",\"range_end\":\"L2Ew\",\"keys_only\":true}}]}");
	free(s);
	/* a bad enum sticks */
	assert_int_equal(pwetcd_txn_cmp(t, "foo", PWETCD_TARGET_VALUE, PWETCD_EQUAL, 1), -EINVAL);
	assert_null(pwetcd_txn_json(t));
	pwetcd_txn_free(t);
}

/* Every field the builders can write, byte for byte. */
static void test_txn_json_fields(void **state)
{
	struct pwetcd_txn *t = pwetcd_txn_new();
	struct pwetcd_range_req r1 = {.key = "/a/b",
				      .range_end = "/a/c",
				      .limit = 5,
				      .revision = 77,
				      .count_only = true,
				      .serializable = true};
	struct pwetcd_range_req r2 = {.key = "\xff\xff", .key_len = 2, .prefix = true};
	struct pwetcd_range_req r3 = {.key = "k", .range_end = "zz", .range_end_len = 1};
	char *s;
	(void)state;

	assert_int_equal(pwetcd_txn_cmp_value(t, "v", PWETCD_NOT_EQUAL, "hello", 5), 0);
	assert_int_equal(pwetcd_txn_cmp(t, "c", PWETCD_TARGET_CREATE, PWETCD_GREATER, -3), 0);
	assert_int_equal(pwetcd_txn_cmp(t, "l", PWETCD_TARGET_LEASE, PWETCD_LESS, INT64_MAX), 0);
	assert_int_equal(pwetcd_txn_put(t, PWETCD_FAILURE, "p", "", 0, 42), 0);
	assert_int_equal(pwetcd_txn_put(t, PWETCD_SUCCESS, "q", NULL, 0, 0), 0);
	assert_int_equal(pwetcd_txn_delete(t, PWETCD_FAILURE, "/pre/", true), 0);
	assert_int_equal(pwetcd_txn_range(t, PWETCD_SUCCESS, &r1), 0);
	assert_int_equal(pwetcd_txn_range(t, PWETCD_SUCCESS, &r2), 0);
	assert_int_equal(pwetcd_txn_range(t, PWETCD_FAILURE, &r3), 0);
	assert_int_equal(pwetcd_txn_ops(t), 3);
	s = pwetcd_txn_json(t);
	assert_string_equal(
	    s, "{\"compare\":[{\"key\":\"dg==\",\"target\":\"VALUE\",\"result\":\"NOT_EQUAL\","
	       "\"value\":\"aGVsbG8=\"},{\"key\":\"Yw==\",\"target\":\"CREATE\",\"result\":"
	       "\"GREATER\",\"create_revision\":\"-3\"},{\"key\":\"bA==\",\"target\":\"LEASE\","
	       "\"result\":\"LESS\",\"lease\":\"9223372036854775807\"}],\"success\":[{"
	       "\"request_put\":{\"key\":\"cQ==\",\"value\":\"\"}},{\"request_range\":{\"key\":"
	       "\"L2EvYg==\",\"range_end\":\"L2EvYw==\",\"limit\":\"5\",\"revision\":\"77\","
	       "\"count_only\":true,\"serializable\":true}},{\"request_range\":{\"key\":\"//8=\","
	       "\"range_end\":\"AA==\"}}],\"failure\":[{\"request_put\":{\"key\":\"cA==\","
	       "\"value\":\"\",\"lease\":\"42\"}},{\"request_delete_range\":{\"key\":"
	       "\"L3ByZS8=\",\"range_end\":\"L3ByZTA=\"}},{\"request_range\":{\"key\":\"aw==\","
	       "\"range_end\":\"eg==\"}}]}");
	free(s);
	/* no key, a bad branch: errors that stick */
	assert_int_equal(pwetcd_txn_put(t, PWETCD_SUCCESS, NULL, "x", 1, 0), -EINVAL);
	assert_int_equal(pwetcd_txn_put(t, (enum pwetcd_branch)7, "k", "x", 1, 0), -EINVAL);
	assert_null(pwetcd_txn_json(t));
	pwetcd_txn_free(t);
	t = pwetcd_txn_new();
	s = pwetcd_txn_json(t);
	assert_string_equal(s, "{\"compare\":[],\"success\":[],\"failure\":[]}");
	free(s);
	pwetcd_txn_free(t);
}

static void test_lease(void **state)
{
	const char *grant = "{" HDR ",\"ID\":\"2324035721482998545\",\"TTL\":\"30\"}";
	const char *ka = "{\"result\":{" HDR ",\"ID\":\"2324035721482998545\",\"TTL\":\"30\"}}";
	const char *gone = "{\"result\":{" HDR ",\"ID\":\"2324035721482998545\"}}";
	int64_t id, ttl;
	(void)state;

	assert_int_equal(pwetcd_parse_lease(grant, strlen(grant), &id, &ttl, NULL), 0);
	assert_true(id == 2324035721482998545LL);
	assert_int_equal(ttl, 30);
	assert_int_equal(pwetcd_parse_lease(ka, strlen(ka), &id, &ttl, NULL), 0);
	assert_int_equal(ttl, 30);
	assert_int_equal(pwetcd_parse_lease(gone, strlen(gone), &id, &ttl, NULL), 0);
	assert_int_equal(ttl, 0);
	assert_int_equal(pwetcd_parse_lease("{\"TTL\":{}}", 10, &id, &ttl, NULL), -EBADMSG);
}

static void test_watch(void **state)
{
	const char *created = "{\"result\":{" HDR ",\"created\":true}}";
	const char *put = "{\"result\":{" HDR ",\"events\":[{\"kv\":{\"key\":\"Zm9vMQ==\","
			  "\"create_revision\":\"2\",\"mod_revision\":\"2\",\"version\":\"1\","
			  "\"value\":\"YmFy\"}},{\"type\":\"DELETE\",\"kv\":{\"key\":\"Zm9vMQ==\","
			  "\"mod_revision\":\"3\"}}]}}";
	const char *compacted = "{\"result\":{" HDR ",\"canceled\":true,\"compact_revision\":\"9\","
				"\"cancel_reason\":\"compacted\"}}";
	struct pwetcd_watch_batch b;
	(void)state;

	assert_int_equal(pwetcd_parse_watch_message(created, strlen(created), &b, NULL), 0);
	assert_true(b.created);
	assert_int_equal(b.n_events, 0);
	pwetcd_watch_batch_done(&b);
	assert_int_equal(pwetcd_parse_watch_message(put, strlen(put), &b, NULL), 0);
	assert_int_equal(b.n_events, 2);
	assert_int_equal(b.events[0].type, PWETCD_EVENT_PUT);
	assert_string_equal(b.events[0].kv.value, "bar");
	assert_int_equal(b.events[1].type, PWETCD_EVENT_DELETE);
	assert_null(b.events[1].kv.value);
	pwetcd_watch_batch_done(&b);
	assert_int_equal(pwetcd_parse_watch_message(compacted, strlen(compacted), &b, NULL), 0);
	assert_true(b.canceled);
	assert_int_equal(b.compact_revision, 9);
	assert_string_equal(b.cancel_reason, "compacted");
	pwetcd_watch_batch_done(&b);
	assert_int_equal(pwetcd_parse_watch_message("{\"error\":{\"grpc_code\":14}}", 26, &b, NULL),
			 -EBADMSG);
	assert_int_equal(pwetcd_parse_watch_message("{\"result\":{\"events\":[{\"type\":\"X\"}]}}",
						    37, &b, NULL),
			 -EBADMSG);
}

static void test_error(void **state)
{
	const char *e = "{\"error\":\"etcdserver: requested lease not found\",\"message\":"
			"\"etcdserver: requested lease not found\",\"code\":5}";
	int code;
	char *msg;
	(void)state;

	assert_int_equal(pwetcd_parse_error(e, strlen(e), &code, &msg), 0);
	assert_int_equal(code, 5);
	assert_string_equal(msg, "etcdserver: requested lease not found");
	free(msg);
	assert_int_equal(pwetcd_parse_error("<html>", 6, &code, &msg), -EBADMSG);
	assert_int_equal(code, -1);
}

static void test_open_endpoints(void **state)
{
	static const char *const good[] = {"http://127.0.0.1:2379/", "unix:///tmp/x",
					   "https://etcd:2379"};
	static const char *const bad1[] = {"ftp://x"}, *const bad2[] = {"unix://relative"},
				 *const bad3[] = {"http://"};
	struct pwetcd_config cfg = {.endpoints = good, .n_endpoints = 3};
	struct pwetcd_client *c = NULL;
	(void)state;

	assert_int_equal(pwetcd_open(&cfg, &c), 0);
	assert_true(pwetcd_remaining_ms(c) > 0);
	assert_true(pwetcd_remaining_ms(c) <= PWETCD_DEFAULT_TIMEOUT_MS);
	pwetcd_close(c);
	cfg.n_endpoints = 1;
	cfg.endpoints = bad1;
	assert_int_equal(pwetcd_open(&cfg, &c), -EINVAL);
	cfg.endpoints = bad2;
	assert_int_equal(pwetcd_open(&cfg, &c), -EINVAL);
	cfg.endpoints = bad3;
	assert_int_equal(pwetcd_open(&cfg, &c), -EINVAL);
	cfg.n_endpoints = 0;
	assert_int_equal(pwetcd_open(&cfg, &c), -EINVAL);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The call's deadline, not the client's opening, bounds every request. */
static void test_set_deadline(void **state)
{
	static const char *const eps[] = {"unix:///nonexistent/pwetcd-test.sock"};
	struct pwetcd_config cfg = {.endpoints = eps, .n_endpoints = 1, .timeout_ms = 60000};
	struct pwetcd_client *c = NULL;
	struct pwetcd_kv kv;
	bool found;
	uint64_t now = mono_ms();
	(void)state;

	assert_int_equal(pwetcd_open(&cfg, &c), 0);
	assert_true(pwetcd_remaining_ms(c) > 59000);
	pwetcd_set_deadline(c, now + 500);
	assert_true(pwetcd_remaining_ms(c) <= 500);
	/* passed: -ETIMEDOUT before any connect (the socket would refuse) */
	pwetcd_set_deadline(c, now - 1);
	assert_int_equal(pwetcd_remaining_ms(c), 0);
	assert_int_equal(pwetcd_get(c, "/k", &kv, &found), -ETIMEDOUT);
	assert_int_equal(pwetcd_requests(c), 0);
	assert_non_null(strstr(pwetcd_errmsg(c), "budget spent"));
	pwetcd_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prefix_end),
	    cmocka_unit_test(test_range_found),
	    cmocka_unit_test(test_range_empty_omits_kvs),
	    cmocka_unit_test(test_range_keys_only_more),
	    cmocka_unit_test(test_range_malformed),
	    cmocka_unit_test(test_txn_failed_has_no_succeeded),
	    cmocka_unit_test(test_txn_succeeded),
	    cmocka_unit_test(test_txn_malformed),
	    cmocka_unit_test(test_txn_json),
	    cmocka_unit_test(test_txn_json_fields),
	    cmocka_unit_test(test_lease),
	    cmocka_unit_test(test_watch),
	    cmocka_unit_test(test_error),
	    cmocka_unit_test(test_open_endpoints),
	    cmocka_unit_test(test_set_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
