/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RDMA counters from sysfs: <root>/class/infiniband/<dev>/ports/<p>/counters/
 * (IB PMA counters; port_xmit_data/port_rcv_data in units of 4 octets, kept
 * as the kernel gives them) and hw_counters/ (driver counters; `lifespan` is a
 * refresh period, not a counter, and is left out). One decimal u64 per file.
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
#include "inspect.h"

#define RDMA_MAX_PORTS 64
#define RDMA_MAX_COUNTERS 512

/* One line of text from a small sysfs file, trailing newline removed. */
static int read_line_at(int dfd, const char *name, char **ret)
{
	char *buf = NULL;
	size_t len;
	int r = pi_read_file_at(dfd, name, &buf, &len);

	if (r < 0)
		return r;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	if (strlen(buf) != len) { /* NUL inside */
		free(buf);
		return -EINVAL;
	}
	*ret = buf;
	return 0;
}

/* Counter names as drivers make them: [A-Za-z0-9_.-], at most 64 bytes. */
static bool counter_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 64 && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int read_counter_dir(int port_fd, const char *sub, struct pi_counters *out)
{
	int fd = openat(port_fd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(d)) && out->n < RDMA_MAX_COUNTERS) {
		_cleanup_free_ char *line = NULL;
		uint64_t v;

		if (!counter_name_ok(de->d_name) || streq(de->d_name, "lifespan"))
			continue;
		if (read_line_at(dirfd(d), de->d_name, &line) < 0 || safe_atou64(line, &v) < 0)
			continue; /* not a counter (or unreadable): skip, never guess */
		r = pi_counters_add(out, de->d_name, v);
	}
	closedir(d);
	return r;
}

static int counter_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pi_counter *)a)->name, ((const struct pi_counter *)b)->name);
}

static int read_port(int ports_fd, unsigned port, struct pi_rdma_port *p)
{
	char name[16];
	int fd, r;

	snprintf(name, sizeof(name), "%u", port);
	fd = openat(ports_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	p->port = port;
	(void)read_line_at(fd, "state", &p->state);
	(void)read_line_at(fd, "link_layer", &p->link_layer);
	r = read_counter_dir(fd, "counters", &p->counters);
	if (r >= 0)
		r = read_counter_dir(fd, "hw_counters", &p->hw_counters);
	close(fd);
	if (p->counters.n > 1)
		qsort(p->counters.v, p->counters.n, sizeof(*p->counters.v), counter_cmp);
	if (p->hw_counters.n > 1)
		qsort(p->hw_counters.v, p->hw_counters.n, sizeof(*p->hw_counters.v), counter_cmp);
	return r;
}

static int port_cmp(const void *a, const void *b)
{
	unsigned x = ((const struct pi_rdma_port *)a)->port,
		 y = ((const struct pi_rdma_port *)b)->port;

	return x < y ? -1 : x > y;
}

static int read_ports(struct pi_att *a, int ports_fd)
{
	DIR *d = fdopendir(ports_fd);
	struct dirent *de;
	int r = 0;

	if (!d) {
		close(ports_fd);
		return -errno;
	}
	while (r >= 0 && (de = readdir(d)) && a->n_rdma_ports < RDMA_MAX_PORTS) {
		struct pi_rdma_port *p;
		uint32_t port;

		if (safe_atou32_max(de->d_name, 255, &port) < 0 || port == 0)
			continue;
		p = reallocarray_safe(a->rdma_ports, a->n_rdma_ports + 1, sizeof(*p));
		if (!p) {
			r = -ENOMEM;
			break;
		}
		a->rdma_ports = p;
		p = &p[a->n_rdma_ports++];
		*p = (struct pi_rdma_port){0};
		r = read_port(dirfd(d), port, p);
	}
	closedir(d);
	if (a->n_rdma_ports > 1)
		qsort(a->rdma_ports, a->n_rdma_ports, sizeof(*a->rdma_ports), port_cmp);
	return r;
}

int pi_rdma_read(struct pi_att *a, const char *sysfs_root)
{
	_cleanup_free_ char *path = NULL;
	int fd, r;

	if (!a->rdma_dev)
		return 0;
	if (asprintf(&path, "%s/class/infiniband/%s/ports", sysfs_root, a->rdma_dev) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (asprintf(&a->rdma_error,
			     "%s: %s (in exclusive mode the device is visible "
			     "only in the pod's netns)",
			     path, strerror(-r)) < 0)
			a->rdma_error = NULL;
		return 0;
	}
	r = read_ports(a, fd);
	if (r == -ENOMEM)
		return r;
	if (r < 0 && asprintf(&a->rdma_error, "%s: %s", path, strerror(-r)) < 0)
		a->rdma_error = NULL;
	return 0;
}

int pi_rdma_dev_of_pci(const char *sysfs_root, const char *pci, char **ret)
{
	_cleanup_free_ char *path = NULL;
	struct dirent *de;
	DIR *d;
	int r = -ENOENT;

	*ret = NULL;
	if (strchr(pci, '/') ||
	    asprintf(&path, "%s/bus/pci/devices/%s/infiniband", sysfs_root, pci) < 0)
		return -EINVAL;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		*ret = strdup(de->d_name);
		r = *ret ? 0 : -ENOMEM;
		break;
	}
	closedir(d);
	return r;
}

int pi_rdma_scan(struct pi_inv *inv, const char *sysfs_root)
{
	for (size_t i = 0; i < inv->n_atts; i++) {
		struct pi_att *a = &inv->atts[i];
		int r;

		if (!a->rdma_dev && a->vf_pci &&
		    pi_rdma_dev_of_pci(sysfs_root, a->vf_pci, &a->rdma_dev) == -ENOMEM)
			return -ENOMEM;
		r = pi_rdma_read(a, sysfs_root);
		if (r < 0)
			return r;
	}
	return 0;
}
