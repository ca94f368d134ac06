/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multinet's DEL decisions: where a DEL takes its delegates from (cache,
 * tombstone, rebuild), which delegate failures are only warnings, when a
 * rebuilt DEL still fails, the apiserver time budget, tombstones (format,
 * parse, files, GC) and the lenient configuration of DEL and GC.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "multinet.h"

/* ---- where DEL takes its delegates from ---- */

static void test_del_source(void **state)
{
	(void)state;
	assert_int_equal(mn_del_source(1, false), MN_DEL_FROM_CACHE);
	/* The cache wins over a tombstone (an ADD after it wrote one). */
	assert_int_equal(mn_del_source(1, true), MN_DEL_FROM_CACHE);
	assert_int_equal(mn_del_source(0, true), MN_DEL_DONE_BEFORE);
	assert_int_equal(mn_del_source(0, false), MN_DEL_REBUILD);
	/* An unusable cache: an attachment was there, never trust a tombstone. */
	assert_int_equal(mn_del_source(-EINVAL, true), MN_DEL_REBUILD);
	assert_int_equal(mn_del_source(-EINVAL, false), MN_DEL_REBUILD);
}

/* ---- which delegate failures are warnings ---- */

static enum mn_del_outcome outcome(int r, unsigned code)
{
	struct cni_error e = {.code = code};

	return mn_del_outcome(r, &e);
}

static void test_del_outcome(void **state)
{
	(void)state;
	assert_int_equal(outcome(0, 0), MN_DEL_OK);
	/* libcni's "failed to find plugin": the binary is missing. */
	assert_int_equal(outcome(-ENOENT, CNI_ERR_DELEGATE), MN_DEL_GIVE_UP);
	/* A plugin refusing the config ADD ran, or its version: always will. */
	assert_int_equal(outcome(-EPROTO, CNI_ERR_INVALID_CONFIG), MN_DEL_GIVE_UP);
	assert_int_equal(outcome(-EINVAL, CNI_ERR_INVALID_CONFIG), MN_DEL_GIVE_UP);
	assert_int_equal(outcome(-EPROTO, CNI_ERR_INCOMPATIBLE_VERSION), MN_DEL_GIVE_UP);
	/* A plugin that ran and failed (even with code 104): retried. */
	assert_int_equal(outcome(-EPROTO, CNI_ERR_DELEGATE), MN_DEL_RETRY);
	assert_int_equal(outcome(-EPROTO, CNI_ERR_PLUGIN), MN_DEL_RETRY);
	assert_int_equal(outcome(-EPROTO, CNI_ERR_TRY_AGAIN), MN_DEL_RETRY);
	assert_int_equal(outcome(-EIO, CNI_ERR_IO), MN_DEL_RETRY);
	assert_int_equal(outcome(-ENOENT, CNI_ERR_PLUGIN), MN_DEL_RETRY);
	/*
	 * A chain whose missing plugin came first, then a real failure: the
	 * error kept is the missing one (code 104) but r is the failure's.
	 */
	assert_int_equal(outcome(-EPROTO, CNI_ERR_DELEGATE), MN_DEL_RETRY);
}

/* ---- the apiserver time budget ---- */

static void test_k8s_budget(void **state)
{
	(void)state;
	/* Without a budget each attempt has its own 5 s. */
	assert_int_equal(mn_k8s_attempt_deadline(1000, 0), 6000);
	assert_int_equal(mn_k8s_attempt_deadline(1000, 9000), 6000);
	/* With one, no attempt outlives it. */
	assert_int_equal(mn_k8s_attempt_deadline(1000, 4000), 4000);
	assert_int_equal(mn_k8s_attempt_deadline(3900, 4000), 4000);
	assert_true(mn_k8s_retry_fits(1000, 400, 0));
	assert_true(mn_k8s_retry_fits(1000, 100, 1200));
	/* The backoff plus a minimal attempt must fit. */
	assert_false(mn_k8s_retry_fits(1000, 100, 1150));
	assert_false(mn_k8s_retry_fits(1000, 400, 1400));
	assert_false(mn_k8s_retry_fits(5000, 100, 4000));
}

