/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime side, configuration: conflist parsing (table-driven), version
 * selection, directory lookup with libcni's rules, request building, and the
 * cache format helpers. No plugin is executed here.
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
#include <unistd.h>

#include <cmocka.h>

#include "cni/runtime.h"

/* ---- conflist parsing ---- */

struct bad_case {
	const char *json;
	unsigned code;
	const char *substr;
};

static const struct bad_case bad_lists[] = {
    {"[]", 6, "object"},
    {"{\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"a\"}]}", 7, "name"},
    {"{\"name\":\"\",\"plugins\":[{\"type\":\"a\"}]}", 7, "name"},
    {"{\"name\":\"n\",\"plugins\":[]}", 7, "no plugins in list"},
    {"{\"name\":\"n\",\"plugins\":{}}", 7, "plugins: must be a list"},
    {"{\"name\":\"n\",\"plugins\":[{\"type\":\"a\"},{\"x\":1}]}", 7, "plugins[1]"},
    {"{\"name\":\"n\",\"plugins\":[{\"type\":\"\"}]}", 7, "\"type\""},
    {"{\"name\":\"n\",\"plugins\":[7]}", 7, "plugins[0]: must be an object"},
    {"{\"name\":\"n\",\"disableCheck\":\"yes\",\"plugins\":[{\"type\":\"a\"}]}", 7,
     "disableCheck: invalid value \"yes\""},
    {"{\"name\":\"n\",\"disableGC\":1,\"plugins\":[{\"type\":\"a\"}]}", 7, "disableGC"},
    {"{\"name\":\"n\",\"loadOnlyInlinedPlugins\":true}", 7, "loadOnlyInlinedPlugins"},
    {"{\"name\":\"n\",\"cniVersion\":\"x.y\",\"plugins\":[{\"type\":\"a\"}]}", 6,
     "cniVersion: invalid version \"x.y\""},
    {"{\"name\":\"n\",\"cniVersions\":[\"1.0.0\",\"bogus\"],\"plugins\":[{\"type\":\"a\"}]}", 6,
     "cniVersions[1]"},
    {"{\"name\":\"n\",\"cniVersions\":\"1.0.0\",\"plugins\":[{\"type\":\"a\"}]}", 6, "cniVersions"},
    {"{\"name\":\"n\",\"name\":\"m\",\"plugins\":[{\"type\":\"a\"}]}", 6, ""},
    {"{\"name\":\"n\",", 6, ""},
};

static void test_list_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
		const struct bad_case *c = &bad_lists[i];
		struct cni_netconf_list *l = NULL;
		struct cni_error err = {0};
		int r =
		    cni_netconf_list_from_bytes(c->json, strlen(c->json), "test", false, &l, &err);

		if (r >= 0 || err.code != c->code || !err.msg || !strstr(err.msg, c->substr))
			fail_msg("case %zu %s: r=%d code=%u msg=%s", i, c->json, r, err.code,
				 err.msg ? err.msg : "(null)");
		assert_null(l);
		cni_error_done(&err);
	}
}

static struct cni_netconf_list *parse_ok(const char *json)
{
	struct cni_netconf_list *l = NULL;
	struct cni_error err = {0};

	if (cni_netconf_list_from_bytes(json, strlen(json), "test", false, &l, &err) < 0)
		fail_msg("%s: %s", json, err.msg ? err.msg : "?");
	return l;
}

struct version_case {
	const char *json_versions; /* the version keys of the list */
	const char *want;	   /* NULL: no version */
};

static const struct version_case versions[] = {
    {"\"cniVersion\":\"0.4.0\"", "0.4.0"},
    {"\"cniVersion\":\"0.4.0\",\"cniVersions\":[\"1.0.0\",\"0.3.1\"]", "1.0.0"},
    /* Newer than we speak: skipped; cniVersion is a candidate too. */
    {"\"cniVersion\":\"1.0.0\",\"cniVersions\":[\"9.0.0\",\"0.3.1\"]", "1.0.0"},
    {"\"cniVersion\":\"0.3.1\",\"cniVersions\":[\"1.1.0\",\"1.2.0\"]", "1.1.0"},
    {"\"cniVersions\":[\"0.3.0\",\"0.4.0\"]", "0.4.0"},
    /* Nothing usable: cniVersion kept as given. */
    {"\"cniVersion\":\"2.0.0\",\"cniVersions\":[]", "2.0.0"},
    {"\"cniVersion\":\"2.0.0\",\"cniVersions\":[\"3.0.0\"]", "2.0.0"},
    {"\"cniVersions\":[]", NULL},
    {"\"name2\":1", NULL},
};

