/* SPDX-License-Identifier: Apache-2.0 */
/* Command line: parse options, then collect (files, live, health), then print. */
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "base/parse.h"
#include "inspect.h"

enum { OUT_TABLE, OUT_JSON, OUT_PROM };

struct cli {
	struct pi_options opt;
	int out;
	bool verbose;
	bool leaks;
	unsigned watch; /* seconds, 0: no watch */
	unsigned count; /* watch samples; 0: until killed */
};

static const char usage[] =
    "Usage: podwire-inspect [list] [OPTIONS]\n"
    "       podwire-inspect leaks [OPTIONS]\n"
    "\n"
    "Every pod attachment on this node (from the plugins' own state), its health and\n"
    "live counters. `leaks` lists podwire-made objects of no attachment and exits 1\n"
    "when there is one.\n"
    "\n"
    "Output:\n"
    "  --json               the JSON document (schema podwire-inspect/v1)\n"
    "  --prometheus         text exposition format (podwire_attachment_* metrics)\n"
    "  -v, --verbose        table: counters, RDMA counters and problems per attachment\n"
    "  --watch N            rates per second between samples N seconds apart\n"
    "  --count K            with --watch: stop after K intervals (default: run until killed)\n"
    "Health:\n"
    "  --check              run each chain's CHECK from the cached config and result\n"
    "  --cni-path PATH      plugin directories for --check (default: $CNI_PATH, else "
    "/opt/cni/bin)\n"
    "  --no-netlink         state files and sysfs only (no netns, links, routes)\n"
    "State (defaults are the plugins' defaults):\n"
    "  --cache-dir DIR      libcni result cache root, DIR/results/ (default /var/lib/cni)\n"
    "  --multinet-dir DIR   multinet's cniDir (default /var/lib/cni/multinet)\n"
    "  --state-dir DIR      sriov-rdma's stateDir (default /var/lib/cni/sriov-rdma)\n"
    "  --lease-dir DIR      host-local dataDir (default /var/lib/cni/networks)\n"
    "  --sysfs-root DIR     sysfs root for RDMA counters (default /sys)\n"
    "  -h, --help           this help\n"
    "\n"
    "Exit status: 0 success; 1 `leaks` found leaks, or --check found a failing\n"
    "attachment; 2 usage or fatal error.\n";

