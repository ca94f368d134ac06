/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime side, execution: ADD/CHECK/DEL/GC/STATUS chains against the
 * noop and fail test doubles (${PODWIRE_TEST_BIN}). Each double appends what
 * it saw (command, env, stdin) to a record file, so the tests assert on the
 * env and stdin of every plugin, the chaining of prevResult, reverse DEL,
 * the cache file, timeouts and error propagation.
 *
 * The plugins get CNI_NETNS=/proc/self/ns/net with CNI_NETNS_OVERRIDE=1 in
 * their base environment, so no root and no namespace is needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cni/runtime.h"

#define NETNS "/proc/self/ns/net"

struct fix {
	char dir[64];
	char cache[96];
	char rec[96];
	char *base_env[3];
	struct cni_runtime rt;
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	const char *bin = getenv("PODWIRE_TEST_BIN");

	assert_non_null(f);
	assert_non_null(bin);
	strcpy(f->dir, "/tmp/pw-runtime-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->cache, sizeof(f->cache), "%s/cache", f->dir);
	snprintf(f->rec, sizeof(f->rec), "%s/rec.jsonl", f->dir);
	f->base_env[0] = (char *)"CNI_NETNS_OVERRIDE=1";
	f->base_env[1] = (char *)"PATH=/usr/bin:/bin";
	f->rt.plugin_path = bin;
	f->rt.cache_dir = f->cache;
	f->rt.timeout_ms = 10000;
	f->rt.base_env = f->base_env;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[128];

	/* Test-only clean-up of the directory this test created. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Replace every "@REC@" in tmpl with the record file and "@NAME@" with name. */
static char *expand(const struct fix *f, const char *tmpl, const char *name)
{
	char *out = malloc(strlen(tmpl) * 8 + 256), *o = out;

	assert_non_null(out);
	while (*tmpl) {
		if (strncmp(tmpl, "@REC@", 5) == 0) {
			o = stpcpy(o, f->rec);
			tmpl += 5;
		} else if (strncmp(tmpl, "@NAME@", 6) == 0) {
			o = stpcpy(o, name);
			tmpl += 6;
		} else {
			*o++ = *tmpl++;
		}
	}
	*o = '\0';
	return out;
}

static struct cni_netconf_list *mklist_named(const struct fix *f, const char *tmpl,
					     const char *name)
{
	struct cni_netconf_list *l = NULL;
	struct cni_error err = {0};
	char *json = expand(f, tmpl, name);

	if (cni_netconf_list_from_bytes(json, strlen(json), "test", false, &l, &err) < 0)
		fail_msg("%s: %s", json, err.msg);
	free(json);
	return l;
}

static struct cni_netconf_list *mklist(const struct fix *f, const char *tmpl)
{
	return mklist_named(f, tmpl, "");
}

/* All records so far, as a JSON array; the file is then truncated. */
static json_t *records(const struct fix *f)
{
	json_t *a = json_array();
	char line[65536];
	FILE *fp = fopen(f->rec, "re");

	if (!fp)
		return a;
	while (fgets(line, sizeof(line), fp)) {
		json_t *o = json_loads(line, 0, NULL);

		assert_non_null(o);
		json_array_append_new(a, o);
	}
	fclose(fp);
	assert_int_equal(unlink(f->rec), 0);
	return a;
}

static size_t n_records(const struct fix *f)
{
	json_t *a = records(f);
	size_t n = json_array_size(a);

	json_decref(a);
	return n;
}

static const char *rec_str(const json_t *recs, size_t i, const char *key)
{
	return json_string_value(json_object_get(json_array_get(recs, i), key));
}

static const json_t *rec_stdin(const json_t *recs, size_t i)
{
	return json_object_get(json_array_get(recs, i), "stdin");
}

static json_t *J(const char *s)
{
	json_t *j = json_loads(s, 0, NULL);

	if (!j)
		fail_msg("bad JSON in test: %s", s);
	return j;
}

static void assert_json_eq(const json_t *got, const char *want_text)
{
	json_t *want = J(want_text);

	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);

		fail_msg("got %s\nwant %s", g ? g : "(null)", want_text);
	}
	json_decref(want);
}

