/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host-local's lease files (reference layout) with podwire's O(1) index.
 * See ipam/store-disk.h for the layout and the trust rule of the index.
 * Every path is opened relative to the network directory's fd, names are
 * validated components, and nothing follows a symlink.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fmt.h"
#include "base/file.h"
#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "internal.h"
#include "ipam/store-disk.h"

#define INDEX_DIR ".podwire"
#define STATE_MAGIC "podwire-state 1\n"
#define STATE_FILE "state"
#define LEASE_MAX 600 /* bytes of a lease file we read */

struct ipam_disk_store {
	int dirfd;  /* <dataDir>/<network> */
	int idxfd;  /* .podwire */
	int lockfd; /* lock, flock()ed */
	bool locked;
	bool dirty; /* we changed the network directory: record its state at unlock */
	unsigned rebuilds;
};

static int open_subdir(int parent, const char *name, mode_t mode)
{
	int fd;

	if (mkdirat(parent, name, mode) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int store_open(const char *data_dir, const char *network, bool create,
		      struct ipam_disk_store **ret)
{
	_cleanup_close_ int rootfd = -1;
	struct ipam_disk_store *s;
	int r;

	if (!data_dir || data_dir[0] != '/' || !ipam_disk_valid_component(network, NAME_MAX))
		return -EINVAL;
	r = create ? file_mkdir_parents(data_dir, 0755) : 0;
	if (r < 0)
		return r;
	rootfd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (!create && faccessat(rootfd, network, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->idxfd = s->lockfd = -1;
	s->dirfd = open_subdir(rootfd, network, 0700);
	if (s->dirfd >= 0)
		s->idxfd = open_subdir(s->dirfd, INDEX_DIR, 0700);
	r = s->dirfd < 0 ? s->dirfd : s->idxfd;
	if (r < 0) {
		ipam_disk_store_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int ipam_disk_store_open(const char *data_dir, const char *network, struct ipam_disk_store **ret)
{
	return store_open(data_dir, network, true, ret);
}

int ipam_disk_store_open_existing(const char *data_dir, const char *network,
				  struct ipam_disk_store **ret)
{
	return store_open(data_dir, network, false, ret);
}

struct ipam_disk_store *ipam_disk_store_free(struct ipam_disk_store *s)
{
	if (!s)
		return NULL;
	if (s->locked)
		disk_unlock(s);
	closep(&s->lockfd);
	closep(&s->idxfd);
	closep(&s->dirfd);
	free(s);
	return NULL;
}

unsigned ipam_disk_store_rebuilds(const struct ipam_disk_store *s)
{
	return s->rebuilds;
}

/* Small whole-file helpers, relative to a directory fd. */

/*
 * Read at most @max bytes of @name into a NUL-terminated buffer. The buffer
 * starts small and doubles: lease and index files are tens of bytes, and a
 * buffer of @max up front would be an mmap()/munmap() pair on every read.
 */

/* Create name exclusively with content. 1 created, 0 exists, <0 error. */
static int create_excl(int dirfd, const char *name, const char *content)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	r = fd_write_all(fd, content, strlen(content));
	if (r < 0) {
		unlinkat(dirfd, name, 0);
		return r;
	}
	return 1;
}

/*
 * Give the anonymous file fd the name `name` in dirfd. linkat() fails with
 * EEXIST when the name exists, exactly like O_EXCL. AT_EMPTY_PATH needs
 * CAP_DAC_READ_SEARCH; /proc/self/fd works without it.
 */
static int link_anonymous(int fd, int dirfd, const char *name)
{
	char proc[64];

	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != EPERM && errno != ENOENT && errno != EINVAL)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : -errno;
}

/*
 * Create a lease file that appears with its content: written to an
 * anonymous O_TMPFILE inode, then linked to its name. A kill at any point
 * leaves either no lease or a complete one, never an empty lease no DEL can
 * match. 1 created, 0 exists, <0 error. Filesystems without O_TMPFILE get
 * create_excl() (and the ownerless-lease rule of DEL and GC).
 */
static int create_lease(int dirfd, const char *name, const char *content)
{
	_cleanup_close_ int fd = -1;
	int r;

	fd = openat(dirfd, ".", O_WRONLY | O_TMPFILE | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		return create_excl(dirfd, name, content);
	if (fd < 0)
		return -errno;
	r = fd_write_all(fd, content, strlen(content));
	if (r >= 0)
		r = link_anonymous(fd, dirfd, name);
	if (r == -EEXIST)
		return 0;
	return r < 0 ? r : 1;
}

long disk_ownerless_age(int dirfd, const char *name)
{
	struct timespec now;
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
		return -1;
	return now.tv_sec > st.st_mtim.tv_sec ? (long)(now.tv_sec - st.st_mtim.tv_sec) : 0;
}

/*
 * Overwrite in place: write from offset 0, then cut to the new length.
 * Unlike O_TRUNC or rename-over, this does not make ext4 (auto_da_alloc)
 * start writeback of the file on every ADD. Readers hold the same lock.
 */
static int overwrite_file(int dirfd, const char *name, const char *content)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(content);
	int r;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	r = fd_write_all(fd, content, len);
	if (r >= 0 && ftruncate(fd, (off_t)len) < 0)
		r = -errno;
	return r;
}

/* The directory's identity and change stamps, as recorded in the state file. */
static int dir_stamp(int dirfd, char *buf, size_t len)
{
	char mtim_ns[10], ctim_ns[10]; /* "%09ld", without printf's padding code */
	struct stat st;

	if (fstat(dirfd, &st) < 0)
		return -errno;
	*fmt_dec(mtim_ns, (uint64_t)st.st_mtim.tv_nsec % 1000000000u, 9) = '\0';
	*fmt_dec(ctim_ns, (uint64_t)st.st_ctim.tv_nsec % 1000000000u, 9) = '\0';
	snprintf(buf, len, STATE_MAGIC "%llu %lld.%s %lld.%s %lld\n", (unsigned long long)st.st_ino,
		 (long long)st.st_mtim.tv_sec, mtim_ns, (long long)st.st_ctim.tv_sec, ctim_ns,
		 (long long)st.st_size);
	return 0;
}

/*
 * Is the index current? Only if the directory still carries the stamp we
 * recorded after our own last change. Timestamps are taken by fstat, so
 * kernels with multigrain timestamps (6.13+) give any later change a new
 * value even within one tick.
 */
static int index_current(struct ipam_disk_store *s)
{
	_cleanup_free_ char *saved = NULL;
	char now[256];
	int r;

	r = disk_read_file(s->idxfd, STATE_FILE, sizeof(now), &saved);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = dir_stamp(s->dirfd, now, sizeof(now));
	if (r < 0)
		return r;
	return streq(saved, now);
}

static int record_state(struct ipam_disk_store *s)
{
	char now[256];
	int r = dir_stamp(s->dirfd, now, sizeof(now));

	/* In place: a torn record only mismatches, which forces a re-sync. */
	return r < 0 ? r : overwrite_file(s->idxfd, STATE_FILE, now);
}

static int disk_lock(void *data)
{
	struct ipam_disk_store *s = data;
	int r;

	if (s->lockfd < 0) {
		/* The reference opens and flock()s this very file. */
		s->lockfd =
		    openat(s->dirfd, "lock", O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (s->lockfd < 0)
			return -errno;
	}
	while (flock(s->lockfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return -errno;
	s->locked = true;
	r = index_current(s);
	if (r == 0) {
		r = disk_rebuild_index(s->dirfd, s->idxfd);
		if (r >= 0) {
			s->rebuilds++;
			r = record_state(s);
		}
	}
	if (r < 0) {
		disk_unlock(s);
		return r;
	}
	return 0;
}

int disk_unlock(void *data)
{
	struct ipam_disk_store *s = data;
	int r = 0;

	if (!s->locked)
		return 0;
	if (s->dirty)
		r = record_state(s);
	s->dirty = false;
	s->locked = false;
	if (flock(s->lockfd, LOCK_UN) < 0 && r >= 0)
		r = -errno;
	return r;
}

static void lease_name(const struct ipam_addr *ip, char *buf)
{
	ipam_addr_fmt(ip, buf);
}

static int format_owner(const char *id, const char *ifname, char *buf, size_t len)
{
	int n = ifname ? snprintf(buf, len, "%s\r\n%s", id, ifname) : snprintf(buf, len, "%s", id);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Does the lease file of ip (named in this owner's index entry) belong to
 * owner? 1 yes, 0 no, <0 error. An ownerless (empty) lease older than the
 * grace period counts as the owner's: its index entry, written before the
 * lease, says which ADD created it and then died.
 */
static int lease_owned_by(int dirfd, const struct ipam_addr *ip, const char *owner)
{
	_cleanup_free_ char *content = NULL;
	char name[INET6_ADDRSTRLEN];
	int r;

	lease_name(ip, name);
	r = disk_read_file(dirfd, name, LEASE_MAX, &content);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (r == 0 && disk_ownerless_age(dirfd, name) > DISK_OWNERLESS_GRACE_S) {
		cni_log_warning("lease %s is empty (an ADD killed while creating it): releasing it "
				"with %s",
				name, owner);
		return 1;
	}
	return streq(disk_trim(content), owner);
}

/* Verified addresses of one index key (owner = expected lease content). */
static int held_by(struct ipam_disk_store *s, const char *id, const char *ifname,
		   struct ipam_addr **ret, size_t *ret_n)
{
	_cleanup_free_ struct ipam_addr *a = NULL;
	char owner[LEASE_MAX];
	size_t n = 0, kept = 0;
	int r;

	r = format_owner(id, ifname, owner, sizeof(owner));
	if (r >= 0)
		r = disk_index_read(s->idxfd, id, ifname, &a, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		r = lease_owned_by(s->dirfd, &a[i], owner);
		if (r < 0)
			return r;
		if (r > 0)
			a[kept++] = a[i];
	}
	*ret = TAKE_PTR(a);
	*ret_n = kept;
	return 0;
}

static int disk_get_by_id(void *data, const char *id, const char *ifname, struct ipam_addr **ret,
			  size_t *ret_n)
{
	struct ipam_disk_store *s = data;
	int r;

	if (!ipam_disk_valid_component(id, DISK_ID_MAX) ||
	    !ipam_disk_valid_component(ifname, DISK_IFNAME_MAX))
		return -EINVAL;
	r = held_by(s, id, ifname, ret, ret_n);
	if (r < 0 || *ret_n > 0)
		return r;
	free(*ret);
	*ret = NULL;
	return held_by(s, id, NULL, ret, ret_n);
}

static int disk_reserve(void *data, const char *id, const char *ifname, const struct ipam_addr *ip,
			unsigned range_id)
{
	struct ipam_disk_store *s = data;
	char name[INET6_ADDRSTRLEN], owner[LEASE_MAX], last[64];
	int r;

	if (!ipam_disk_valid_component(id, DISK_ID_MAX) ||
	    !ipam_disk_valid_component(ifname, DISK_IFNAME_MAX))
		return -EINVAL;
	lease_name(ip, name);
	/* Under the lock, existence is authoritative: skip taken candidates cheaply. */
	if (faccessat(s->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	r = format_owner(id, ifname, owner, sizeof(owner));
	if (r < 0)
		return r;
	/* Index first: a crash in between leaves an entry that fails verification, never a lease
	 * nobody can find. */
	r = disk_index_update(s->idxfd, id, ifname, ip, true);
	if (r < 0)
		return r;
	r = create_lease(s->dirfd, name, owner);
	if (r > 0) {
		s->dirty = true;
		snprintf(last, sizeof(last), "last_reserved_ip.%u", range_id);
		r = overwrite_file(s->dirfd, last, name);
		if (r >= 0)
			return 1;
		unlinkat(s->dirfd, name, 0);
	}
	(void)disk_index_update(s->idxfd, id, ifname, ip, false);
	return r;
}

static int release_list(struct ipam_disk_store *s, const struct ipam_addr *a, size_t n)
{
	char name[INET6_ADDRSTRLEN];
	int first = 0;

	for (size_t i = 0; i < n; i++) {
		lease_name(&a[i], name);
		if (unlinkat(s->dirfd, name, 0) < 0 && errno != ENOENT && first == 0)
			first = -errno;
		s->dirty = true;
	}
	return first;
}

static int disk_release_by_id(void *data, const char *id, const char *ifname)
{
	_cleanup_free_ struct ipam_addr *a = NULL;
	struct ipam_disk_store *s = data;
	const char *key_ifname = ifname;
	size_t n = 0;
	int r;

	if (!ipam_disk_valid_component(id, DISK_ID_MAX) ||
	    !ipam_disk_valid_component(ifname, DISK_IFNAME_MAX))
		return -EINVAL;
	r = held_by(s, id, ifname, &a, &n);
	if (r >= 0 && n == 0) {
		a = mfree(a);
		key_ifname = NULL;
		r = held_by(s, id, NULL, &a, &n);
	}
	if (r < 0)
		return r;
	r = release_list(s, a, n);
	if (r < 0)
		return r;
	/* Drop the index (stale or now empty) of both keys. */
	(void)disk_index_remove(s->idxfd, id, ifname);
	if (!key_ifname)
		(void)disk_index_remove(s->idxfd, id, NULL);
	return (int)n;
}

static int disk_release_ip(void *data, const struct ipam_addr *ip)
{
	struct ipam_disk_store *s = data;
	_cleanup_free_ char *content = NULL;
	char name[INET6_ADDRSTRLEN];
	char *id, *ifname;
	int r;

	lease_name(ip, name);
	r = disk_read_file(s->dirfd, name, LEASE_MAX, &content);
	if (r < 0)
		return r;
	if (unlinkat(s->dirfd, name, 0) < 0)
		return -errno;
	s->dirty = true;
	if (disk_parse_owner(content, &id, &ifname) >= 0)
		(void)disk_index_update(s->idxfd, id, ifname, ip, false);
	return 0;
}

static int disk_last_reserved(void *data, unsigned range_id, struct ipam_addr *ret)
{
	struct ipam_disk_store *s = data;
	_cleanup_free_ char *content = NULL;
	char name[64];
	struct ipam_addr a;
	int r;

	snprintf(name, sizeof(name), "last_reserved_ip.%u", range_id);
	r = disk_read_file(s->dirfd, name, 64, &content);
	if (r < 0)
		return r;
	if (ip_addr_parse(disk_trim(content), &a.family, &a.addr) < 0)
		return -EBADMSG;
	*ret = a;
	return 0;
}

static int disk_is_free(void *data, const struct ipam_addr *ip)
{
	struct ipam_disk_store *s = data;
	char name[INET6_ADDRSTRLEN];

	lease_name(ip, name);
	if (faccessat(s->dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	return errno == ENOENT ? 1 : -errno;
}

/*
 * For GC, the backstop: the index is rebuilt from a full scan first, so an
 * entry without a lease goes too (an ADD killed between writing its index
 * entry and creating its lease file leaves one; DEL removes it, but GC may
 * be the only call that ever comes).
 */
static int disk_list(void *data, struct ipam_lease **ret, size_t *ret_n)
{
	struct ipam_disk_store *s = data;
	struct ipam_lease *l = NULL;
	size_t n = 0, kept = 0;
	int r;

	r = disk_rebuild_index(s->dirfd, s->idxfd);
	if (r < 0)
		return r;
	s->dirty = true;
	r = disk_scan(s->dirfd, &l, &n);
	if (r < 0)
		return r;
	/* A fresh ownerless (empty) lease is not listed until its grace period is over. */
	for (size_t i = 0; i < n; i++) {
		char name[INET6_ADDRSTRLEN];
		long age;

		lease_name(&l[i].ip, name);
		age = l[i].id[0] || l[i].ifname ? -1 : disk_ownerless_age(s->dirfd, name);
		if (age >= 0 && age <= DISK_OWNERLESS_GRACE_S) {
			free(l[i].id);
			continue;
		}
		l[kept++] = l[i];
	}
	*ret = l;
	*ret_n = kept;
	return 0;
}

int ipam_disk_store_probe(struct ipam_disk_store *s)
{
	char name[64];
	int r;

	snprintf(name, sizeof(name), ".probe.%d", (int)getpid());
	r = create_excl(s->dirfd, name, "");
	if (r == 0)
		r = -EEXIST;
	if (r < 0)
		return r;
	s->dirty = true;
	return unlinkat(s->dirfd, name, 0) < 0 ? -errno : 0;
}

const struct ipam_store_ops ipam_disk_store_ops = {
    .lock = disk_lock,
    .unlock = disk_unlock,
    .reserve = disk_reserve,
    .release_by_id = disk_release_by_id,
    .release_ip = disk_release_ip,
    .get_by_id = disk_get_by_id,
    .last_reserved = disk_last_reserved,
    .is_free = disk_is_free,
    .list = disk_list,
};
