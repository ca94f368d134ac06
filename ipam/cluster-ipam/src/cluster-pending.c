/* SPDX-License-Identifier: Apache-2.0 */
/* cluster-ipam: pending releases (cluster-pending.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cluster-pending.h"

#define PENDING_MAX_BYTES 4096

bool cipam_pending_wanted(unsigned code, int r)
{
	return code == CNI_ERR_TRY_AGAIN && r < 0 && r != -ENOMEM;
}

int cipam_pending_name(const char *container_id, const char *ifname, char *buf, size_t len)
{
	int n;

	/* a valid container ID is a path component; an ifname has no '/' nor ':' */
	if (!container_id || !ifname || !cni_valid_name(container_id) || !cni_valid_ifname(ifname))
		return -EINVAL;
	n = snprintf(buf, len, "%s:%s", container_id, ifname);
	if (n < 0 || (size_t)n >= len || (size_t)n > CIPAM_PENDING_NAME_MAX)
		return -ENAMETOOLONG;
	return 0;
}

char *cipam_pending_format(const char *handle_key, const char *handle_id)
{
	char *s = NULL;

	if (!handle_key || !*handle_key || strchr(handle_key, '\n') ||
	    (handle_id && strchr(handle_id, '\n')))
		return NULL;
	if (asprintf(&s, "handle %s\nid %s\nsince %lld\n", handle_key, handle_id ? handle_id : "",
		     (long long)time(NULL)) < 0)
		return NULL;
	return s;
}

int cipam_pending_parse(const char *text, char **ret_key)
{
	const char *p = text, *end;

	*ret_key = NULL;
	while (p && *p) {
		end = strchrnul(p, '\n');
		if (strncmp(p, "handle ", 7) == 0 && end > p + 7 && p[7] == '/') {
			*ret_key = strndup(p + 7, (size_t)(end - p - 7));
			return *ret_key ? 0 : -ENOMEM;
		}
		p = *end ? end + 1 : end;
	}
	return -EBADMSG;
}

static char *pending_dir(const char *data_dir)
{
	char *d = NULL;

	return asprintf(&d, "%s/pending", data_dir) < 0 ? NULL : d;
}

/*
 * <data_dir>/pending as a dirfd (made with its parents, 0700, when
 * `create`), and the handle's entry name in name. -errno.
 */
static int pending_open(const char *data_dir, const char *container_id, const char *ifname,
			bool create, char name[CIPAM_PENDING_NAME_MAX + 1])
{
	_cleanup_free_ char *dir = pending_dir(data_dir);
	int r = dir ? cipam_pending_name(container_id, ifname, name, CIPAM_PENDING_NAME_MAX + 1)
		    : -ENOMEM;

	if (r >= 0 && create)
		r = file_mkdir_parents(dir, 0700);
	if (r >= 0 && (r = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		r = -errno;
	return r;
}

int cipam_pending_record(const char *data_dir, const char *container_id, const char *ifname,
			 const char *handle_key, const char *handle_id, char **ret_path)
{
	_cleanup_free_ char *text = cipam_pending_format(handle_key, handle_id);
	_cleanup_close_ int dfd = -1;
	char name[CIPAM_PENDING_NAME_MAX + 1];
	int r;

	if (!text)
		return -EINVAL;
	dfd = pending_open(data_dir, container_id, ifname, true, name);
	if (dfd < 0)
		return dfd;
	r = file_replace_at(dfd, name, text, strlen(text), 0600, true);
	if (r >= 0 && fsync(dfd) < 0) /* the rename itself survives a crash */
		r = -errno;
	if (r >= 0 && ret_path && asprintf(ret_path, "%s/pending/%s", data_dir, name) < 0)
		*ret_path = NULL;
	return r;
}

bool cipam_pending_exists(const char *data_dir, const char *container_id, const char *ifname)
{
	char name[CIPAM_PENDING_NAME_MAX + 1];
	_cleanup_close_ int dfd = pending_open(data_dir, container_id, ifname, false, name);

	return dfd >= 0 && faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int cipam_pending_remove(const char *data_dir, const char *container_id, const char *ifname)
{
	char name[CIPAM_PENDING_NAME_MAX + 1];
	_cleanup_close_ int dfd = pending_open(data_dir, container_id, ifname, false, name);

	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	if (unlinkat(dfd, name, 0) < 0)
		return errno == ENOENT ? 0 : -errno;
	(void)fsync(dfd);
	return 0;
}

/* One entry: 1 released (removed), 0 kept (bad entry or a failure that lets the replay go on), -1
 * stop. */
static int replay_one(int dfd, const char *name, cipam_pending_release_fn release, void *arg,
		      struct cipam_pending_stats *st)
{
	_cleanup_free_ char *text = NULL, *key = NULL;
	unsigned code = 0;
	int r;

	if (file_read_at(dfd, name, PENDING_MAX_BYTES, &text) < 0 ||
	    cipam_pending_parse(text, &key) < 0) {
		cni_log_warning("pending release '%s': unreadable, kept", name);
		st->bad++;
		return 0;
	}
	r = release(arg, key, &code);
	if (r < 0) {
		st->kept++;
		return code == CNI_ERR_TRY_AGAIN ? -1 : 0;
	}
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		cni_log_warning("pending release '%s': released, but cannot remove it: %m", name);
	st->done++;
	return 1;
}

int cipam_pending_replay_with(const char *data_dir, cipam_pending_release_fn release, void *arg,
			      struct cipam_pending_stats *ret)
{
	_cleanup_free_ char *dir = pending_dir(data_dir);
	struct cipam_pending_stats st = {0};
	struct dirent *de;
	bool stop = false;
	DIR *d;
	int dfd;

	if (ret)
		*ret = st;
	if (!dir)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while (!stop && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		stop = replay_one(dfd, de->d_name, release, arg, &st) < 0;
	}
	if (st.done > 0)
		(void)fsync(dfd);
	closedir(d);
	if (ret)
		*ret = st;
	return 0;
}

static int session_release(void *arg, const char *key, unsigned *code)
{
	struct cipam_session *s = arg;
	struct cni_error err = {0}, *keep = s->err;
	bool released;
	int r;

	s->err = &err;
	r = cipam_release_handle(s, key, &released);
	s->err = keep;
	*code = err.code;
	if (r < 0)
		cni_log_warning("pending release of %s kept: %s", key,
				err.msg ? err.msg : strerror(-r));
	else
		cni_log_info("pending release of %s replayed (%s)", key,
			     released ? "released" : "already gone");
	cni_error_done(&err);
	return r;
}

void cipam_pending_replay(struct cipam_session *s)
{
	struct cipam_pending_stats st;

	if (!s->locked || !s->etcd)
		return;
	if (cipam_pending_replay_with(s->c->data_dir, session_release, s, &st) < 0)
		return;
	if (st.done + st.kept + st.bad > 0)
		cni_log_debug("pending releases: %zu replayed, %zu kept, %zu unreadable", st.done,
			      st.kept, st.bad);
}
