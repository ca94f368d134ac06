/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire's per-attachment index beside the reference's lease files, and
 * the one full scan used to rebuild it (and for GC).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "internal.h"
#include "ipam/store-disk.h"

#define INDEX_MAGIC "podwire-index 1\n"
#define INDEX_MAX (256u * 1024u)
#define LEASE_MAX 600

char *disk_trim(char *s)
{
	size_t n;

	while (ascii_isspace(*s))
		s++;
	n = strlen(s);
	while (n > 0 && ascii_isspace(s[n - 1]))
		s[--n] = '\0';
	return s;
}

int disk_parse_owner(char *content, char **ret_id, char **ret_ifname)
{
	char *id = disk_trim(content), *ifname = NULL, *sep = strstr(id, "\r\n");

	if (sep) {
		*sep = '\0';
		ifname = sep + 2;
		if (!ipam_disk_valid_component(ifname, DISK_IFNAME_MAX))
			return -EINVAL;
	}
	if (!ipam_disk_valid_component(id, DISK_ID_MAX))
		return -EINVAL;
	*ret_id = id;
	*ret_ifname = ifname;
	return 0;
}

static void index_name(const char *id, const char *ifname, char *buf, size_t len)
{
	if (ifname)
		snprintf(buf, len, "@%s:%s", id, ifname);
	else
		snprintf(buf, len, "@%s", id);
}

