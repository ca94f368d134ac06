/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kube-apiserver client: one pwhttp client for the whole call, so the
 * TLS connection is made once and kept; bounded timeouts; retries with
 * backoff on connection failures, 429 and 5xx. libssl is loaded (by pwhttp)
 * only when a call needs the apiserver: DEL, CHECK and GC from the cache
 * never map it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"
#include "pwhttp/http.h"

#define K8S_CONNECT_TIMEOUT_MS 2000u
#define K8S_TIMEOUT_MS 5000u
#define K8S_ATTEMPTS 4
#define K8S_BACKOFF_MS 100
#define K8S_MAX_BODY (8u << 20)

/* A retry is worth starting only with at least this much of the budget left. */
#define K8S_MIN_ATTEMPT_MS 50

struct mn_k8s {
	struct pwhttp_client *http;
	char *server;
	char *auth;	     /* "Authorization: Bearer ...\r\n" or NULL */
	uint64_t budget_end; /* 0: none */
	bool unreachable;    /* with a budget: a request already failed to reach it */
};

char *mn_k8s_session_file(const char *cni_dir)
{
	char *p;

	return asprintf(&p, "%s/tls/apiserver", cni_dir) < 0 ? NULL : p;
}

/* The kubeconfig's TLS files, which pwhttp reads naming no key: named here. */
static int check_files(const struct mn_kubeconfig *kc, struct cni_error *err)
{
	const struct cni_conf_reader rd = {.err = err, .path = "kubeconfig"};
	int r = cni_conf_check_file(&rd, CNI_ERR_INVALID_CONFIG, "certificate-authority",
				    kc->ca_data ? NULL : kc->ca_file);

	if (r == 0)
		r = cni_conf_check_file(&rd, CNI_ERR_INVALID_CONFIG, "client-certificate",
					kc->cert_data ? NULL : kc->cert_file);
	if (r == 0)
		r = cni_conf_check_file(&rd, CNI_ERR_INVALID_CONFIG, "client-key",
					kc->key_data ? NULL : kc->key_file);
	return r;
}

int mn_k8s_open(const struct mn_kubeconfig *kc, const char *session_file, struct mn_k8s **ret,
		struct cni_error *err)
{
	const struct pwhttp_tls tls = {
	    .ca_file = kc->ca_file,
	    .ca_data = kc->ca_data,
	    .ca_len = kc->ca_len,
	    .cert_file = kc->cert_file,
	    .key_file = kc->key_file,
	    .cert_data = kc->cert_data,
	    .key_data = kc->key_data,
	    .cert_len = kc->cert_len,
	    .key_len = kc->key_len,
	    .session_file = session_file,
	};
	const struct pwhttp_target t = {.url = kc->server,
					.tls = &tls,
					.connect_timeout_ms = K8S_CONNECT_TIMEOUT_MS,
					.user_agent = "podwire-multinet"};
	const char *why = NULL;
	struct mn_k8s *k = calloc(1, sizeof(*k));
	int r;

	if (!k || !(k->server = strdup(kc->server))) {
		mn_k8s_free(k);
		return -ENOMEM;
	}
	if (kc->token && asprintf(&k->auth, "Authorization: Bearer %s\r\n", kc->token) < 0) {
		k->auth = NULL;
		mn_k8s_free(k);
		return -ENOMEM;
	}
	r = check_files(kc, err);
	if (r < 0) {
		mn_k8s_free(k);
		return r;
	}
	r = pwhttp_client_new(&t, &k->http, &why);
	if (r < 0) {
		mn_k8s_free(k);
		if (r == -ENOMEM)
			return r;
		return cni_errorf(err, r == -ELIBACC ? CNI_ERR_PLUGIN : CNI_ERR_INVALID_CONFIG, r,
				  "kubeconfig: apiserver %s: %s", kc->server, why);
	}
	*ret = k;
	return 0;
}

void mn_k8s_free(struct mn_k8s *k)
{
	if (!k)
		return;
	pwhttp_client_free(k->http);
	if (k->auth)
		explicit_bzero(k->auth, strlen(k->auth));
	free(k->auth);
	free(k->server);
	free(k);
}

