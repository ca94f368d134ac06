/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam's pending releases: which DEL failures leave a pending
 * entry instead of an error, the entry's name and text, and the replay
 * rules in a temporary dataDir (with a stand-in for etcd): an entry is
 * removed once its release succeeded (a handle already gone counts), kept
 * when it failed; an etcd failure (code 11) stops the replay, another
 * failure goes on with the next entry; unreadable entries and temporaries
 * are left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../ipam/cluster-ipam/src/cluster-pending.h"

static void test_wanted(void **state)
{
	(void)state;
	/* etcd refused, timed out, reset, 5xx, garbage, lock busy, lost races: code 11 */
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -ECONNREFUSED));
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -ETIMEDOUT));
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -ECONNRESET));
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -EIO));
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -EBADMSG));
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -EBUSY));
	assert_true(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -EAGAIN));
	/* etcd refused the request, TLS, memory, config: an error the runtime sees */
	assert_false(cipam_pending_wanted(CNI_ERR_PLUGIN, -EINVAL));
	assert_false(cipam_pending_wanted(CNI_ERR_PLUGIN, -EACCES));
	assert_false(cipam_pending_wanted(CNI_ERR_PLUGIN, -ENOMEM));
	assert_false(cipam_pending_wanted(CNI_ERR_TRY_AGAIN, -ENOMEM));
	assert_false(cipam_pending_wanted(CNI_ERR_INVALID_CONFIG, -EINVAL));
	assert_false(cipam_pending_wanted(CNI_ERR_IO, -EACCES));
	assert_false(cipam_pending_wanted(CNI_ERR_INVALID_ENV, -EINVAL));
	assert_false(cipam_pending_wanted(0, 0));
}

