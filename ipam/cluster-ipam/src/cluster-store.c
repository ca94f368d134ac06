/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam: the session (node lock + etcd client), reads, and the two
 * release paths (by handle, empty blocks) shared by DEL, GC and ADD's undo.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cluster-queue.h"
#include "cluster-store.h"

/* One try: 1 taken, 0 busy, or a code-5 error. */
static int try_lock(struct cipam_session *s, const char *path)
{
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0) {
		s->locked = true;
		return 1;
	}
	if (errno == EWOULDBLOCK || errno == EINTR)
		return 0;
	return cni_errorf(s->err, CNI_ERR_IO, -errno, "flock '%s': %m", path);
}

static int open_lock(struct cipam_session *s, char **ret_path)
{
	const struct cipam_conf *c = s->c;
	int r = file_mkdir_parents(c->data_dir, 0700);

	if (r < 0)
		return cni_errorf(s->err, CNI_ERR_IO, r, "ipam.dataDir: cannot create '%s': %s",
				  c->data_dir, strerror(-r));
	if (asprintf(ret_path, "%s/lock", c->data_dir) < 0)
		return -ENOMEM;
	/* read-only: closing it wakes no waiter (they watch IN_CLOSE_WRITE: the release) */
	s->lock_fd = open(*ret_path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->lock_fd < 0)
		return cni_errorf(s->err, CNI_ERR_IO, -errno, "ipam.dataDir: cannot open '%s': %m",
				  *ret_path);
	return 0;
}

static int busy(struct cipam_session *s, const char *path)
{
	return cni_errorf(s->err, CNI_ERR_TRY_AGAIN, -EBUSY,
			  "node lock '%s' still busy after %u ms", path, s->c->etcd.timeout_ms);
}

/* Queue the ADD (best effort: without a queue it just waits for the lock). */
static void submit(struct cipam_session *s, struct cipam_join *j, uint64_t until)
{
	struct cipam_qreq q = {
	    .key = (char *)j->key,
	    .pid = (long)getpid(),
	    .deadline_ms = until,
	    .container_id = (char *)j->req->container_id,
	    .ifname = (char *)j->req->ifname,
	    .network = (char *)j->req->network,
	    .pod = (char *)j->req->pod,
	};

	s->queue_fd = cipam_queue_open(s->c->data_dir, true);
	if (s->queue_fd < 0)
		return;
	cipam_queue_tag(q.tag);
	memcpy(j->tag, q.tag, sizeof(j->tag));
	j->submitted = cipam_queue_submit(s->queue_fd, &q) == 0;
}

/*
 * A leader that took our request answers by our deadline (its etcd budget
 * ends there); this much more is for writing the answer and its blackhole.
 */
#define ANSWER_GRACE_MS 100

/*
 * Wait for the lock (1 taken) or, when j, for a leader's answer to j's
 * request (2 served). Both end by the call's deadline (plus the grace
 * above while a leader holds the request).
 */
static int wait_lock(struct cipam_session *s, const char *path, struct cipam_join *j)
{
	uint64_t until = s->deadline_ms;
	struct cipam_waiter w = {.fd = -1};
	bool taken = false;
	int r = 0;

	if (j && j->key)
		submit(s, j, until);
	cipam_waiter_open(&w, path);
	while (r == 0) {
		bool queued = j && j->submitted;

		if (queued && cipam_queue_fetch(s->queue_fd, j->tag, &j->r, s->err, j->out)) {
			r = 2;
		} else if ((r = try_lock(s, path)) != 0) {
			break;
		} else if (cipam_mono_ms() < until) {
			cipam_waiter_wait(&w, until);
		} else if (queued && !taken && cipam_queue_withdraw(s->queue_fd, j->tag) < 0) {
			taken = true; /* a leader has it: its answer comes by our deadline */
			until = s->deadline_ms + ANSWER_GRACE_MS;
		} else {
			r = busy(s, path);
		}
	}
	cipam_waiter_close(&w);
	if (r == 1 && j && j->submitted) { /* answered just before we got the lock? */
		if (cipam_queue_fetch(s->queue_fd, j->tag, &j->r, s->err, j->out))
			r = 2;
		else
			(void)cipam_queue_withdraw(s->queue_fd, j->tag);
	}
	return r;
}