void mn_k8s_set_budget(struct mn_k8s *k, unsigned ms)
{
	k->budget_end = pwhttp_now_ms() + ms;
}

uint64_t mn_k8s_attempt_deadline(uint64_t now, uint64_t end)
{
	uint64_t d = now + K8S_TIMEOUT_MS;

	return end && end < d ? end : d;
}

bool mn_k8s_retry_fits(uint64_t now, long backoff_ms, uint64_t end)
{
	return !end || now + (uint64_t)backoff_ms + K8S_MIN_ATTEMPT_MS < end;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Transport failures a new attempt may cure (TLS and HTTP framing errors are not). */
static bool retryable(int r)
{
	return r == -ECONNREFUSED || r == -ETIMEDOUT || r == -ECONNRESET || r == -EPIPE ||
	       r == -EHOSTUNREACH || r == -ENETUNREACH;
}

/* One request to the apiserver: what is sent, and the answer. */
struct k8s_req {
	const char *method, *path;
	const char *ctype, *body; /* NULL: none */
	long status;
	char *resp; /* owned */
};

/* One attempt: 0 with q->status and q->resp, or the pwhttp error. */
static int attempt(struct mn_k8s *k, struct k8s_req *q)
{
	_cleanup_free_ char *hdrs = NULL;
	struct pwhttp_response resp;
	struct pwhttp_request rq = {.method = q->method,
				    .path = q->path,
				    .body = q->body,
				    .body_len = q->body ? strlen(q->body) : 0};
	int r;

	if (asprintf(&hdrs, "Accept: application/json\r\n%s%s%s%s", k->auth ? k->auth : "",
		     q->ctype ? "Content-Type: " : "", q->ctype ? q->ctype : "",
		     q->ctype ? "\r\n" : "") < 0)
		return -ENOMEM;
	rq.headers = hdrs;
	r = pwhttp_request(k->http, &rq, mn_k8s_attempt_deadline(pwhttp_now_ms(), k->budget_end),
			   &resp);
	explicit_bzero(hdrs, strlen(hdrs));
	if (r < 0)
		return r;
	if (resp.body_len > K8S_MAX_BODY) {
		free(resp.body);
		return -EMSGSIZE;
	}
	q->status = resp.status;
	q->resp = resp.body;
	return 0;
}

/* The attempts: retried on connection errors, 429 and 5xx, with exponential backoff. */
static int attempts(struct mn_k8s *k, struct k8s_req *q)
{
	long backoff = K8S_BACKOFF_MS;
	int r = 0;

	for (int i = 0; i < K8S_ATTEMPTS; i++) {
		if (i > 0) {
			if (!mn_k8s_retry_fits(pwhttp_now_ms(), backoff, k->budget_end))
				break;
			sleep_ms(backoff);
			backoff *= 2;
		}
		q->resp = mfree(q->resp);
		q->status = 0;
		r = attempt(k, q);
		if (r == 0 && q->status != 429 && q->status < 500)
			break;
		if (r == -ENOMEM || (r < 0 && !retryable(r)))
			break;
		/* With a budget a refused connect is an answer: nobody listens. */
		if (r == -ECONNREFUSED && k->budget_end)
			break;
		cni_log_info("apiserver %s %s: %s, retrying", q->method, q->path,
			     r == 0 ? "server busy" : pwhttp_client_error(k->http));
	}
	return r;
}

/*
 * q's method and path -> its status and body. A final transport error is
 * code 11 (try again) naming the server; TLS failures are code 100 (a retry
 * cannot help).
 */
static int request(struct mn_k8s *k, struct k8s_req *q, struct cni_error *err)
{
	int r;

	if (k->budget_end && (k->unreachable || pwhttp_now_ms() >= k->budget_end))
		return cni_errorf(err, CNI_ERR_TRY_AGAIN, -ETIMEDOUT,
				  "apiserver %s: %s %s: not tried: %s", k->server, q->method,
				  q->path,
				  k->unreachable ? "it could not be reached earlier in this call"
						 : "this call's time for the apiserver is spent");
	r = attempts(k, q);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		q->resp = mfree(q->resp);
		k->unreachable = k->budget_end != 0;
		return cni_errorf(err, retryable(r) ? CNI_ERR_TRY_AGAIN : CNI_ERR_PLUGIN, r,
				  "apiserver %s: %s %s: %s", k->server, q->method, q->path,
				  pwhttp_client_error(k->http));
	}
	return 0;
}