int disk_index_read(int idxfd, const char *id, const char *ifname, struct ipam_addr **ret,
		    size_t *ret_n)
{
	_cleanup_free_ struct ipam_addr *a = NULL;
	_cleanup_free_ char *content = NULL;
	char name[NAME_MAX + 1], *line, *save = NULL;
	size_t n = 0, cap = 0;
	int r;

	index_name(id, ifname, name, sizeof(name));
	r = disk_read_file(idxfd, name, INDEX_MAX, &content);
	if (r == -ENOENT || (r >= 0 && strncmp(content, INDEX_MAGIC, strlen(INDEX_MAGIC)) != 0)) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	for (line = strtok_r(content + strlen(INDEX_MAGIC), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct ipam_addr ip;

		if (ip_addr_parse(line, &ip.family, &ip.addr) < 0)
			continue;
		if (n == cap) {
			struct ipam_addr *m = reallocarray_safe(a, cap ? 2 * cap : 4, sizeof(*a));

			if (!m)
				return -ENOMEM;
			a = m;
			cap = cap ? 2 * cap : 4;
		}
		a[n++] = ip;
	}
	*ret = TAKE_PTR(a);
	*ret_n = n;
	return 0;
}

static char *index_content(const struct ipam_addr *a, size_t n);

static int index_write(int idxfd, const char *id, const char *ifname, const struct ipam_addr *a,
		       size_t n)
{
	char name[NAME_MAX + 1];
	_cleanup_free_ char *content = NULL;

	if (n == 0)
		return disk_index_remove(idxfd, id, ifname);
	index_name(id, ifname, name, sizeof(name));
	content = index_content(a, n);
	if (!content)
		return -ENOMEM;
	return disk_replace_file(idxfd, name, content);
}

int disk_index_update(int idxfd, const char *id, const char *ifname, const struct ipam_addr *ip,
		      bool add)
{
	_cleanup_free_ struct ipam_addr *a = NULL;
	struct ipam_addr *m;
	size_t n = 0, kept = 0;
	bool found = false;
	int r;

	r = disk_index_read(idxfd, id, ifname, &a, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		bool same =
		    a[i].family == ip->family && ip_addr_equal(ip->family, &a[i].addr, &ip->addr);

		found |= same;
		if (!same || add)
			a[kept++] = a[i];
	}
	if (add && found)
		return 0;
	if (add) {
		m = reallocarray_safe(a, kept + 1, sizeof(*a));
		if (!m)
			return -ENOMEM;
		a = m;
		a[kept++] = *ip;
	}
	return index_write(idxfd, id, ifname, a, kept);
}

int disk_index_remove(int idxfd, const char *id, const char *ifname)
{
	char name[NAME_MAX + 1];

	index_name(id, ifname, name, sizeof(name));
	if (unlinkat(idxfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static bool is_regular(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type == DT_REG)
		return true;
	if (de->d_type != DT_UNKNOWN)
		return false;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

static int lease_from_file(int dirfd, const char *name, const struct ipam_addr *ip,
			   struct ipam_lease *ret)
{
	_cleanup_free_ char *content = NULL;
	char *id, *ifname, *sep;
	int r;

	r = disk_read_file(dirfd, name, LEASE_MAX, &content);
	if (r < 0)
		return r;
	id = disk_trim(content);
	sep = strstr(id, "\r\n");
	if (sep)
		*sep = '\0';
	ifname = sep ? sep + 2 : NULL;
	ret->ip = *ip;
	ret->id = strdup(id);
	ret->ifname = ifname ? strdup(ifname) : NULL;
	if (!ret->id || (ifname && !ret->ifname)) {
		free(ret->id);
		free(ret->ifname);
		return -ENOMEM;
	}
	return 0;
}

/* Append the lease of one directory entry if it is one. */
static int scan_entry(int dirfd, const struct dirent *de, struct ipam_lease **a, size_t *n,
		      size_t *cap)
{
	struct ipam_addr ip;
	int r;

	if (ip_addr_parse(de->d_name, &ip.family, &ip.addr) < 0 || !is_regular(dirfd, de))
		return 0;
	if (*n == *cap) {
		struct ipam_lease *m = reallocarray_safe(*a, *cap ? 2 * *cap : 16, sizeof(**a));

		if (!m)
			return -ENOMEM;
		*a = m;
		*cap = *cap ? 2 * *cap : 16;
	}
	r = lease_from_file(dirfd, de->d_name, &ip, &(*a)[*n]);
	if (r == -ENOENT) /* released while we looked: not a lease any more */
		return 0;
	if (r < 0)
		return r;
	(*n)++;
	return 0;
}

int disk_scan(int dirfd, struct ipam_lease **ret, size_t *ret_n)
{
	struct ipam_lease *a = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while (r >= 0 && (errno = 0, de = readdir(d)))
		r = scan_entry(dirfd, de, &a, &n, &cap);
	if (r >= 0 && errno != 0)
		r = -errno;
	closedir(d);
	if (r < 0) {
		ipam_leases_free(a, n);
		return r;
	}
	*ret = a;
	*ret_n = n;
	return 0;
}

static int owner_cmp(const void *x, const void *y)
{
	const struct ipam_lease *a = x, *b = y;
	int c = strcmp(a->id, b->id);

	if (c)
		return c;
	if (!a->ifname || !b->ifname)
		return !!a->ifname - !!b->ifname;
	return strcmp(a->ifname, b->ifname);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Remove index files whose name is not in keep[0..n) (sorted). */
static int prune_index(int idxfd, char **keep, size_t n)
{
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	fd = openat(idxfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		char *name = de->d_name;

		if (name[0] != '@' || bsearch(&name, keep, n, sizeof(*keep), name_cmp))
			continue;
		if (unlinkat(idxfd, name, 0) < 0 && errno != ENOENT)
			r = -errno;
	}
	closedir(d);
	return r;
}

static char *index_content(const struct ipam_addr *a, size_t n)
{
	char buf[INET6_ADDRSTRLEN], *content = malloc_multiply(n + 1, INET6_ADDRSTRLEN + 1);
	size_t len;

	if (!content)
		return NULL;
	len = (size_t)sprintf(content, "%s", INDEX_MAGIC);
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(content + len, "%s\n", ipam_addr_fmt(&a[i], buf));
	return content;
}

/* Write one owner's index unless it already says exactly that. */
static int sync_group(int idxfd, const struct ipam_lease *l, const struct ipam_addr *a, size_t n,
		      char **ret_name)
{
	_cleanup_free_ char *want = index_content(a, n), *have = NULL;
	char name[NAME_MAX + 1];
	int r;

	if (!want)
		return -ENOMEM;
	index_name(l->id, l->ifname, name, sizeof(name));
	*ret_name = strdup(name);
	if (!*ret_name)
		return -ENOMEM;
	r = disk_read_file(idxfd, name, INDEX_MAX, &have);
	if (r >= 0 && streq(have, want))
		return 0;
	return disk_replace_file(idxfd, name, want);
}

/*
 * Bring the index in line with leases[0..n) (sorted by owner): rewrite only
 * the owners whose index differs, then drop index files of owners gone.
 */
static int sync_index(int idxfd, const struct ipam_lease *l, size_t n)
{
	_cleanup_free_ struct ipam_addr *a = malloc_multiply(n, sizeof(*a));
	char **names = calloc(n + 1, sizeof(char *));
	size_t i = 0, k = 0;
	int r = (a || !n) && names ? 0 : -ENOMEM;

	while (r >= 0 && i < n) {
		size_t j = i, m = 0;

		while (j < n && owner_cmp(&l[i], &l[j]) == 0)
			a[m++] = l[j++].ip;
		r = sync_group(idxfd, &l[i], a, m, &names[k++]);
		i = j;
	}
	if (r >= 0) {
		qsort(names, k, sizeof(*names), name_cmp);
		r = prune_index(idxfd, names, k);
	}
	for (size_t x = 0; names && x < k; x++)
		free(names[x]);
	free(names);
	return r;
}

/* Give ownerless lease l[i] of address ip the owner of index file `name` ("@id[:ifname]"). */
static int adopt(struct ipam_lease *l, size_t n, const struct ipam_addr *ip, const char *name)
{
	const char *colon = strchr(name + 1, ':');

	for (size_t i = 0; i < n; i++) {
		if (l[i].id[0] || l[i].ifname || l[i].ip.family != ip->family ||
		    !ip_addr_equal(ip->family, &l[i].ip.addr, &ip->addr))
			continue;
		free(l[i].id);
		l[i].id = colon ? strndup(name + 1, (size_t)(colon - name - 1)) : strdup(name + 1);
		l[i].ifname = colon ? strdup(colon + 1) : NULL;
		if (!l[i].id || (colon && !l[i].ifname))
			return -ENOMEM;
	}
	return 0;
}

/*
 * An ownerless (empty) lease keeps the index entry that names it: the entry
 * was written by the ADD that created the lease and died, and it is how DEL
 * of that attachment finds the lease. Only scans the index when there is an
 * ownerless lease at all.
 */
static int adopt_ownerless(int idxfd, struct ipam_lease *l, size_t n)
{
	struct dirent *de;
	size_t i;
	DIR *d;
	int fd, r = 0;

	for (i = 0; i < n && (l[i].id[0] || l[i].ifname); i++)
		;
	if (i == n)
		return 0;
	fd = openat(idxfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (r >= 0 && (de = readdir(d))) {
		_cleanup_free_ struct ipam_addr *a = NULL;
		char *id = de->d_name + 1, *colon, *ifname = NULL;
		size_t m = 0;

		if (de->d_name[0] != '@')
			continue;
		colon = strchr(id, ':');
		if (colon) {
			*colon = '\0';
			ifname = colon + 1;
		}
		r = disk_index_read(idxfd, id, ifname, &a, &m);
		if (colon)
			*colon = ':';
		for (size_t j = 0; r >= 0 && j < m; j++)
			r = adopt(l, n, &a[j], de->d_name);
	}
	closedir(d);
	return r;
}

int disk_rebuild_index(int dirfd, int idxfd)
{
	struct ipam_lease *l = NULL;
	size_t n = 0, kept = 0;
	int r;

	r = disk_scan(dirfd, &l, &n);
	if (r >= 0)
		r = adopt_ownerless(idxfd, l, n);
	if (r < 0) {
		ipam_leases_free(l, n);
		return r;
	}
	/* Owners that cannot name an index file get none: only GC (a scan) sees them. */
	for (size_t i = 0; i < n; i++) {
		if (ipam_disk_valid_component(l[i].id, DISK_ID_MAX) &&
		    (!l[i].ifname || ipam_disk_valid_component(l[i].ifname, DISK_IFNAME_MAX))) {
			struct ipam_lease t = l[kept];

			l[kept++] = l[i];
			l[i] = t;
		}
	}
	if (kept > 1)
		qsort(l, kept, sizeof(*l), owner_cmp);
	r = sync_index(idxfd, l, kept);
	ipam_leases_free(l, n);
	return r;
}