static const struct cni_runtime_arg args[] = {{(char *)"K8S_POD_NAME", (char *)"p1"},
					      {(char *)"IgnoreUnknown", (char *)"1"}};

static const char two_plugins[] =
    "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":["
    "{\"type\":\"noop\",\"recordFile\":\"@REC@\",\"capabilities\":{\"portMappings\":true},"
    "\"result\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
    "\"ips\":[{\"address\":\"10.1.0.5/24\",\"interface\":0}]}},"
    "{\"type\":\"noop\",\"recordFile\":\"@REC@\"}]}";

static void do_add(struct fix *f, const struct cni_netconf_list *l,
		   const struct cni_runtime_conf *rc, json_t **res)
{
	struct cni_error err = {0};

	if (cni_runtime_add(&f->rt, l, rc, res, &err) < 0)
		fail_msg("add: %s (%u) %s", err.msg, err.code, err.details ? err.details : "");
}

static void test_add_chain_env_stdin_cache(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l = mklist(f, two_plugins);
	json_t *caps = J("{\"portMappings\":[{\"hostPort\":80}],\"bandwidth\":{}}");
	struct cni_runtime_conf rc = {.container_id = "ctr1",
				      .netns = NETNS,
				      .ifname = "eth0",
				      .args = args,
				      .n_args = 2,
				      .capability_args = caps};
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	json_t *res = NULL, *recs;

	do_add(f, l, &rc, &res);
	recs = records(f);
	assert_int_equal(json_array_size(recs), 2);
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(rec_str(recs, i, "command"), "ADD");
		assert_string_equal(rec_str(recs, i, "containerID"), "ctr1");
		assert_string_equal(rec_str(recs, i, "netns"), NETNS);
		assert_string_equal(rec_str(recs, i, "ifname"), "eth0");
		assert_string_equal(rec_str(recs, i, "args"), "K8S_POD_NAME=p1;IgnoreUnknown=1");
		assert_string_equal(rec_str(recs, i, "path"), f->rt.plugin_path);
		/* Only stdio is inherited. */
		assert_json_eq(json_object_get(json_array_get(recs, i), "fds"), "[0,1,2]");
		assert_string_equal(json_string_value(json_object_get(rec_stdin(recs, i), "name")),
				    "net1");
	}
	/* First plugin: runtimeConfig from its capability, no prevResult, no capabilities. */
	assert_null(json_object_get(rec_stdin(recs, 0), "prevResult"));
	assert_null(json_object_get(rec_stdin(recs, 0), "capabilities"));
	assert_json_eq(json_object_get(rec_stdin(recs, 0), "runtimeConfig"),
		       "{\"portMappings\":[{\"hostPort\":80}]}");
	/* Second plugin: the first one's result as prevResult, no runtimeConfig. */
	assert_null(json_object_get(rec_stdin(recs, 1), "runtimeConfig"));
	assert_string_equal(
	    json_string_value(json_object_get(
		json_array_get(
		    json_object_get(json_object_get(rec_stdin(recs, 1), "prevResult"), "ips"), 0),
		"address")),
	    "10.1.0.5/24");
	/* The final result is the last plugin's (noop echoes prevResult). */
	assert_string_equal(json_string_value(json_object_get(res, "cniVersion")), "1.0.0");
	assert_int_equal(json_array_size(json_object_get(res, "ips")), 1);

	/* The cache entry, in libcni's format. */
	assert_int_equal(cni_cache_read(f->cache, "net1", "ctr1", "eth0", &e, &err), 1);
	assert_string_equal(e->container_id, "ctr1");
	assert_string_equal(e->ifname, "eth0");
	assert_string_equal(e->network_name, "net1");
	assert_string_equal(e->netns, NETNS);
	assert_int_equal(e->n_args, 2);
	assert_string_equal(e->args[1].key, "IgnoreUnknown");
	assert_true(json_equal(e->capability_args, caps));
	assert_true(json_equal(e->result, res));
	assert_int_equal(e->n_config, l->n_bytes);
	assert_memory_equal(e->config, l->bytes, l->n_bytes);
	cni_cache_entry_free(e);

	json_decref(recs);
	json_decref(res);
	json_decref(caps);
	cni_netconf_list_free(l);
}