static int take_lock(struct cipam_session *s, struct cipam_join *j)
{
	int r = open_lock(s, &s->lock_path);

	if (r >= 0)
		r = try_lock(s, s->lock_path);
	if (r == 0)
		r = wait_lock(s, s->lock_path, j);
	return r;
}

static void session_init(struct cipam_session *s, const struct cipam_conf *c, struct cni_error *err)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->err = err;
	s->lock_fd = -1;
	s->queue_fd = -1;
	s->now = (int64_t)time(NULL);
	s->deadline_ms = cipam_mono_ms() + c->etcd.timeout_ms;
}

/* The host name in an http(s):// endpoint (not an address literal) into buf, or false. */
static bool endpoint_host(const char *ep, char *buf, size_t len)
{
	const char *h = strstr(ep, "://");
	union ip_addr a;
	size_t n;
	int family;

	if (strncmp(ep, "http", 4) != 0 || !h || h[3] == '[')
		return false;
	n = strcspn(h + 3, ":/");
	if (n == 0 || n >= len)
		return false;
	memcpy(buf, h + 3, n);
	buf[n] = '\0';
	return ip_addr_parse(buf, &family, &a) < 0;
}

/* One lookup of getaddrinfo_a(): the request, its hints and the name, in one allocation. */
struct lookup {
	struct gaicb cb;
	struct addrinfo hints;
	char name[];
};

/* Wait until every lookup is done or the deadline passed: false when one is still going. */
static bool await_lookups(struct gaicb **req, size_t n, uint64_t deadline_ms)
{
	for (;;) {
		const struct gaicb *wait[PWETCD_MAX_ENDPOINTS];
		uint64_t now = cipam_mono_ms();
		bool going = false;
		struct timespec ts;

		for (size_t i = 0; i < n; i++) {
			wait[i] = gai_error(req[i]) == EAI_INPROGRESS ? req[i] : NULL;
			going |= wait[i] != NULL;
		}
		if (!going || now >= deadline_ms)
			return !going;
		ts.tv_sec = (time_t)((deadline_ms - now) / 1000u);
		ts.tv_nsec = (long)((deadline_ms - now) % 1000u) * 1000000L;
		(void)gai_suspend(wait, (int)n, &ts);
	}
}

/*
 * The host names of the endpoints looked up, all at once, within the call's
 * bound before the client's first request: a resolver that never answers
 * ends the call at its deadline (code 11), not after its own timeouts (5 s
 * a try by default). pwhttp looks the names up again when it connects, a
 * moment later; that lookup is its own (pwhttp_connect). A lookup still
 * going at the deadline keeps its memory: the resolver's thread holds it.
 */
static int resolve_hosts(struct cipam_session *s)
{
	const struct cipam_etcd_conf *e = &s->c->etcd;
	struct gaicb *req[PWETCD_MAX_ENDPOINTS];
	char host[256];
	bool done = true;
	size_t n = 0;

	for (size_t i = 0; i < e->n_endpoints; i++) {
		struct lookup *l;

		if (!endpoint_host(e->endpoints[i], host, sizeof(host)))
			continue;
		l = calloc(1, sizeof(*l) + strlen(host) + 1);
		if (!l)
			break;
		strcpy(l->name, host);
		l->hints.ai_socktype = SOCK_STREAM; /* as pwhttp_connect asks */
		l->cb = (struct gaicb){.ar_name = l->name, .ar_request = &l->hints};
		req[n++] = &l->cb;
	}
	/* a request it could not queue stays 0 ("done"): only the queued ones are waited for */
	if (n > 0) {
		(void)getaddrinfo_a(GAI_NOWAIT, req, (int)n, NULL);
		done = await_lookups(req, n, s->deadline_ms);
	}
	for (size_t i = n; i-- > 0;) {
		if (!done && gai_error(req[i]) == EAI_INPROGRESS) {
			snprintf(host, sizeof(host), "%s", req[i]->ar_name); /* named below */
			continue;
		}
		freeaddrinfo(req[i]->ar_result);
		free(req[i]);
	}
	if (!done)
		return cni_errorf(s->err, CNI_ERR_TRY_AGAIN, -ETIMEDOUT,
				  "etcd: endpoint host '%s' not resolved within %u ms", host,
				  s->c->etcd.timeout_ms);
	return 0;
}