static void test_list_version_selection(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		char json[512];
		struct cni_netconf_list *l;

		snprintf(json, sizeof(json), "{\"name\":\"n\",%s,\"plugins\":[{\"type\":\"a\"}]}",
			 versions[i].json_versions);
		l = parse_ok(json);
		if (versions[i].want)
			assert_string_equal(l->cni_version, versions[i].want);
		else
			assert_null(l->cni_version);
		cni_netconf_list_free(l);
	}
}

static void test_list_flags_and_plugins(void **state)
{
	struct cni_netconf_list *l;

	(void)state;
	l = parse_ok("{\"name\":\"n\",\"cniVersion\":\"1.1.0\",\"disableCheck\":\"TRUE\","
		     "\"disableGC\":true,\"loadOnlyInlinedPlugins\":\"false\",\"unknown\":{},"
		     "\"plugins\":[{\"type\":\"a\"},{\"type\":\"b\",\"k\":[1]}]}");
	assert_string_equal(l->name, "n");
	assert_true(l->disable_check);
	assert_true(l->disable_gc);
	assert_false(l->load_only_inlined_plugins);
	assert_int_equal(l->n_plugins, 2);
	assert_string_equal(json_string_value(json_object_get(l->plugins[1], "type")), "b");
	assert_non_null(strstr(l->bytes, "\"unknown\""));
	cni_netconf_list_free(l);
}

static void test_list_from_conf(void **state)
{
	static const char conf[] = "{\"cniVersion\":\"0.4.0\",\"name\":\"legacy\",\"type\":\"x\","
				   "\"k\":1}";
	struct cni_netconf_list *l = NULL;
	struct cni_error err = {0};

	(void)state;
	assert_int_equal(cni_netconf_list_from_conf(conf, strlen(conf), "c", &l, &err), 0);
	assert_string_equal(l->name, "legacy");
	assert_string_equal(l->cni_version, "0.4.0");
	assert_int_equal(l->n_plugins, 1);
	assert_int_equal(json_integer_value(json_object_get(l->plugins[0], "k")), 1);
	cni_netconf_list_free(l);

	assert_true(cni_netconf_list_from_conf("{\"name\":\"x\"}", 12, "c", &l, &err) < 0);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "missing 'type'"));
	cni_error_done(&err);
}

/* ---- directory lookup ---- */

struct dirfix {
	char dir[64];
};

static int dir_setup(void **state)
{
	struct dirfix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/pw-rtconf-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int dir_teardown(void **state)
{
	struct dirfix *f = *state;
	char cmd[128];

	/* Test-only clean-up of the directory this test created. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void put(const char *dir, const char *name, const char *content)
{
	char path[256];
	FILE *fp;

	assert_in_range(snprintf(path, sizeof(path), "%s/%s", dir, name), 1, sizeof(path) - 1);
	fp = fopen(path, "we");
	assert_non_null(fp);
	fputs(content, fp);
	assert_int_equal(fclose(fp), 0);
}

static void sub(const char *dir, const char *name)
{
	char path[256];

	assert_in_range(snprintf(path, sizeof(path), "%s/%s", dir, name), 1, sizeof(path) - 1);
	assert_int_equal(mkdir(path, 0755), 0);
}

static int load(const char *dir, const char *name, struct cni_netconf_list **l,
		struct cni_error *err)
{
	*l = NULL;
	return cni_netconf_list_load(dir, name, l, err);
}

static void test_load_empty_and_missing(void **state)
{
	struct dirfix *f = *state;
	struct cni_netconf_list *l;
	struct cni_error err = {0};

	assert_int_equal(load(f->dir, "n", &l, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no net configurations found"));
	cni_error_done(&err);
	assert_int_equal(load("/nonexistent/pw", "n", &l, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no net configurations found"));
	cni_error_done(&err);

	put(f->dir, "10-a.conflist", "{\"name\":\"a\",\"plugins\":[{\"type\":\"x\"}]}");
	assert_int_equal(load(f->dir, "b", &l, &err), -ENOENT);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "no net configuration with name \"b\""));
	cni_error_done(&err);
}

static void test_load_order_and_bad_file(void **state)
{
	struct dirfix *f = *state;
	struct cni_netconf_list *l;
	struct cni_error err = {0};

	put(f->dir, "20-n.conflist", "{\"name\":\"n\",\"plugins\":[{\"type\":\"second\"}]}");
	put(f->dir, "10-n.conflist", "{\"name\":\"n\",\"plugins\":[{\"type\":\"first\"}]}");
	put(f->dir, "05-n.conf", "{\"name\":\"n\",\"type\":\"legacy\"}");
	put(f->dir, "n.txt", "not considered");
	sub(f->dir, "30-dir.conflist");
	assert_int_equal(load(f->dir, "n", &l, &err), 0);
	assert_string_equal(json_string_value(json_object_get(l->plugins[0], "type")), "first");
	cni_netconf_list_free(l);

	/* The first file that does not parse aborts the search and is named. */
	put(f->dir, "00-broken.conflist", "{\"name\": ");
	assert_true(load(f->dir, "n", &l, &err) < 0);
	assert_int_equal(err.code, 6);
	assert_non_null(strstr(err.msg, "00-broken.conflist"));
	cni_error_done(&err);
	put(f->dir, "00-broken.conflist", "{\"name\":\"z\",\"plugins\":[{}]}");
	assert_true(load(f->dir, "n", &l, &err) < 0);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "00-broken.conflist"));
	assert_non_null(strstr(err.msg, "plugins[0]"));
	cni_error_done(&err);
}

