/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tombstones: <cniDir>/deleted/<containerID>-<ifname>, written when a DEL of
 * the attachment finished, so a later DEL of it (containerd's
 * RemovePodSandbox after StopPodSandbox, a kubelet retry) is a no-op that
 * asks no apiserver and runs no delegate. The file holds the attachment
 * (the name alone is ambiguous when an ID contains '-'); an ADD of the same
 * attachment removes it, GC removes those not in cni.dev/valid-attachments.
 * Losing one only costs a slower DEL, so nothing here is fsynced.
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
#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"

#define MN_TOMBSTONE_KIND "multinetTombstoneV1"
#define MN_TOMBSTONE_DIR "deleted"
#define MN_TOMBSTONE_MAX 4096u

char *mn_tombstone_name(const char *container_id, const char *ifname)
{
	char *p;

	if (!cni_valid_name(container_id) || !cni_valid_ifname(ifname))
		return NULL;
	return asprintf(&p, "%s-%s", container_id, ifname) < 0 ? NULL : p;
}

char *mn_tombstone_format(const char *container_id, const char *ifname)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "kind", MN_TOMBSTONE_KIND, "containerId",
			      container_id, "ifname", ifname);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL, *line = NULL;

	json_decref(o);
	if (text && asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	free(text);
	return line;
}

int mn_tombstone_parse(const char *buf, size_t len, char **ret_cid, char **ret_ifname)
{
	json_t *o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
	const char *cid = json_string_value(json_object_get(o, "containerId"));
	const char *ifname = json_string_value(json_object_get(o, "ifname"));
	char *c = NULL, *i = NULL;
	int r = -EINVAL;

	if (json_is_object(o) &&
	    streq(json_string_value(json_object_get(o, "kind")), MN_TOMBSTONE_KIND) &&
	    cni_valid_name(cid) && cni_valid_ifname(ifname)) {
		c = strdup(cid);
		i = strdup(ifname);
		r = c && i ? 0 : -ENOMEM;
	}
	json_decref(o);
	if (r < 0) {
		free(c);
		free(i);
		return r;
	}
	*ret_cid = c;
	*ret_ifname = i;
	return 0;
}

static char *dir_path(const char *cni_dir)
{
	char *p;

	return asprintf(&p, "%s/" MN_TOMBSTONE_DIR, cni_dir) < 0 ? NULL : p;
}

/* Open <cniDir>/deleted, creating both when `create`. fd or -errno. */
static int open_dir(const char *cni_dir, bool create)
{
	_cleanup_free_ char *dir = dir_path(cni_dir);
	int fd;

	if (!dir)
		return -ENOMEM;
	if (create) {
		int r = file_mkdir_parents(dir, 0700);

		if (r < 0)
			return r;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int mn_tombstone_write(const char *cni_dir, const char *container_id, const char *ifname)
{
	_cleanup_free_ char *name = mn_tombstone_name(container_id, ifname);
	_cleanup_free_ char *line = mn_tombstone_format(container_id, ifname);
	_cleanup_close_ int dfd = -1;

	if (!name || !line)
		return name ? -ENOMEM : -EINVAL;
	if ((dfd = open_dir(cni_dir, true)) < 0)
		return dfd;
	return file_replace_at(dfd, name, line, strlen(line), 0600, false);
}

/* Does this tombstone file name exactly (container_id, ifname)? */
static bool file_names(int dfd, const char *name, const char *container_id, const char *ifname)
{
	_cleanup_free_ char *buf = NULL, *cid = NULL, *ifn = NULL;
	int n = file_read_at(dfd, name, MN_TOMBSTONE_MAX, &buf);

	if (n < 0 || mn_tombstone_parse(buf, (size_t)n, &cid, &ifn) < 0)
		return false;
	return streq(cid, container_id) && streq(ifn, ifname);
}

bool mn_tombstone_exists(const char *cni_dir, const char *container_id, const char *ifname)
{
	_cleanup_free_ char *name = mn_tombstone_name(container_id, ifname);
	_cleanup_close_ int dfd = -1;

	if (!name || (dfd = open_dir(cni_dir, false)) < 0)
		return false;
	return file_names(dfd, name, container_id, ifname);
}

int mn_tombstone_remove(const char *cni_dir, const char *container_id, const char *ifname)
{
	_cleanup_free_ char *name = mn_tombstone_name(container_id, ifname);
	_cleanup_close_ int dfd = -1;

	if (!name)
		return 0;
	if ((dfd = open_dir(cni_dir, false)) < 0)
		return dfd == -ENOENT ? 0 : dfd;
	return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
}

bool mn_tombstone_stale(const char *buf, size_t len, const struct cni_conf *conf)
{
	_cleanup_free_ char *cid = NULL, *ifname = NULL;

	/* A file that is not a tombstone is garbage of ours: stale too. */
	if (mn_tombstone_parse(buf, len, &cid, &ifname) < 0)
		return true;
	return !cni_conf_attachment_valid(conf, cid, ifname);
}

int mn_tombstone_gc(const char *cni_dir, const struct cni_conf *conf)
{
	_cleanup_close_ int dfd = open_dir(cni_dir, false);
	DIR *d;
	int removed = 0;

	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0 || !(d = fdopendir(dfd)))
		return dfd < 0 ? dfd : -errno;
	dfd = -1; /* owned by d now */
	for (struct dirent *de; (de = readdir(d));) {
		_cleanup_free_ char *buf = NULL;
		int n;

		if (de->d_name[0] == '.')
			continue;
		n = file_read_at(dirfd(d), de->d_name, MN_TOMBSTONE_MAX, &buf);
		if (n == -ENOMEM)
			break;
		if (n >= 0 && !mn_tombstone_stale(buf, (size_t)n, conf))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}
