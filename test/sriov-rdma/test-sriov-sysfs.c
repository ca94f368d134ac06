/* SPDX-License-Identifier: Apache-2.0 */
/* sysfs resolution on a fake tree built in a temp dir (the layout of
 * PODWIRE_SYSFS_ROOT in plugins/main/sriov-rdma/README.md). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

static char root[64];

__attribute__((format(printf, 1, 2))) static void mk(const char *fmt, ...)
{
	char rel[256], path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void ln(const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

#define D "bus/pci/devices/"
#define PF "0000:af:00.0"

/* PF with 3 VFs (06.0 netdev + RDMA, 06.1 DPDK, 06.2 unbound without netdev), 06.3 beyond numvfs.
 */
static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/sriov-sysfs.XXXXXX");
	assert_non_null(mkdtemp(root));
	mk(D PF "/net/ens1f0");
	put(D PF "/sriov_numvfs", "3\n");
	put(D PF "/sriov_totalvfs", "8\n");
	mk("bus/pci/drivers/mlx5_core");
	mk("bus/pci/drivers/vfio-pci");
	for (int i = 0; i < 4; i++) {
		char vf[32], rel[96], target[48];

		snprintf(vf, sizeof(vf), "0000:af:06.%d", i);
		mk(D "%s", vf);
		snprintf(rel, sizeof(rel), D PF "/virtfn%d", i);
		snprintf(target, sizeof(target), "../%s", vf);
		ln(target, rel);
		snprintf(rel, sizeof(rel), D "%s/physfn", vf);
		ln("../" PF, rel);
	}
	mk(D "0000:af:06.0/net/ens1f0v0");
	mk(D "0000:af:06.0/infiniband/mlx5_3");
	ln("../../drivers/mlx5_core", D "0000:af:06.0/driver");
	ln("../../drivers/vfio-pci", D "0000:af:06.1/driver");
	mk(D "0000:af:06.3/net/ens1f0v3");
	mk(D "0000:05:00.0/net/eno1");
	mk(D "0000:b0:00.0");
	mk(D "0000:b0:00.1");
	ln("../0000:b0:00.0", D "0000:b0:00.1/physfn");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static int open_root(void)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static int resolve(const char *bdf, struct sr_vf *v, struct cni_error *err)
{
	int fd = open_root(), r;

	memset(err, 0, sizeof(*err));
	r = sr_sysfs_resolve(fd, bdf, v, err);
	close(fd);
	return r;
}

static void test_netdev_vf(void **state)
{
	struct cni_error err;
	struct sr_vf v;

	(void)state;
	assert_int_equal(resolve("0000:af:06.0", &v, &err), 0);
	assert_string_equal(v.pf_bdf, PF);
	assert_string_equal(v.pf_name, "ens1f0");
	assert_int_equal(v.index, 0);
	assert_string_equal(v.netdev, "ens1f0v0");
	assert_string_equal(v.driver, "mlx5_core");
	assert_false(v.dpdk);
	assert_string_equal(v.rdma_dev, "mlx5_3");
}

static void test_dpdk_vf(void **state)
{
	struct cni_error err;
	struct sr_vf v;

	(void)state;
	assert_int_equal(resolve("0000:af:06.1", &v, &err), 0);
	assert_int_equal(v.index, 1);
	assert_true(v.dpdk);
	assert_string_equal(v.driver, "vfio-pci");
	assert_string_equal(v.netdev, "");
	assert_string_equal(v.rdma_dev, "");
}

static void expect_error(const char *bdf, unsigned code, const char *text)
{
	struct cni_error err;
	struct sr_vf v;

	assert_true(resolve(bdf, &v, &err) < 0);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, text))
		fail_msg("%s: '%s' lacks '%s'", bdf, err.msg, text);
	cni_error_done(&err);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("0000:af:06.2", CNI_ERR_INVALID_CONFIG, "neither a netdev nor a DPDK driver");
	expect_error("0000:af:06.3", CNI_ERR_INVALID_CONFIG,
		     "is not one of the 3 VFs of PF ens1f0");
	expect_error(PF, CNI_ERR_INVALID_CONFIG, "is an SR-IOV PF (sriov_totalvfs 8), not a VF");
	expect_error("0000:05:00.0", CNI_ERR_INVALID_CONFIG, "is not an SR-IOV VF (no physfn)");
	expect_error("0000:99:00.0", CNI_ERR_INVALID_CONFIG, "no PCI device \"0000:99:00.0\"");
	expect_error("0000:b0:00.1", CNI_ERR_INVALID_CONFIG, "PF 0000:b0:00.0 of VF");
	expect_error("../../etc", CNI_ERR_INVALID_CONFIG, "is not a PCI address");
}

static void test_two_rdma_devices(void **state)
{
	(void)state;
	mk(D "0000:af:06.0/infiniband/mlx5_4");
	expect_error("0000:af:06.0", CNI_ERR_INVALID_CONFIG,
		     "more than one RDMA device (mlx5_3, mlx5_4)");
	rmdir(strcat(strcpy((char[256]){0}, root), "/" D "0000:af:06.0/infiniband/mlx5_4"));
}

static void test_netdevs_and_root(void **state)
{
	char names[4][IFNAMSIZ];
	struct cni_ctx ctx = {.sysfs_fd = -1};
	int fd = open_root(), got;

	(void)state;
	assert_int_equal(sr_sysfs_netdevs(fd, "0000:af:06.0", names, 4), 1);
	assert_string_equal(names[0], "ens1f0v0");
	assert_int_equal(sr_sysfs_netdevs(fd, "0000:af:06.1", names, 4), 0);
	close(fd);
	setenv("PODWIRE_SYSFS_ROOT", root, 1);
	assert_int_equal(sr_sysfs_root(&ctx, &got), 0);
	assert_int_equal(got, ctx.sysfs_fd);
	assert_int_equal(sr_sysfs_netdevs(got, "0000:af:06.0", names, 4), 1);
	close(ctx.sysfs_fd);
	setenv("PODWIRE_SYSFS_ROOT", "/nonexistent-root", 1);
	ctx.sysfs_fd = -1;
	assert_true(sr_sysfs_root(&ctx, &got) < 0);
	assert_int_equal(ctx.err.code, CNI_ERR_INVALID_ENV);
	cni_error_done(&ctx.err);
	unsetenv("PODWIRE_SYSFS_ROOT");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_netdev_vf),	     cmocka_unit_test(test_dpdk_vf),
	    cmocka_unit_test(test_errors),	     cmocka_unit_test(test_two_rdma_devices),
	    cmocka_unit_test(test_netdevs_and_root),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
