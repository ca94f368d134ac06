/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directory scans of the plugins' state: every file read through one
 * bounded reader; each unreadable or corrupt file is one pi_file_error and
 * the scan goes on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/runtime.h"
#include "inspect.h"

typedef int (*file_fn)(struct pi_inv *inv, const char *buf, size_t len, const char *path,
		       void *userdata);

int pi_read_file_at(int dirfd, const char *name, char **ret, size_t *ret_len)
{
	/* O_NONBLOCK, and regular files only: a FIFO must not hang the scan. */
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	int n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EISDIR;
	n = fd_read_all(fd, PI_FILE_MAX, ret);
	if (n < 0)
		return n;
	*ret_len = (size_t)n;
	return 0;
}

/* Names that are not entries: hidden, temporary files of atomic writes, locks. */
static bool skip_name(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' || strstr(name, ".tmp.") || (n > 5 && streq(name + n - 5, ".lock"));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries a scan wants: subdirectories (dirs), or everything else. */
static bool wanted(const struct dirent *de, bool dirs)
{
	if (dirs)
		return de->d_name[0] != '.' && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN);
	return de->d_type != DT_DIR && !skip_name(de->d_name);
}

/* Sorted names of the entries of dir that wanted() keeps. */
static int list_names(DIR *d, bool dirs, char ***ret, size_t *ret_n)
{
	char **v = NULL;
	size_t n = 0;
	struct dirent *de;

	while ((de = readdir(d)) && n < PI_DIR_MAX_FILES) {
		char **p;

		if (!wanted(de, dirs))
			continue;
		p = reallocarray_safe(v, n + 1, sizeof(*p));
		if (!p || !(p[n] = strdup(de->d_name))) {
			v = p ? p : v;
			for (size_t i = 0; i < n; i++)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
		v = p;
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), name_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

static int scan_one(struct pi_inv *inv, int dfd, const char *dir, const char *name, file_fn fn,
		    void *userdata)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	r = pi_read_file_at(dfd, name, &buf, &len);
	if (r == -EISDIR || r == -ENOENT) /* a subdirectory, or removed while we looked */
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return pi_inv_file_error(inv, path, "cannot read: %s", strerror(-r));
	return fn(inv, buf, len, path, userdata);
}

/* Run fn on every entry of dir. A missing directory holds no state. */
static int scan_dir(struct pi_inv *inv, const char *dir, file_fn fn, void *userdata)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!d)
		return errno == ENOENT || errno == ENOTDIR
			   ? 0
			   : pi_inv_file_error(inv, dir, "cannot read directory: %s",
					       strerror(errno));
	r = list_names(d, false, &names, &n);
	for (size_t i = 0; i < n; i++) {
		if (r >= 0)
			r = scan_one(inv, dirfd(d), dir, names[i], fn, userdata);
		free(names[i]);
	}
	free(names);
	closedir(d);
	return r;
}

static int cache_file(struct pi_inv *inv, const char *buf, size_t len, const char *path,
		      void *userdata)
{
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	int r;

	(void)userdata;
	r = cni_cache_entry_parse(buf, len, path, &e, &err);
	if (r < 0) {
		r = pi_inv_file_error(inv, path, "%s", err.msg ? err.msg : "corrupt cache entry");
		cni_error_done(&err);
		return r;
	}
	return pi_merge_cache_entry(inv, e, path);
}

typedef int (*parse_fn)(struct pi_inv *inv, const char *buf, size_t len, const char *path);

/* A <name>.json state file, given to the parser userdata points to; other names are skipped. */
static int json_file(struct pi_inv *inv, const char *buf, size_t len, const char *path,
		     void *userdata)
{
	size_t n = strlen(path);

	if (n < 5 || !streq(path + n - 5, ".json"))
		return 0;
	return (*(const parse_fn *)userdata)(inv, buf, len, path);
}

static const parse_fn sriov_parser = pi_parse_sriov, lost_parser = pi_parse_sriov_lost;

