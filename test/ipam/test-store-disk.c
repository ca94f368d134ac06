/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The file store: the reference's layout and content, the index (trusted
 * only while the directory is as podwire left it), rebuild after foreign
 * changes, legacy ID-only leases, stale index entries, and path safety.
 */
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

#include "ipam/store-disk.h"

struct fixture {
	char dir[64];
	char net[128];
	struct ipam_disk_store *s;
	struct ipam_store st;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pw-ipam-store.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->net, sizeof(f->net), "%s/data", f->dir);
	if (ipam_disk_store_open(f->net, "mynet", &f->s) < 0)
		return -1;
	snprintf(f->net, sizeof(f->net), "%s/data/mynet", f->dir);
	f->st = ipam_disk_store_handle(f->s);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	ipam_disk_store_free(f->s);
	/* Test-only cleanup of a directory this test created under /tmp. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static struct ipam_addr A(const char *s) {
	struct ipam_addr a;

	assert_int_equal(ip_addr_parse(s, &a.family, &a.addr), 0);
	return a;
}

static char *
slurp(const struct fixture *f, const char *name)
{
	static char buf[512];
	char path[256];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", f->net, name);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void put(const struct fixture *f, const char *name, const char *content)
{
	char path[256];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->net, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(content, fp);
	fclose(fp);
}

static int reserve(struct fixture *f, const char *id, const char *ifname, const char *ip,
		   unsigned set)
{
	struct ipam_addr a = A(ip);
	int r;

	assert_int_equal(f->st.ops->lock(f->s), 0);
	r = f->st.ops->reserve(f->s, id, ifname, &a, set);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	return r;
}

static size_t held(struct fixture *f, const char *id, const char *ifname)
{
	struct ipam_addr *a = NULL;
	size_t n = 0;

	assert_int_equal(f->st.ops->lock(f->s), 0);
	assert_int_equal(f->st.ops->get_by_id(f->s, id, ifname, &a, &n), 0);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	free(a);
	return n;
}

static int release(struct fixture *f, const char *id, const char *ifname)
{
	int r;

	assert_int_equal(f->st.ops->lock(f->s), 0);
	r = f->st.ops->release_by_id(f->s, id, ifname);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	return r;
}

static void test_layout(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	char path[256];

	assert_int_equal(reserve(f, "dummy", "eth0", "10.1.2.2", 0), 1);
	assert_int_equal(reserve(f, "dummy", "eth0", "2001:db8:1::2", 1), 1);
	assert_string_equal(slurp(f, "10.1.2.2"), "dummy\r\neth0");
	assert_string_equal(slurp(f, "2001:db8:1::2"), "dummy\r\neth0");
	assert_string_equal(slurp(f, "last_reserved_ip.0"), "10.1.2.2");
	assert_string_equal(slurp(f, "last_reserved_ip.1"), "2001:db8:1::2");
	snprintf(path, sizeof(path), "%s/10.1.2.2", f->net);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(f->net, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/lock", f->net);
	assert_int_equal(access(path, F_OK), 0);
	/* Taken stays taken. */
	assert_int_equal(reserve(f, "other", "eth0", "10.1.2.2", 0), 0);
	assert_string_equal(slurp(f, "10.1.2.2"), "dummy\r\neth0");
	assert_int_equal(held(f, "dummy", "eth0"), 2);
	assert_int_equal(held(f, "dummy", "eth1"), 0);
	assert_int_equal(release(f, "dummy", "eth0"), 2);
	assert_null(slurp(f, "10.1.2.2"));
	assert_null(slurp(f, "2001:db8:1::2"));
	assert_int_equal(release(f, "dummy", "eth0"), 0);
}