/* ---- tombstones ---- */

static void test_tombstone_format_parse(void **state)
{
	char *line, *cid = NULL, *ifname = NULL, *name;

	(void)state;
	line = mn_tombstone_format("abc123", "eth0");
	assert_non_null(line);
	assert_non_null(strchr(line, '\n'));
	assert_int_equal(mn_tombstone_parse(line, strlen(line), &cid, &ifname), 0);
	assert_string_equal(cid, "abc123");
	assert_string_equal(ifname, "eth0");
	free(cid);
	free(ifname);
	free(line);
	name = mn_tombstone_name("abc123", "net1");
	assert_string_equal(name, "abc123-net1");
	free(name);
	/* Nothing that could leave the directory or is no attachment. */
	assert_null(mn_tombstone_name("../x", "eth0"));
	assert_null(mn_tombstone_name("abc", "a/b"));
	assert_null(mn_tombstone_name("", "eth0"));
	assert_null(mn_tombstone_name("abc", ""));
}

static void test_tombstone_parse_bad(void **state)
{
	static const char *const bad[] = {
	    "",
	    "not json",
	    "[]",
	    "{\"kind\":\"multinetCacheV1\",\"containerId\":\"a\",\"ifname\":\"eth0\"}",
	    "{\"kind\":\"multinetTombstoneV1\",\"ifname\":\"eth0\"}",
	    "{\"kind\":\"multinetTombstoneV1\",\"containerId\":\"a\"}",
	    "{\"kind\":\"multinetTombstoneV1\",\"containerId\":\"../a\",\"ifname\":\"eth0\"}",
	    "{\"kind\":\"multinetTombstoneV1\",\"containerId\":\"a\",\"ifname\":\"a/b\"}",
	    "{\"kind\":\"multinetTombstoneV1\",\"containerId\":1,\"ifname\":\"eth0\"}",
	    ("{\"kind\":\"multinetTombstoneV1\",\"containerId\":\"a\",\"containerId\":\"b\","
	     "\"ifname\":\"eth0\"}"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *cid = NULL, *ifname = NULL;

		assert_int_equal(mn_tombstone_parse(bad[i], strlen(bad[i]), &cid, &ifname),
				 -EINVAL);
		assert_null(cid);
		assert_null(ifname);
	}
}

static void test_tombstone_stale(void **state)
{
	char keep_id[] = "keep", other_id[] = "other", eth0[] = "eth0", net1[] = "net1";
	struct cni_attachment valid[] = {{keep_id, eth0}, {other_id, net1}};
	struct cni_conf conf = {
	    .has_valid_attachments = true, .valid_attachments = valid, .n_valid_attachments = 2};
	char *keep = mn_tombstone_format("keep", "eth0");
	char *keep_net1 = mn_tombstone_format("keep", "net1");
	char *gone = mn_tombstone_format("gone", "eth0");

	(void)state;
	assert_false(mn_tombstone_stale(keep, strlen(keep), &conf));
	/* The same container with another ifname is another attachment. */
	assert_true(mn_tombstone_stale(keep_net1, strlen(keep_net1), &conf));
	assert_true(mn_tombstone_stale(gone, strlen(gone), &conf));
	/* Garbage in our directory is removed too. */
	assert_true(mn_tombstone_stale("junk", 4, &conf));
	free(keep);
	free(keep_net1);
	free(gone);
}

static int count_files(const char *dir)
{
	char cmd[512];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

static void test_tombstone_files(void **state)
{
	char tmpl[] = "/tmp/test-mn-tombstone.XXXXXX";
	char *root = mkdtemp(tmpl), dir[64], sub[128], junk[192], cmd[128];
	char keep_id[] = "keep", eth0[] = "eth0";
	struct cni_attachment valid[] = {{keep_id, eth0}};
	struct cni_conf conf = {
	    .has_valid_attachments = true, .valid_attachments = valid, .n_valid_attachments = 1};
	int fd;

	(void)state;
	assert_non_null(root);
	/* cniDir does not exist yet: the first write makes it and deleted/. */
	snprintf(dir, sizeof(dir), "%s/cni", root);
	assert_false(mn_tombstone_exists(dir, "keep", "eth0"));
	assert_int_equal(mn_tombstone_remove(dir, "keep", "eth0"), 0);
	assert_int_equal(mn_tombstone_gc(dir, &conf), 0);
	assert_int_equal(mn_tombstone_write(dir, "keep", "eth0"), 0);
	assert_true(mn_tombstone_exists(dir, "keep", "eth0"));
	assert_false(mn_tombstone_exists(dir, "keep", "net1"));
	snprintf(sub, sizeof(sub), "%s/deleted", dir);
	struct stat st;
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	/* "a-b" + "c" and "a" + "b-c" share a file name; the content decides. */
	assert_int_equal(mn_tombstone_write(dir, "a-b", "c"), 0);
	assert_true(mn_tombstone_exists(dir, "a-b", "c"));
	assert_false(mn_tombstone_exists(dir, "a", "b-c"));
	assert_int_equal(mn_tombstone_write(dir, "gone", "eth0"), 0);
	snprintf(junk, sizeof(junk), "%s/junk", sub);
	fd = open(junk, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(count_files(sub), 4);
	/* GC keeps the valid attachment's, removes the rest. */
	assert_int_equal(mn_tombstone_gc(dir, &conf), 3);
	assert_int_equal(count_files(sub), 1);
	assert_true(mn_tombstone_exists(dir, "keep", "eth0"));
	/* ADD's removal. */
	assert_int_equal(mn_tombstone_remove(dir, "keep", "eth0"), 0);
	assert_false(mn_tombstone_exists(dir, "keep", "eth0"));
	assert_int_equal(count_files(sub), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* ---- DEL and GC configuration ---- */

static void test_conf_lenient(void **state)
{
	json_t *root = json_loads("{\"name\":\"m\",\"clusterNetwork\":\"x\",\"delegates\":5,"
				  "\"globalNamespaces\":\"" /* a name longer than 255 bytes */
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				  "\",\"namespaceIsolation\":\"yes\",\"kubeconfig\":7}",
				  0, NULL);
	struct cni_error err = {0};
	struct mn_conf c;

	(void)state;
	assert_non_null(root);
	assert_int_equal(mn_conf_parse(root, true, &c, &err), -EINVAL);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	cni_error_done(&err);
	mn_conf_done(&c);
	/* DEL and GC: every one of these is a warning and the default. */
	assert_int_equal(mn_conf_parse(root, false, &c, &err), 0);
	assert_false(cni_error_isset(&err));
	assert_null(c.delegates);
	assert_null(c.kubeconfig);
	assert_false(c.namespace_isolation);
	assert_int_equal(c.global_namespaces.n, 1);
	assert_string_equal(c.global_namespaces.v[0], "default");
	assert_string_equal(c.cluster_network, "x");
	mn_conf_done(&c);
	json_decref(root);
}

static void test_plan_remove(void **state)
{
	struct mn_plan p = {0};

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct mn_delegate *d = mn_plan_push(&p);

		assert_non_null(d);
		assert_int_not_equal(asprintf(&d->display, "n%d", i), -1);
	}
	mn_plan_remove(&p, 1);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.d[0].display, "n0");
	assert_string_equal(p.d[1].display, "n2");
	assert_string_equal(p.d[2].display, "n3");
	mn_plan_remove(&p, 2);
	mn_plan_remove(&p, 7);
	assert_int_equal(p.n, 2);
	assert_string_equal(p.d[1].display, "n2");
	mn_plan_done(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_del_source),
	    cmocka_unit_test(test_del_outcome),
	    cmocka_unit_test(test_k8s_budget),
	    cmocka_unit_test(test_tombstone_format_parse),
	    cmocka_unit_test(test_tombstone_parse_bad),
	    cmocka_unit_test(test_tombstone_stale),
	    cmocka_unit_test(test_tombstone_files),
	    cmocka_unit_test(test_conf_lenient),
	    cmocka_unit_test(test_plan_remove),
	};

	return cmocka_run_group_tests_name("multinet-del", tests, NULL, NULL);
}