/*
 * The TLS files of an https:// etcd, which pwhttp reads on the first
 * request: one that cannot be read fails here, naming its key and the reason
 * (pwhttp knows only which PEM it lacks). Code 100, as any TLS setup failure.
 */
static int check_tls_files(const struct cipam_session *s)
{
	const struct cipam_etcd_conf *e = &s->c->etcd;
	const struct cni_conf_reader rd = {.err = s->err, .path = "ipam.etcd"};
	bool https = false;
	int r;

	for (size_t i = 0; i < e->n_endpoints; i++)
		https = https || strncmp(e->endpoints[i], "https://", 8) == 0;
	if (!https)
		return 0;
	r = cni_conf_check_file(&rd, CNI_ERR_PLUGIN, "caFile", e->ca_file);
	if (r == 0)
		r = cni_conf_check_file(&rd, CNI_ERR_PLUGIN, "certFile", e->cert_file);
	if (r == 0)
		r = cni_conf_check_file(&rd, CNI_ERR_PLUGIN, "keyFile", e->key_file);
	return r;
}

/* TLS sessions in <dataDir>/tls, beside the node cache (root only, 0700). */
static int open_etcd(struct cipam_session *s)
{
	_cleanup_free_ char *tls = NULL;
	int r = check_tls_files(s);

	if (r < 0)
		return r;
	r = resolve_hosts(s);
	if (r < 0)
		return r;
	if (asprintf(&tls, "%s/tls", s->c->data_dir) < 0)
		r = -ENOMEM;
	if (r == 0)
		r = cipam_etcd_open(&s->c->etcd, tls, &s->etcd);
	if (r == 0) /* the lock wait counts: one bound for the whole call */
		pwetcd_set_deadline(s->etcd, s->deadline_ms);
	if (r < 0)
		return cni_errorf(s->err, CNI_ERR_INVALID_CONFIG, r,
				  "ipam.etcd: cannot set up the client");
	return 0;
}

int cipam_session_open(struct cipam_session *s, const struct cipam_conf *c, bool lock,
		       struct cni_error *err)
{
	int r;

	session_init(s, c, err);
	if (lock) {
		r = take_lock(s, NULL);
		if (r < 0)
			return r;
	}
	return open_etcd(s);
}

int cipam_session_open_add(struct cipam_session *s, const struct cipam_conf *c,
			   struct cipam_join *j, struct cni_error *err)
{
	int r;

	session_init(s, c, err);
	r = take_lock(s, j);
	if (r < 0)
		return r;
	if (r == 2)
		return 1;
	if (s->queue_fd < 0 && j->key)
		s->queue_fd = cipam_queue_open(c->data_dir, false);
	return open_etcd(s);
}