static int multinet_file(struct pi_inv *inv, const char *buf, size_t len, const char *path,
			 void *userdata)
{
	(void)userdata;
	return pi_parse_multinet(inv, buf, len, path);
}

/* sriov-rdma's lost VFs: <state-dir>/lost/<BDF>.json. */
static int scan_sriov_lost(struct pi_inv *inv, const char *state_dir)
{
	_cleanup_free_ char *dir = NULL;

	if (asprintf(&dir, "%s/lost", state_dir) < 0)
		return -ENOMEM;
	return scan_dir(inv, dir, json_file, (void *)&lost_parser);
}

static int scan_results(struct pi_inv *inv, const char *dir)
{
	_cleanup_free_ char *results = NULL;

	if (asprintf(&results, "%s/results", dir) < 0)
		return -ENOMEM;
	return scan_dir(inv, results, cache_file, NULL);
}

int pi_read_sources(struct pi_inv *inv, const struct pi_options *opt)
{
	int r = scan_results(inv, opt->cache_dir);

	/* multinet keeps its delegates' libcni entries under its own cniDir. */
	if (r >= 0 && !streq(opt->multinet_dir, opt->cache_dir))
		r = scan_results(inv, opt->multinet_dir);
	if (r >= 0)
		r = scan_dir(inv, opt->multinet_dir, multinet_file, NULL);
	if (r >= 0)
		r = scan_dir(inv, opt->state_dir, json_file, (void *)&sriov_parser);
	if (r >= 0)
		r = scan_sriov_lost(inv, opt->state_dir);
	return r;
}

/* ---- leases: <lease_dir>/<network>/<ip> ---- */

struct lease_ctx {
	const char *network;
};

static bool looks_like_ip(const char *name)
{
	return strspn(name, "0123456789abcdefABCDEF.:") == strlen(name) &&
	       (strchr(name, '.') || strchr(name, ':'));
}

static int lease_file(struct pi_inv *inv, const char *buf, size_t len, const char *path,
		      void *userdata)
{
	const struct lease_ctx *c = userdata;
	const char *ip = strrchr(path, '/') + 1;
	char *cid = NULL, *ifname = NULL;
	struct pi_att tag = {0};
	bool matched;
	int r;

	if (!looks_like_ip(ip))
		return 0; /* lock, last_reserved_ip.N */
	if (pi_parse_lease(buf, len, &cid, &ifname) < 0)
		return pi_inv_file_error(inv, path,
					 "not a host-local lease "
					 "(\"<containerID>\\r\\n<ifname>\")");
	matched = false;
	for (size_t i = 0; i < inv->n_atts && !matched; i++) {
		const struct pi_att *a = &inv->atts[i];

		matched = streq(a->container_id, cid) && (!ifname || streq(a->ifname, ifname)) &&
			  (a->sources & (PI_SRC_CACHE | PI_SRC_MULTINET | PI_SRC_SRIOV));
	}
	r = 0;
	if (!matched) {
		tag.container_id = cid;
		tag.ifname = ifname;
		tag.network = (char *)c->network;
		r = pi_inv_leak(inv, "lease", path, "host-local lease of no attachment", &tag);
	}
	free(cid);
	free(ifname);
	return r;
}

int pi_find_lease_leaks(struct pi_inv *inv, const char *lease_dir)
{
	DIR *d = opendir(lease_dir);
	char **names = NULL;
	size_t n = 0;
	int r;

	if (!d)
		return errno == ENOENT
			   ? 0
			   : pi_inv_file_error(inv, lease_dir, "cannot read directory: %s",
					       strerror(errno));
	r = list_names(d, true, &names, &n);
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *sub = NULL;
		struct lease_ctx c = {.network = names[i]};

		if (r >= 0 && asprintf(&sub, "%s/%s", lease_dir, names[i]) < 0)
			r = -ENOMEM;
		if (r >= 0)
			r = scan_dir(inv, sub, lease_file, &c);
		free(names[i]);
	}
	free(names);
	return r;
}
