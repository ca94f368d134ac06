/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwbench: call a CNI plugin the way a runtime does and time it.
 *
 * Each measured operation is one fork/exec/wait of the plugin with the CNI_*
 * environment and the network config on stdin. The clock (CLOCK_MONOTONIC)
 * runs from just before fork() to just after wait4() returns, so exec, dynamic
 * loading, the plugin's work and its exit are all inside the measurement.
 *
 * Peak RSS comes from the rusage wait4() returns for the child. Linux fills it
 * with the child's own counters merged with those of every descendant the
 * child reaped (RUSAGE_BOTH), and ru_maxrss merges as a maximum, not a sum:
 * for a plugin that execs an IPAM plugin the number is the peak of the
 * largest single process in the tree. The figure also includes the pre-exec
 * image of the forked driver, which is why the driver keeps itself small; the
 * exec floor (/bin/true) shows what that contributes.
 *
 * Instead of a plugin, an operation can be a list of commands (--step, run one
 * after another and timed together); the kernel floor uses that for its
 * `ip -batch` files. In templates, "{i}" is replaced by the pod index.
 *
 * Output: one JSON line on stdout per invocation with the summary and the raw
 * samples. Failures (non-zero exit, malformed result, wrong address count) are
 * reported on stderr and make the exit status 1; timing never does.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/macro.h"

#define MAX_ENV 64
#define MAX_STEPS 8
#define MAX_ARGS 32
#define MAX_COUNT 100000
#define OUT_MAX (256 * 1024)

enum bench_cmd {
	BENCH_ADD,
	BENCH_DEL,
	BENCH_CHECK,
	BENCH_EXEC, /* plain command(s), no CNI result to check */
};

struct bench_opts {
	const char *plugin;
	const char *steps[MAX_STEPS];
	size_t n_steps;
	enum bench_cmd cmd;
	const char *conf_path;
	const char *netns_tmpl;
	const char *cid_tmpl;
	const char *ifname;
	const char *cni_path;
	const char *env[MAX_ENV];
	size_t n_env;
	const char *label;
	const char *ips_out;
	unsigned first;
	unsigned count;
	unsigned expect_ips;
	unsigned jitter_ms; /* sequential: untimed pause in [0, jitter_ms) before each call */
	bool expect_ips_set;
	bool concurrent;
};

/* One measured operation. */
struct bench_op {
	pid_t pid;
	int out_fd; /* memfd with the child's stdout */
	int err_fd; /* memfd with the child's stderr */
	struct timespec start;
	double ms;
	double cpu_ms; /* user + system time of the child and what it reaped */
	long maxrss_kb;
	int status;
	bool done;
	bool failed;
};

static const char *const cmd_names[] = {
    [BENCH_ADD] = "ADD",
    [BENCH_DEL] = "DEL",
    [BENCH_CHECK] = "CHECK",
    [BENCH_EXEC] = "EXEC",
};

