/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The backup of an interface's original attributes, in the reference's file
 * format (same path, same keys) so a node can switch plugins between ADD
 * and DEL: {"mac": "...", "promisc": b, "mtu": n, "allmulti": b, "txQLen": n},
 * each key present only when it was saved.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "base/file.h"
#include "base/macro.h"
#include "tuning.h"

#define BACKUP_MAX (64 * 1024)

int tuning_backup_path(const char *data_dir, const char *cid, const char *ifname, char *buf,
		       size_t len)
{
	int n = snprintf(buf, len, "%s/%s_%s.json", data_dir, cid, ifname);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

char *tuning_backup_format(const struct tuning_backup *b)
{
	json_t *o = json_object();
	char mac[18];
	char *s;

	if (!o)
		return NULL;
	if (b->has_mac) {
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", b->mac[0], b->mac[1],
			 b->mac[2], b->mac[3], b->mac[4], b->mac[5]);
		json_object_set_new(o, "mac", json_string(mac));
	}
	if (b->has_promisc)
		json_object_set_new(o, "promisc", json_boolean(b->promisc));
	if (b->mtu)
		json_object_set_new(o, "mtu", json_integer(b->mtu));
	if (b->has_allmulti)
		json_object_set_new(o, "allmulti", json_boolean(b->allmulti));
	if (b->has_txqlen)
		json_object_set_new(o, "txQLen", json_integer(b->txqlen));
	s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

static int parse_obj(const json_t *o, struct tuning_backup *b)
{
	struct cni_error err = {0}; /* the caller only needs -EINVAL: a bad backup is dropped */
	const struct cni_conf_reader rd = {.err = &err, .obj = o, .path = ""};
	const char *mac = NULL;
	int r;

	r = cni_conf_get_string(&rd, "mac", &mac, NULL);
	/* "" is what the reference's omitempty would have dropped. */
	if (r >= 0 && !isempty(mac)) {
		r = tuning_mac_parse(mac, b->mac);
		b->has_mac = r >= 0;
	}
	if (r >= 0)
		r = cni_conf_get_bool(&rd, "promisc", &b->promisc, &b->has_promisc);
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "mtu", 0, UINT32_MAX, &b->mtu, NULL);
	if (r >= 0)
		r = cni_conf_get_bool(&rd, "allmulti", &b->allmulti, &b->has_allmulti);
	if (r >= 0)
		r = cni_conf_get_uint(&rd, "txQLen", 0, UINT32_MAX, &b->txqlen, &b->has_txqlen);
	cni_error_done(&err);
	return r < 0 ? -EINVAL : 0;
}

int tuning_backup_parse(const char *text, size_t len, struct tuning_backup *ret)
{
	struct tuning_backup b = {0};
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	int r;

	if (!json_is_object(o)) {
		json_decref(o);
		return -EINVAL;
	}
	r = parse_obj(o, &b);
	json_decref(o);
	if (r < 0)
		return r;
	*ret = b;
	return 0;
}

int tuning_backup_read(const char *path, struct tuning_backup *ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *buf = NULL;
	ssize_t n;

	if (fd < 0)
		return -errno;
	buf = malloc(BACKUP_MAX);
	if (!buf)
		return -ENOMEM;
	n = read(fd, buf, BACKUP_MAX);
	if (n < 0)
		return -errno;
	if (n == BACKUP_MAX)
		return -EINVAL;
	return tuning_backup_parse(buf, (size_t)n, ret);
}

int tuning_backup_write(const char *dir, const char *path, const struct tuning_backup *b)
{
	_cleanup_free_ char *text = tuning_backup_format(b);
	int r;

	if (!text)
		return -ENOMEM;
	r = file_mkdir_parents(dir, 0700);
	if (r < 0)
		return r;
	return file_replace(path, text, strlen(text), 0600, true);
}