static void test_name_and_text(void **state)
{
	char buf[CIPAM_PENDING_NAME_MAX + 1], small[8];
	char *text, *key = NULL;

	(void)state;
	assert_int_equal(cipam_pending_name("abc123", "eth0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "abc123:eth0");
	assert_int_equal(cipam_pending_name("../x", "eth0", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cipam_pending_name("abc", "a/b", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cipam_pending_name("abc", "a:b", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cipam_pending_name("abc", NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cipam_pending_name("abc123", "eth0", small, sizeof(small)), -ENAMETOOLONG);

	text = cipam_pending_format("/p/ipam/handles/n1/abc/eth0", "n1/abc/eth0");
	assert_non_null(text);
	assert_int_equal(cipam_pending_parse(text, &key), 0);
	assert_string_equal(key, "/p/ipam/handles/n1/abc/eth0");
	free(key);
	free(text);
	assert_null(cipam_pending_format("/p/x\ny", "id"));
	assert_null(cipam_pending_format("", "id"));
	assert_int_equal(cipam_pending_parse("id n1/a/b\nsince 1\n", &key), -EBADMSG);
	assert_null(key);
	assert_int_equal(cipam_pending_parse("handle \n", &key), -EBADMSG);
	assert_int_equal(cipam_pending_parse("handle relative\n", &key), -EBADMSG);
	assert_int_equal(cipam_pending_parse("since 1\nhandle /k", &key), 0);
	assert_string_equal(key, "/k");
	free(key);
}

static int dir_setup(void **state)
{
	char *d = strdup("/tmp/test-cipam-pending-XXXXXX");

	assert_non_null(mkdtemp(d));
	*state = d;
	return 0;
}

static int dir_teardown(void **state)
{
	char *cmd = NULL;

	assert_true(asprintf(&cmd, "rm -rf '%s'", (char *)*state) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(*state);
	return 0;
}

/* The stand-in for etcd: answers per key, counts calls. */
struct fake {
	const char *fail_key; /* this one fails ... */
	unsigned fail_code;   /* ... with this code */
	unsigned calls;
	char seen[8][64];
};

static int fake_release(void *arg, const char *key, unsigned *code)
{
	struct fake *f = arg;

	if (f->calls < 8)
		snprintf(f->seen[f->calls], sizeof(f->seen[0]), "%s", key);
	f->calls++;
	if (f->fail_key && (strcmp(f->fail_key, "*") == 0 || strcmp(f->fail_key, key) == 0)) {
		*code = f->fail_code;
		return -ECONNREFUSED;
	}
	*code = 0;
	return 0;
}

static void record(const char *dir, const char *cid)
{
	char key[64], id[64];

	snprintf(key, sizeof(key), "/p/ipam/handles/n1/%s/eth0", cid);
	snprintf(id, sizeof(id), "n1/%s/eth0", cid);
	assert_int_equal(cipam_pending_record(dir, cid, "eth0", key, id, NULL), 0);
}

static void test_record_remove(void **state)
{
	const char *dir = *state;
	char sub[512], *path = NULL;
	struct stat st;

	/* the pending directory is created with its parents */
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	assert_false(cipam_pending_exists(sub, "c1", "eth0"));
	assert_int_equal(cipam_pending_record(sub, "c1", "eth0", "/p/k", "n1/c1/eth0", &path), 0);
	assert_non_null(path);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	free(path);
	assert_true(cipam_pending_exists(sub, "c1", "eth0"));
	assert_false(cipam_pending_exists(sub, "c1", "eth1"));
	/* recorded again (a second DEL): still one entry */
	assert_int_equal(cipam_pending_record(sub, "c1", "eth0", "/p/k", "n1/c1/eth0", NULL), 0);
	assert_int_equal(cipam_pending_remove(sub, "c1", "eth0"), 0);
	assert_false(cipam_pending_exists(sub, "c1", "eth0"));
	assert_int_equal(cipam_pending_remove(sub, "c1", "eth0"), 0);
	/* a dataDir that cannot hold it: an error, nothing claimed */
	snprintf(sub, sizeof(sub), "%s/file", dir);
	assert_int_equal(close(open(sub, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(cipam_pending_record(sub, "c1", "eth0", "/p/k", "id", NULL), -ENOTDIR);
}

static void test_replay_removes_done(void **state)
{
	const char *dir = *state;
	struct fake f = {0};
	struct cipam_pending_stats st;

	assert_int_equal(cipam_pending_replay_with(dir, fake_release, &f, &st), -ENOENT);
	record(dir, "c1");
	record(dir, "c2");
	assert_int_equal(cipam_pending_replay_with(dir, fake_release, &f, &st), 0);
	assert_int_equal(f.calls, 2);
	assert_int_equal(st.done, 2);
	assert_int_equal(st.kept, 0);
	assert_false(cipam_pending_exists(dir, "c1", "eth0"));
	assert_false(cipam_pending_exists(dir, "c2", "eth0"));
	/* nothing left: nothing released again */
	assert_int_equal(cipam_pending_replay_with(dir, fake_release, &f, &st), 0);
	assert_int_equal(f.calls, 2);
}

static void test_replay_etcd_down_stops(void **state)
{
	const char *dir = *state;
	struct fake f = {.fail_key = "*", .fail_code = CNI_ERR_TRY_AGAIN};
	struct cipam_pending_stats st;

	record(dir, "c1");
	record(dir, "c2");
	record(dir, "c3");
	assert_int_equal(cipam_pending_replay_with(dir, fake_release, &f, &st), 0);
	assert_int_equal(f.calls, 1); /* etcd unreachable: the others are not tried */
	assert_int_equal(st.kept, 1);
	assert_int_equal(st.done, 0);
	assert_true(cipam_pending_exists(dir, "c1", "eth0"));
	assert_true(cipam_pending_exists(dir, "c2", "eth0"));
	assert_true(cipam_pending_exists(dir, "c3", "eth0"));
}

static void test_replay_other_failure_goes_on(void **state)
{
	const char *dir = *state;
	struct fake f = {.fail_key = "/p/ipam/handles/n1/c2/eth0", .fail_code = CNI_ERR_PLUGIN};
	struct cipam_pending_stats st;
	char path[512];

	record(dir, "c1");
	record(dir, "c2");
	record(dir, "c3");
	/* a temporary of a writer that died, and an unreadable entry: left alone */
	snprintf(path, sizeof(path), "%s/pending/.c4:eth0.99.tmp", dir);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0600)), 0);
	snprintf(path, sizeof(path), "%s/pending/c5:eth0", dir);
	assert_int_equal(close(open(path, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(cipam_pending_replay_with(dir, fake_release, &f, &st), 0);
	assert_int_equal(f.calls, 3);
	assert_int_equal(st.done, 2);
	assert_int_equal(st.kept, 1);
	assert_int_equal(st.bad, 1);
	assert_false(cipam_pending_exists(dir, "c1", "eth0"));
	assert_true(cipam_pending_exists(dir, "c2", "eth0"));
	assert_false(cipam_pending_exists(dir, "c3", "eth0"));
	assert_true(cipam_pending_exists(dir, "c5", "eth0"));
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/pending/.c4:eth0.99.tmp", dir);
	assert_int_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wanted),
	    cmocka_unit_test(test_name_and_text),
	    cmocka_unit_test_setup_teardown(test_record_remove, dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_replay_removes_done, dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_replay_etcd_down_stops, dir_setup, dir_teardown),
	    cmocka_unit_test_setup_teardown(test_replay_other_failure_goes_on, dir_setup,
					    dir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
