/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwetcd: the transport. One pwhttp client per endpoint keeps one
 * connection (http://, https:// or unix://) for all the requests made to
 * it; endpoints are tried in order on connect failures and 5xx answers;
 * every request is bounded by what is left of the client's budget. The
 * watch stream (podwire-node) has a client and a connection of its own per
 * endpoint, and its own deadline.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "pwhttp/http.h"

struct endpoint {
	char *base;	 /* "http://host:port" (no trailing slash) */
	char *unix_path; /* non-NULL: connect to this socket */
};

struct pwetcd_client {
	struct endpoint ep[PWETCD_MAX_ENDPOINTS];
	size_t n_ep, cur;
	char *ca_file, *cert_file, *key_file;
	char *session_dir;
	unsigned timeout_ms;
	uint64_t deadline_ms;				   /* CLOCK_MONOTONIC */
	struct pwhttp_client *http[PWETCD_MAX_ENDPOINTS];  /* per endpoint, on first use */
	struct pwhttp_client *watch[PWETCD_MAX_ENDPOINTS]; /* the watch's, likewise */
	char errmsg[512];
	unsigned long requests;
};

struct buf {
	char *data;
	size_t len, cap;
};

#define MAX_RESPONSE (64u << 20)

static int fail(struct pwetcd_client *c, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct pwetcd_client *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	return r;
}

static int parse_endpoint(const char *s, struct endpoint *ep)
{
	if (strncmp(s, "unix://", 7) == 0 || strncmp(s, "unix:/", 6) == 0) {
		const char *path = s[5] == '/' && s[6] == '/' ? s + 7 : s + 5;

		if (path[0] != '/' || path[1] == '\0')
			return -EINVAL;
		ep->unix_path = strdup(path);
		ep->base = strdup("http://localhost");
	} else if (strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0) {
		size_t n = strlen(s);
		const char *host = strstr(s, "://") + 3;

		if (*host == '\0' || *host == '/' || strchr(host, ' '))
			return -EINVAL;
		while (n > 0 && s[n - 1] == '/')
			n--;
		ep->base = strndup(s, n);
	} else {
		return -EINVAL;
	}
	return ep->base && (!strncmp(s, "unix:", 5) ? ep->unix_path != NULL : true) ? 0 : -ENOMEM;
}

static char *dup_opt(const char *s, bool *oom)
{
	char *d;

	if (!s || !*s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

int pwetcd_open(const struct pwetcd_config *cfg, struct pwetcd_client **ret)
{
	struct pwetcd_client *c;
	bool oom = false;
	int r = 0;

	if (!cfg || cfg->n_endpoints == 0 || cfg->n_endpoints > PWETCD_MAX_ENDPOINTS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_endpoints && r == 0; i++, c->n_ep++)
		r = cfg->endpoints[i] ? parse_endpoint(cfg->endpoints[i], &c->ep[i]) : -EINVAL;
	c->ca_file = dup_opt(cfg->ca_file, &oom);
	c->cert_file = dup_opt(cfg->cert_file, &oom);
	c->key_file = dup_opt(cfg->key_file, &oom);
	c->session_dir = dup_opt(cfg->session_dir, &oom);
	c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : PWETCD_DEFAULT_TIMEOUT_MS;
	c->deadline_ms = pwhttp_now_ms() + c->timeout_ms;
	if (r == 0 && oom)
		r = -ENOMEM;
	if (r < 0) {
		pwetcd_close(c);
		return r;
	}
	*ret = c;
	return 0;
}

void pwetcd_close(struct pwetcd_client *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_ep; i++) {
		pwhttp_client_free(c->http[i]);
		pwhttp_client_free(c->watch[i]);
		free(c->ep[i].base);
		free(c->ep[i].unix_path);
	}
	free(c->ca_file);
	free(c->cert_file);
	free(c->key_file);
	free(c->session_dir);
	free(c);
}

void pwetcd_reset_deadline(struct pwetcd_client *c, unsigned timeout_ms)
{
	c->deadline_ms = pwhttp_now_ms() + (timeout_ms ? timeout_ms : c->timeout_ms);
}

void pwetcd_set_deadline(struct pwetcd_client *c, uint64_t deadline_ms)
{
	c->deadline_ms = deadline_ms;
}

unsigned pwetcd_remaining_ms(const struct pwetcd_client *c)
{
	uint64_t now = pwhttp_now_ms();

	return now >= c->deadline_ms ? 0 : (unsigned)(c->deadline_ms - now);
}

const char *pwetcd_errmsg(const struct pwetcd_client *c)
{
	return c->errmsg;
}

unsigned long pwetcd_requests(const struct pwetcd_client *c)
{
	return c->requests;
}

static int map_grpc(int code, long http)
{
	switch (code) {
	case 3:
		return -EINVAL;
	case 4:
		return -ETIMEDOUT;
	case 5:
		return -ENOENT;
	case 7:
	case 16:
		return -EACCES;
	case 11:
		return -ERANGE;
	case 14:
		return -EAGAIN;
	default:
		return http >= 500 ? -EAGAIN : -EIO;
	}
}

/* A non-200 answer: its gRPC code and message, as an errno and errmsg. */
static int http_error(struct pwetcd_client *c, long http, const struct buf *b, const char *what)
{
	char *msg = NULL;
	int code = -1, r;

	if (b->data)
		(void)pwetcd_parse_error(b->data, b->len, &code, &msg);
	r = map_grpc(code, http);
	if (http == 401 || http == 403)
		r = -EACCES;
	fail(c, r, "etcd %s: HTTP %ld%s%s", what, http, msg ? ": " : "", msg ? msg : "");
	free(msg);
	return r;
}

/* pwhttp's errors as pwetcd's: connect failures move on to the next endpoint. */
static int http_errno(int r)
{
	switch (r) {
	case -ETIMEDOUT:
	case -ENOMEM:
	case -EBADMSG:
	case -EMSGSIZE:
		return r;
	case -ECONNREFUSED:
	case -ENOENT:
	case -EHOSTUNREACH:
	case -ENETUNREACH:
	case -EADDRNOTAVAIL:
	case -EACCES:
		return -ECONNREFUSED;
	case -EKEYREJECTED: /* CA, certificate or key unusable */
	case -EPROTO:	    /* handshake or verification failed */
	case -ELIBACC:	    /* no libssl */
		return -EACCES;
	default:
		return -EIO;
	}
}

static const char *ep_name(const struct endpoint *ep)
{
	return ep->unix_path ? ep->unix_path : ep->base;
}

/*
 * The session file of an https:// endpoint under session_dir: "etcd-" and
 * its host and port, every byte but [A-Za-z0-9.-] as '_'. NULL: none.
 */
static char *session_file(const struct pwetcd_client *c, const struct endpoint *ep)
{
	static const char scheme[] = "https://";
	const char *hp;
	char *path;

	if (!c->session_dir || ep->unix_path || strncmp(ep->base, scheme, strlen(scheme)) != 0)
		return NULL;
	hp = ep->base + strlen(scheme);
	if (asprintf(&path, "%s/etcd-%s", c->session_dir, hp) < 0)
		return NULL;
	for (char *p = path + strlen(c->session_dir) + strlen("/etcd-"); *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
			*p = '_';
	return path;
}

/*
 * Endpoint i's client in *slot (c->http or c->watch), made on first use
 * (https: with the TLS material); connect_ms bounds its connects.
 */
static int endpoint_client(struct pwetcd_client *c, size_t i, struct pwhttp_client **slot,
			   unsigned connect_ms)
{
	if (!slot[i]) {
		char *session = session_file(c, &c->ep[i]);
		const struct pwhttp_tls tls = {.ca_file = c->ca_file,
					       .system_ca = !c->ca_file,
					       .cert_file = c->cert_file,
					       .key_file = c->key_file ? c->key_file : c->cert_file,
					       .session_file = session};
		const struct pwhttp_target t = {.url = c->ep[i].unix_path ? NULL : c->ep[i].base,
						.unix_path = c->ep[i].unix_path,
						.tls = &tls,
						.connect_timeout_ms = connect_ms,
						.user_agent = "podwire-pwetcd"};
		const char *why = NULL;
		int r = pwhttp_client_new(&t, &slot[i], &why); /* copies session */

		free(session);
		if (r < 0)
			return fail(c, http_errno(r), "etcd %s: %s", ep_name(&c->ep[i]),
				    why ? why : strerror(-r));
	}
	return 0;
}

/* One attempt on one endpoint: 0 with the body, or a negative errno; *retry for next endpoint. */
static int attempt(struct pwetcd_client *c, size_t i, const char *path, const char *body,
		   struct buf *out, bool *retry)
{
	struct pwhttp_request rq = {.method = "POST",
				    .path = path,
				    .headers = "Content-Type: application/json\r\n",
				    .body = body,
				    .body_len = strlen(body)};
	struct pwhttp_response resp;
	struct pwhttp_client *h;
	int r;

	*retry = false;
	if (pwetcd_remaining_ms(c) == 0)
		return fail(c, -ETIMEDOUT, "etcd %s: timed out (%u ms budget spent)", path,
			    c->timeout_ms);
	if ((r = endpoint_client(c, i, c->http, 0)) < 0)
		return r;
	h = c->http[i];
	c->requests++;
	r = pwhttp_request(h, &rq, c->deadline_ms, &resp);
	if (r < 0) {
		r = http_errno(r);
		*retry = r == -ECONNREFUSED;
		return fail(c, r, "etcd %s at %s%s: %s", path, c->ep[i].unix_path ? "unix://" : "",
			    ep_name(&c->ep[i]),
			    r == -ETIMEDOUT ? "timed out" : pwhttp_client_error(h));
	}
	*out = (struct buf){resp.body, resp.body_len, resp.body_len + 1};
	if (resp.status != 200) {
		*retry = resp.status >= 500;
		return http_error(c, resp.status, out, path);
	}
	if (out->len == 0)
		return fail(c, -EBADMSG, "etcd %s: empty response", path);
	return 0;
}

/* POST body to path; *ret gets the response body (owned). */
static int request(struct pwetcd_client *c, const char *path, const char *body, struct buf *ret)
{
	int r = -ECONNREFUSED;

	c->errmsg[0] = '\0';
	for (size_t k = 0; k < c->n_ep; k++) {
		size_t i = (c->cur + k) % c->n_ep;
		bool retry;

		free(ret->data);
		memset(ret, 0, sizeof(*ret));
		r = attempt(c, i, path, body, ret, &retry);
		if (r == 0) {
			c->cur = i;
			return 0;
		}
		if (!retry)
			break;
	}
	free(ret->data);
	memset(ret, 0, sizeof(*ret));
	return r;
}

/* POST a body built as text (owned, freed here; NULL: the builder failed). */
static int request_text(struct pwetcd_client *c, const char *path, char *body, struct buf *ret)
{
	int r;

	if (!body)
		return fail(c, -ENOMEM, "out of memory");
	r = request(c, path, body, ret);
	free(body);
	return r;
}

static int bad(struct pwetcd_client *c, const char *path, int r, const char *why)
{
	if (r == -ENOMEM)
		return fail(c, r, "out of memory");
	return fail(c, r, "etcd %s: %s", path, why ? why : "malformed response");
}

int pwetcd_range(struct pwetcd_client *c, const struct pwetcd_range_req *req,
		 struct pwetcd_range_result *ret)
{
	struct buf b = {0};
	const char *why = NULL;
	int r = request_text(c, "/v3/kv/range", pwetcd_range_body(req), &b);

	if (r == 0) {
		r = pwetcd_parse_range(b.data, b.len, ret, &why);
		if (r < 0)
			bad(c, "/v3/kv/range", r, why);
	}
	free(b.data);
	return r;
}

int pwetcd_get(struct pwetcd_client *c, const char *key, struct pwetcd_kv *ret, bool *found)
{
	struct pwetcd_range_req req = {.key = key};
	struct pwetcd_range_result res = {0};
	int r = pwetcd_range(c, &req, &res);

	memset(ret, 0, sizeof(*ret));
	*found = false;
	if (r < 0)
		return r;
	if (res.n_kvs > 0) {
		*ret = res.kvs[0];
		memset(&res.kvs[0], 0, sizeof(res.kvs[0]));
		*found = true;
	}
	pwetcd_range_result_done(&res);
	return 0;
}

int pwetcd_put(struct pwetcd_client *c, const char *key, const char *value, size_t value_len,
	       int64_t lease, int64_t *ret_revision)
{
	struct buf b = {0};
	const char *why = NULL;
	int64_t rev = 0;
	int r = request_text(c, "/v3/kv/put", pwetcd_put_body(key, value, value_len, lease), &b);

	if (r == 0) {
		r = pwetcd_parse_put(b.data, b.len, &rev, &why);
		if (r < 0)
			bad(c, "/v3/kv/put", r, why);
		else if (ret_revision)
			*ret_revision = rev;
	}
	free(b.data);
	return r;
}

int pwetcd_delete(struct pwetcd_client *c, const char *key, bool prefix, int64_t *ret_deleted)
{
	struct buf b = {0};
	const char *why = NULL;
	int64_t n = 0;
	int r = request_text(c, "/v3/kv/deleterange", pwetcd_delete_body(key, prefix), &b);

	if (r == 0) {
		r = pwetcd_parse_delete(b.data, b.len, &n, &why);
		if (r < 0)
			bad(c, "/v3/kv/deleterange", r, why);
		else if (ret_deleted)
			*ret_deleted = n;
	}
	free(b.data);
	return r;
}

int pwetcd_txn_commit(struct pwetcd_client *c, const struct pwetcd_txn *t,
		      struct pwetcd_txn_result *ret)
{
	struct buf b = {0};
	const char *why = NULL;
	char *body;
	int r = pwetcd_txn_error(t);

	if (r < 0)
		return fail(c, r, "txn: building the request failed");
	body = pwetcd_txn_json(t);
	if (!body)
		return fail(c, -ENOMEM, "out of memory");
	r = request(c, "/v3/kv/txn", body, &b);
	free(body);
	if (r == 0) {
		r = pwetcd_parse_txn(b.data, b.len, ret, &why);
		if (r < 0)
			bad(c, "/v3/kv/txn", r, why);
	}
	free(b.data);
	return r;
}

/* POST {"<field>":"<value>"} (etcd's int64 as a string) to a lease path; parse the answer. */
static int lease_call(struct pwetcd_client *c, const char *path, const char *field, int64_t value,
		      int64_t *ret_id, int64_t *ret_ttl)
{
	struct buf b = {0};
	const char *why = NULL;
	char *body;
	int r;

	if (asprintf(&body, "{\"%s\":\"%" PRId64 "\"}", field, value) < 0)
		body = NULL; /* request_text: out of memory */
	r = request_text(c, path, body, &b);
	if (r == 0) {
		r = pwetcd_parse_lease(b.data, b.len, ret_id, ret_ttl, &why);
		if (r < 0)
			bad(c, path, r, why);
	}
	free(b.data);
	return r;
}

int pwetcd_lease_grant(struct pwetcd_client *c, int64_t ttl_s, int64_t *ret_id, int64_t *ret_ttl)
{
	int r = lease_call(c, "/v3/lease/grant", "TTL", ttl_s, ret_id, ret_ttl);

	if (r == 0 && ret_id && *ret_id == 0)
		return fail(c, -EBADMSG, "etcd /v3/lease/grant: no lease ID in the answer");
	return r;
}

int pwetcd_lease_keepalive(struct pwetcd_client *c, int64_t id, int64_t *ret_ttl)
{
	return lease_call(c, "/v3/lease/keepalive", "ID", id, NULL, ret_ttl);
}

int pwetcd_lease_revoke(struct pwetcd_client *c, int64_t id)
{
	return lease_call(c, "/v3/lease/revoke", "ID", id, NULL, NULL);
}

int pwetcd_status(struct pwetcd_client *c, char **ret_version)
{
	struct buf b = {0};
	json_t *root = NULL;
	int r = request(c, "/v3/maintenance/status", "{}", &b);

	if (r == 0) {
		root = json_loadb(b.data, b.len, 0, NULL);
		if (!json_is_object(root) || !json_is_object(json_object_get(root, "header")))
			r = fail(c, -EBADMSG, "etcd /v3/maintenance/status: malformed response");
	}
	if (r == 0 && ret_version) {
		const json_t *v = json_object_get(root, "version");

		*ret_version = json_is_string(v) ? strdup(json_string_value(v)) : NULL;
	}
	json_decref(root);
	free(b.data);
	return r;
}

/* Watch: a streamed POST; every "\n"-terminated line is one message. */
struct watch_state {
	struct pwetcd_client *c;
	struct buf line;
	pwetcd_watch_fn fn;
	void *ud;
	long status; /* the response's, once its head came */
	int stop;    /* the callback's value or an error */
};

static int watch_line(struct watch_state *w, const char *s, size_t len)
{
	struct pwetcd_watch_batch b = {0};
	const char *why = NULL;
	int r;

	if (len == 0)
		return 0;
	r = pwetcd_parse_watch_message(s, len, &b, &why);
	if (r < 0) {
		int code;
		char *msg = NULL;

		(void)pwetcd_parse_error(s, len, &code, &msg);
		fail(w->c, code >= 0 ? map_grpc(code, 200) : r, "etcd /v3/watch: %s",
		     msg   ? msg
		     : why ? why
			   : "malformed message");
		free(msg);
		return code >= 0 ? map_grpc(code, 200) : r;
	}
	r = w->fn(&b, w->ud);
	if (r == 0 && b.compact_revision > 0)
		r = fail(w->c, -ERANGE, "etcd /v3/watch: revision compacted (oldest %lld)",
			 (long long)b.compact_revision);
	else if (r == 0 && b.canceled)
		r = fail(w->c, -ECONNRESET, "etcd /v3/watch: canceled: %s",
			 b.cancel_reason ? b.cancel_reason : "");
	pwetcd_watch_batch_done(&b);
	return r;
}

/* The line buffer grown for len more bytes (a message at most MAX_RESPONSE). */
static int line_room(struct buf *b, size_t len)
{
	size_t cap = (b->len + len + 1) * 2;
	char *d;

	if (b->len + len + 1 > MAX_RESPONSE)
		return -EMSGSIZE;
	if (b->len + len + 1 <= b->cap)
		return 0;
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

/* pwhttp's stream function: the status, then pieces of the body cut into lines. */
static int watch_data(long status, const char *p, size_t len, void *ud)
{
	struct watch_state *w = ud;
	size_t start = 0;

	w->status = status;
	if (!p && status != 200)
		return w->stop = fail(w->c, status >= 500 ? -EAGAIN : -EIO,
				      "etcd /v3/watch: HTTP %ld", status);
	if (len == 0)
		return 0;
	if ((w->stop = line_room(&w->line, len)) < 0)
		return fail(w->c, w->stop, "etcd /v3/watch: %s", strerror(-w->stop));
	memcpy(w->line.data + w->line.len, p, len);
	w->line.len += len;
	for (size_t i = 0; i < w->line.len && w->stop == 0; i++) {
		if (w->line.data[i] != '\n')
			continue;
		w->stop = watch_line(w, w->line.data + start, i - start);
		start = i + 1;
	}
	memmove(w->line.data, w->line.data + start, w->line.len - start);
	w->line.len -= start;
	return w->stop;
}

static json_t *watch_body(const struct pwetcd_watch_req *req)
{
	json_t *cr = json_object();

	if (!cr || pwetcd_json_set_key(cr, req->key, req->key_len, req->prefix) < 0 ||
	    (req->start_revision &&
	     json_object_set_new(cr, "start_revision", pwetcd_json_i64(req->start_revision)) < 0)) {
		json_decref(cr);
		return NULL;
	}
	return json_pack("{so}", "create_request", cr);
}

/*
 * The watch on endpoint i, on the endpoint's watch client: connects within
 * the client's timeout, then streams until duration_ms (0: no end).
 */
static int watch_once(struct pwetcd_client *c, size_t i, const char *body,
		      const struct pwetcd_watch_req *req, struct watch_state *w)
{
	const struct pwhttp_request rq = {.method = "POST",
					  .path = "/v3/watch",
					  .headers = "Content-Type: application/json\r\n",
					  .body = body,
					  .body_len = strlen(body)};
	uint64_t deadline = req->duration_ms ? pwhttp_now_ms() + req->duration_ms : UINT64_MAX;
	int r = endpoint_client(c, i, c->watch, c->timeout_ms);

	if (r < 0)
		return r;
	c->requests++;
	r = pwhttp_request_stream(c->watch[i], &rq, deadline, watch_data, w);
	if (w->stop != 0)
		return w->stop;
	if (r == -ETIMEDOUT && w->status == 200 && req->duration_ms)
		return 0; /* watched for duration_ms */
	if (r < 0)
		return fail(c, http_errno(r), "etcd /v3/watch at %s: %s", ep_name(&c->ep[i]),
			    r == -ETIMEDOUT ? "timed out" : pwhttp_client_error(c->watch[i]));
	return fail(c, -ECONNRESET, "etcd /v3/watch: stream closed");
}

int pwetcd_watch(struct pwetcd_client *c, const struct pwetcd_watch_req *req, pwetcd_watch_fn fn,
		 void *userdata)
{
	struct watch_state w = {.c = c, .fn = fn, .ud = userdata};
	json_t *o = watch_body(req);
	char *body = o ? json_dumps(o, JSON_COMPACT) : NULL;
	int r = -ECONNREFUSED;

	json_decref(o);
	if (!body)
		return fail(c, -ENOMEM, "out of memory");
	for (size_t k = 0; k < c->n_ep; k++) {
		size_t i = (c->cur + k) % c->n_ep;

		w.line.len = 0;
		w.status = 0;
		w.stop = 0;
		r = watch_once(c, i, body, req, &w);
		if (r != -ECONNREFUSED && r != -EAGAIN) {
			c->cur = i;
			break;
		}
	}
	free(w.line.data);
	free(body);
	return r;
}
