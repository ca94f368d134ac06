/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam's node queue: request and answer files (parsed from files
 * other ADDs wrote: malformed ones are refused), the batch key, and the
 * take/withdraw/fetch protocol in a temporary dataDir: a request is served
 * by exactly one party, other configs and dead requesters are not served.
 * Also the node cache file (<dataDir>/blocks): written and read back, bad
 * lines ignored.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../ipam/cluster-ipam/src/cluster-queue.h"
#include "../../ipam/cluster-ipam/src/cluster-store.h"

static struct ip_prefix P(const char *s) {
	struct ip_prefix p;

	assert_int_equal(ip_prefix_parse(s, &p), 0);
	return p;
}

static struct cipam_qreq
req(const char *key, const char *cid, long pid)
{
	struct cipam_qreq q = {
	    .key = (char *)key,
	    .pid = pid,
	    .deadline_ms = cipam_mono_ms() + 60000,
	    .container_id = (char *)cid,
	    .ifname = (char *)"eth0",
	    .network = (char *)"net",
	    .pod = NULL,
	};

	snprintf(q.tag, sizeof(q.tag), "%ld-%s", pid, cid);
	return q;
}

static void test_qreq_roundtrip(void **state)
{
	struct cipam_qreq q = req("K", "c1", 42), back;
	char *json;
	(void)state;

	q.pod = (char *)"ns/p";
	json = cipam_qreq_json(&q);
	assert_non_null(json);
	assert_int_equal(cipam_qreq_parse(json, strlen(json), &back), 0);
	assert_string_equal(back.key, "K");
	assert_int_equal(back.pid, 42);
	assert_true(back.deadline_ms == q.deadline_ms);
	assert_string_equal(back.container_id, "c1");
	assert_string_equal(back.ifname, "eth0");
	assert_string_equal(back.network, "net");
	assert_string_equal(back.pod, "ns/p");
	cipam_qreq_done(&back);
	free(json);
}

static void test_qreq_bad(void **state)
{
	static const char *const bad[] = {
	    "",
	    "[]",
	    "{\"key\":\"K\",\"pid\":0,\"deadline\":5,\"containerID\":\"c\",\"ifname\":\"e\","
	    "\"network\":\"n\"}",
	    "{\"key\":\"K\",\"pid\":3,\"containerID\":\"c\",\"ifname\":\"e\",\"network\":\"n\"}",
	    "{\"key\":1,\"pid\":3,\"deadline\":5,\"containerID\":\"c\",\"ifname\":\"e\","
	    "\"network\":\"n\"}",
	    "{\"key\":\"K\",\"pid\":3,\"deadline\":5,\"ifname\":\"e\",\"network\":\"n\"}",
	    "{\"key\":\"K\",\"pid\":3,\"deadline\":5,\"containerID\":\"c\",\"ifname\":\"e\","
	    "\"network\":\"n\",\"pod\":7}",
	};
	struct cipam_qreq q;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cipam_qreq_parse(bad[i], strlen(bad[i]), &q), -EBADMSG);
}

static void test_qres_roundtrip(void **state)
{
	struct cipam_add_out out = {0}, back;
	struct cni_error err = {0};
	char *json;
	int r = 1;
	(void)state;

	out.ips[0] = P("10.244.0.5/26");
	out.ips[1] = P("fd00::7/122");
	out.n_ips = 2;
	out.borrowed[1] = true;
	out.claimed[0] = P("10.244.0.0/26");
	out.n_claimed = 1;
	json = cipam_qres_json(0, &err, &out);
	assert_non_null(json);
	assert_int_equal(cipam_qres_parse(json, strlen(json), &r, &err, &back), 0);
	assert_int_equal(r, 0);
	assert_false(cni_error_isset(&err));
	assert_int_equal(back.n_ips, 2);
	assert_memory_equal(&back.ips[0], &out.ips[0], sizeof(out.ips[0]));
	assert_memory_equal(&back.ips[1], &out.ips[1], sizeof(out.ips[1]));
	assert_false(back.borrowed[0]);
	assert_true(back.borrowed[1]);
	assert_int_equal(back.n_claimed, 1);
	assert_memory_equal(&back.claimed[0], &out.claimed[0], sizeof(out.claimed[0]));
	free(json);
}