void cipam_session_close(struct cipam_session *s)
{
	if (s->etcd)
		pwetcd_close(s->etcd);
	s->etcd = NULL;
	if (s->queue_fd >= 0)
		close(s->queue_fd);
	s->queue_fd = -1;
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* drops the flock */
	s->lock_fd = -1;
	if (s->locked && s->lock_path) { /* wake the waiters: an IN_CLOSE_WRITE of the lock file */
		int fd = open(s->lock_path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

		if (fd >= 0)
			close(fd);
	}
	s->locked = false;
	s->lock_path = mfree(s->lock_path);
}

int cipam_etcd_error(struct cipam_session *s, int r, const char *what)
{
	unsigned code = CNI_ERR_TRY_AGAIN;

	if (r == -EINVAL || r == -EACCES || r == -ENOMEM)
		code = CNI_ERR_PLUGIN;
	return cni_errorf(s->err, code, r, "etcd: %s: %s", what, pwetcd_errmsg(s->etcd));
}

void cipam_backoff(const struct cipam_session *s, unsigned attempt)
{
	unsigned cap = 1u << (attempt < 5 ? attempt : 5); /* up to 32 ms */
	uint64_t ms = 1u + (unsigned)rand() % cap, now = cipam_mono_ms();

	if (now + ms > s->deadline_ms) /* the next request fails at once then */
		ms = now < s->deadline_ms ? s->deadline_ms - now : 0;
	usleep((useconds_t)(1000u * ms));
}

void cipam_session_limit(struct cipam_session *s, uint64_t deadline_ms)
{
	if (deadline_ms >= s->deadline_ms)
		return;
	s->deadline_ms = deadline_ms;
	if (s->etcd)
		pwetcd_set_deadline(s->etcd, deadline_ms);
}

int cipam_read_keys(struct cipam_session *s, char *const *keys, size_t n,
		    struct pwetcd_txn_result *ret)
{
	_cleanup_(pwetcd_txn_freep) struct pwetcd_txn *t = pwetcd_txn_new();
	int r;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct pwetcd_range_req rr = {.key = keys[i]};

		pwetcd_txn_range(t, PWETCD_SUCCESS, &rr);
	}
	r = pwetcd_txn_commit(s->etcd, t, ret);
	if (r < 0)
		return cipam_etcd_error(s, r, "read");
	if (ret->n_ops != n) {
		pwetcd_txn_result_done(ret);
		return cni_errorf(s->err, CNI_ERR_TRY_AGAIN, -EBADMSG,
				  "etcd: read of %zu keys answered %zu results", n, ret->n_ops);
	}
	return 0;
}

int cipam_bref_load(struct cipam_session *s, const struct pwetcd_kv *kv,
		    const struct ip_prefix *cidr, struct cipam_bref *ret)
{
	const char *why = "";
	int r;

	memset(ret, 0, sizeof(*ret));
	r = cipam_block_parse(kv->value ? kv->value : "", kv->value_len, cidr, &ret->b, &why);
	if (r < 0)
		return cni_errorf(s->err, r == -ENOMEM ? CNI_ERR_PLUGIN : CNI_ERR_TRY_AGAIN, r,
				  "etcd key '%s': %s", kv->key, why);
	ret->b.mod_revision = kv->mod_revision;
	ret->exists = true;
	return 0;
}

int cipam_read_block(struct cipam_session *s, const struct ip_prefix *cidr, struct cipam_bref *ret)
{
	_cleanup_free_ char *key = cipam_key_block(s->c->prefix, cidr);
	struct pwetcd_txn_result res = {0};
	int r = key ? cipam_read_keys(s, &key, 1, &res) : -ENOMEM;

	memset(ret, 0, sizeof(*ret));
	if (r >= 0 && res.ops[0].range.n_kvs > 0 &&
	    (r = cipam_bref_load(s, &res.ops[0].range.kvs[0], cidr, ret)) >= 0)
		r = 1;
	pwetcd_txn_result_done(&res);
	return r;
}

int cipam_list_node(struct cipam_session *s, const char *what, const char *step,
		    struct pwetcd_range_result *ret)
{
	_cleanup_free_ char *dir = cipam_key_dir(s->c->prefix, what, s->c->node);
	struct pwetcd_range_req rr = {.key = dir, .prefix = true};
	int r;

	if (!dir)
		return -ENOMEM;
	r = pwetcd_range(s->etcd, &rr, ret);
	return r < 0 ? cipam_etcd_error(s, r, step) : 0;
}

int cipam_list_pool(struct cipam_session *s, const struct cipam_pool *p,
		    struct pwetcd_range_req *rr, struct pwetcd_range_result *ret)
{
	_cleanup_free_ char *key = NULL, *end = NULL;
	int r = cipam_pool_block_range(s->c->prefix, p, &key, &end);

	rr->key = key;
	rr->range_end = end;
	if (r >= 0 && (r = pwetcd_range(s->etcd, rr, ret)) < 0)
		r = cipam_etcd_error(s, r, rr->count_only ? "count blocks" : "list blocks");
	rr->key = rr->range_end = NULL;
	return r;
}

