/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kube-apiserver client: one libcurl easy handle for the whole call, so
 * the TLS connection is made once and kept; bounded timeouts; retries with
 * backoff on connection failures, 429 and 5xx. libcurl is loaded (lazycurl)
 * only when a call needs the apiserver: DEL, CHECK and GC from the cache
 * never map it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "lazycurl/lazycurl.h"
#include "multinet.h"

#define K8S_CONNECT_TIMEOUT_MS 2000L
#define K8S_TIMEOUT_MS 5000L
#define K8S_ATTEMPTS 4
#define K8S_BACKOFF_MS 100
#define K8S_MAX_BODY (8u << 20)

struct mn_k8s {
	const struct lazycurl *lc; /* libcurl, loaded for the first apiserver call */
	CURL *curl;
	char *server;
	char *auth; /* "Authorization: Bearer ..." or NULL */
	char errbuf[CURL_ERROR_SIZE];
};

struct body {
	char *buf;
	size_t len;
	bool overflow;
};

static size_t on_data(char *p, size_t size, size_t n, void *userdata)
{
	struct body *b = userdata;
	size_t add = size * n;
	char *nb;

	if (b->len + add > K8S_MAX_BODY) {
		b->overflow = true;
		return 0;
	}
	nb = realloc(b->buf, b->len + add + 1);
	if (!nb)
		return 0;
	memcpy(nb + b->len, p, add);
	b->buf = nb;
	b->len += add;
	b->buf[b->len] = '\0';
	return add;
}

static int set_tls(const struct lazycurl *lc, CURL *c, const struct mn_kubeconfig *kc)
{
	struct curl_blob blob = {0};
	CURLcode rc = CURLE_OK;

	lc->easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	lc->easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (kc->ca_data) {
		blob = (struct curl_blob){kc->ca_data, kc->ca_len, CURL_BLOB_COPY};
		rc = lc->easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
	} else {
		rc = lc->easy_setopt(c, CURLOPT_CAINFO, kc->ca_file);
	}
	/* Only the kubeconfig's CA: never the system store as well. */
	lc->easy_setopt(c, CURLOPT_CAPATH, NULL);
	if (rc == CURLE_OK && kc->cert_data) {
		blob = (struct curl_blob){kc->cert_data, kc->cert_len, CURL_BLOB_COPY};
		rc = lc->easy_setopt(c, CURLOPT_SSLCERT_BLOB, &blob);
		blob = (struct curl_blob){kc->key_data, kc->key_len, CURL_BLOB_COPY};
		if (rc == CURLE_OK)
			rc = lc->easy_setopt(c, CURLOPT_SSLKEY_BLOB, &blob);
	} else if (rc == CURLE_OK && kc->cert_file) {
		rc = lc->easy_setopt(c, CURLOPT_SSLCERT, kc->cert_file);
		if (rc == CURLE_OK)
			rc = lc->easy_setopt(c, CURLOPT_SSLKEY, kc->key_file);
	}
	return rc == CURLE_OK ? 0 : -EINVAL;
}

int mn_k8s_open(const struct mn_kubeconfig *kc, struct mn_k8s **ret, struct cni_error *err)
{
	const struct lazycurl *lc;
	const char *why = NULL;
	struct mn_k8s *k;

	lc = lazycurl_get(&why);
	if (!lc)
		return cni_errorf(err, CNI_ERR_PLUGIN, -ELIBACC,
				  "apiserver client: libcurl cannot be loaded: %s", why);
	k = calloc(1, sizeof(*k));
	if (k)
		k->lc = lc;
	if (!k || !(k->server = strdup(kc->server)) || !(k->curl = lc->easy_init())) {
		mn_k8s_free(k);
		return -ENOMEM;
	}
	if (kc->token && asprintf(&k->auth, "Authorization: Bearer %s", kc->token) < 0) {
		k->auth = NULL;
		mn_k8s_free(k);
		return -ENOMEM;
	}
	if (set_tls(lc, k->curl, kc) < 0) {
		mn_k8s_free(k);
		return cni_errorf(err, CNI_ERR_PLUGIN, -EINVAL,
				  "libcurl: cannot set the kubeconfig's TLS material");
	}
	k->lc->easy_setopt(k->curl, CURLOPT_ERRORBUFFER, k->errbuf);
	k->lc->easy_setopt(k->curl, CURLOPT_NOSIGNAL, 1L);
	k->lc->easy_setopt(k->curl, CURLOPT_CONNECTTIMEOUT_MS, K8S_CONNECT_TIMEOUT_MS);
	k->lc->easy_setopt(k->curl, CURLOPT_TIMEOUT_MS, K8S_TIMEOUT_MS);
	k->lc->easy_setopt(k->curl, CURLOPT_PROTOCOLS_STR, "https");
	k->lc->easy_setopt(k->curl, CURLOPT_FOLLOWLOCATION, 0L);
	k->lc->easy_setopt(k->curl, CURLOPT_USERAGENT, "podwire-multinet");
	k->lc->easy_setopt(k->curl, CURLOPT_WRITEFUNCTION, on_data);
	*ret = k;
	return 0;
}