static int status_error(struct mn_k8s *k, const char *method, const char *path, long status,
			const char *body, struct cni_error *err)
{
	char snippet[160];

	snprintf(snippet, sizeof(snippet), "%s", body ? body : "");
	return cni_errorf(err, status == 429 || status >= 500 ? CNI_ERR_TRY_AGAIN : CNI_ERR_PLUGIN,
			  -EIO, "apiserver %s: %s %s: HTTP %ld %s", k->server, method, path, status,
			  snippet);
}

const char *mn_k8s_annotation(const json_t *obj, const char *key)
{
	const json_t *a = json_object_get(json_object_get(obj, "metadata"), "annotations");

	return json_string_value(json_object_get(a, key));
}

int mn_k8s_parse_object(const char *buf, size_t len, const char *kind, const char *what,
			json_t **ret, struct cni_error *err)
{
	json_t *o = NULL, *md, *ann, *v;
	const char *key;
	int r;

	if ((r = cni_json_loadb(buf, len, what, &o, err)) < 0)
		return r;
	md = json_object_get(o, "metadata");
	ann = json_object_get(md, "annotations");
	if (!json_is_object(o) || !json_is_object(md) ||
	    (kind && !streq(json_string_value(json_object_get(o, "kind")), kind)))
		goto bad;
	if (ann && !json_is_object(ann))
		goto bad;
	json_object_foreach (ann, key, v)
		if (!json_is_string(v))
			goto bad;
	*ret = o;
	return 0;
bad:
	json_decref(o);
	return cni_errorf(err, CNI_ERR_DECODE, -EINVAL, "%s: not a %s object", what,
			  kind ? kind : "Kubernetes");
}

static int get_object(struct mn_k8s *k, const char *path, const char *kind, json_t **ret,
		      struct cni_error *err)
{
	struct k8s_req q = {.method = "GET", .path = path};
	int r = request(k, &q, err);

	if (r >= 0 && q.status == 404)
		r = 0;
	else if (r >= 0 && q.status != 200)
		r = status_error(k, "GET", path, q.status, q.resp, err);
	else if (r >= 0 &&
		 (r = mn_k8s_parse_object(q.resp, strlen(q.resp), kind, path, ret, err)) >= 0)
		r = 1;
	free(q.resp);
	return r;
}

int mn_k8s_get_pod(struct mn_k8s *k, const char *ns, const char *name, json_t **ret,
		   struct cni_error *err)
{
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s", ns, name) < 0)
		return -ENOMEM;
	return get_object(k, path, "Pod", ret, err);
}

int mn_k8s_get_nad(struct mn_k8s *k, const char *ns, const char *name, json_t **ret,
		   struct cni_error *err)
{
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path,
		     "/apis/k8s.cni.cncf.io/v1/namespaces/%s/network-attachment-definitions/%s", ns,
		     name) < 0)
		return -ENOMEM;
	return get_object(k, path, "NetworkAttachmentDefinition", ret, err);
}

int mn_k8s_patch_status(struct mn_k8s *k, const char *ns, const char *name, const char *status_json,
			struct cni_error *err)
{
	_cleanup_free_ char *path = NULL, *body = NULL;
	struct k8s_req q = {.method = "PATCH", .ctype = "application/merge-patch+json"};
	json_t *patch;
	int r;

	/* The status subresource: the ClusterRole grants patch there only, not on pods. */
	if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s/status", ns, name) < 0)
		return -ENOMEM;
	patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", MN_ANNOT_STATUS, status_json);
	body = patch ? json_dumps(patch, JSON_COMPACT) : NULL;
	json_decref(patch);
	if (!body)
		return -ENOMEM;
	q.path = path;
	q.body = body;
	r = request(k, &q, err);
	if (r >= 0 && q.status == 404)
		cni_log_info("pod %s/%s is gone: network-status not written", ns, name);
	else if (r >= 0 && q.status != 200)
		r = status_error(k, "PATCH", path, q.status, q.resp, err);
	free(q.resp);
	return r < 0 ? r : 0;
}
