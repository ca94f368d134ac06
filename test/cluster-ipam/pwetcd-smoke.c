/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test-only: exercise every pwetcd call against a live etcd (e2e 210).
 * Usage: pwetcd-smoke ENDPOINT PREFIX [CA CERT KEY]. Prints one line per step; exit 0
 * when every step behaved as etcd 3.4 documents.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pwetcd/etcd.h"

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, " (%s)\n", pwetcd_errmsg(c));                              \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

struct wctx {
	char key[256];
	int puts, dels;
};

static int on_watch(const struct pwetcd_watch_batch *b, void *ud)
{
	struct wctx *w = ud;

	for (size_t i = 0; i < b->n_events; i++) {
		if (strcmp(b->events[i].kv.key, w->key) != 0)
			continue;
		if (b->events[i].type == PWETCD_EVENT_PUT)
			w->puts++;
		else
			w->dels++;
	}
	return w->puts >= 1 && w->dels >= 1 ? 7 : 0;
}

static void kv_steps(struct pwetcd_client *c, const char *k)
{
	struct pwetcd_kv kv;
	bool found;
	int64_t rev = 0, n = 0;

	CHECK(pwetcd_put(c, k, "v1", 2, 0, &rev) == 0 && rev > 0, "put");
	CHECK(pwetcd_get(c, k, &kv, &found) == 0 && found, "get");
	CHECK(strcmp(kv.value, "v1") == 0 && kv.mod_revision == rev, "get value");
	pwetcd_kv_done(&kv);
	CHECK(pwetcd_delete(c, k, false, &n) == 0 && n == 1, "delete");
	CHECK(pwetcd_delete(c, k, false, &n) == 0 && n == 0, "delete again: deleted absent = 0");
	CHECK(pwetcd_get(c, k, &kv, &found) == 0 && !found, "get missing");
	printf("kv ok\n");
}

static void txn_steps(struct pwetcd_client *c, const char *k)
{
	struct pwetcd_txn_result res;
	struct pwetcd_range_req rr = {.key = k};
	struct pwetcd_txn *t;

	for (int round = 0; round < 2; round++) {
		t = pwetcd_txn_new();
		pwetcd_txn_cmp(t, k, PWETCD_TARGET_VERSION, PWETCD_EQUAL, 0);
		pwetcd_txn_put(t, PWETCD_SUCCESS, k, "x", 1, 0);
		pwetcd_txn_range(t, PWETCD_FAILURE, &rr);
		CHECK(pwetcd_txn_commit(c, t, &res) == 0, "txn");
		CHECK(res.succeeded == (round == 0), "create-if-absent round %d", round);
		if (round == 1)
			CHECK(res.n_ops == 1 && res.ops[0].range.n_kvs == 1, "failure branch");
		pwetcd_txn_result_done(&res);
		pwetcd_txn_free(t);
	}
	printf("txn ok\n");
}

static void lease_steps(struct pwetcd_client *c, const char *k)
{
	int64_t id = 0, ttl = 0;
	struct pwetcd_kv kv;
	bool found;

	CHECK(pwetcd_lease_grant(c, 30, &id, &ttl) == 0 && id != 0 && ttl == 30, "grant");
	CHECK(pwetcd_put(c, k, "l", 1, id, NULL) == 0, "put with lease");
	CHECK(pwetcd_lease_keepalive(c, id, &ttl) == 0 && ttl == 30, "keepalive");
	CHECK(pwetcd_lease_revoke(c, id) == 0, "revoke");
	CHECK(pwetcd_lease_keepalive(c, id, &ttl) == 0 && ttl == 0, "keepalive of revoked: TTL 0");
	CHECK(pwetcd_get(c, k, &kv, &found) == 0 && !found, "key of revoked lease gone");
	CHECK(pwetcd_put(c, k, "l", 1, id, NULL) == -ENOENT, "put with unknown lease");
	printf("lease ok\n");
}

int main(int argc, char **argv)
{
	const char *eps[1];
	struct pwetcd_config cfg = {.endpoints = eps, .n_endpoints = 1, .timeout_ms = 5000};
	struct pwetcd_watch_req wr = {.prefix = true, .duration_ms = 5000};
	struct pwetcd_client *c = NULL;
	struct wctx w = {0};
	char k[256];
	int64_t rev = 0;

	if (argc != 3 && argc != 6) {
		fprintf(stderr, "usage: pwetcd-smoke ENDPOINT PREFIX [CA CERT KEY]\n");
		return 2;
	}
	eps[0] = argv[1];
	if (argc == 6) {
		cfg.ca_file = argv[3];
		cfg.cert_file = argv[4];
		cfg.key_file = argv[5];
	}
	if (pwetcd_open(&cfg, &c) < 0)
		return 2;
	CHECK(pwetcd_status(c, NULL) == 0, "status");
	snprintf(k, sizeof(k), "%s/kv", argv[2]);
	kv_steps(c, k);
	snprintf(k, sizeof(k), "%s/txn", argv[2]);
	txn_steps(c, k);
	snprintf(k, sizeof(k), "%s/lease", argv[2]);
	lease_steps(c, k);
	/* watch from a revision in the past: sees a put and a delete made before */
	snprintf(w.key, sizeof(w.key), "%s/w/1", argv[2]);
	CHECK(pwetcd_put(c, w.key, "a", 1, 0, &rev) == 0, "put for watch");
	CHECK(pwetcd_delete(c, w.key, false, NULL) == 0, "delete for watch");
	snprintf(k, sizeof(k), "%s/w/", argv[2]);
	wr.key = k;
	wr.start_revision = rev;
	CHECK(pwetcd_watch(c, &wr, on_watch, &w) == 7, "watch saw put+delete");
	printf("watch ok\n");
	pwetcd_close(c);
	return 0;
}