void mn_k8s_free(struct mn_k8s *k)
{
	if (!k)
		return;
	if (k->curl)
		k->lc->easy_cleanup(k->curl);
	if (k->auth)
		explicit_bzero(k->auth, strlen(k->auth));
	free(k->auth);
	free(k->server);
	free(k);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static bool retryable_curl(CURLcode rc)
{
	return rc == CURLE_COULDNT_CONNECT || rc == CURLE_OPERATION_TIMEDOUT ||
	       rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_PARTIAL_FILE;
}

/* One attempt. Returns the curl code; *status and body filled on CURLE_OK. */
static CURLcode attempt(struct mn_k8s *k, const char *method, const char *url, const char *ctype,
			const char *body, long *status, struct body *out)
{
	struct curl_slist *h = NULL;
	_cleanup_free_ char *ct = NULL;
	CURLcode rc;

	h = k->lc->slist_append(h, "Accept: application/json");
	if (k->auth)
		h = k->lc->slist_append(h, k->auth);
	if (ctype && asprintf(&ct, "Content-Type: %s", ctype) >= 0)
		h = k->lc->slist_append(h, ct);
	k->lc->easy_setopt(k->curl, CURLOPT_URL, url);
	k->lc->easy_setopt(k->curl, CURLOPT_HTTPHEADER, h);
	k->lc->easy_setopt(k->curl, CURLOPT_CUSTOMREQUEST, streq(method, "GET") ? NULL : method);
	k->lc->easy_setopt(k->curl, CURLOPT_HTTPGET, body ? 0L : 1L);
	if (body) {
		k->lc->easy_setopt(k->curl, CURLOPT_POSTFIELDS, body);
		k->lc->easy_setopt(k->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	}
	k->lc->easy_setopt(k->curl, CURLOPT_WRITEDATA, out);
	k->errbuf[0] = '\0';
	rc = k->lc->easy_perform(k->curl);
	k->lc->easy_setopt(k->curl, CURLOPT_HTTPHEADER, NULL);
	k->lc->slist_free_all(h);
	if (rc == CURLE_OK)
		k->lc->easy_getinfo(k->curl, CURLINFO_RESPONSE_CODE, status);
	return rc;
}

/*
 * method path -> status and body. Retries connection errors, 429 and 5xx
 * with exponential backoff. A final transport error is code 11 (try again)
 * naming the server; TLS failures are code 100 (a retry cannot help).
 */
static int request(struct mn_k8s *k, const char *method, const char *path, const char *ctype,
		   const char *body, long *status, char **ret_body, struct cni_error *err)
{
	_cleanup_free_ char *url = NULL;
	struct body out = {0};
	CURLcode rc = CURLE_OK;
	long backoff = K8S_BACKOFF_MS;

	if (asprintf(&url, "%s%s", k->server, path) < 0)
		return -ENOMEM;
	for (int i = 0; i < K8S_ATTEMPTS; i++) {
		if (i > 0) {
			sleep_ms(backoff);
			backoff *= 2;
		}
		free(out.buf);
		out = (struct body){0};
		*status = 0;
		rc = attempt(k, method, url, ctype, body, status, &out);
		if (rc == CURLE_OK && *status != 429 && *status < 500)
			break;
		if (rc != CURLE_OK && !retryable_curl(rc))
			break;
		cni_log_info("apiserver %s %s: %s, retrying", method, path,
			     rc == CURLE_OK ? "server busy" : k->lc->easy_strerror(rc));
	}
	if (rc != CURLE_OK) {
		free(out.buf);
		return cni_errorf(err, retryable_curl(rc) ? CNI_ERR_TRY_AGAIN : CNI_ERR_PLUGIN,
				  -EIO, "apiserver %s: %s %s: %s", k->server, method, path,
				  k->errbuf[0] ? k->errbuf : k->lc->easy_strerror(rc));
	}
	*ret_body = out.buf ? out.buf : strdup("");
	return *ret_body ? 0 : -ENOMEM;
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
	_cleanup_free_ char *body = NULL;
	long status;
	int r;

	if ((r = request(k, "GET", path, NULL, NULL, &status, &body, err)) < 0)
		return r;
	if (status == 404)
		return 0;
	if (status != 200)
		return status_error(k, "GET", path, status, body, err);
	if ((r = mn_k8s_parse_object(body, strlen(body), kind, path, ret, err)) < 0)
		return r;
	return 1;
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
	_cleanup_free_ char *path = NULL, *body = NULL, *resp = NULL;
	json_t *patch;
	long status;
	int r;

	if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s", ns, name) < 0)
		return -ENOMEM;
	patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", MN_ANNOT_STATUS, status_json);
	body = patch ? json_dumps(patch, JSON_COMPACT) : NULL;
	json_decref(patch);
	if (!body)
		return -ENOMEM;
	r = request(k, "PATCH", path, "application/merge-patch+json", body, &status, &resp, err);
	if (r < 0)
		return r;
	if (status == 404) {
		cni_log_info("pod %s/%s is gone: network-status not written", ns, name);
		return 0;
	}
	if (status != 200)
		return status_error(k, "PATCH", path, status, resp, err);
	return 0;
}