static void test_qres_error(void **state)
{
	struct cipam_add_out out = {0}, back;
	struct cni_error err = {0}, got = {0};
	char *json;
	int r = 0;
	(void)state;

	cni_errorf(&err, 101, -ENOSPC, "no IPv4 address left");
	json = cipam_qres_json(-ENOSPC, &err, &out);
	assert_int_equal(cipam_qres_parse(json, strlen(json), &r, &got, &back), 0);
	assert_int_equal(r, -ENOSPC);
	assert_int_equal(got.code, 101);
	assert_string_equal(got.msg, "no IPv4 address left");
	cni_error_done(&err);
	cni_error_done(&got);
	free(json);
}

static void test_qres_bad(void **state)
{
	static const char *const bad[] = {
	    "{}",
	    "{\"r\":1}",
	    "{\"r\":-5}",
	    "{\"r\":-5,\"code\":0,\"msg\":\"x\"}",
	    "{\"r\":0,\"ips\":[],\"claimed\":[],\"borrowed\":[]}",
	    "{\"r\":0,\"ips\":[\"10.0.0.1\"],\"claimed\":[],\"borrowed\":[false]}",
	    "{\"r\":0,\"ips\":[\"10.0.0.1/24\"],\"claimed\":[],\"borrowed\":[]}",
	    "{\"r\":0,\"ips\":[\"a/1\",\"b/2\",\"c/3\"],\"claimed\":[],\"borrowed\":[1,2,3]}",
	};
	struct cipam_add_out out;
	struct cni_error err = {0};
	int r;
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cipam_qres_parse(bad[i], strlen(bad[i]), &r, &err, &out),
				 -EBADMSG);
	assert_false(cni_error_isset(&err));
}

static void test_key(void **state)
{
	struct cipam_conf a = {0}, b;
	char *ka, *kb;
	(void)state;

	a.node = (char *)"n1";
	a.prefix = (char *)"/p";
	a.etcd.endpoints[0] = (char *)"unix:///x";
	a.etcd.n_endpoints = 1;
	a.pools[0].cidr = P("10.244.0.0/16");
	a.pools[0].block_size = 26;
	a.n_pools = 1;
	a.route_protocol = 81;
	b = a;
	ka = cipam_queue_key(&a);
	kb = cipam_queue_key(&b);
	assert_non_null(ka);
	assert_string_equal(ka, kb);
	free(kb);
	b.pools[0].block_size = 27; /* another pool layout: never in the same txn */
	kb = cipam_queue_key(&b);
	assert_string_not_equal(ka, kb);
	free(kb);
	b = a;
	b.strict_affinity = true;
	kb = cipam_queue_key(&b);
	assert_string_not_equal(ka, kb);
	free(kb);
	b = a;
	b.n_requested = 1; /* requested IPs: never batched */
	assert_null(cipam_queue_key(&b));
	free(ka);
}

/*
 * The key's bytes: compact, keys sorted (as every version wrote it, so that
 * the ADDs of two versions of the binary batch during an upgrade).
 */
static void test_key_bytes(void **state)
{
	struct cipam_conf a = {0};
	char want[1024], *key;
	struct stat st;
	(void)state;

	assert_int_equal(stat("/proc/self/ns/net", &st), 0);
	a.node = (char *)"n\"1\\\x01\xc3\xa9";
	a.prefix = (char *)"/p/q";
	a.etcd.endpoints[0] = (char *)"https://10.0.0.1:2379";
	a.etcd.endpoints[1] = (char *)"unix:///run/etcd sock";
	a.etcd.n_endpoints = 2;
	a.etcd.ca_file = (char *)"/etc/ca.pem";
	a.etcd.key_file = (char *)"/k\x1b"
				  "ey";
	a.pools[0].cidr = P("10.244.0.0/16");
	a.pools[0].block_size = 26;
	a.pools[1].cidr = P("fd00:10:244::/56");
	a.pools[1].block_size = 122;
	a.n_pools = 2;
	a.max_blocks = 100000;
	a.strict_affinity = true;
	a.route_protocol = 254;
	snprintf(want, sizeof(want),
		 "{\"ca\":\"/etc/ca.pem\",\"cert\":\"\",\"endpoints\":[\"https://10.0.0.1:2379\","
		 "\"unix:///run/etcd sock\"],\"keyf\":\"/k\\u001Bey\",\"max\":100000,"
		 "\"netns\":[%lld,%lld],\"node\":\"n\\\"1\\\\\\u0001\xc3\xa9\","
		 "\"pools\":[[\"10.244.0.0/16\",26],[\"fd00:10:244::/56\",122]],"
		 "\"prefix\":\"/p/q\",\"proto\":254,\"strict\":true}",
		 (long long)st.st_dev, (long long)st.st_ino);
	key = cipam_queue_key(&a);
	assert_string_equal(key, want);
	free(key);
	a.node = (char *)"bad\xff"; /* not UTF-8: no key */
	assert_null(cipam_queue_key(&a));
}

