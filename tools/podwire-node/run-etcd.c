/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run-etcd.c: `podwire-node run` with "etcd": register this node under
 * <etcdPrefix>/nodes/<nodeName> with a lease, keep the lease alive, watch
 * the registry and re-render bird.conf when its members change; BIRD is
 * reconfigured only when the rendered text differs. SIGTERM/SIGINT revoke
 * the lease (which removes the record) and return 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "cni/conf.h"
#include "run.h"

#ifdef HAVE_PWETCD
#include "pwetcd/etcd.h"

/*
 * A watch runs for a quarter of the lease TTL (0.25-2.5 s), then the lease
 * is kept alive and the watch resumed from the same revision: keepalives are
 * never late, SIGTERM is acted on within one slice, and an idle node costs
 * etcd under one request a second.
 */
static unsigned watch_slice_ms(unsigned ttl_s)
{
	unsigned ms = ttl_s * 1000u / 4;

	return ms < 250 ? 250 : ms > 2500 ? 2500 : ms;
}

static volatile sig_atomic_t stop_requested;

struct run_state {
	const struct pwn_conf *c;
	FILE *log;
	struct pwetcd_client *cli;
	int64_t lease;
	char prefix[512];
	char key[600];
	struct timespec last_keepalive;
	bool reload_pending; /* the last birdc configure failed: retry */
	unsigned reconfigs;
};

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int etcd_fail(struct run_state *st, int r, const char *what, struct cni_error *e)
{
	return cni_errorf(e, r == -ETIMEDOUT ? CNI_ERR_TRY_AGAIN : CNI_ERR_PLUGIN, r, "etcd %s: %s",
			  what, pwetcd_errmsg(st->cli));
}

static int open_client(struct run_state *st, struct cni_error *e)
{
	const struct pwn_conf *c = st->c;
	struct pwetcd_config cfg = {
	    .endpoints = c->etcd_endpoints,
	    .n_endpoints = c->n_etcd_endpoints,
	    .ca_file = c->etcd_ca_file,
	    .cert_file = c->etcd_cert_file,
	    .key_file = c->etcd_key_file,
	    .timeout_ms = c->etcd_timeout_ms,
	};
	const struct cni_conf_reader rd = {.err = e, .path = "etcd"};
	int r;

	/* pwhttp reads them on the first https request, naming no key */
	if ((r = cni_conf_check_file(&rd, CNI_ERR_INVALID_CONFIG, "caFile", cfg.ca_file)) < 0 ||
	    (r = cni_conf_check_file(&rd, CNI_ERR_INVALID_CONFIG, "certFile", cfg.cert_file)) < 0 ||
	    (r = cni_conf_check_file(&rd, CNI_ERR_INVALID_CONFIG, "keyFile", cfg.key_file)) < 0)
		return r;
	r = pwetcd_open(&cfg, &st->cli);
	if (r < 0)
		return cni_errorf(e, CNI_ERR_INVALID_CONFIG, r, "etcd.endpoints: cannot use them");
	snprintf(st->prefix, sizeof(st->prefix), "%s%snodes/", c->etcd_prefix,
		 c->etcd_prefix[strlen(c->etcd_prefix) - 1] == '/' ? "" : "/");
	snprintf(st->key, sizeof(st->key), "%s%s", st->prefix, c->node_name);
	return 0;
}

/* Every decodable record under the prefix; bad ones are reported and skipped. */
static int list_nodes(struct run_state *st, struct pwn_node **ret, size_t *ret_n, int64_t *ret_rev,
		      struct cni_error *e)
{
	struct pwetcd_range_req req = {.key = st->prefix, .prefix = true};
	struct pwetcd_range_result res = {0};
	struct pwn_node *nodes;
	size_t n = 0;
	int r;

