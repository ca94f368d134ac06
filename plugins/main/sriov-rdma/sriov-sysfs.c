/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A VF as sysfs describes it, read relative to a root fd (the real /sys, or
 * the fake tree of PODWIRE_SYSFS_ROOT in tests): bus/pci/devices/<vf>/physfn,
 * <pf>/sriov_numvfs and virtfnN, <pf>/net/, <vf>/net/, <vf>/driver and
 * <vf>/infiniband/.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/sysctl.h"
#include "sriov-rdma.h"

#define DEV_DIR "bus/pci/devices/"

static const char *const dpdk_drivers[] = {"vfio-pci", "uio_pci_generic", "igb_uio", NULL};

/* Entries of the directory root/path (not "." / ".."), sorted; returns the count or -errno. */
static int list_dir(int root, const char *path, char (*names)[IFNAMSIZ], int max)
{
	_cleanup_close_ int fd = openat(root, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (fd < 0)
		return negative_errno();
	d = fdopendir(fd);
	if (!d)
		return negative_errno();
	fd = -1; /* owned by d */
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= IFNAMSIZ)
			continue;
		strcpy(names[n++], de->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, IFNAMSIZ, (int (*)(const void *, const void *))strcmp);
	return n;
}

int sr_sysfs_netdevs(int sysfs_fd, const char *bdf, char (*names)[IFNAMSIZ], int max)
{
	char path[64];
	int n;

	if (!sr_bdf_valid(bdf))
		return -EINVAL;
	snprintf(path, sizeof(path), DEV_DIR "%s/net", bdf);
	n = list_dir(sysfs_fd, path, names, max);
	return n == -ENOENT ? 0 : n;
}

static int resolve_pf(int root, const char *bdf, struct sr_vf *v, struct cni_error *err)
{
	char path[64], names[1][IFNAMSIZ];
	unsigned total;
	int r;

	snprintf(path, sizeof(path), DEV_DIR "%s/physfn", bdf);
	r = nlw_sysfs_read_link_base(root, path, v->pf_bdf, sizeof(v->pf_bdf));
	if (r == -ENOENT || r == -EINVAL) {
		snprintf(path, sizeof(path), DEV_DIR "%s/sriov_totalvfs", bdf);
		if (nlw_sysfs_read_u32(root, path, &total) >= 0)
			return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "deviceID: \"%s\" is an SR-IOV PF (sriov_totalvfs %u), "
					  "not a VF",
					  bdf, total);
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "deviceID: \"%s\" is not an SR-IOV VF (no physfn)", bdf);
	}
	if (r < 0 || !sr_bdf_valid(v->pf_bdf))
		return cni_errorf(err, CNI_ERR_PLUGIN, r < 0 ? r : -EINVAL,
				  "deviceID: \"%s\": cannot read its physfn link", bdf);
	snprintf(path, sizeof(path), DEV_DIR "%s/net", v->pf_bdf);
	r = list_dir(root, path, names, 1);
	if (r <= 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, r < 0 ? r : -ENODEV,
				  "deviceID: PF %s of VF \"%s\" has no netdev", v->pf_bdf, bdf);
	strcpy(v->pf_name, names[0]);
	return 0;
}

/* N with <pf>/virtfnN -> <bdf>, N < sriov_numvfs. */
static int resolve_index(int root, const char *bdf, struct sr_vf *v, struct cni_error *err)
{
	char path[64], base[64];
	unsigned numvfs;
	int r;

	snprintf(path, sizeof(path), DEV_DIR "%s/sriov_numvfs", v->pf_bdf);
	r = nlw_sysfs_read_u32(root, path, &numvfs);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_PLUGIN, r,
				  "deviceID: PF %s: cannot read sriov_numvfs", v->pf_bdf);
	for (unsigned i = 0; i < numvfs && i < 4096; i++) {
		snprintf(path, sizeof(path), DEV_DIR "%s/virtfn%u", v->pf_bdf, i);
		if (nlw_sysfs_read_link_base(root, path, base, sizeof(base)) >= 0 &&
		    streq(base, bdf)) {
			v->index = (int)i;
			return 0;
		}
	}
	return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -ENOENT,
			  "deviceID: \"%s\" is not one of the %u VFs of PF %s (%s)", bdf, numvfs,
			  v->pf_name, v->pf_bdf);
}