static int parse_uint(const char *s, const char *opt, unsigned max, unsigned *ret)
{
	uint32_t v;

	if (safe_atou32_max(s, max, &v) < 0 || v == 0) {
		fprintf(stderr, "podwire-inspect: %s: invalid value '%s' (1..%u)\n", opt, s, max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

enum {
	O_JSON = 256,
	O_PROM,
	O_WATCH,
	O_COUNT,
	O_CHECK,
	O_CNI_PATH,
	O_NO_LIVE,
	O_CACHE,
	O_MULTINET,
	O_STATE,
	O_LEASE,
	O_SYSFS,
};

static const struct option longopts[] = {
    {"json", no_argument, NULL, O_JSON},
    {"prometheus", no_argument, NULL, O_PROM},
    {"verbose", no_argument, NULL, 'v'},
    {"watch", required_argument, NULL, O_WATCH},
    {"count", required_argument, NULL, O_COUNT},
    {"check", no_argument, NULL, O_CHECK},
    {"cni-path", required_argument, NULL, O_CNI_PATH},
    {"no-netlink", no_argument, NULL, O_NO_LIVE},
    {"cache-dir", required_argument, NULL, O_CACHE},
    {"multinet-dir", required_argument, NULL, O_MULTINET},
    {"state-dir", required_argument, NULL, O_STATE},
    {"lease-dir", required_argument, NULL, O_LEASE},
    {"sysfs-root", required_argument, NULL, O_SYSFS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The options that only name a path, and the field of struct pi_options each sets. */
static const struct {
	int opt;
	size_t off;
} path_opts[] = {
    {O_CNI_PATH, offsetof(struct pi_options, cni_path)},
    {O_CACHE, offsetof(struct pi_options, cache_dir)},
    {O_MULTINET, offsetof(struct pi_options, multinet_dir)},
    {O_STATE, offsetof(struct pi_options, state_dir)},
    {O_LEASE, offsetof(struct pi_options, lease_dir)},
    {O_SYSFS, offsetof(struct pi_options, sysfs_root)},
};

/* One option; returns 0, 1 (help printed) or -EINVAL. */
static int apply_opt(struct cli *c, int o, const char *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(path_opts); i++)
		if (path_opts[i].opt == o) {
			*(const char **)((char *)&c->opt + path_opts[i].off) = arg;
			return 0;
		}
	switch (o) {
	case O_JSON:
		c->out = OUT_JSON;
		return 0;
	case O_PROM:
		c->out = OUT_PROM;
		return 0;
	case 'v':
		c->verbose = true;
		return 0;
	case O_WATCH:
		return parse_uint(arg, "--watch", 86400, &c->watch);
	case O_COUNT:
		return parse_uint(arg, "--count", 1000000, &c->count);
	case O_CHECK:
		c->opt.check = true;
		return 0;
	case O_NO_LIVE:
		c->opt.live = false;
		return 0;
	case 'h':
		fputs(usage, stdout);
		return 1;
	default:
		fputs(usage, stderr);
		return -EINVAL;
	}
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	int o, r;

	c->opt = (struct pi_options){
	    .cache_dir = PI_DEFAULT_CACHE_DIR,
	    .multinet_dir = PI_DEFAULT_MULTINET_DIR,
	    .state_dir = PI_DEFAULT_STATE_DIR,
	    .lease_dir = PI_DEFAULT_LEASE_DIR,
	    .sysfs_root = PI_DEFAULT_SYSFS_ROOT,
	    .live = true,
	};
	optind = 1;
	while ((o = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		r = apply_opt(c, o, optarg);
		if (r != 0)
			return r;
	}
	if (optind < argc && streq(argv[optind], "leaks"))
		c->leaks = true;
	else if (optind < argc && !streq(argv[optind], "list"))
		return fprintf(stderr, "podwire-inspect: unknown command '%s'\n%s", argv[optind],
			       usage),
		       -EINVAL;
	if (optind + 1 < argc)
		return fprintf(stderr, "podwire-inspect: unexpected argument '%s'\n",
			       argv[optind + 1]),
		       -EINVAL;
	if (c->watch && (c->leaks || c->out == OUT_PROM))
		return fprintf(stderr, "podwire-inspect: --watch goes with the table or --json\n"),
		       -EINVAL;
	return 0;
}

/* files -> live -> CHECK -> leaks */
static int collect(const struct cli *c, struct pi_inv *inv)
{
	int r;

	inv->keep_cache = c->opt.check;
	r = pi_read_sources(inv, &c->opt);

	if (r >= 0 && c->opt.live)
		r = pi_live_scan(inv, &c->opt);
	if (r >= 0)
		r = pi_rdma_scan(inv, c->opt.sysfs_root);
	if (r >= 0 && c->opt.live)
		r = pi_rdma_nldev_scan(inv);
	if (r >= 0 && c->opt.check)
		r = pi_run_checks(inv, &c->opt);
	if (r >= 0)
		r = pi_find_leaks(inv);
	if (r >= 0)
		r = pi_find_lease_leaks(inv, c->opt.lease_dir);
	if (r >= 0)
		pi_inv_sort(inv);
	return r;
}

static int print_json(char *s)
{
	int r = s ? 0 : -ENOMEM;

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
		free(s);
	}
	if (fflush(stdout) != 0)
		r = -EIO;
	return r;
}

static int any_check_failed(const struct pi_inv *inv)
{
	for (size_t i = 0; i < inv->n_atts; i++)
		if (inv->atts[i].check == PI_CHECK_FAILED)
			return 1;
	return 0;
}

static int report(const struct cli *c, const struct pi_inv *inv)
{
	int r = 0;

	if (c->out == OUT_JSON)
		r = print_json(pi_json_text(inv, true));
	else if (c->out == OUT_PROM)
		pi_print_prometheus(stdout, inv);
	else if (c->leaks)
		pi_print_leaks(stdout, inv);
	else
		pi_print_table(stdout, inv, c->verbose);
	if (r < 0)
		return r;
	if (fflush(stdout) != 0)
		return -EIO;
	if (c->leaks)
		return inv->n_leaks ? 1 : 0;
	return any_check_failed(inv);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int watch(const struct cli *c)
{
	struct pi_inv prev, cur;
	double t0, t1;
	int r;

	pi_inv_init(&prev);
	r = collect(c, &prev);
	t0 = now_s();
	for (unsigned i = 0; r >= 0 && (!c->count || i < c->count); i++) {
		struct timespec d = {.tv_sec = (time_t)c->watch};

		while (nanosleep(&d, &d) < 0 && errno == EINTR)
			;
		pi_inv_init(&cur);
		r = collect(c, &cur);
		t1 = now_s();
		if (r >= 0 && c->out == OUT_JSON) {
			json_t *doc = pi_rates_json(&prev, &cur, t1 - t0);
			char *s = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

			json_decref(doc);
			r = s ? printf("%s\n", s) : -ENOMEM;
			free(s);
			fflush(stdout);
		} else if (r >= 0) {
			pi_print_rates(stdout, &prev, &cur, t1 - t0);
		}
		pi_inv_done(&prev);
		prev = cur;
		t0 = t1;
	}
	pi_inv_done(&prev);
	return r < 0 ? r : 0;
}

int pi_main(int argc, char **argv)
{
	struct cli c = {0};
	struct pi_inv inv;
	int r = parse_args(argc, argv, &c);

	if (r != 0)
		return r > 0 ? 0 : 2;
	if (c.watch) {
		r = watch(&c);
	} else {
		pi_inv_init(&inv);
		r = collect(&c, &inv);
		if (r >= 0)
			r = report(&c, &inv);
		pi_inv_done(&inv);
	}
	if (r < 0) {
		fprintf(stderr, "podwire-inspect: %s\n", strerror(-r));
		return 2;
	}
	return r;
}