/* Our own changes never force a rescan: the index stays trusted. */
static void test_no_rescan_for_own_changes(void **state)
{
	struct fixture *f = *state;
	char ip[32];

	for (int i = 2; i < 40; i++) {
		snprintf(ip, sizeof(ip), "10.0.0.%d", i);
		assert_int_equal(reserve(f, "c", ip, ip, 0) >= 0, 1);
	}
	assert_int_equal(release(f, "c", "10.0.0.7"), 1);
	assert_int_equal(held(f, "c", "10.0.0.8"), 1);
	assert_int_equal(ipam_disk_store_rebuilds(f->s), 1); /* the first lock of a fresh dir */
}

/* The reference wrote leases behind our back: one rebuild, then found in O(1). */
static void test_foreign_leases(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(reserve(f, "ours", "eth0", "10.0.0.2", 0), 1);
	put(f, "10.0.0.3", "theirs\r\neth0");
	put(f, "10.0.0.4", "legacy");
	assert_int_equal(held(f, "theirs", "eth0"), 1);
	assert_int_equal(ipam_disk_store_rebuilds(f->s), 2);
	/* Legacy ID-only leases belong to any ifname of the container. */
	assert_int_equal(held(f, "legacy", "eth0"), 1);
	assert_int_equal(release(f, "legacy", "eth0"), 1);
	assert_null(slurp(f, "10.0.0.4"));
	assert_int_equal(release(f, "theirs", "eth0"), 1);
	assert_int_equal(held(f, "ours", "eth0"), 1);
	/* The reference's DEL removed our lease: the stale index entry is not trusted. */
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/10.0.0.2", f->net);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(held(f, "ours", "eth0"), 0);
}

/* An index entry whose lease now names someone else is never released. */
static void test_stale_index_entry(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(reserve(f, "a", "eth0", "10.0.0.2", 0), 1);
	put(f, ".podwire/@a:eth0", "podwire-index 1\n10.0.0.2\n10.0.0.3\n");
	assert_int_equal(reserve(f, "b", "eth0", "10.0.0.3", 0), 1);
	assert_int_equal(held(f, "a", "eth0"), 1);
	assert_int_equal(release(f, "a", "eth0"), 1);
	assert_string_equal(slurp(f, "10.0.0.3"), "b\r\neth0");
}

/* Index files longer than the first read buffer are read whole. */
static void test_long_index(void **state)
{
	struct fixture *f = *state;
	char ip[64];

	for (unsigned i = 0; i < 40; i++) {
		snprintf(ip, sizeof(ip), "fd00:1234:5678::%x:%x", 0x1000 + i, 0xabcd);
		assert_int_equal(reserve(f, "a", "eth0", ip, i), 1);
	}
	assert_true(strlen(slurp(f, ".podwire/@a:eth0")) > 256);
	assert_int_equal(held(f, "a", "eth0"), 40);
	assert_int_equal(release(f, "a", "eth0"), 40);
	assert_int_equal(held(f, "a", "eth0"), 0);
}

static void test_list_and_release_ip(void **state)
{
	struct fixture *f = *state;
	struct ipam_lease *l = NULL;
	struct ipam_addr a = A("10.0.0.2");
	size_t n = 0;

	assert_int_equal(reserve(f, "a", "eth0", "10.0.0.2", 0), 1);
	assert_int_equal(reserve(f, "b", "eth1", "10.0.0.3", 0), 1);
	put(f, "10.0.0.9", "old");
	assert_int_equal(f->st.ops->lock(f->s), 0);
	assert_int_equal(f->st.ops->list(f->s, &l, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i].id, "old") == 0)
			assert_null(l[i].ifname);
	ipam_leases_free(l, n);
	assert_int_equal(f->st.ops->release_ip(f->s, &a), 0);
	assert_int_equal(f->st.ops->release_ip(f->s, &a), -ENOENT);
	assert_int_equal(f->st.ops->is_free(f->s, &a), 1);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	assert_int_equal(held(f, "a", "eth0"), 0);
	assert_int_equal(held(f, "b", "eth1"), 1);
}

