/* SPDX-License-Identifier: Apache-2.0 */
/* sysctl path rules and sysctl/sysfs access through a fixture root directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nlw/sysctl.h"

struct fx {
	char dir[64];
	int root;
};

static void put_file(const char *dir, const char *rel, const char *content)
{
	char path[PATH_MAX], cmd[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "%s", path);
	*strrchr(cmd, '/') = '\0';
	for (char *p = cmd + strlen(dir) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(cmd, 0755);
			*p = '/';
		}
	mkdir(cmd, 0755);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void put_link(const char *dir, const char *rel, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(symlink(target, path), 0);
}

/*
 * A small fake tree: /proc-like sys/net/ipv4/ip_forward and a sysfs-like
 * class/net/pf0/device -> ../../../devices/pci0/0000:03:00.0 with
 * sriov_numvfs and virtfn0 -> ../0000:03:00.2 (relative links as in sysfs).
 */
static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	snprintf(x->dir, sizeof(x->dir), "/tmp/nlw-sysfs-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	put_file(x->dir, "sys/net/ipv4/ip_forward", "0\n");
	put_file(x->dir, "devices/pci0/0000:03:00.0/sriov_numvfs", "4\n");
	put_file(x->dir, "devices/pci0/0000:03:00.0/big", "12345678901234567890\n");
	put_file(x->dir, "devices/pci0/0000:03:00.2/vendor", "0x15b3\n");
	put_file(x->dir, "class/net/pf0/uevent", "INTERFACE=pf0\n");
	put_link(x->dir, "class/net/pf0/device", "../../../devices/pci0/0000:03:00.0");
	put_link(x->dir, "devices/pci0/0000:03:00.0/virtfn0", "../0000:03:00.2");
	x->root = open(x->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(x->root >= 0);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	char cmd[PATH_MAX];

	close(x->root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->dir);
	assert_int_equal(system(cmd), 0);
	free(x);
	return 0;
}

static void test_path_rules(void **state)
{
	static const struct {
		const char *path;
		int ok;
	} cases[] = {
	    {"net/ipv4/ip_forward", 1},
	    {"net/ipv6/conf/eth0/accept_dad", 1},
	    {"net/ipv4/conf/veth1.100/rp_filter", 1},
	    {"net/ipv6/conf/vlan@x/forwarding", 1},
	    {"net/ipv4/../../kernel/hostname", 0},
	    {"net/ipv4/./ip_forward", 0},
	    {"net//ipv4", 0},
	    {"net/ipv4/", 0},
	    {"/net/ipv4/ip_forward", 0},
	    {"kernel/hostname", 0},
	    {"net", 0},
	    {"net/ipv4/conf/a b/x", 0},
	    {"net/ipv4/ip_forward\n", 0},
	    {"", 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = nlw_sysctl_path_valid(cases[i].path);

		if (cases[i].ok != (r == 0))
			fail_msg("path '%s': got %d", cases[i].path, r);
	}
	assert_int_equal(nlw_sysctl_path_valid(NULL), -EINVAL);
}

static void test_sysctl_rw_fixture(void **state)
{
	struct fx *x = *state;
	char buf[16];

	assert_int_equal(nlw_sysctl_get(x->root, "net/ipv4/ip_forward", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0");
	assert_int_equal(nlw_sysctl_set(x->root, "net/ipv4/ip_forward", "1"), 0);
	assert_int_equal(nlw_sysctl_get(x->root, "net/ipv4/ip_forward", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1");
	assert_int_equal(nlw_sysctl_set(x->root, "net/ipv4/nope", "1"), -ENOENT);
	assert_int_equal(nlw_sysctl_set(x->root, "net/../ip_forward", "1"), -EINVAL);
	assert_int_equal(nlw_sysctl_get(x->root, "net/ipv4/ip_forward", buf, 1), -ENOBUFS);
}

static void test_sysfs_reads(void **state)
{
	struct fx *x = *state;
	char buf[64];
	unsigned v;

	assert_int_equal(
	    nlw_sysfs_read_str(x->root, "class/net/pf0/device/sriov_numvfs", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4");
	assert_int_equal(nlw_sysfs_read_u32(x->root, "class/net/pf0/device/sriov_numvfs", &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(nlw_sysfs_read_u32(x->root, "class/net/pf0/device/big", &v), -ERANGE);
	assert_int_equal(
	    nlw_sysfs_read_str(x->root, "class/net/pf0/device/virtfn0/vendor", buf, sizeof(buf)),
	    0);
	assert_string_equal(buf, "0x15b3");
	assert_int_equal(
	    nlw_sysfs_read_link(x->root, "class/net/pf0/device/virtfn0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "../0000:03:00.2");
	assert_int_equal(
	    nlw_sysfs_read_link_base(x->root, "class/net/pf0/device", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0000:03:00.0");
	assert_int_equal(nlw_sysfs_read_link_base(x->root, "class/net/pf0/device", buf, 5),
			 -ENOBUFS);
	assert_int_equal(
	    nlw_sysfs_read_str(x->root, "class/net/pf1/device/sriov_numvfs", buf, sizeof(buf)),
	    -ENOENT);
	assert_int_equal(
	    nlw_sysfs_read_link(x->root, "class/net/pf0/device/sriov_numvfs", buf, sizeof(buf)),
	    -EINVAL); /* not a link */
	assert_int_equal(nlw_sysfs_read_str(x->root, "../etc/passwd", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nlw_sysfs_read_str(x->root, "/etc/passwd", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(nlw_sysfs_read_str(-1, "class", buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_path_rules),
	    cmocka_unit_test_setup_teardown(test_sysctl_rw_fixture, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sysfs_reads, setup, teardown),
	};

	return cmocka_run_group_tests_name("nlw-sysctl", tests, NULL, NULL);
}