static void test_add_cache_file_format(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l = mklist(f, two_plugins);
	struct cni_runtime_conf rc = {.container_id = "c2", .netns = NETNS, .ifname = "net1"};
	char path[160];
	struct stat st;
	json_t *res = NULL, *file;
	const char *keys[] = {"kind",	     "containerId", "config", "ifName",
			      "networkName", "netns",	    "result"};
	size_t i = 0;
	const char *key;
	json_t *v;

	do_add(f, l, &rc, &res);
	snprintf(path, sizeof(path), "%s/results/net1-c2-net1", f->cache);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	file = json_load_file(path, 0, NULL);
	assert_non_null(file);
	assert_string_equal(json_string_value(json_object_get(file, "kind")), "cniCacheV1");
	/* Keys in libcni's order; empty cniArgs and capabilityArgs omitted. */
	json_object_foreach (file, key, v) {
		assert_true(i < 7);
		assert_string_equal(key, keys[i++]);
	}
	assert_int_equal(i, 7);
	json_decref(file);
	json_decref(res);
	json_decref(records(f));
	cni_netconf_list_free(l);
}

static void test_add_validates_and_fails(void **state)
{
	static const struct {
		const char *cid, *ifname;
		unsigned code;
		const char *substr;
	} bad[] = {
	    {"", "eth0", 3, "missing containerID"},
	    {"a/b", "eth0", 4, "containerID \"a/b\""},
	    {"c", "", 4, "interface name"},
	    {"c", "0123456789abcdef", 4, "0123456789abcdef"},
	    {"c", "a:b", 4, "a:b"},
	    {"c", "..", 4, ".."},
	};
	struct fix *f = *state;
	struct cni_netconf_list *l = mklist(f, two_plugins);
	struct cni_error err = {0};
	json_t *res = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cni_runtime_conf rc = {
		    .container_id = bad[i].cid, .netns = NETNS, .ifname = bad[i].ifname};

		assert_true(cni_runtime_add(&f->rt, l, &rc, &res, &err) < 0);
		if (err.code != bad[i].code || !strstr(err.msg, bad[i].substr))
			fail_msg("case %zu: %u %s", i, err.code, err.msg);
		cni_error_done(&err);
	}
	assert_int_equal(n_records(f), 0);
	cni_netconf_list_free(l);

	/* The second plugin fails: its code, context prefixed, nothing cached. */
	l = mklist(f, "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"plugins\":["
		      "{\"type\":\"noop\",\"recordFile\":\"@REC@\"},"
		      "{\"type\":\"fail\",\"code\":123,\"msg\":\"nope\",\"details\":\"why\"}]}");
	struct cni_runtime_conf rc = {.container_id = "c", .netns = NETNS, .ifname = "eth0"};
	struct cni_cache_entry *e = NULL;

	assert_true(cni_runtime_add(&f->rt, l, &rc, &res, &err) < 0);
	assert_int_equal(err.code, 123);
	assert_string_equal(err.msg, "plugin type=\"fail\" name=\"n\" failed (add): nope");
	assert_non_null(strstr(err.details, "why"));
	cni_error_done(&err);
	assert_int_equal(cni_cache_read(f->cache, "n", "c", "eth0", &e, &err), 0);
	cni_netconf_list_free(l);

	/* A plugin that is not in CNI_PATH. */
	l = mklist(f,
		   "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"absent\"}]}");
	assert_true(cni_runtime_add(&f->rt, l, &rc, &res, &err) < 0);
	assert_int_equal(err.code, 104);
	assert_non_null(strstr(err.msg, "failed to find plugin \"absent\""));
	cni_error_done(&err);
	cni_netconf_list_free(l);
	json_decref(records(f));
}