/* A killed ADD can leave an index entry without its lease: list() (GC) drops it. */
static void test_list_prunes_index_without_lease(void **state)
{
	struct fixture *f = *state;
	struct ipam_lease *l = NULL;
	char path[256];
	size_t n = 0;

	assert_int_equal(reserve(f, "b", "eth0", "10.0.0.3", 0), 1);
	/* What the killed ADD wrote: its index entry, not its lease file. */
	put(f, ".podwire/@a:eth0", "podwire-index 1\n10.0.0.2\n");
	snprintf(path, sizeof(path), "%s/.podwire/@a:eth0", f->net);
	assert_int_equal(f->st.ops->lock(f->s), 0);
	assert_int_equal(f->st.ops->list(f->s, &l, &n), 0);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	assert_int_equal(n, 1);
	ipam_leases_free(l, n);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/.podwire/@b:eth0", f->net);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(held(f, "b", "eth0"), 1);
}

static void test_last_reserved(void **state)
{
	struct fixture *f = *state;
	struct ipam_addr a, want = A("10.0.0.7");

	assert_int_equal(f->st.ops->lock(f->s), 0);
	assert_int_equal(f->st.ops->last_reserved(f->s, 0, &a), -ENOENT);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	put(f, "last_reserved_ip.0", "10.0.0.7");
	assert_int_equal(f->st.ops->lock(f->s), 0);
	assert_int_equal(f->st.ops->last_reserved(f->s, 0, &a), 0);
	assert_int_equal(f->st.ops->unlock(f->s), 0);
	assert_true(ip_addr_equal(AF_INET, &a.addr, &want.addr));
}

static void test_path_safety(void **state)
{
	struct fixture *f = *state;
	struct ipam_disk_store *s = NULL;
	char link[256], data[256];

	assert_int_equal(ipam_disk_store_open("relative/dir", "net", &s), -EINVAL);
	snprintf(data, sizeof(data), "%s/nothing", f->dir);
	assert_int_equal(ipam_disk_store_open_existing(data, "net", &s), -ENOENT);
	snprintf(data, sizeof(data), "%s/data", f->dir);
	assert_int_equal(ipam_disk_store_open_existing(data, "net", &s), -ENOENT);
	assert_int_equal(access(data, F_OK), 0);
	snprintf(link, sizeof(link), "%s/data/net", f->dir);
	assert_int_equal(access(link, F_OK), -1);
	assert_int_equal(ipam_disk_store_open_existing(data, "mynet", &s), 0);
	s = ipam_disk_store_free(s);
	assert_int_equal(ipam_disk_store_open(f->dir, "..", &s), -EINVAL);
	assert_int_equal(ipam_disk_store_open(f->dir, "a/b", &s), -EINVAL);
	assert_int_equal(ipam_disk_store_open(f->dir, ".hidden", &s), -EINVAL);
	assert_int_equal(ipam_disk_store_open(f->dir, "", &s), -EINVAL);
	/* A symlinked network directory is refused, not followed. */
	snprintf(data, sizeof(data), "%s/data", f->dir);
	snprintf(link, sizeof(link), "%s/data/evil", f->dir);
	assert_int_equal(symlink("/", link), 0);
	assert_true(ipam_disk_store_open(data, "evil", &s) < 0);
	assert_int_equal(reserve(f, "../../x", "eth0", "10.0.0.2", 0), -EINVAL);
	assert_int_equal(reserve(f, "x", "../eth0", "10.0.0.2", 0), -EINVAL);
	assert_int_equal(reserve(f, "x", "a:b", "10.0.0.2", 0), -EINVAL);
	assert_false(ipam_disk_valid_component("a\nb", 100));
	assert_true(ipam_disk_valid_component("abc-1_2.3", 100));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_rescan_for_own_changes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_foreign_leases, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_index_entry, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_long_index, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_and_release_ip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_prunes_index_without_lease, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_last_reserved, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_path_safety, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
