/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam: the node's ADD queue (see cluster-queue.h). Files only, in
 * a 0700 directory of the node's dataDir; a request is served by exactly
 * one party: the leader that unlinks its .req, or the requester that
 * unlinks it first (withdraw).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/file.h"
#include "base/macro.h"
#include "cni/conf.h"
#include "cluster-queue.h"

#define QFILE_MAX 8192

static void json_put(json_t **p)
{
	json_decref(*p);
}

uint64_t cipam_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void cipam_waiter_open(struct cipam_waiter *w, const char *lock_path)
{
	w->fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->fd < 0)
		return;
	if (inotify_add_watch(w->fd, lock_path, IN_CLOSE_WRITE) < 0) {
		close(w->fd);
		w->fd = -1;
	}
}

void cipam_waiter_wait(struct cipam_waiter *w, uint64_t until_ms)
{
	uint64_t now = cipam_mono_ms();
	unsigned ms = now >= until_ms	     ? 0
		      : until_ms - now > 100 ? 100u
					     : (unsigned)(until_ms - now);
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd p = {.fd = w->fd, .events = POLLIN};

	if (w->fd < 0) {
		usleep(ms ? 1000u : 0u);
		return;
	}
	if (poll(&p, 1, (int)ms) > 0)
		while (read(w->fd, buf, sizeof(buf)) > 0) /* drain: one wakeup per burst */
			;
}