struct qdir {
	char dir[64];
	int qfd;
};

static int qdir_setup(void **state)
{
	struct qdir *q = calloc(1, sizeof(*q));

	strcpy(q->dir, "/tmp/pw-cipam-queue.XXXXXX");
	assert_non_null(mkdtemp(q->dir));
	q->qfd = cipam_queue_open(q->dir, false);
	assert_int_equal(q->qfd, -ENOENT); /* only a waiting ADD creates it */
	q->qfd = cipam_queue_open(q->dir, true);
	assert_true(q->qfd >= 0);
	*state = q;
	return 0;
}

/* Files in the queue directory; remove them when `rm`. */
static size_t walk(int qfd, bool rm)
{
	DIR *d = fdopendir(dup(qfd));
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	rewinddir(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			n++;
			if (rm)
				assert_int_equal(unlinkat(qfd, e->d_name, 0), 0);
		}
	closedir(d);
	return n;
}

static size_t count_files(int qfd)
{
	return walk(qfd, false);
}

static int qdir_teardown(void **state)
{
	struct qdir *q = *state;
	char path[96];

	walk(q->qfd, true);
	close(q->qfd);
	snprintf(path, sizeof(path), "%s/queue", q->dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(q->dir), 0);
	free(q);
	return 0;
}

/* A child that has exited: its pid is dead (until reused). */
static long dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return (long)p;
}

static void test_take_answer_fetch(void **state)
{
	struct qdir *d = *state;
	struct cipam_qreq a = req("K", "ca", getpid()), b = req("K", "cb", getppid()),
			  other = req("L", "co", getpid()), dead = req("K", "cd", dead_pid()),
			  got[4];
	struct cipam_add_out out = {0}, back;
	struct cni_error err = {0};
	char name[80];
	size_t n;
	int r = 1;
	(void)state;

	assert_int_equal(cipam_queue_submit(d->qfd, &a), 0);
	assert_int_equal(cipam_queue_submit(d->qfd, &b), 0);
	assert_int_equal(cipam_queue_submit(d->qfd, &other), 0);
	assert_int_equal(cipam_queue_submit(d->qfd, &dead), 0);
	assert_int_equal(cipam_queue_fetch(d->qfd, a.tag, &r, &err, &back), 0);
	n = cipam_queue_take(d->qfd, "K", got, 4);
	assert_int_equal(n, 2); /* not the other key's, not the dead requester's */
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(got[i].key, "K");
		assert_true(strcmp(got[i].container_id, "ca") == 0 ||
			    strcmp(got[i].container_id, "cb") == 0);
	}
	snprintf(name, sizeof(name), "%s.req", dead.tag);
	assert_int_equal(faccessat(d->qfd, name, F_OK, 0), -1); /* nobody waits for it */
	snprintf(name, sizeof(name), "%s.req", other.tag);
	assert_int_equal(faccessat(d->qfd, name, F_OK, 0), 0);
	/* taken: the requester cannot withdraw any more, it waits for the answer */
	assert_int_equal(cipam_queue_withdraw(d->qfd, a.tag), -ENOENT);
	/* the other key's request stays for its owner, which withdraws it */
	assert_int_equal(cipam_queue_withdraw(d->qfd, other.tag), 0);
	assert_int_equal(cipam_queue_take(d->qfd, "K", got + 2, 2), 0);
	out.ips[0] = P("10.0.0.9/26");
	out.n_ips = 1;
	assert_int_equal(cipam_queue_answer(d->qfd, a.tag, 0, &err, &out), 0);
	assert_int_equal(cipam_queue_fetch(d->qfd, a.tag, &r, &err, &back), 1);
	assert_int_equal(r, 0);
	assert_int_equal(back.n_ips, 1);
	assert_memory_equal(&back.ips[0], &out.ips[0], sizeof(out.ips[0]));
	assert_int_equal(cipam_queue_fetch(d->qfd, a.tag, &r, &err, &back), 0); /* consumed */
	for (size_t i = 0; i < n; i++)
		cipam_qreq_done(&got[i]);
}