static void test_check_and_del(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l = mklist(f, two_plugins);
	struct cni_runtime_conf rc = {
	    .container_id = "c3", .netns = NETNS, .ifname = "eth0", .args = args, .n_args = 1};
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	json_t *res = NULL, *recs;

	do_add(f, l, &rc, &res);
	json_decref(records(f));

	assert_int_equal(cni_runtime_check(&f->rt, l, &rc, &err), 0);
	recs = records(f);
	assert_int_equal(json_array_size(recs), 2);
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(rec_str(recs, i, "command"), "CHECK");
		assert_true(json_equal(json_object_get(rec_stdin(recs, i), "prevResult"), res));
	}
	/* List order: the first plugin is the one with "result". */
	assert_non_null(json_object_get(rec_stdin(recs, 0), "result"));
	json_decref(recs);

	assert_int_equal(cni_runtime_del(&f->rt, l, &rc, &err), 0);
	recs = records(f);
	assert_int_equal(json_array_size(recs), 2);
	/* Reverse order, cached prevResult for both, same env as ADD. */
	assert_null(json_object_get(rec_stdin(recs, 0), "result"));
	assert_non_null(json_object_get(rec_stdin(recs, 1), "result"));
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(rec_str(recs, i, "command"), "DEL");
		assert_string_equal(rec_str(recs, i, "args"), "K8S_POD_NAME=p1");
		assert_true(json_equal(json_object_get(rec_stdin(recs, i), "prevResult"), res));
	}
	json_decref(recs);
	assert_int_equal(cni_cache_read(f->cache, "net1", "c3", "eth0", &e, &err), 0);

	/* DEL again: idempotent, no prevResult any more. */
	assert_int_equal(cni_runtime_del(&f->rt, l, &rc, &err), 0);
	recs = records(f);
	assert_int_equal(json_array_size(recs), 2);
	assert_null(json_object_get(rec_stdin(recs, 0), "prevResult"));
	json_decref(recs);

	/* CHECK after DEL: nothing cached, container unknown. */
	assert_true(cni_runtime_check(&f->rt, l, &rc, &err) < 0);
	assert_int_equal(err.code, 3);
	cni_error_done(&err);
	assert_int_equal(n_records(f), 0);
	json_decref(res);
	cni_netconf_list_free(l);
}

static void test_check_version_gates(void **state)
{
	struct fix *f = *state;
	struct cni_runtime_conf rc = {.container_id = "c4", .netns = NETNS, .ifname = "eth0"};
	struct cni_netconf_list *l;
	struct cni_error err = {0};
	json_t *res = NULL, *recs;

	l = mklist(f, "{\"cniVersion\":\"0.3.1\",\"name\":\"old\",\"plugins\":["
		      "{\"type\":\"noop\",\"recordFile\":\"@REC@\"}]}");
	assert_true(cni_runtime_check(&f->rt, l, &rc, &err) < 0);
	assert_int_equal(err.code, 1);
	assert_non_null(strstr(err.msg, "\"0.3.1\" does not support the CHECK command"));
	cni_error_done(&err);
	/* 0.3.1 DEL sends no prevResult even with a cache entry. */
	do_add(f, l, &rc, &res);
	json_decref(records(f));
	assert_int_equal(cni_runtime_del(&f->rt, l, &rc, &err), 0);
	recs = records(f);
	assert_null(json_object_get(rec_stdin(recs, 0), "prevResult"));
	json_decref(recs);
	json_decref(res);
	cni_netconf_list_free(l);

	l = mklist(f, "{\"cniVersion\":\"1.0.0\",\"name\":\"nc\",\"disableCheck\":true,"
		      "\"plugins\":[{\"type\":\"fail\",\"recordFile\":\"@REC@\"}]}");
	assert_int_equal(cni_runtime_check(&f->rt, l, &rc, &err), 0);
	assert_int_equal(n_records(f), 0);
	cni_netconf_list_free(l);
}