	pwetcd_reset_deadline(st->cli, 0);
	r = pwetcd_range(st->cli, &req, &res);
	if (r < 0)
		return etcd_fail(st, r, "list nodes", e);
	nodes = calloc(res.n_kvs + 1, sizeof(*nodes));
	if (!nodes) {
		pwetcd_range_result_done(&res);
		return cni_errorf(e, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < res.n_kvs; i++) {
		struct cni_error de = {0};

		if (pwn_node_decode(res.kvs[i].value ? res.kvs[i].value : "", res.kvs[i].value_len,
				    &nodes[n], &de) >= 0)
			n++;
		else
			fprintf(st->log, "podwire-node: %s: %s (ignored)\n", res.kvs[i].key,
				de.msg ? de.msg : "bad record");
		cni_error_done(&de);
	}
	*ret_rev = res.revision;
	pwetcd_range_result_done(&res);
	*ret = nodes;
	*ret_n = n;
	return 0;
}

static int check_duplicate(struct run_state *st, const struct pwn_node *nodes, size_t n,
			   struct cni_error *e)
{
	char id[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < n; i++)
		if (nodes[i].router_id.s_addr == st->c->router_id.s_addr &&
		    strcmp(nodes[i].name, st->c->node_name) != 0)
			return cni_errorf(
			    e, CNI_ERR_INVALID_CONFIG, -EEXIST,
			    "routerId: %s is already registered by node %s (duplicate router id)",
			    ip_addr_fmt(AF_INET, (const union ip_addr *)&st->c->router_id, id),
			    nodes[i].name);
	return 0;
}

static int register_node(struct run_state *st, struct cni_error *e)
{
	_cleanup_free_ char *rec = NULL;
	struct pwn_node self;
	int64_t ttl = 0;
	int r;

	pwn_node_from_conf(st->c, &self);
	rec = pwn_node_encode(&self);
	if (!rec)
		return cni_errorf(e, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	pwetcd_reset_deadline(st->cli, 0);
	r = pwetcd_lease_grant(st->cli, st->c->lease_ttl, &st->lease, &ttl);
	if (r < 0)
		return etcd_fail(st, r, "lease grant", e);
	r = pwetcd_put(st->cli, st->key, rec, strlen(rec), st->lease, NULL);
	if (r < 0)
		return etcd_fail(st, r, "register node", e);
	clock_gettime(CLOCK_MONOTONIC, &st->last_keepalive);
	fprintf(st->log, "podwire-node: registered %s (lease %lld, ttl %llds)\n", st->key,
		(long long)st->lease, (long long)ttl);
	return 0;
}

static long ms_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

/* Every third of the TTL; a lease etcd forgot is granted again. */
static int keepalive(struct run_state *st, struct cni_error *e)
{
	int64_t ttl = 0;
	int r;

	if (ms_since(&st->last_keepalive) < (long)st->c->lease_ttl * 1000 / 3)
		return 0;
	pwetcd_reset_deadline(st->cli, 0);
	r = pwetcd_lease_keepalive(st->cli, st->lease, &ttl);
	if (r < 0)
		return etcd_fail(st, r, "lease keepalive", e);
	clock_gettime(CLOCK_MONOTONIC, &st->last_keepalive);
	if (ttl > 0)
		return 0;
	fprintf(st->log, "podwire-node: lease %lld expired, registering again\n",
		(long long)st->lease);
	return register_node(st, e);
}

/* Render for the registry and apply it; a failed reload is retried next round. */
static int render_apply(struct run_state *st, const struct pwn_node *nodes, size_t n,
			struct cni_error *e)
{
	_cleanup_free_ struct pwn_peer *peers = NULL;
	_cleanup_free_ char *text = NULL;
	int k, r;

	k = pwn_plan_peers(st->c, nodes, n, st->log, &peers);
	if (k < 0)
		return cni_errorf(e, CNI_ERR_PLUGIN, k, "out of memory");
	text = pwn_bird_render_str(st->c, peers, (size_t)k);
	if (!text)
		return cni_errorf(e, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	r = pwn_apply(st->c, text, st->reload_pending, st->log, e);
	st->reload_pending = r < 0;
	if (r > 0)
		fprintf(st->log, "podwire-node: reconfiguration %u: %d peers\n", ++st->reconfigs,
			k);
	return r;
}

static int on_batch(const struct pwetcd_watch_batch *b, void *userdata)
{
	(void)userdata;
	if (b->compact_revision > 0 || b->canceled)
		return 1;
	return b->n_events > 0 ? 1 : (stop_requested ? 2 : 0);
}

/* Watch from rev + 1 for one slice: 1 when the registry changed, 0 when not. */
static int watch_slice(struct run_state *st, int64_t rev, struct cni_error *e)
{
	struct pwetcd_watch_req req = {
	    .key = st->prefix,
	    .prefix = true,
	    .start_revision = rev + 1,
	    .duration_ms = watch_slice_ms(st->c->lease_ttl),
	};
	int r = pwetcd_watch(st->cli, &req, on_batch, NULL);

	if (r == 1 || r == -ERANGE || r == -ECONNRESET)
		return 1;
	if (r < 0)
		return etcd_fail(st, r, "watch", e);
	return 0;
}

/* One round: list, render, apply, then watch until something changes. */
static int round_once(struct run_state *st, struct cni_error *e)
{
	_cleanup_free_ struct pwn_node *nodes = NULL;
	int64_t rev = 0;
	size_t n = 0;
	int r;

	r = list_nodes(st, &nodes, &n, &rev, e);
	if (r < 0)
		return r;
	r = render_apply(st, nodes, n, e);
	if (r < 0) {
		fprintf(st->log, "podwire-node: %s%s%s (retrying)\n", e->msg,
			e->details ? ": " : "", e->details ? e->details : "");
		cni_error_done(e);
	}
	while (!stop_requested) {
		r = keepalive(st, e);
		if (r < 0)
			return r;
		r = watch_slice(st, rev, e);
		if (r != 0 || st->reload_pending)
			return r < 0 ? r : 0;
	}
	return 0;
}

static void shutdown_node(struct run_state *st)
{
	pwetcd_reset_deadline(st->cli, 0);
	if (st->lease && pwetcd_lease_revoke(st->cli, st->lease) < 0)
		fprintf(st->log, "podwire-node: lease revoke: %s\n", pwetcd_errmsg(st->cli));
	else
		fprintf(st->log, "podwire-node: stopped, lease %lld revoked\n",
			(long long)st->lease);
}

/* Refuse to start next to a node that already uses our router id. */
static int preflight(struct run_state *st, struct cni_error *e)
{
	_cleanup_free_ struct pwn_node *nodes = NULL;
	char prog[4096];
	int64_t rev;
	size_t n;
	int r;

	if (!pwn_find_bird(prog, sizeof(prog)) || !pwn_find_birdc(prog, sizeof(prog)))
		return cni_errorf(e, CNI_ERR_PLUGIN, -ENOENT,
				  "bird not installed: bird and birdc are needed by run");
	r = list_nodes(st, &nodes, &n, &rev, e);
	return r < 0 ? r : check_duplicate(st, nodes, n, e);
}

int pwn_run_etcd(const struct pwn_conf *c, FILE *log, struct cni_error *e)
{
	struct run_state st = {.c = c, .log = log};
	int r;

	install_signals();
	r = open_client(&st, e);
	if (r >= 0)
		r = preflight(&st, e);
	if (r >= 0)
		r = register_node(&st, e);
	/* Once registered, etcd or BIRD trouble is logged and retried, never fatal. */
	while (r >= 0 && !stop_requested) {
		if (round_once(&st, e) >= 0)
			continue;
		fprintf(log, "podwire-node: %s (retrying in 1 s)\n", e->msg ? e->msg : "failed");
		cni_error_done(e);
		nanosleep(&(struct timespec){.tv_sec = 1}, NULL);
	}
	if (st.lease)
		shutdown_node(&st);
	if (st.cli)
		pwetcd_close(st.cli);
	return r < 0 ? r : 0;
}

#else

int pwn_run_etcd(const struct pwn_conf *c, FILE *log, struct cni_error *e)
{
	(void)c;
	(void)log;
	return cni_errorf(e, CNI_ERR_PLUGIN, -ENOTSUP,
			  "etcd: this podwire-node was built without the etcd client (pwetcd)");
}

#endif