static void test_load_legacy_upconvert(void **state)
{
	struct dirfix *f = *state;
	struct cni_netconf_list *l;
	struct cni_error err = {0};

	put(f->dir, "10-other.conflist", "{\"name\":\"o\",\"plugins\":[{\"type\":\"x\"}]}");
	put(f->dir, "20-j.json", "{\"cniVersion\":\"0.3.1\",\"name\":\"j\",\"type\":\"fromjson\"}");
	put(f->dir, "10-c.conf", "{\"cniVersion\":\"1.0.0\",\"name\":\"c\",\"type\":\"fromconf\"}");
	assert_int_equal(load(f->dir, "j", &l, &err), 0);
	assert_string_equal(l->name, "j");
	assert_string_equal(l->cni_version, "0.3.1");
	assert_string_equal(json_string_value(json_object_get(l->plugins[0], "type")), "fromjson");
	/* The cached config is the synthesized list. */
	assert_non_null(strstr(l->bytes, "\"plugins\""));
	cni_netconf_list_free(l);
	assert_int_equal(load(f->dir, "c", &l, &err), 0);
	assert_string_equal(json_string_value(json_object_get(l->plugins[0], "type")), "fromconf");
	cni_netconf_list_free(l);

	put(f->dir, "30-bad.conf", "{\"name\":\"bad\"}");
	assert_true(load(f->dir, "bad", &l, &err) < 0);
	assert_non_null(strstr(err.msg, "missing 'type'"));
	cni_error_done(&err);
}

static void test_load_sibling_plugins(void **state)
{
	struct dirfix *f = *state;
	struct cni_netconf_list *l;
	struct cni_error err = {0};
	char path[256];

	put(f->dir, "10-m.conflist", "{\"name\":\"m\",\"plugins\":[{\"type\":\"inline\"}]}");
	sub(f->dir, "m");
	snprintf(path, sizeof(path), "%s/m", f->dir);
	put(path, "2.conf", "{\"type\":\"sib2\"}");
	put(path, "1.conf", "{\"type\":\"sib1\"}");
	put(path, "ignored.json", "{\"type\":\"nope\"}");
	assert_int_equal(load(f->dir, "m", &l, &err), 0);
	assert_int_equal(l->n_plugins, 3);
	assert_string_equal(json_string_value(json_object_get(l->plugins[1], "type")), "sib1");
	assert_string_equal(json_string_value(json_object_get(l->plugins[2], "type")), "sib2");
	cni_netconf_list_free(l);

	/* loadOnlyInlinedPlugins ignores the directory. */
	put(f->dir, "10-m.conflist",
	    "{\"name\":\"m\",\"loadOnlyInlinedPlugins\":true,\"plugins\":[{\"type\":\"inline\"}]}");
	assert_int_equal(load(f->dir, "m", &l, &err), 0);
	assert_int_equal(l->n_plugins, 1);
	cni_netconf_list_free(l);

	/* No inline plugins: all from the directory. */
	put(f->dir, "10-m.conflist", "{\"name\":\"m\"}");
	assert_int_equal(load(f->dir, "m", &l, &err), 0);
	assert_int_equal(l->n_plugins, 2);
	cni_netconf_list_free(l);

	/* No plugins anywhere. */
	put(f->dir, "20-e.conflist", "{\"name\":\"e\"}");
	assert_true(load(f->dir, "e", &l, &err) < 0);
	assert_non_null(strstr(err.msg, "no plugin configs found"));
	cni_error_done(&err);

	/* A sibling without type is an error naming the file. */
	put(f->dir, "20-e.conflist", "{\"name\":\"e\",\"plugins\":[{\"type\":\"x\"}]}");
	put(path, "3.conf", "{\"notype\":1}");
	assert_true(load(f->dir, "m", &l, &err) < 0);
	assert_non_null(strstr(err.msg, "3.conf"));
	cni_error_done(&err);
}