int cipam_read_blocks(struct cipam_session *s, const struct cipam_preread *pr,
		      const struct ip_prefix *cidr, size_t n, const struct pwetcd_range_result **rr,
		      struct pwetcd_txn_result *res)
{
	char *keys[CIPAM_READ_MAX];
	size_t at[CIPAM_READ_MAX], k = 0;
	int r = 0;

	for (size_t i = 0; i < n && r >= 0; i++) {
		rr[i] = NULL;
		for (size_t j = 0; j < pr->n && !rr[i]; j++)
			if (ip_prefix_equal(&pr->cidr[j], &cidr[i]))
				rr[i] = &pr->res[j].range;
		if (rr[i])
			continue;
		at[k] = i;
		keys[k] = cipam_key_block(s->c->prefix, &cidr[i]);
		r = keys[k] ? 0 : -ENOMEM;
		k += r >= 0;
	}
	if (r >= 0 && k > 0)
		r = cipam_read_keys(s, keys, k, res);
	for (size_t j = 0; j < k; j++) {
		if (r >= 0)
			rr[at[j]] = &res->ops[j].range;
		free(keys[j]);
	}
	return r < 0 ? r : (int)k;
}

/*
 * The blocks of a handle's IPs, keyed by the IPs' block prefixes: those
 * read with the handle (pr) from there, the others read now in one txn.
 * refs[i] stays zeroed when block i is gone.
 */
static int handle_blocks(struct cipam_session *s, const struct cipam_handle *h,
			 struct cipam_bref *refs, char **keys, const struct cipam_preread *pr)
{
	struct pwetcd_txn_result res = {0};
	struct ip_prefix cidr[CIPAM_MAX_HANDLE_IPS];
	const struct pwetcd_range_result *rr[CIPAM_MAX_HANDLE_IPS];
	int r = 0;

	for (size_t i = 0; i < h->n_ips && r >= 0; i++) {
		cidr[i] = h->ips[i];
		ip_prefix_mask(&cidr[i]);
		keys[i] = cipam_key_block(s->c->prefix, &cidr[i]);
		r = keys[i] ? 0 : -ENOMEM;
	}
	if (r >= 0)
		r = cipam_read_blocks(s, pr, cidr, h->n_ips, rr, &res);
	for (size_t i = 0; r >= 0 && i < h->n_ips; i++)
		if (rr[i]->n_kvs > 0)
			r = cipam_bref_load(s, &rr[i]->kvs[0], &cidr[i], &refs[i]);
	pwetcd_txn_result_done(&res);
	return r;
}

/*
 * Round trip 1 of a release: the handle at key and, when the node cache
 * names at most CIPAM_RELEASE_PREREAD blocks, those blocks (where the
 * handle's IPs usually are) in the same txn. *n_pre: blocks read.
 */
#define CIPAM_RELEASE_PREREAD 4
static int read_handle(struct cipam_session *s, const char *key, struct ip_prefix *pre,
		       size_t *n_pre, struct pwetcd_txn_result *ret)
{
	struct cipam_cache c;
	char *keys[1 + CIPAM_RELEASE_PREREAD] = {(char *)key};
	size_t n = 0;
	int r = 0;

	cipam_cache_load(s, &c);
	for (size_t i = 0; c.n <= CIPAM_RELEASE_PREREAD && i < c.n && r >= 0; i++) {
		pre[n] = c.v[i];
		keys[1 + n] = cipam_key_block(s->c->prefix, &c.v[i]);
		r = keys[1 + n] ? 0 : -ENOMEM;
		n += r >= 0;
	}
	cipam_cache_done(&c);
	if (r >= 0)
		r = cipam_read_keys(s, keys, 1 + n, ret);
	for (size_t i = 1; i <= n; i++)
		free(keys[i]);
	*n_pre = n;
	return r;
}

