/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam benchmark driver (bench/cluster-ipam/run.sh runs it).
 *
 *   cipam-bench raw ENDPOINT PREFIX MS PARALLEL
 *       raw etcd txn rates with pwetcd: one CAS txn per allocation on a kept
 *       connection; the same with a new connection per txn (as a CNI call
 *       has); PARALLEL processes each CASing its own key. Prints
 *       "raw_kept N", "raw_newconn N", "raw_parallel N" (txns/s).
 *   cipam-bench add BIN CONFDIR NODENS_PREFIX PODNS NODES PODS ROUNDS
 *       NODES x PODS workers at once, each running ROUNDS sequential ADDs of
 *       BIN (posix_spawn from inside NODENS_PREFIX<i>, the worker's netns,
 *       as a runtime starts a plugin from its node's netns),
 *       stdin CONFDIR/n<i>.json. Prints "add_rate N" (ADDs/s), "add_p50_ms",
 *       "add_p99_ms", "add_failed N" and every address on stdout lines "ip X".
 *   cipam-bench exec BIN N
 *       median wall time of N `BIN` VERSION calls ("exec_ms X").
 *   cipam-bench pair BIN N LOCKDIR HOSTNS_A CONF_A HOSTNS_B CONF_B PODNS_PREFIX
 *       N pairs of ADDs of BIN (a main plugin), interleaved: one with CONF_A
 *       in netns HOSTNS_A, one with CONF_B in HOSTNS_B, each into its own
 *       pod netns PODNS_PREFIX{a,b}<i> (created by the caller);
 *       PODWIRE_LOCK_DIR=LOCKDIR. Prints "pair_a_ms", "pair_b_ms" (medians)
 *       and "pair_diff_ms" (median of b - a over the pairs).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pwetcd/etcd.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct pwetcd_client *client(const char *ep)
{
	const char *eps[1] = {ep};
	struct pwetcd_config cfg = {.endpoints = eps, .n_endpoints = 1, .timeout_ms = 600000};
	struct pwetcd_client *c = NULL;

	if (pwetcd_open(&cfg, &c) < 0) {
		fprintf(stderr, "cipam-bench: bad endpoint %s\n", ep);
		exit(2);
	}
	return c;
}

/* CAS txns on key for ms milliseconds; new_conn: one client per txn. Returns txns done. */
static long cas_loop(const char *ep, const char *key, unsigned ms, bool new_conn)
{
	struct pwetcd_client *c = client(ep);
	int64_t rev = 0;
	long n = 0;
	double end = now_s() + ms / 1000.0;

	if (pwetcd_put(c, key, "0", 1, 0, &rev) < 0) {
		fprintf(stderr, "cipam-bench: put: %s\n", pwetcd_errmsg(c));
		exit(1);
	}
	while (now_s() < end) {
		struct pwetcd_txn *t = pwetcd_txn_new();
		struct pwetcd_txn_result res = {0};
		char val[32];
		int r;

		if (new_conn) {
			pwetcd_close(c);
			c = client(ep);
		}
		snprintf(val, sizeof(val), "%ld", n);
		pwetcd_txn_cmp(t, key, PWETCD_TARGET_MOD, PWETCD_EQUAL, rev);
		pwetcd_txn_put(t, PWETCD_SUCCESS, key, val, strlen(val), 0);
		r = pwetcd_txn_commit(c, t, &res);
		pwetcd_txn_free(t);
		if (r < 0 || !res.succeeded) {
			fprintf(stderr, "cipam-bench: txn failed: %s\n", pwetcd_errmsg(c));
			exit(1);
		}
		rev = res.revision;
		pwetcd_txn_result_done(&res);
		n++;
	}
	pwetcd_close(c);
	return n;
}

static int cmd_raw(char **argv)
{
	const char *ep = argv[0], *prefix = argv[1];
	unsigned ms = (unsigned)atoi(argv[2]);
	int par = atoi(argv[3]);
	char key[256];
	long *counts = mmap(NULL, sizeof(long) * (size_t)par, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	long total = 0;

	snprintf(key, sizeof(key), "%s/raw/kept", prefix);
	printf("raw_kept %.0f\n", cas_loop(ep, key, ms, false) / (ms / 1000.0));
	snprintf(key, sizeof(key), "%s/raw/newconn", prefix);
	printf("raw_newconn %.0f\n", cas_loop(ep, key, ms, true) / (ms / 1000.0));
	fflush(stdout);
	for (int i = 0; i < par; i++) {
		if (fork() == 0) {
			snprintf(key, sizeof(key), "%s/raw/par%d", prefix, i);
			counts[i] = cas_loop(ep, key, ms, false);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	for (int i = 0; i < par; i++)
		total += counts[i];
	printf("raw_parallel %.0f\n", total / (ms / 1000.0));
	return 0;
}

struct add_job {
	const char *bin, *conf, *netns, *podns, *cid;
	const char *lockdir; /* PODWIRE_LOCK_DIR, or NULL */
};

/*
 * The driver itself enters the netns an ADD runs in (a runtime runs in its
 * node's host netns and starts every plugin there): once per worker, since
 * a worker's ADDs all go to one node; pair alternates between its two.
 */
static void enter_netns(const char *path)
{
	static char cur[256];
	int fd;

	if (strcmp(cur, path) == 0)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "cipam-bench: setns %s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
	snprintf(cur, sizeof(cur), "%s", path);
}

/*
 * One ADD as a runtime runs it; the result JSON lands in out (NUL-terminated).
 * posix_spawn (clone with CLONE_VM | CLONE_VFORK, then the dup2s and execve)
 * is how Go's os/exec starts a plugin from containerd or CRI-O: no copy of
 * the driver's page tables that the exec throws away again.
 */
static int run_add(const struct add_job *j, char *out, size_t outlen)
{
	char e1[96], e2[300], e3[300],
	    *env[] = {(char *)"CNI_COMMAND=ADD",       e1,   e2,  (char *)"CNI_IFNAME=eth0",
		      (char *)"CNI_PATH=/nonexistent", NULL, NULL};
	char *args[] = {(char *)j->bin, NULL};
	posix_spawn_file_actions_t fa;
	int in[2], o[2], status = 0;
	pid_t pid;
	size_t n = 0;
	ssize_t k;

	snprintf(e1, sizeof(e1), "CNI_CONTAINERID=%s", j->cid);
	snprintf(e2, sizeof(e2), "CNI_NETNS=%s", j->podns);
	if (j->lockdir) {
		snprintf(e3, sizeof(e3), "PODWIRE_LOCK_DIR=%s", j->lockdir);
		env[5] = e3;
	}
	enter_netns(j->netns);
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(o, O_CLOEXEC) < 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, o[1], 1);
	k = posix_spawn(&pid, j->bin, &fa, NULL, args, env);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(o[1]);
	if (k != 0) {
		close(in[1]);
		close(o[0]);
		snprintf(out, outlen, "spawn %s: %s", j->bin, strerror((int)k));
		return 127;
	}
	if (write(in[1], j->conf, strlen(j->conf)) < 0)
		status = -1;
	close(in[1]);
	while ((k = read(o[0], out + n, outlen - n - 1)) > 0)
		n += (size_t)k;
	out[n] = '\0';
	close(o[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 1 << 16);
	size_t n;

	if (!f || !buf) {
		fprintf(stderr, "cipam-bench: cannot read %s\n", path);
		exit(2);
	}
	n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Worker w: ROUNDS sequential ADDs; latencies into lat[w*rounds..], start
 * times (s since t0) into start[w*rounds..], IPs printed.
 */
static int add_worker(char **argv, int node, int w, int rounds, double t0_all, double *lat,
		      double *start, FILE *ips)
{
	char path[512], netns[256], podns[256], cid[64], out[8192];
	char *conf;
	int failed = 0;

	snprintf(path, sizeof(path), "%s/n%d.json", argv[1], node);
	snprintf(netns, sizeof(netns), "/var/run/netns/%s%d", argv[2], node);
	snprintf(podns, sizeof(podns), "/var/run/netns/%s", argv[3]);
	conf = slurp(path);
	setvbuf(ips, NULL, _IOLBF, 0);
	for (int r = 0; r < rounds; r++) {
		struct add_job j = {argv[0], conf, netns, podns, cid, NULL};
		double t0 = now_s();
		json_t *res, *arr;

		start[r] = t0 - t0_all;
		snprintf(cid, sizeof(cid), "b%dw%dr%d", node, w, r);
		if (run_add(&j, out, sizeof(out)) != 0) {
			failed++;
			fprintf(stderr, "ADD %s failed: %s\n", cid, out);
			continue;
		}
		lat[r] = (now_s() - t0) * 1000.0;
		res = json_loads(out, 0, NULL);
		arr = json_object_get(res, "ips");
		for (size_t i = 0; i < json_array_size(arr); i++)
			fprintf(
			    ips, "ip %s\n",
			    json_string_value(json_object_get(json_array_get(arr, i), "address")));
		json_decref(res);
	}
	fflush(ips);
	free(conf);
	return failed;
}

/* The p99 of the ADDs of round 0 (first) or of the later rounds; -1: none. */
static double round_p99(const double *lat, size_t total, size_t rounds, bool first)
{
	double *v = malloc(sizeof(double) * (total ? total : 1)), p = -1;
	size_t n = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < total; i++)
		if (lat[i] >= 0 && (i % rounds == 0) == first)
			v[n++] = lat[i];
	qsort(v, n, sizeof(double), cmp_double);
	if (n)
		p = v[(size_t)((double)(n - 1) * 0.99)];
	free(v);
	return p;
}

/*
 * Round 0 (every worker's first ADD: all processes at once, every node
 * claiming its first block) and the later rounds apart: where the tail is.
 */
static void print_round_p99(const double *lat, size_t total, size_t rounds)
{
	printf("add_round0_p99_ms %.1f\n", round_p99(lat, total, rounds, true));
	if (rounds > 1)
		printf("add_later_p99_ms %.1f\n", round_p99(lat, total, rounds, false));
}

/*
 * CIPAM_BENCH_TRACE=FILE: one line per ADD, "node worker round start_ms
 * latency_ms" (start since the first worker's), for finding where a tail
 * comes from.
 */
static void write_trace(const double *lat, const double *start, int nodes, int pods, int rounds)
{
	const char *path = getenv("CIPAM_BENCH_TRACE");
	FILE *f = path ? fopen(path, "we") : NULL;

	if (!f)
		return;
	for (int n = 0; n < nodes; n++)
		for (int p = 0; p < pods; p++)
			for (int r = 0; r < rounds; r++) {
				size_t i = ((size_t)n * (size_t)pods + (size_t)p) * (size_t)rounds +
					   (size_t)r;

				fprintf(f, "%d %d %d %.2f %.2f\n", n + 1, p, r, start[i] * 1000.0,
					lat[i]);
			}
	fclose(f);
}

static int cmd_add(char **argv)
{
	int nodes = atoi(argv[4]), pods = atoi(argv[5]), rounds = atoi(argv[6]);
	size_t total = (size_t)nodes * (size_t)pods * (size_t)rounds;
	double *lat = mmap(NULL, sizeof(double) * total, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double *start = mmap(NULL, sizeof(double) * total, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int *fails = mmap(NULL, sizeof(int) * (size_t)(nodes * pods), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t0 = now_s(), wall;
	size_t ok = 0;
	int failed = 0;

	for (size_t i = 0; i < total; i++)
		lat[i] = -1;
	for (int n = 1; n <= nodes; n++)
		for (int p = 0; p < pods; p++)
			if (fork() == 0) {
				size_t w = (size_t)((n - 1) * pods + p);

				fails[w] =
				    add_worker(argv, n, p, rounds, t0, lat + w * (size_t)rounds,
					       start + w * (size_t)rounds, stdout);
				_exit(0);
			}
	while (wait(NULL) > 0)
		;
	wall = now_s() - t0;
	for (int i = 0; i < nodes * pods; i++)
		failed += fails[i];
	write_trace(lat, start, nodes, pods, rounds);
	print_round_p99(lat, total, (size_t)rounds);
	for (size_t i = 0; i < total; i++)
		if (lat[i] >= 0)
			lat[ok++] = lat[i];
	qsort(lat, ok, sizeof(double), cmp_double);
	printf("add_rate %.0f\n", (double)ok / wall);
	printf("add_p50_ms %.1f\n", ok ? lat[ok / 2] : 0.0);
	printf("add_p99_ms %.1f\n", ok ? lat[(size_t)((double)(ok - 1) * 0.99)] : 0.0);
	printf("add_failed %d\n", failed);
	return failed ? 1 : 0;
}

static int cmd_exec(char **argv)
{
	int n = atoi(argv[1]);
	double *t = calloc((size_t)n, sizeof(double));

	for (int i = 0; i < n; i++) {
		double t0 = now_s();
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			int fd = open("/dev/null", O_RDWR);

			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			execve(argv[0], (char *[]){argv[0], NULL},
			       (char *[]){(char *)"CNI_COMMAND=VERSION", NULL});
			_exit(127);
		}
		waitpid(pid, &st, 0);
		t[i] = (now_s() - t0) * 1000.0;
	}
	qsort(t, (size_t)n, sizeof(double), cmp_double);
	printf("exec_ms %.3f\n", t[n / 2]);
	free(t);
	return 0;
}

/* One timed ADD of pair i, side 'a' or 'b'; exits on failure. */
static double pair_add(char **argv, int i, char side, const char *conf)
{
	char netns[256], podns[256], cid[64], out[8192];
	const char *host = side == 'a' ? argv[3] : argv[5];
	struct add_job j = {argv[0], conf, netns, podns, cid, argv[2]};
	double t0;

	snprintf(netns, sizeof(netns), "/var/run/netns/%s", host);
	snprintf(podns, sizeof(podns), "/var/run/netns/%s%c%d", argv[7], side, i);
	snprintf(cid, sizeof(cid), "pair%c%d", side, i);
	t0 = now_s();
	if (run_add(&j, out, sizeof(out)) != 0) {
		fprintf(stderr, "cipam-bench: pair ADD %s failed: %s\n", cid, out);
		exit(1);
	}
	return (now_s() - t0) * 1000.0;
}

static int cmd_pair(char **argv)
{
	int n = atoi(argv[1]);
	char *conf_a = slurp(argv[4]), *conf_b = slurp(argv[6]);
	double *a = calloc((size_t)n, sizeof(double)), *b = calloc((size_t)n, sizeof(double)),
	       *d = calloc((size_t)n, sizeof(double));

	for (int i = 0; i < n; i++) {
		a[i] = pair_add(argv, i, 'a', conf_a);
		b[i] = pair_add(argv, i, 'b', conf_b);
		d[i] = b[i] - a[i];
	}
	qsort(a, (size_t)n, sizeof(double), cmp_double);
	qsort(b, (size_t)n, sizeof(double), cmp_double);
	qsort(d, (size_t)n, sizeof(double), cmp_double);
	printf("pair_a_ms %.3f\npair_b_ms %.3f\npair_diff_ms %.3f\n", a[n / 2], b[n / 2], d[n / 2]);
	free(a);
	free(b);
	free(d);
	free(conf_a);
	free(conf_b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "raw") == 0)
		return cmd_raw(argv + 2);
	if (argc == 9 && strcmp(argv[1], "add") == 0)
		return cmd_add(argv + 2);
	if (argc == 4 && strcmp(argv[1], "exec") == 0)
		return cmd_exec(argv + 2);
	if (argc == 10 && strcmp(argv[1], "pair") == 0 && atoi(argv[3]) > 0)
		return cmd_pair(argv + 2);
	fprintf(stderr, "usage: cipam-bench raw ENDPOINT PREFIX MS PARALLEL\n"
			"       cipam-bench add BIN CONFDIR NODENS_PREFIX PODNS NODES PODS ROUNDS\n"
			"       cipam-bench exec BIN N\n"
			"       cipam-bench pair BIN N LOCKDIR HOSTNS_A CONF_A HOSTNS_B CONF_B "
			"PODNS_PREFIX\n");
	return 2;
}