/* ---- request building ---- */

static void test_build_request(void **state)
{
	struct cni_netconf_list *l =
	    parse_ok("{\"name\":\"net\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"a\","
		     "\"capabilities\":{\"portMappings\":true,\"mac\":false,\"ips\":true},"
		     "\"runtimeConfig\":{\"stale\":1},\"cni.dev/secret\":1,\"name\":\"overridden\","
		     "\"keep\":{\"x\":[1,2]}},{\"type\":\"b\",\"runtimeConfig\":{\"stale\":2}}]}");
	json_t *caps = json_loads("{\"portMappings\":[{\"hostPort\":1}],\"mac\":\"aa\","
				  "\"bandwidth\":{}}",
				  0, NULL);
	json_t *prev = json_loads("{\"cniVersion\":\"1.0.0\",\"ips\":[]}", 0, NULL);
	struct cni_runtime_conf rc = {.capability_args = caps};
	struct cni_error err = {0};
	json_t *req = NULL, *want;

	(void)state;
	assert_int_equal(cni_runtime_build_request(l, 0, prev, &rc, &req, &err), 0);
	want = json_loads("{\"type\":\"a\",\"name\":\"net\",\"cniVersion\":\"1.0.0\","
			  "\"keep\":{\"x\":[1,2]},\"prevResult\":{\"cniVersion\":\"1.0.0\","
			  "\"ips\":[]},\"runtimeConfig\":{\"portMappings\":[{\"hostPort\":1}]}}",
			  0, NULL);
	if (!json_equal(req, want))
		fail_msg("got %s", json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS));
	json_decref(want);
	json_decref(req);

	/* No capability matches: the file's runtimeConfig is passed through. */
	assert_int_equal(cni_runtime_build_request(l, 1, NULL, &rc, &req, &err), 0);
	assert_null(json_object_get(req, "prevResult"));
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(req, "runtimeConfig"), "stale")), 2);
	json_decref(req);
	json_decref(caps);
	json_decref(prev);
	cni_netconf_list_free(l);
}

static void test_runtime_env(void **state)
{
	const struct cni_runtime_arg args[] = {{(char *)"A", (char *)"1"},
					       {(char *)"B", (char *)"x=y"}};
	const struct cni_runtime rt = {.plugin_path = "/a:/b"};
	const struct cni_runtime_conf rc = {.container_id = "c1",
					    .netns = "/run/netns/p",
					    .ifname = "eth1",
					    .args = args,
					    .n_args = 2};
	char **env = cni_runtime_env(&rt, "ADD", &rc);

	(void)state;
	assert_non_null(env);
	assert_string_equal(env[0], "CNI_COMMAND=ADD");
	assert_string_equal(env[1], "CNI_CONTAINERID=c1");
	assert_string_equal(env[2], "CNI_NETNS=/run/netns/p");
	assert_string_equal(env[3], "CNI_IFNAME=eth1");
	assert_string_equal(env[4], "CNI_ARGS=A=1;B=x=y");
	assert_string_equal(env[5], "CNI_PATH=/a:/b");
	assert_null(env[6]);
	for (char **e = env; *e; e++)
		free(*e);
	free(env);

	/* GC and STATUS: every variable present, empty. */
	env = cni_runtime_env(&rt, "GC", NULL);
	assert_string_equal(env[1], "CNI_CONTAINERID=");
	assert_string_equal(env[4], "CNI_ARGS=");
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}

/* ---- cache helpers ---- */

static void test_cache_path(void **state)
{
	struct cni_error err = {0};
	char *p = NULL;

	(void)state;
	assert_int_equal(cni_cache_path("/c", "net", "cid", "eth0", &p, &err), 0);
	assert_string_equal(p, "/c/results/net-cid-eth0");
	free(p);
	assert_int_equal(cni_cache_path(NULL, "net", "cid", "eth0", &p, &err), 0);
	assert_string_equal(p, "/var/lib/cni/results/net-cid-eth0");
	free(p);
	assert_int_equal(cni_cache_path("/c", "../x", "cid", "eth0", &p, &err), -EINVAL);
	assert_int_equal(err.code, 7);
	assert_non_null(strstr(err.msg, "\"../x\""));
	cni_error_done(&err);
	assert_int_equal(cni_cache_path("/c", "net", "a/b", "eth0", &p, &err), -EINVAL);
	assert_int_equal(err.code, 4);
	cni_error_done(&err);
	assert_int_equal(cni_cache_path("/c", "net", "cid", "", &p, &err), -EINVAL);
	assert_int_equal(err.code, 4);
	cni_error_done(&err);
}