static void test_stale_files(void **state)
{
	struct qdir *d = *state;
	struct cipam_add_out out = {0};
	struct cni_error err = {0};
	struct cipam_qreq late = req("K", "cl", getpid()), got[2];
	char name[80];
	int fd;
	(void)state;

	/* an answer nobody fetched (its requester died) and a dead writer's temp file */
	out.ips[0] = P("10.0.0.1/26");
	out.n_ips = 1;
	snprintf(name, sizeof(name), "%ld-00", dead_pid());
	assert_int_equal(cipam_queue_answer(d->qfd, name, 0, &err, &out), 0);
	snprintf(name, sizeof(name), ".x.req.%ld.tmp", dead_pid());
	fd = openat(d->qfd, name, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* a request past its deadline is left to its (live) requester */
	late.deadline_ms = cipam_mono_ms() - 1;
	assert_int_equal(cipam_queue_submit(d->qfd, &late), 0);
	assert_int_equal(cipam_queue_take(d->qfd, "K", got, 2), 0);
	assert_int_equal(faccessat(d->qfd, name, F_OK, 0), -1);
	assert_int_equal(cipam_queue_withdraw(d->qfd, late.tag), 0);
	assert_int_equal(count_files(d->qfd), 0);
}

static void test_cache_file(void **state)
{
	struct qdir *d = *state;
	struct cipam_conf c = {.data_dir = d->dir};
	struct cipam_session s = {.c = &c, .lock_fd = d->qfd}; /* "holds the lock" */
	struct cipam_cache w = {0}, r;
	char path[96];
	FILE *f;
	(void)state;

	w.pools[0] = (struct cipam_cache_kv){P("10.244.0.0/16"), 7, (char *)"{\"cidr\":\"x\"}"};
	w.n_pools = 1;
	w.v[0] = P("10.244.1.0/26");
	w.mod[0] = 42;
	w.val[0] = (char *)"{\"cidr\":\"10.244.1.0/26\",\"used\":{}}";
	w.v[1] = P("10.244.2.0/26"); /* name only (GC writes those) */
	w.v[2] = P("10.244.3.0/26");
	w.mod[2] = 9;
	w.val[2] = (char *)"two\nlines"; /* never written as a value */
	w.n = 3;
	cipam_cache_save(&s, &w);
	cipam_cache_load(&s, &r);
	assert_int_equal(r.n_pools, 1);
	assert_int_equal(r.pools[0].mod, 7);
	assert_string_equal(r.pools[0].value, "{\"cidr\":\"x\"}");
	assert_int_equal(r.n, 3);
	assert_int_equal(r.mod[0], 42);
	assert_string_equal(r.val[0], w.val[0]);
	assert_memory_equal(&r.v[1], &w.v[1], sizeof(w.v[1]));
	assert_null(r.val[1]);
	assert_null(r.val[2]);
	cipam_cache_done(&r);
	/* garbage, bad revisions and host bits are skipped; the rest is used */
	snprintf(path, sizeof(path), "%s/blocks", d->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("b 4/0af40100-26 0 {}\nb 4/0af40100-26 x {}\nb 4/0af40101-26 5 {}\n"
	      "p 4/0af40000-16\nzzz\n\nb 4/0af40100-26 5 {\"a\":1}\n",
	      f);
	fclose(f);
	cipam_cache_load(&s, &r);
	assert_int_equal(r.n_pools, 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.mod[0], 5);
	assert_string_equal(r.val[0], "{\"a\":1}");
	cipam_cache_done(&r);
	/* without the lock the cache is never read */
	s.lock_fd = -1;
	cipam_cache_load(&s, &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_qreq_roundtrip),
	    cmocka_unit_test(test_qreq_bad),
	    cmocka_unit_test(test_qres_roundtrip),
	    cmocka_unit_test(test_qres_error),
	    cmocka_unit_test(test_qres_bad),
	    cmocka_unit_test(test_key),
	    cmocka_unit_test(test_key_bytes),
	    cmocka_unit_test_setup_teardown(test_take_answer_fetch, qdir_setup, qdir_teardown),
	    cmocka_unit_test_setup_teardown(test_stale_files, qdir_setup, qdir_teardown),
	    cmocka_unit_test_setup_teardown(test_cache_file, qdir_setup, qdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