static void test_cache_conversion_and_corruption(void **state)
{
	struct fix *f = *state;
	struct cni_runtime_conf rc = {.container_id = "c5", .netns = NETNS, .ifname = "eth0"};
	struct cni_netconf_list *l;
	struct cni_error err = {0};
	char path[160];
	json_t *recs, *prev;
	FILE *fp;

	l = mklist(f, "{\"cniVersion\":\"0.4.0\",\"name\":\"conv\",\"plugins\":["
		      "{\"type\":\"noop\",\"recordFile\":\"@REC@\"}]}");
	/* A legacy cache file (bare result) in 1.0.0 shape, as older libcni wrote. */
	snprintf(path, sizeof(path), "%s/results", f->cache);
	assert_int_equal(mkdir(f->cache, 0700), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/results/conv-c5-eth0", f->cache);
	fp = fopen(path, "we");
	fputs("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.9.0.2/16\"}]}", fp);
	fclose(fp);
	assert_int_equal(cni_runtime_check(&f->rt, l, &rc, &err), 0);
	recs = records(f);
	prev = json_object_get(rec_stdin(recs, 0), "prevResult");
	/* Converted to the list's 0.4.0: labelled so, with the per-IP version. */
	assert_string_equal(json_string_value(json_object_get(prev, "cniVersion")), "0.4.0");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(prev, "ips"), 0), "version")),
			    "4");
	json_decref(recs);

	/* Garbage in the cache: CHECK fails with a decode error, DEL goes on and drops it. */
	fp = fopen(path, "we");
	fputs("{not json", fp);
	fclose(fp);
	assert_true(cni_runtime_check(&f->rt, l, &rc, &err) < 0);
	assert_int_equal(err.code, 6);
	cni_error_done(&err);
	assert_int_equal(cni_runtime_del(&f->rt, l, &rc, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	recs = records(f);
	assert_int_equal(json_array_size(recs), 1);
	assert_null(json_object_get(rec_stdin(recs, 0), "prevResult"));
	json_decref(recs);
	cni_netconf_list_free(l);
}

static void test_del_stops_at_error(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l =
	    mklist(f, "{\"cniVersion\":\"1.0.0\",\"name\":\"d\",\"plugins\":["
		      "{\"type\":\"noop\",\"recordFile\":\"@REC@\"},"
		      "{\"type\":\"fail\",\"recordFile\":\"@REC@\",\"failOn\":[\"DEL\"],"
		      "\"code\":11,\"msg\":\"busy\"}]}");
	struct cni_runtime_conf rc = {.container_id = "c6", .netns = NETNS, .ifname = "eth0"};
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	json_t *res = NULL, *recs;

	do_add(f, l, &rc, &res);
	json_decref(records(f));
	assert_true(cni_runtime_del(&f->rt, l, &rc, &err) < 0);
	assert_int_equal(err.code, 11);
	assert_non_null(strstr(err.msg, "failed (delete): busy"));
	cni_error_done(&err);
	/* Reverse order: the failing last plugin ran first, the noop never ran. */
	recs = records(f);
	assert_int_equal(json_array_size(recs), 1);
	assert_string_equal(rec_str(recs, 0, "command"), "DEL");
	json_decref(recs);
	/* The cache stays so the DEL can be retried. */
	assert_int_equal(cni_cache_read(f->cache, "d", "c6", "eth0", &e, &err), 1);
	cni_cache_entry_free(e);
	json_decref(res);
	cni_netconf_list_free(l);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_timeout(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l =
	    mklist(f, "{\"cniVersion\":\"1.1.0\",\"name\":\"slow\",\"plugins\":["
		      "{\"type\":\"fail\",\"hangSeconds\":30}]}");
	struct cni_runtime_conf rc = {.container_id = "c7", .netns = NETNS, .ifname = "eth0"};
	struct cni_error err = {0};
	json_t *res = NULL;
	int64_t t0 = mono_ms();

	f->rt.timeout_ms = 300;
	assert_int_equal(cni_runtime_add(&f->rt, l, &rc, &res, &err), -ETIMEDOUT);
	assert_int_equal(err.code, 11);
	assert_non_null(strstr(err.msg, "timed out"));
	cni_error_done(&err);
	assert_int_equal(cni_runtime_del(&f->rt, l, &rc, &err), -ETIMEDOUT);
	assert_int_equal(err.code, 11);
	cni_error_done(&err);
	assert_int_equal(cni_runtime_status(&f->rt, l, &err), -ETIMEDOUT);
	assert_int_equal(err.code, 11);
	cni_error_done(&err);
	assert_true(mono_ms() - t0 < 5000);
	cni_netconf_list_free(l);
}

/* ---- ADD pipelining (cni_runtime_ahead) ---- */

/*
 * Two shell plugins in <dir>/bin logging to <dir>/log: "slow" takes 0.3 s
 * after reading its request, "mark" says when it started and when it was fed.
 */
static void ahead_plugins(struct fix *f, char *bin, size_t size)
{
	static const char *const body[2][2] = {
	    {"slow", "cat >/dev/null; sleep 0.3; echo slow-end >>\"$L\"; "
		     "echo '{\"cniVersion\":\"1.0.0\"}'"},
	    {"mark", "echo \"mark-start $CNI_IFNAME\" >>\"$L\"; cat >/dev/null; "
		     "echo \"mark-fed $CNI_IFNAME\" >>\"$L\"; echo '{\"cniVersion\":\"1.0.0\"}'"},
	};

	snprintf(bin, size, "%s/bin", f->dir);
	assert_int_equal(mkdir(bin, 0755), 0);
	for (size_t i = 0; i < 2; i++) {
		char path[160];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%s", bin, body[i][0]);
		assert_non_null(fp = fopen(path, "we"));
		fprintf(fp, "#!/bin/sh\nL=\"$(dirname \"$0\")/../log\"\n%s\n", body[i][1]);
		assert_int_equal(fclose(fp), 0);
		assert_int_equal(chmod(path, 0755), 0);
	}
	f->rt.plugin_path = bin;
}

/* The log so far, one line per entry joined with ',' (static buffer). */
static const char *ahead_log_filtered(const struct fix *f, bool starts)
{
	static char out[512];
	char path[128], line[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/log", f->dir);
	out[0] = '\0';
	if (!(fp = fopen(path, "re")))
		return out;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (!starts && strncmp(line, "mark-start", 10) == 0)
			continue;
		if (out[0])
			strcat(out, ",");
		strcat(out, line);
	}
	fclose(fp);
	return out;
}

static const char *ahead_log(const struct fix *f)
{
	return ahead_log_filtered(f, true);
}

/* An ADD whose result is not looked at. */
static void add_only(struct fix *f, const struct cni_netconf_list *l,
		     const struct cni_runtime_conf *rc)
{
	json_t *res = NULL;

	do_add(f, l, rc, &res);
	json_decref(res);
}

#define AHEAD_LIST(name, plugins)                                                                  \
	"{\"cniVersion\":\"1.0.0\",\"name\":\"" name "\",\"plugins\":[" plugins "]}"

static void test_ahead(void **state)
{
	struct fix *f = *state;
	struct cni_runtime_ahead ahead = {0};
	struct cni_netconf_list *a, *b, *chain;
	struct cni_runtime_conf rc = {.container_id = "c1", .netns = NETNS, .ifname = "eth0"};
	struct cni_runtime_conf rc1 = {.container_id = "c1", .netns = NETNS, .ifname = "net1"};
	char bin[96], log[128];

	ahead_plugins(f, bin, sizeof(bin));
	snprintf(log, sizeof(log), "%s/log", f->dir);
	a = mklist(f, AHEAD_LIST("a", "{\"type\":\"slow\"}"));
	b = mklist(f, AHEAD_LIST("b", "{\"type\":\"mark\"}"));
	chain = mklist(f, AHEAD_LIST("c", "{\"type\":\"slow\"},{\"type\":\"mark\"}"));
	f->rt.ahead = &ahead;
	/* b's process starts while a runs, and waits for its request. */
	ahead.next_list = b;
	ahead.next_rc = rc1;
	add_only(f, a, &rc);
	assert_non_null(ahead.started);
	assert_string_equal(ahead_log(f), "mark-start net1,slow-end");
	/* The ADD of b feeds that process: one start, then fed. */
	ahead.next_list = NULL;
	add_only(f, b, &rc1);
	assert_null(ahead.started);
	assert_string_equal(ahead_log(f), "mark-start net1,slow-end,mark-fed net1");
	assert_int_equal(unlink(log), 0);

	/* Within a list: the chained plugin starts while the first runs. */
	add_only(f, chain, &rc);
	assert_string_equal(ahead_log(f), "mark-start eth0,slow-end,mark-fed eth0");
	/* Started for another environment (ifname): killed unfed, a new one runs. */
	assert_int_equal(cni_runtime_ahead_start(&f->rt, b, &rc), 0);
	add_only(f, b, &rc1);
	/* Dropped: killed before it read anything, so it never says "fed". */
	assert_int_equal(cni_runtime_ahead_start(&f->rt, b, &rc), 0);
	assert_non_null(ahead.started);
	usleep(100 * 1000);
	cni_runtime_ahead_drop(&ahead);
	assert_null(ahead.started);
	usleep(100 * 1000);
	/* (A process killed this early may not have logged its start either.) */
	assert_string_equal(ahead_log_filtered(f, false), "slow-end,mark-fed eth0,mark-fed net1");
	cni_netconf_list_free(a);
	cni_netconf_list_free(b);
	cni_netconf_list_free(chain);
}

static void test_status(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l;
	struct cni_error err = {0};
	char *want = NULL;
	json_t *recs;

	l = mklist(f, "{\"cniVersion\":\"1.1.0\",\"name\":\"st\",\"plugins\":["
		      "{\"type\":\"noop\",\"recordFile\":\"@REC@\"},"
		      "{\"type\":\"fail\",\"recordFile\":\"@REC@\",\"code\":50,\"msg\":\"down\"},"
		      "{\"type\":\"noop\",\"recordFile\":\"@REC@\"}]}");
	assert_true(cni_runtime_status(&f->rt, l, &err) < 0);
	assert_int_equal(err.code, 50);
	assert_string_equal(err.msg, "down");
	assert_non_null(strstr(err.details, "type=\"fail\""));
	cni_error_done(&err);
	recs = records(f);
	/* Stops at the first error; env carries no attachment. */
	assert_int_equal(json_array_size(recs), 2);
	assert_string_equal(rec_str(recs, 0, "command"), "STATUS");
	assert_string_equal(rec_str(recs, 0, "containerID"), "");
	/* Only name and cniVersion injected: no prevResult, no runtimeConfig. */
	assert_true(asprintf(&want,
			     "{\"cniVersion\":\"1.1.0\",\"name\":\"st\",\"type\":\"noop\","
			     "\"recordFile\":\"%s\"}",
			     f->rec) > 0);
	assert_json_eq(rec_stdin(recs, 0), want);
	free(want);
	json_decref(recs);
	cni_netconf_list_free(l);

	/* Lists before 1.1.0 have no STATUS: success without running anything. */
	l = mklist(f, "{\"cniVersion\":\"1.0.0\",\"name\":\"st\",\"plugins\":["
		      "{\"type\":\"fail\",\"recordFile\":\"@REC@\"}]}");
	assert_int_equal(cni_runtime_status(&f->rt, l, &err), 0);
	assert_int_equal(n_records(f), 0);
	cni_netconf_list_free(l);
}

static void add_one(struct fix *f, const struct cni_netconf_list *l, const char *cid,
		    const char *ifname)
{
	struct cni_runtime_conf rc = {
	    .container_id = cid, .netns = NETNS, .ifname = ifname, .args = args, .n_args = 2};
	json_t *res = NULL;

	do_add(f, l, &rc, &res);
	json_decref(res);
}

static void test_gc(void **state)
{
	static const char gc_list[] =
	    "{\"cniVersion\":\"1.1.0\",\"name\":\"@NAME@\",\"plugins\":["
	    "{\"type\":\"noop\",\"recordFile\":\"@REC@\"},"
	    "{\"type\":\"noop\",\"recordFile\":\"@REC@\",\"cni.dev/valid-attachments\":[]}]}";
	struct fix *f = *state;
	struct cni_netconf_list *l, *other;
	const struct cni_gc_attachment valid[] = {{"keep", "eth0"}};
	struct cni_cache_entry **v = NULL;
	struct cni_error err = {0};
	size_t n = 0;
	json_t *recs;

	l = mklist_named(f, gc_list, "g");
	other = mklist_named(f, gc_list, "other");
	add_one(f, l, "keep", "eth0");
	add_one(f, l, "stale", "eth0");
	add_one(f, l, "keep", "eth1");
	add_one(f, other, "stale", "eth0");
	json_decref(records(f));

	assert_int_equal(cni_runtime_gc(&f->rt, l, true, valid, 1, &err), 0);
	recs = records(f);
	/* Two stale attachments x two plugins DEL (reverse), then GC to both plugins. */
	assert_int_equal(json_array_size(recs), 6);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(rec_str(recs, i, "command"), "DEL");
		assert_string_equal(rec_str(recs, i, "args"), "K8S_POD_NAME=p1;IgnoreUnknown=1");
		assert_string_equal(rec_str(recs, i, "netns"), NETNS);
		assert_non_null(json_object_get(rec_stdin(recs, i), "prevResult"));
	}
	assert_string_equal(rec_str(recs, 0, "containerID"), "keep");
	assert_string_equal(rec_str(recs, 0, "ifname"), "eth1");
	assert_string_equal(rec_str(recs, 2, "containerID"), "stale");
	for (size_t i = 4; i < 6; i++) {
		const json_t *in = rec_stdin(recs, i);

		assert_string_equal(rec_str(recs, i, "command"), "GC");
		assert_string_equal(rec_str(recs, i, "containerID"), "");
		assert_json_eq(json_object_get(in, "cni.dev/valid-attachments"),
			       "[{\"containerID\":\"keep\",\"ifname\":\"eth0\"}]");
		assert_json_eq(json_object_get(in, "cni.dev/attachments"),
			       "[{\"containerID\":\"keep\",\"ifname\":\"eth0\"}]");
	}
	json_decref(recs);

	/* Left: keep/eth0 of g and the other network's entry. */
	assert_int_equal(cni_cache_list(f->cache, NULL, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0]->network_name, "g");
	assert_string_equal(v[0]->container_id, "keep");
	assert_string_equal(v[1]->network_name, "other");
	cni_cache_entries_free(v, n);

	/* Without a list (cnitool's gc): everything of g goes, GC carries no list. */
	assert_int_equal(cni_runtime_gc(&f->rt, l, false, NULL, 0, &err), 0);
	recs = records(f);
	assert_int_equal(json_array_size(recs), 4);
	assert_null(json_object_get(rec_stdin(recs, 3), "cni.dev/valid-attachments"));
	json_decref(recs);
	assert_int_equal(cni_cache_list(f->cache, "stale", &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0]->network_name, "other");
	cni_cache_entries_free(v, n);
	cni_netconf_list_free(l);
	cni_netconf_list_free(other);
}

static void test_gc_collects_errors(void **state)
{
	struct fix *f = *state;
	struct cni_netconf_list *l =
	    mklist(f, "{\"cniVersion\":\"1.1.0\",\"name\":\"ge\",\"plugins\":["
		      "{\"type\":\"fail\",\"recordFile\":\"@REC@\",\"failOn\":[\"GC\"],"
		      "\"code\":120,\"msg\":\"first\"},"
		      "{\"type\":\"fail\",\"recordFile\":\"@REC@\",\"failOn\":[\"GC\"],"
		      "\"code\":121,\"msg\":\"second\"}]}");
	struct cni_error err = {0};
	json_t *recs;

	assert_true(cni_runtime_gc(&f->rt, l, true, NULL, 0, &err) < 0);
	assert_int_equal(err.code, 120);
	assert_non_null(strstr(err.msg, "first"));
	assert_non_null(strstr(err.details, "second"));
	cni_error_done(&err);
	/* Both plugins were asked despite the first error. */
	recs = records(f);
	assert_int_equal(json_array_size(recs), 2);
	assert_json_eq(json_object_get(rec_stdin(recs, 1), "cni.dev/valid-attachments"), "[]");
	json_decref(recs);
	cni_netconf_list_free(l);

	/* disableGC: nothing at all. */
	l = mklist(f, "{\"cniVersion\":\"1.1.0\",\"name\":\"ge\",\"disableGC\":\"true\","
		      "\"plugins\":[{\"type\":\"fail\",\"recordFile\":\"@REC@\"}]}");
	assert_int_equal(cni_runtime_gc(&f->rt, l, false, NULL, 0, &err), 0);
	assert_int_equal(n_records(f), 0);
	cni_netconf_list_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_add_chain_env_stdin_cache, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_cache_file_format, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_validates_and_fails, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_check_and_del, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_check_version_gates, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cache_conversion_and_corruption, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_del_stops_at_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ahead, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_status, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gc, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gc_collects_errors, setup, teardown),
	};

	return cmocka_run_group_tests_name("runtime", tests, NULL, NULL);
}