static void test_cache_roundtrip_and_list(void **state)
{
	struct dirfix *f = *state;
	struct cni_netconf_list *l = parse_ok("{\"name\":\"net\",\"cniVersion\":\"1.0.0\","
					      "\"plugins\":[{\"type\":\"a\"}]}");
	const struct cni_runtime_arg args[] = {{(char *)"K", (char *)"V"}};
	json_t *caps = json_loads("{\"mac\":\"02:00:00:00:00:01\"}", 0, NULL);
	json_t *res = json_loads("{\"cniVersion\":\"1.0.0\",\"ips\":[]}", 0, NULL);
	struct cni_runtime_conf rc = {.container_id = "c1",
				      .netns = "/run/netns/x",
				      .ifname = "eth0",
				      .args = args,
				      .n_args = 1,
				      .capability_args = caps};
	struct cni_cache_entry *e = NULL, **v = NULL;
	struct cni_error err = {0};
	char results[128];
	size_t n = 0;

	assert_int_equal(cni_cache_write(f->dir, l, &rc, res, true, &err), 0);
	rc.container_id = "c2";
	rc.n_args = 0;
	rc.netns = NULL;
	rc.capability_args = NULL;
	assert_int_equal(cni_cache_write(f->dir, l, &rc, res, true, &err), 0);
	assert_int_equal(cni_cache_read(f->dir, "net", "c1", "eth0", &e, &err), 1);
	assert_string_equal(e->netns, "/run/netns/x");
	assert_int_equal(e->n_args, 1);
	assert_string_equal(e->args[0].value, "V");
	assert_true(json_equal(e->capability_args, caps));
	assert_true(json_equal(e->result, res));
	assert_string_equal(e->config, l->bytes);
	cni_cache_entry_free(e);

	/* Skipped by the listing: a legacy bare result, a temporary, garbage. */
	snprintf(results, sizeof(results), "%s/results", f->dir);
	put(results, "net-c3-eth0", "{\"cniVersion\":\"1.0.0\"}");
	put(results, ".net-c1-eth0.XXXXXX", "{}");
	put(results, "zzz", "{not json");
	assert_int_equal(cni_cache_list(f->dir, NULL, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0]->container_id, "c1");
	assert_string_equal(v[1]->container_id, "c2");
	cni_cache_entries_free(v, n);
	assert_int_equal(cni_cache_list(f->dir, "c2", &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_null(v[0]->netns);
	assert_int_equal(v[0]->n_args, 0);
	cni_cache_entries_free(v, n);

	/* The legacy file is still readable directly, as its result. */
	assert_int_equal(cni_cache_read(f->dir, "net", "c3", "eth0", &e, &err), 1);
	assert_null(e->container_id);
	assert_non_null(e->result);
	cni_cache_entry_free(e);

	assert_int_equal(cni_cache_remove(f->dir, "net", "c1", "eth0", &err), 0);
	assert_int_equal(cni_cache_remove(f->dir, "net", "c1", "eth0", &err), 0);
	assert_int_equal(cni_cache_read(f->dir, "net", "c1", "eth0", &e, &err), 0);
	assert_int_equal(cni_cache_list("/nonexistent/pw", NULL, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	json_decref(caps);
	json_decref(res);
	cni_netconf_list_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_bad),
	    cmocka_unit_test(test_list_version_selection),
	    cmocka_unit_test(test_list_flags_and_plugins),
	    cmocka_unit_test(test_list_from_conf),
	    cmocka_unit_test_setup_teardown(test_load_empty_and_missing, dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_load_order_and_bad_file, dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_load_legacy_upconvert, dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_load_sibling_plugins, dir_setup, dir_teardown),
	    cmocka_unit_test(test_build_request),
	    cmocka_unit_test(test_runtime_env),
	    cmocka_unit_test(test_cache_path),
	    cmocka_unit_test_setup_teardown(test_cache_roundtrip_and_list, dir_setup, dir_teardown),
	};

	return cmocka_run_group_tests_name("runtime-conf", tests, NULL, NULL);
}