void cipam_waiter_close(struct cipam_waiter *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * Dumped compact with sorted keys, as every version wrote it, so that ADDs
 * of the binary from before an upgrade still batch with the new one's.
 */
char *cipam_queue_key(const struct cipam_conf *c)
{
	_cleanup_(json_put) json_t *o = NULL;
	json_t *eps, *pools;
	char buf[IP_PREFIX_STRLEN];
	struct stat st;
	int r = 0;

	if (c->n_requested > 0 || stat("/proc/self/ns/net", &st) < 0)
		return NULL;
	eps = json_array();
	pools = json_array();
	for (size_t i = 0; i < c->etcd.n_endpoints; i++)
		r |= json_array_append_new(eps, json_string(c->etcd.endpoints[i]));
	for (size_t i = 0; i < c->n_pools; i++)
		r |= json_array_append_new(pools,
					   json_pack("[si]", ip_prefix_fmt(&c->pools[i].cidr, buf),
						     (int)c->pools[i].block_size));
	o = json_pack("{sososssssssssssIsbsIs[II]}", "endpoints", eps, "pools", pools, "ca",
		      or_empty(c->etcd.ca_file), "cert", or_empty(c->etcd.cert_file), "keyf",
		      or_empty(c->etcd.key_file), "prefix", or_empty(c->prefix), "node",
		      or_empty(c->node), "max", (json_int_t)c->max_blocks, "strict",
		      c->strict_affinity, "proto", (json_int_t)c->route_protocol, "netns",
		      (json_int_t)st.st_dev, (json_int_t)st.st_ino);
	return r || !o ? NULL : json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
}

void cipam_qreq_done(struct cipam_qreq *q)
{
	free(q->key);
	free(q->container_id);
	free(q->ifname);
	free(q->network);
	free(q->pod);
	memset(q, 0, sizeof(*q));
}

char *cipam_qreq_json(const struct cipam_qreq *q)
{
	_cleanup_(json_put) json_t *o =
	    json_pack("{sssIsIssssss}", "key", q->key, "pid", (json_int_t)q->pid, "deadline",
		      (json_int_t)q->deadline_ms, "containerID", q->container_id, "ifname",
		      q->ifname, "network", q->network ? q->network : "");

	if (!o || (q->pod && json_object_set_new(o, "pod", json_string(q->pod)) < 0))
		return NULL;
	return json_dumps(o, JSON_COMPACT);
}

int cipam_qreq_parse(const char *json, size_t len, struct cipam_qreq *ret)
{
	_cleanup_(json_put) json_t *o = json_loadb(json, len, 0, NULL);
	const char *key, *cid, *ifname, *network, *pod = NULL;
	json_int_t pid = 0, deadline = 0;

	memset(ret, 0, sizeof(*ret));
	if (json_unpack(o, "{sIsIsssssssss?s}", "pid", &pid, "deadline", &deadline, "key", &key,
			"containerID", &cid, "ifname", &ifname, "network", &network, "pod",
			&pod) < 0 ||
	    pid <= 0 || deadline <= 0)
		return -EBADMSG;
	ret->pid = (long)pid;
	ret->deadline_ms = (uint64_t)deadline;
	ret->key = strdup(key);
	ret->container_id = strdup(cid);
	ret->ifname = strdup(ifname);
	ret->network = strdup(network);
	ret->pod = pod ? strdup(pod) : NULL;
	if (!ret->key || !ret->container_id || !ret->ifname || !ret->network ||
	    (pod && !ret->pod)) {
		cipam_qreq_done(ret);
		return -EBADMSG;
	}
	return 0;
}

static json_t *prefixes(const struct ip_prefix *v, size_t n)
{
	json_t *a = json_array();
	char buf[IP_PREFIX_STRLEN];

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_string(ip_prefix_fmt(&v[i], buf))) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

char *cipam_qres_json(int r, const struct cni_error *err, const struct cipam_add_out *out)
{
	_cleanup_(json_put) json_t *o = NULL;
	json_t *borrowed;

	if (r < 0) {
		o = json_pack("{sisiss}", "r", r, "code", (int)(err->code ? err->code : 11), "msg",
			      err->msg ? err->msg : strerror(-r));
	} else {
		borrowed = json_array();
		for (size_t i = 0; i < out->n_ips; i++)
			json_array_append_new(borrowed, json_boolean(out->borrowed[i]));
		o = json_pack("{sisbsososo}", "r", 0, "existing", out->existing, "ips",
			      prefixes(out->ips, out->n_ips), "claimed",
			      prefixes(out->claimed, out->n_claimed), "borrowed", borrowed);
	}
	return o ? json_dumps(o, JSON_COMPACT) : NULL;
}

static int parse_prefixes(const json_t *a, struct ip_prefix *v, size_t max, size_t *n)
{
	size_t i;
	const json_t *e;

	if (!json_is_array(a) || json_array_size(a) > max)
		return -EBADMSG;
	json_array_foreach (a, i, e)
		if (ip_prefix_parse(json_string_value(e), &v[i]) < 0)
			return -EBADMSG;
	*n = json_array_size(a);
	return 0;
}

static int parse_ok(const json_t *o, struct cipam_add_out *out)
{
	const json_t *b = json_object_get(o, "borrowed");
	size_t i;
	const json_t *e;

	out->existing = json_is_true(json_object_get(o, "existing"));
	if (parse_prefixes(json_object_get(o, "ips"), out->ips, 2, &out->n_ips) < 0 ||
	    parse_prefixes(json_object_get(o, "claimed"), out->claimed, 2, &out->n_claimed) < 0 ||
	    !json_is_array(b) || json_array_size(b) != out->n_ips || out->n_ips == 0)
		return -EBADMSG;
	json_array_foreach (b, i, e)
		out->borrowed[i] = json_is_true(e);
	return 0;
}

int cipam_qres_parse(const char *json, size_t len, int *r, struct cni_error *err,
		     struct cipam_add_out *out)
{
	_cleanup_(json_put) json_t *o = json_loadb(json, len, 0, NULL);
	const char *msg = NULL;
	int rv = 0, code = 0;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o) || json_unpack(o, "{si}", "r", &rv) < 0 || rv > 0)
		return -EBADMSG;
	if (rv == 0) {
		*r = 0;
		return parse_ok(o, out);
	}
	if (json_unpack(o, "{siss}", "code", &code, "msg", &msg) < 0 || code <= 0)
		return -EBADMSG;
	*r = cni_errorf(err, (unsigned)code, rv, "%s", msg);
	return 0;
}