/* Blocks this node wrote at `revision`: their cached values follow (if cached). */
static void cache_note(struct cipam_session *s, const struct cipam_bref *refs, char *const *json,
		       size_t n, int64_t revision)
{
	struct cipam_cache c;
	bool changed = false;

	cipam_cache_load(s, &c);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; json[i] && k < c.n; k++) {
			char *v;

			if (!c.val[k] || !ip_prefix_equal(&c.v[k], &refs[i].b.cidr) ||
			    !(v = strdup(json[i])))
				continue;
			free(c.val[k]);
			c.val[k] = v;
			c.mod[k] = revision;
			changed = true;
		}
	if (changed)
		cipam_cache_save(s, &c);
	cipam_cache_done(&c);
}

/* The ordinals of h freed in its blocks, written by t (json[i]: block i's new value). */
static void put_released(struct cipam_session *s, struct pwetcd_txn *t,
			 const struct cipam_handle *h, struct cipam_bref *refs, char **keys,
			 char **json)
{
	for (size_t i = 0; i < h->n_ips; i++) {
		struct cipam_block *b = &refs[i].b;

		if (!refs[i].exists ||
		    !cipam_block_release(b, cipam_block_ordinal(&b->cidr, &h->ips[i].addr), h->id,
					 s->now))
			continue;
		json[i] = cipam_block_json(b);
		pwetcd_txn_cmp(t, keys[i], PWETCD_TARGET_MOD, PWETCD_EQUAL, b->mod_revision);
		pwetcd_txn_put(t, PWETCD_SUCCESS, keys[i], json[i], json[i] ? strlen(json[i]) : 0,
			       0);
	}
}

/* One attempt: 1 released, 0 absent, -EAGAIN conflict, or an error. */
static int release_once(struct cipam_session *s, const char *key)
{
	struct cipam_handle h = {0};
	struct cipam_bref refs[CIPAM_MAX_HANDLE_IPS] = {0};
	char *keys[CIPAM_MAX_HANDLE_IPS] = {0}, *json[CIPAM_MAX_HANDLE_IPS] = {0};
	struct pwetcd_txn_result res = {0}, rd = {0};
	struct pwetcd_txn *t = NULL;
	struct ip_prefix pre[CIPAM_RELEASE_PREREAD];
	const struct pwetcd_kv *kv;
	const char *why = "";
	size_t n_pre = 0;
	int r;

	r = read_handle(s, key, pre, &n_pre, &rd);
	if (r < 0)
		return r;
	if (rd.ops[0].range.n_kvs == 0) {
		pwetcd_txn_result_done(&rd);
		return 0;
	}
	kv = &rd.ops[0].range.kvs[0];
	r = cipam_handle_parse(kv->value ? kv->value : "", kv->value_len, &h, &why);
	if (r == -EBADMSG) { /* unreadable: drop the key only (check names what it leaked) */
		cni_log_warning("etcd key '%s': %s; deleting it", key, why);
		h.n_ips = 0;
		r = 0;
	}
	if (r >= 0)
		r = handle_blocks(
		    s, &h, refs, keys,
		    &(struct cipam_preread){.cidr = pre, .res = rd.ops + 1, .n = n_pre});
	if (r >= 0 && !(t = pwetcd_txn_new()))
		r = -ENOMEM;
	if (r >= 0) {
		pwetcd_txn_cmp(t, key, PWETCD_TARGET_MOD, PWETCD_EQUAL, kv->mod_revision);
		put_released(s, t, &h, refs, keys, json);
		pwetcd_txn_delete(t, PWETCD_SUCCESS, key, false);
		r = pwetcd_txn_commit(s->etcd, t, &res);
		if (r < 0)
			r = cipam_etcd_error(s, r, "release handle");
		else
			r = res.succeeded ? 1 : -EAGAIN;
	}
	if (r == 1) /* the node cache follows, so the next ADD needs no read */
		cache_note(s, refs, json, h.n_ips, res.revision);
	pwetcd_txn_result_done(&res);
	pwetcd_txn_free(t);
	for (size_t i = 0; i < CIPAM_MAX_HANDLE_IPS; i++) {
		free(keys[i]);
		free(json[i]);
		cipam_block_done(&refs[i].b);
	}
	cipam_handle_done(&h);
	pwetcd_txn_result_done(&rd);
	return r;
}