static double ts_ms(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/*
 * Expand "{i}" in @tmpl with @idx into a new string. Returns NULL on
 * allocation failure; the caller frees.
 */
static char *tmpl_expand(const char *tmpl, unsigned idx)
{
	char num[16];
	size_t n = 0, numlen;
	char *out;

	numlen = (size_t)snprintf(num, sizeof(num), "%u", idx);
	out = malloc(strlen(tmpl) * (numlen + 1) + 1);
	if (!out)
		return NULL;
	for (const char *p = tmpl; *p;) {
		if (strncmp(p, "{i}", 3) == 0) {
			memcpy(out + n, num, numlen);
			n += numlen;
			p += 3;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return out;
}

/* Split a step command line on blanks into @argv (at most MAX_ARGS - 1 words). */
static int split_words(char *line, char **argv)
{
	size_t n = 0;

	for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
		if (n + 1 >= MAX_ARGS)
			return -E2BIG;
		argv[n++] = tok;
	}
	argv[n] = NULL;
	return n ? 0 : -EINVAL;
}

/* In the child: run each step in turn; exit with the first failing status. */
static _Noreturn void child_run_steps(const struct bench_opts *o, unsigned idx, char **envp)
{
	for (size_t s = 0; s < o->n_steps; s++) {
		char *argv[MAX_ARGS];
		char *line = tmpl_expand(o->steps[s], idx);
		pid_t pid;
		int st;

		if (!line || split_words(line, argv) < 0)
			_exit(126);
		if (s + 1 == o->n_steps) {
			execve(argv[0], argv, envp);
			_exit(127);
		}
		pid = fork();
		if (pid < 0)
			_exit(126);
		if (pid == 0) {
			execve(argv[0], argv, envp);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0)
			_exit(126);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128);
		free(line);
	}
	_exit(0);
}

/* Build the CNI environment for pod @idx. Strings are heap-allocated and leak
 * into the child only (the parent builds them between fork and exec). */
static char **child_env(const struct bench_opts *o, unsigned idx)
{
	static char *envp[MAX_ENV + 8];
	size_t n = 0;
	char *s;

	envp[n++] = (char *)"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	if (o->cmd != BENCH_EXEC) {
		if (asprintf(&s, "CNI_COMMAND=%s", cmd_names[o->cmd]) < 0)
			_exit(126);
		envp[n++] = s;
		s = tmpl_expand(o->cid_tmpl, idx);
		if (!s || asprintf(&envp[n++], "CNI_CONTAINERID=%s", s) < 0)
			_exit(126);
		s = tmpl_expand(o->netns_tmpl, idx);
		if (!s || asprintf(&envp[n++], "CNI_NETNS=%s", s) < 0)
			_exit(126);
		if (asprintf(&envp[n++], "CNI_IFNAME=%s", o->ifname) < 0 ||
		    asprintf(&envp[n++], "CNI_PATH=%s", o->cni_path) < 0)
			_exit(126);
	}
	for (size_t i = 0; i < o->n_env; i++)
		envp[n++] = (char *)o->env[i];
	envp[n] = NULL;
	return envp;
}

/* In the child: wire stdin/stdout/stderr and exec the plugin (or the steps). */
static _Noreturn void child_exec(const struct bench_opts *o, unsigned idx,
				 const struct bench_op *op)
{
	char **envp = child_env(o, idx);
	int in = open(o->conf_path ? o->conf_path : "/dev/null", O_RDONLY);

	if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(op->out_fd, STDOUT_FILENO) < 0 ||
	    dup2(op->err_fd, STDERR_FILENO) < 0)
		_exit(126);
	if (o->n_steps)
		child_run_steps(o, idx, envp);
	execve(o->plugin, (char *[]){(char *)o->plugin, NULL}, envp);
	_exit(127);
}

static int op_start(const struct bench_opts *o, unsigned idx, struct bench_op *op)
{
	op->out_fd = memfd_create("pwbench-out", MFD_CLOEXEC);
	op->err_fd = memfd_create("pwbench-err", MFD_CLOEXEC);
	if (op->out_fd < 0 || op->err_fd < 0)
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &op->start);
	op->pid = fork();
	if (op->pid < 0)
		return -errno;
	if (op->pid == 0)
		child_exec(o, idx, op);
	return 0;
}

/* Record the end of @op from wait4()'s status and rusage. */
static void op_finish(struct bench_op *op, int status, const struct rusage *ru)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	op->ms = ts_ms(&op->start, &end);
	op->maxrss_kb = ru->ru_maxrss;
	op->cpu_ms = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
		     (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
	op->status = status;
	op->done = true;
}