int cipam_queue_open(const char *data_dir, bool create)
{
	_cleanup_close_ int dfd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd;

	if (dfd < 0)
		return -errno;
	if (create && mkdirat(dfd, "queue", 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(dfd, "queue", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

void cipam_queue_tag(char tag[CIPAM_QUEUE_TAG_LEN])
{
	uint64_t rnd = 0;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = cipam_mono_ms() ^ ((uint64_t)getpid() << 32);
	snprintf(tag, CIPAM_QUEUE_TAG_LEN, "%ld-%016llx", (long)getpid(), (unsigned long long)rnd);
}

static void file_name(char *buf, size_t len, const char *tag, const char *ext)
{
	snprintf(buf, len, "%s.%s", tag, ext);
}

/* Write json (owned; NULL: out of memory) as <tag>.<ext>, atomically. */
static int write_file(int qfd, const char *tag, const char *ext, char *json)
{
	char name[CIPAM_QUEUE_TAG_LEN + 8];
	int r = -ENOMEM;

	file_name(name, sizeof(name), tag, ext);
	if (json)
		r = file_replace_at(qfd, name, json, strlen(json), 0600, false);
	free(json);
	return r;
}

int cipam_queue_submit(int qfd, const struct cipam_qreq *q)
{
	return write_file(qfd, q->tag, "req", cipam_qreq_json(q));
}

int cipam_queue_withdraw(int qfd, const char *tag)
{
	char name[CIPAM_QUEUE_TAG_LEN + 8];

	file_name(name, sizeof(name), tag, "req");
	return unlinkat(qfd, name, 0) < 0 ? -errno : 0;
}

int cipam_queue_fetch(int qfd, const char *tag, int *r, struct cni_error *err,
		      struct cipam_add_out *out)
{
	_cleanup_free_ char *json = NULL;
	char name[CIPAM_QUEUE_TAG_LEN + 8];
	int n;

	file_name(name, sizeof(name), tag, "res");
	n = file_read_at(qfd, name, QFILE_MAX, &json);
	if (n == -ENOENT)
		return 0;
	(void)unlinkat(qfd, name, 0);
	if (n < 0 || cipam_qres_parse(json, (size_t)n, r, err, out) < 0)
		*r = cni_errorf(err, CNI_ERR_TRY_AGAIN, n < 0 ? n : -EBADMSG,
				"node queue: unreadable answer '%s'", name);
	return 1;
}

int cipam_queue_answer(int qfd, const char *tag, int r, const struct cni_error *err,
		       const struct cipam_add_out *out)
{
	return write_file(qfd, tag, "res", cipam_qres_json(r, err, out));
}

/* The process that wrote name: "<pid>-x.req|res" or ".<...>.<pid>.tmp"; 0 if none. */
static long name_pid(const char *name)
{
	const char *p = name;
	size_t n = strlen(name);

	if (name[0] == '.') {
		if (n < 5 || strcmp(name + n - 4, ".tmp") != 0)
			return 0;
		for (p = name + n - 5; p > name && *p != '.'; p--)
			;
		p++;
	}
	return strtol(p, NULL, 10);
}

static bool pid_dead(long pid)
{
	return pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH);
}

/* One *.req entry: 1 taken into ret, 0 skipped. */
static int take_one(int qfd, const char *name, const char *key, struct cipam_qreq *ret)
{
	_cleanup_free_ char *json = NULL;
	size_t n = strlen(name) - 4;
	int len = file_read_at(qfd, name, QFILE_MAX, &json);

	if (len < 0)
		return 0;
	if (n >= CIPAM_QUEUE_TAG_LEN || cipam_qreq_parse(json, (size_t)len, ret) < 0) {
		(void)unlinkat(qfd, name, 0); /* unreadable: its writer will time out */
		return 0;
	}
	if (pid_dead(ret->pid) || !cni_valid_name(ret->container_id) ||
	    !cni_valid_ifname(ret->ifname)) {
		(void)unlinkat(qfd, name, 0); /* nobody waits for it, or not servable */
		cipam_qreq_done(ret);
		return 0;
	}
	/* another config (its owner serves itself), late (its owner withdraws it),
	 * or withdrawn just now */
	if (strcmp(ret->key, key) != 0 || ret->deadline_ms <= cipam_mono_ms() ||
	    unlinkat(qfd, name, 0) < 0) {
		cipam_qreq_done(ret);
		return 0;
	}
	memcpy(ret->tag, name, n);
	ret->tag[n] = '\0';
	return 1;
}

size_t cipam_queue_take(int qfd, const char *key, struct cipam_qreq *ret, size_t max)
{
	int dfd = fcntl(qfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	size_t k = 0;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		bool req = n > 4 && strcmp(e->d_name + n - 4, ".req") == 0 && e->d_name[0] != '.';

		if (req && k < max)
			k += (size_t)take_one(qfd, e->d_name, key, &ret[k]);
		else if (!req && e->d_name[0] != '\0' && strcmp(e->d_name, ".") != 0 &&
			 strcmp(e->d_name, "..") != 0 && pid_dead(name_pid(e->d_name)))
			(void)unlinkat(qfd, e->d_name, 0); /* a dead process's answer or temp */
	}
	closedir(d);
	return k;
}