int cipam_release_handle(struct cipam_session *s, const char *key, bool *released)
{
	*released = false;
	for (unsigned k = 0; k < CIPAM_MAX_ATTEMPTS; k++) {
		int r = release_once(s, key);

		if (r != -EAGAIN) {
			*released = r == 1;
			return r < 0 ? r : 0;
		}
		s->conflicts++;
		cipam_backoff(s, k);
	}
	return cni_errorf(s->err, CNI_ERR_TRY_AGAIN, -EAGAIN,
			  "etcd: releasing '%s' lost %d races in a row", key, CIPAM_MAX_ATTEMPTS);
}

/* "<keypart> <mod> <value>" after the type letter; 0 or -EINVAL. */
static int cache_entry(char *line, struct ip_prefix *cidr, int64_t *mod, char **value)
{
	char *sp = strchr(line, ' '), *end;

	if (!sp)
		return -EINVAL;
	*sp = '\0';
	if (cipam_keypart_parse(line, cidr) < 0)
		return -EINVAL;
	errno = 0;
	*mod = strtoll(sp + 1, &end, 10);
	if (errno || *mod <= 0 || *end != ' ' || end[1] == '\0')
		return -EINVAL;
	*value = strdup(end + 1);
	return *value ? 0 : -ENOMEM;
}

static void cache_line(struct cipam_cache *c, char *line)
{
	struct cipam_cache_kv *p = &c->pools[c->n_pools];

	if (strncmp(line, "p ", 2) == 0 && c->n_pools < CIPAM_MAX_POOLS) {
		if (cache_entry(line + 2, &p->cidr, &p->mod, &p->value) == 0)
			c->n_pools++;
	} else if (strncmp(line, "b ", 2) == 0 && c->n < CIPAM_CACHE_MAX) {
		if (cache_entry(line + 2, &c->v[c->n], &c->mod[c->n], &c->val[c->n]) == 0)
			c->n++;
	} else if (c->n < CIPAM_CACHE_MAX && cipam_keypart_parse(line, &c->v[c->n]) == 0) {
		c->mod[c->n] = 0;
		c->val[c->n++] = NULL;
	}
}

void cipam_cache_load(struct cipam_session *s, struct cipam_cache *ret)
{
	_cleanup_close_ int dfd = -1;
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;

	memset(ret, 0, sizeof(*ret));
	if (s->lock_fd < 0)
		return;
	dfd = open(s->c->data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || file_read_at(dfd, "blocks", 4u << 20, &buf) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		cache_line(ret, line);
}

void cipam_cache_done(struct cipam_cache *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->val[i]);
	for (size_t i = 0; i < c->n_pools; i++)
		free(c->pools[i].value);
	memset(c, 0, sizeof(*c));
}

static bool one_line(const char *v)
{
	return v && !strchr(v, '\n');
}

void cipam_cache_save(struct cipam_session *s, const struct cipam_cache *c)
{
	_cleanup_free_ char *path = NULL, *tmp = NULL;
	char kp[CIPAM_KEYPART_LEN];
	FILE *f;

	if (s->lock_fd < 0 || asprintf(&path, "%s/blocks", s->c->data_dir) < 0 ||
	    asprintf(&tmp, "%s/blocks.tmp", s->c->data_dir) < 0)
		return;
	f = fopen(tmp, "we");
	if (!f)
		return;
	for (size_t i = 0; i < c->n_pools; i++)
		if (one_line(c->pools[i].value))
			fprintf(f, "p %s %lld %s\n", cipam_keypart(&c->pools[i].cidr, kp),
				(long long)c->pools[i].mod, c->pools[i].value);
	for (size_t i = 0; i < c->n; i++)
		if (one_line(c->val[i]) && c->mod[i] > 0)
			fprintf(f, "b %s %lld %s\n", cipam_keypart(&c->v[i], kp),
				(long long)c->mod[i], c->val[i]);
		else
			fprintf(f, "%s\n", cipam_keypart(&c->v[i], kp));
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		(void)unlink(tmp);
}