/* Read a memfd's content into a NUL-terminated heap buffer. */
static char *fd_slurp(int fd)
{
	char *buf = malloc(OUT_MAX + 1);
	ssize_t n;

	if (!buf)
		return NULL;
	n = pread(fd, buf, OUT_MAX, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/*
 * Count the IP addresses of a CNI result and append them to @ips (one per
 * line) when non-NULL. "address" only appears as a key of "ips" entries in a
 * result, so a key scan is enough without linking a JSON parser.
 */
static unsigned result_scan_ips(const char *out, FILE *ips)
{
	unsigned n = 0;

	for (const char *p = strstr(out, "\"address\""); p; p = strstr(p, "\"address\"")) {
		const char *v = strchr(p + 9, '"'), *end;

		if (!v)
			break;
		end = strchr(++v, '"');
		if (!end)
			break;
		if (ips)
			fprintf(ips, "%.*s\n", (int)(end - v), v);
		n++;
		p = end + 1;
	}
	return n;
}

static bool only_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* Decide whether @op succeeded; explain failures on stderr. */
static void op_check(const struct bench_opts *o, unsigned idx, struct bench_op *op, FILE *ips)
{
	_cleanup_free_ char *out = fd_slurp(op->out_fd);
	_cleanup_free_ char *err = fd_slurp(op->err_fd);
	const char *why = NULL;
	unsigned n_ips;

	if (!out || !err)
		why = "out of memory";
	else if (!WIFEXITED(op->status) || WEXITSTATUS(op->status) != 0)
		why = "non-zero exit";
	else if (o->cmd == BENCH_ADD && !strstr(out, "\"cniVersion\""))
		why = "result has no cniVersion";
	else if (o->cmd == BENCH_DEL && !only_space(out))
		why = "DEL printed output";
	if (!why && o->cmd == BENCH_ADD) {
		n_ips = result_scan_ips(out, ips);
		if (o->expect_ips_set && n_ips != o->expect_ips)
			why = "unexpected number of addresses in result";
	}
	if (why) {
		op->failed = true;
		fprintf(
		    stderr,
		    "pwbench: %s %s pod %u: %s (wait status 0x%x)\n  stdout: %s\n  stderr: %s\n",
		    o->label, cmd_names[o->cmd], idx, why, (unsigned)op->status, out ? out : "",
		    err ? err : "");
	}
	close(op->out_fd);
	close(op->err_fd);
}

/*
 * Sleep a pseudo-random time in [0, @max_ms) ms, from a fixed-seed xorshift
 * so that runs are repeatable. Back to back, every call would start at the
 * same phase of the kernel's scheduler tick, and a call that waits for an RCU
 * grace period (any link deletion) ends on a tick: its time then jumps by a
 * whole tick (4 ms at HZ=250) when its own work crosses a tick boundary. A
 * random start phase, as a runtime's calls have, turns that step into the
 * average it stands for.
 */
static void jitter_sleep(unsigned max_ms, uint64_t *state)
{
	uint64_t x = *state;
	struct timespec ts;
	long ns;

	if (max_ms == 0)
		return;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	ns = (long)(x % ((uint64_t)max_ms * 1000000));
	ts = (struct timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One operation at a time; each is checked right away so fds do not pile up. */
static int run_sequential(const struct bench_opts *o, struct bench_op *ops, FILE *ips)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ o->first;

	for (unsigned i = 0; i < o->count; i++) {
		struct rusage ru;
		int status, r;

		jitter_sleep(o->jitter_ms, &seed);
		r = op_start(o, o->first + i, &ops[i]);
		if (r < 0)
			return r;
		if (wait4(ops[i].pid, &status, 0, &ru) < 0)
			return -errno;
		op_finish(&ops[i], status, &ru);
		op_check(o, o->first + i, &ops[i], ips);
	}
	return 0;
}

/* Fork every operation, then reap them in whatever order they finish. */
static int run_concurrent(const struct bench_opts *o, struct bench_op *ops, FILE *ips)
{
	unsigned left = o->count;

	for (unsigned i = 0; i < o->count; i++) {
		int r = op_start(o, o->first + i, &ops[i]);

		if (r < 0)
			return r;
	}
	while (left > 0) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, 0, &ru);

		if (pid < 0)
			return -errno;
		for (unsigned i = 0; i < o->count; i++) {
			if (ops[i].pid == pid && !ops[i].done) {
				op_finish(&ops[i], status, &ru);
				left--;
				break;
			}
		}
	}
	for (unsigned i = 0; i < o->count; i++)
		op_check(o, o->first + i, &ops[i], ips);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted @v (n > 0). */
static double percentile(const double *v, size_t n, double pct)
{
	size_t rank = (size_t)((pct / 100.0) * (double)n + 0.999999);

	if (rank < 1)
		rank = 1;
	return v[(rank > n ? n : rank) - 1];
}

static void print_stats(const char *key, double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf(",\"%s\":{\"min\":%.3f,\"median\":%.3f,\"p99\":%.3f,\"max\":%.3f}", key, v[0],
	       percentile(v, n, 50), percentile(v, n, 99), v[n - 1]);
}

static void print_report(const struct bench_opts *o, const struct bench_op *ops, double wall_ms)
{
	_cleanup_free_ double *lat = malloc_multiply(o->count, sizeof(double));
	_cleanup_free_ double *rss = malloc_multiply(o->count, sizeof(double));
	_cleanup_free_ double *cpu = malloc_multiply(o->count, sizeof(double));
	unsigned failed = 0;

	if (!lat || !rss || !cpu)
		return;
	for (unsigned i = 0; i < o->count; i++) {
		lat[i] = ops[i].ms;
		rss[i] = (double)ops[i].maxrss_kb;
		cpu[i] = ops[i].cpu_ms;
		failed += ops[i].failed;
	}
	printf("{\"label\":\"%s\",\"cmd\":\"%s\",\"mode\":\"%s\",\"first\":%u,\"count\":%u,"
	       "\"failed\":%u,\"wall_ms\":%.3f",
	       o->label, cmd_names[o->cmd], o->concurrent ? "concurrent" : "sequential", o->first,
	       o->count, failed, wall_ms);
	printf(",\"samples_ms\":[");
	for (unsigned i = 0; i < o->count; i++)
		printf("%s%.3f", i ? "," : "", ops[i].ms);
	printf("],\"rss_kb\":[");
	for (unsigned i = 0; i < o->count; i++)
		printf("%s%ld", i ? "," : "", ops[i].maxrss_kb);
	printf("],\"cpu_ms\":[");
	for (unsigned i = 0; i < o->count; i++)
		printf("%s%.3f", i ? "," : "", ops[i].cpu_ms);
	printf("]");
	print_stats("lat_ms", lat, o->count);
	print_stats("rss_kb_stats", rss, o->count);
	print_stats("cpu_ms", cpu, o->count);
	printf("}\n");
}

static void usage(FILE *f)
{
	fputs("usage: pwbench --label L --cmd ADD|DEL|CHECK|EXEC (--plugin PATH | --step CMD...)\n"
	      "               [--conf FILE] [--netns TMPL] [--cid TMPL] [--ifname NAME]\n"
	      "               [--cni-path DIRS] [--env K=V]... [--first N] [--count N]\n"
	      "               [--concurrent] [--expect-ips N] [--ips-out FILE] [--jitter MS]\n"
	      "  TMPL and CMD may contain {i}, replaced by the pod index.\n"
	      "  --jitter MS: sequential calls start after an untimed pause in [0, MS) ms.\n",
	      f);
}

static int parse_cmd(const char *s, enum bench_cmd *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(cmd_names); i++) {
		if (strcmp(s, cmd_names[i]) == 0) {
			*ret = (enum bench_cmd)i;
			return 0;
		}
	}
	fprintf(stderr, "pwbench: --cmd: unknown command '%s'\n", s);
	return -EINVAL;
}

static int parse_uint_opt(const char *name, const char *s, unsigned lo, unsigned hi, unsigned *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "pwbench: --%s: '%s' is not a number in [%u, %u]\n", name, s, lo,
			hi);
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

enum {
	OPT_PLUGIN = 256,
	OPT_STEP,
	OPT_CMD,
	OPT_CONF,
	OPT_NETNS,
	OPT_CID,
	OPT_IFNAME,
	OPT_CNI_PATH,
	OPT_ENV,
	OPT_FIRST,
	OPT_COUNT,
	OPT_CONC,
	OPT_LABEL,
	OPT_IPS_OUT,
	OPT_EXPECT_IPS,
	OPT_JITTER,
	OPT_HELP,
};

static const struct option long_opts[] = {
    {"plugin", required_argument, NULL, OPT_PLUGIN},
    {"step", required_argument, NULL, OPT_STEP},
    {"cmd", required_argument, NULL, OPT_CMD},
    {"conf", required_argument, NULL, OPT_CONF},
    {"netns", required_argument, NULL, OPT_NETNS},
    {"cid", required_argument, NULL, OPT_CID},
    {"ifname", required_argument, NULL, OPT_IFNAME},
    {"cni-path", required_argument, NULL, OPT_CNI_PATH},
    {"env", required_argument, NULL, OPT_ENV},
    {"first", required_argument, NULL, OPT_FIRST},
    {"count", required_argument, NULL, OPT_COUNT},
    {"concurrent", no_argument, NULL, OPT_CONC},
    {"label", required_argument, NULL, OPT_LABEL},
    {"ips-out", required_argument, NULL, OPT_IPS_OUT},
    {"expect-ips", required_argument, NULL, OPT_EXPECT_IPS},
    {"jitter", required_argument, NULL, OPT_JITTER},
    {"help", no_argument, NULL, OPT_HELP},
    {},
};

static int parse_one(struct bench_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_PLUGIN:
		o->plugin = arg;
		return 0;
	case OPT_CMD:
		return parse_cmd(arg, &o->cmd);
	case OPT_CONF:
		o->conf_path = arg;
		return 0;
	case OPT_NETNS:
		o->netns_tmpl = arg;
		return 0;
	case OPT_CID:
		o->cid_tmpl = arg;
		return 0;
	case OPT_IFNAME:
		o->ifname = arg;
		return 0;
	case OPT_CNI_PATH:
		o->cni_path = arg;
		return 0;
	case OPT_LABEL:
		o->label = arg;
		return 0;
	case OPT_IPS_OUT:
		o->ips_out = arg;
		return 0;
	case OPT_CONC:
		o->concurrent = true;
		return 0;
	case OPT_FIRST:
		return parse_uint_opt("first", arg, 0, UINT32_MAX / 2, &o->first);
	case OPT_COUNT:
		return parse_uint_opt("count", arg, 1, MAX_COUNT, &o->count);
	case OPT_JITTER:
		return parse_uint_opt("jitter", arg, 0, 1000, &o->jitter_ms);
	case OPT_EXPECT_IPS:
		o->expect_ips_set = true;
		return parse_uint_opt("expect-ips", arg, 0, 64, &o->expect_ips);
	case OPT_STEP:
		if (o->n_steps >= MAX_STEPS) {
			fprintf(stderr, "pwbench: --step: at most %d steps\n", MAX_STEPS);
			return -E2BIG;
		}
		o->steps[o->n_steps++] = arg;
		return 0;
	case OPT_ENV:
		if (o->n_env >= MAX_ENV || !strchr(arg, '=')) {
			fprintf(stderr, "pwbench: --env: '%s' is not K=V or too many\n", arg);
			return -EINVAL;
		}
		o->env[o->n_env++] = arg;
		return 0;
	default:
		usage(stderr);
		return -EINVAL;
	}
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	int c, r;

	*o = (struct bench_opts){
	    .netns_tmpl = "/var/run/netns/pwb-pod{i}",
	    .cid_tmpl = "pwbench-{i}",
	    .ifname = "eth0",
	    .cni_path = "",
	    .label = "run",
	    .first = 1,
	    .count = 1,
	};
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (c == OPT_HELP) {
			usage(stdout);
			exit(0);
		}
		r = parse_one(o, c, optarg);
		if (r < 0)
			return r;
	}
	if (optind != argc || !o->plugin == !o->n_steps) {
		fprintf(stderr, "pwbench: exactly one of --plugin or --step is required\n");
		return -EINVAL;
	}
	if (strpbrk(o->label, "\"\\")) {
		fprintf(stderr, "pwbench: --label: '%s' must not contain quotes or backslashes\n",
			o->label);
		return -EINVAL;
	}
	return 0;
}

/* Concurrent mode holds two memfds per operation until all are reaped. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	_cleanup_free_ struct bench_op *ops = NULL;
	_cleanup_fclose_ FILE *ips = NULL;
	struct bench_opts o;
	struct timespec t0, t1;
	unsigned failed = 0;
	int r;

	if (parse_args(argc, argv, &o) < 0)
		return 2;
	raise_fd_limit();
	ops = calloc(o.count, sizeof(*ops));
	if (!ops)
		return 2;
	if (o.ips_out) {
		ips = fopen(o.ips_out, "ae");
		if (!ips) {
			fprintf(stderr, "pwbench: --ips-out '%s': %m\n", o.ips_out);
			return 2;
		}
	}
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = o.concurrent ? run_concurrent(&o, ops, ips) : run_sequential(&o, ops, ips);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0) {
		fprintf(stderr, "pwbench: %s: %s\n", o.label, strerror(-r));
		return 2;
	}
	for (unsigned i = 0; i < o.count; i++)
		failed += ops[i].failed;
	print_report(&o, ops, ts_ms(&t0, &t1));
	return failed ? 1 : 0;
}