static int resolve_rdma(int root, const char *bdf, struct sr_vf *v, struct cni_error *err)
{
	char path[64], names[2][IFNAMSIZ];
	int n;

	snprintf(path, sizeof(path), DEV_DIR "%s/infiniband", bdf);
	n = list_dir(root, path, names, 2);
	if (n == -ENOENT || n == 0)
		return 0;
	if (n < 0)
		return cni_errorf(err, CNI_ERR_PLUGIN, n, "deviceID: \"%s\": cannot list %s", bdf,
				  path);
	if (n > 1)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "deviceID: VF \"%s\" has more than one RDMA device (%s, %s)", bdf,
				  names[0], names[1]);
	snprintf(v->rdma_dev, sizeof(v->rdma_dev), "%s", names[0]);
	return 0;
}

static int resolve_driver(int root, const char *bdf, struct sr_vf *v, struct cni_error *err)
{
	char path[64], names[1][IFNAMSIZ];
	int r;

	snprintf(path, sizeof(path), DEV_DIR "%s/driver", bdf);
	r = nlw_sysfs_read_link_base(root, path, v->driver, sizeof(v->driver));
	if (r < 0)
		v->driver[0] = '\0'; /* unbound */
	for (size_t i = 0; dpdk_drivers[i]; i++)
		if (streq(v->driver, dpdk_drivers[i]))
			v->dpdk = true;
	if (v->dpdk)
		return 0;
	snprintf(path, sizeof(path), DEV_DIR "%s/net", bdf);
	r = list_dir(root, path, names, 1);
	if (r <= 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, r < 0 ? r : -ENODEV,
				  "deviceID: VF \"%s\" has neither a netdev nor a DPDK driver "
				  "(driver \"%s\")",
				  bdf, v->driver);
	strcpy(v->netdev, names[0]);
	return 0;
}

int sr_sysfs_resolve(int sysfs_fd, const char *bdf, struct sr_vf *ret, struct cni_error *err)
{
	struct sr_vf v = {0};
	char path[64];
	int r;

	if (!sr_bdf_valid(bdf))
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "deviceID: \"%s\" is not a PCI address", bdf);
	snprintf(v.bdf, sizeof(v.bdf), "%s", bdf);
	snprintf(path, sizeof(path), DEV_DIR "%s", bdf);
	if (faccessat(sysfs_fd, path, F_OK, 0) < 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, negative_errno(),
				  "deviceID: no PCI device \"%s\"", bdf);
	r = resolve_pf(sysfs_fd, bdf, &v, err);
	if (r >= 0)
		r = resolve_index(sysfs_fd, bdf, &v, err);
	if (r >= 0)
		r = resolve_driver(sysfs_fd, bdf, &v, err);
	if (r >= 0)
		r = resolve_rdma(sysfs_fd, bdf, &v, err);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int sr_sysfs_root(struct cni_ctx *ctx, int *ret_fd)
{
	const char *root = getenv("PODWIRE_SYSFS_ROOT");
	int fd;

	if (isempty(root)) {
		if (ctx->sysfs_fd < 0)
			ctx->sysfs_fd = open("/sys", O_PATH | O_DIRECTORY | O_CLOEXEC);
		*ret_fd = ctx->sysfs_fd;
		return ctx->sysfs_fd < 0 ? negative_errno() : 0;
	}
	/* Test-only: a fake tree replaces /sys (README). */
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_ENV, negative_errno(),
				  "PODWIRE_SYSFS_ROOT: cannot open \"%s\"", root);
	if (ctx->sysfs_fd >= 0)
		close(ctx->sysfs_fd);
	ctx->sysfs_fd = fd;
	*ret_fd = fd;
	return 0;
}
