/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Micro-benchmark of the netlink module against the kernel floor.
 *
 * Per pod: a veth whose peer is created directly in the pod netns, enslaved
 * to a bridge and up (one request), then in the pod netns: address, link up,
 * a host route (three requests). Done N times by nlw, and the same requests
 * done by one `ip -batch` process per namespace (iproute2 cannot switch
 * namespace inside a batch). Both run in throwaway namespaces (unshare), all
 * pods share one pod netns so the ip floor really is one process per side.
 * Rows: nlw in the same order as the batches (all host sides, then all pod
 * sides), nlw pod by pod, and with --per-pod-netns nlw with one netns (and
 * one socket opened in it) per pod.
 *
 * Usage: nlw-micro [--pods N] [--rounds R] [--ipv6] [--per-pod-netns] [--smoke]
 * Prints a markdown table on stdout. Root only.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nlw/nlw.h"

struct env {
	int orig, host, pod; /* netns fds */
	struct nlw_sock *hs, *ps;
	int br;
};

static unsigned npods = 1000, rounds = 3;
static bool ipv6, per_pod_netns, smoke;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void die(const char *what, int r)
{
	fprintf(stderr, "nlw-micro: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

static int new_netns(void)
{
	int fd, r;

	if (unshare(CLONE_NEWNET) < 0)
		die("unshare", errno);
	r = nlw_netns_open_self(&fd);
	if (r < 0)
		die("open netns", r);
	return fd;
}

static void sysctls(int netns_fd)
{
	/* IPv6 link-local traffic floods every bridge port and dominates at high pod counts. */
	const char *v = ipv6 ? "0" : "1";
	int r = nlw_sysctl_set_in_netns(netns_fd, -1, "net/ipv6/conf/all/disable_ipv6", v);

	if (r == 0)
		r = nlw_sysctl_set_in_netns(netns_fd, -1, "net/ipv6/conf/default/disable_ipv6", v);
	if (r < 0)
		die("sysctl disable_ipv6", r);
}

/* Fresh H (the process moves there) and P, with a bridge br0 up in H. */
static void env_up(struct env *e)
{
	struct nlw_bridge_params bp = {.name = "br0", .up = true};
	struct nlw_link l;
	int r;

	r = nlw_netns_open_self(&e->orig);
	if (r < 0)
		die("open netns", r);
	e->pod = new_netns();
	e->host = new_netns();
	sysctls(e->host);
	sysctls(e->pod);
	if ((r = nlw_sock_open(&e->hs)) < 0 ||
	    (r = nlw_sock_open_in_netns(e->pod, NETLINK_ROUTE, &e->ps)) < 0)
		die("socket", r);
	if ((r = nlw_link_add_bridge(e->hs, &bp)) < 0 ||
	    (r = nlw_link_get_by_name(e->hs, "br0", &l)) < 0)
		die("bridge", r);
	e->br = l.ifindex;
}

static void env_down(struct env *e)
{
	nlw_sock_free(e->hs);
	nlw_sock_free(e->ps);
	if (setns(e->orig, CLONE_NEWNET) < 0)
		die("setns back", errno);
	close(e->host);
	close(e->pod);
	close(e->orig);
	/* Let the kernel tear the namespaces down before the next round measures. */
	usleep(smoke ? 0 : 3000 * 1000);
}

static void pod_addr(unsigned i, struct ip_prefix *a, struct ip_prefix *route)
{
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->prefixlen = 32;
	a->addr.in.s_addr = htonl(0x0a000000u | (i + 2)); /* 10.0.x.y */
	*route = *a;
	route->addr.in.s_addr = htonl(0x0afa0000u | (i + 2)); /* 10.250.x.y */
}

static void host_side(struct env *e, int pod_fd, unsigned i)
{
	char host[IFNAMSIZ], peer[IFNAMSIZ];
	struct nlw_veth_params vp = {
	    .name = host, .peer_name = peer, .peer_netns_fd = pod_fd, .master = e->br, .up = true};
	int r;

	snprintf(host, sizeof(host), "vh%u", i);
	snprintf(peer, sizeof(peer), "p%u", i);
	if ((r = nlw_link_add_veth(e->hs, &vp)) < 0)
		die("veth", r);
}

static void pod_side(struct nlw_sock *ps, unsigned i)
{
	struct nlw_route rt = {.scope = NLW_SCOPE_LINK};
	char peer[IFNAMSIZ];
	struct ip_prefix a;
	struct nlw_link l;
	int r;

	snprintf(peer, sizeof(peer), "p%u", i);
	pod_addr(i, &a, &rt.dst);
	/* ip resolves the name with a GETLINK too (ll_name_to_index). */
	if ((r = nlw_link_get_by_name(ps, peer, &l)) < 0)
		die("get peer", r);
	rt.oif = l.ifindex;
	if ((r = nlw_addr_add(ps, l.ifindex, &a, NULL)) < 0 ||
	    (r = nlw_link_set_up(ps, l.ifindex)) < 0 || (r = nlw_route_add(ps, &rt)) < 0)
		die("pod side", r);
}

/*
 * Same order as the two ip batches: all host sides, then all pod sides.
 * With interleave, pod by pod as a plugin runs (with IPv6 on, every pod link
 * that comes up adds link-local traffic the next creations compete with).
 */
static double run_nlw(bool interleave)
{
	struct env e;
	double t0, t;

	env_up(&e);
	t0 = now_ms();
	for (unsigned i = 0; i < npods; i++) {
		host_side(&e, e.pod, i);
		if (interleave)
			pod_side(e.ps, i);
	}
	for (unsigned i = 0; !interleave && i < npods; i++)
		pod_side(e.ps, i);
	t = now_ms() - t0;
	env_down(&e);
	return t;
}

/* One netns and one socket per pod, as a real runtime would have it. */
static double run_nlw_per_pod(void)
{
	int *fds = calloc(npods, sizeof(int));
	struct env e;
	double t0, t;

	env_up(&e);
	for (unsigned i = 0; i < npods; i++) {
		fds[i] = new_netns();
		if (setns(e.host, CLONE_NEWNET) < 0)
			die("setns", errno);
		sysctls(fds[i]);
	}
	t0 = now_ms();
	for (unsigned i = 0; i < npods; i++) {
		struct nlw_sock *ps;
		int r = nlw_sock_open_in_netns(fds[i], NETLINK_ROUTE, &ps);

		if (r < 0)
			die("pod socket", r);
		host_side(&e, fds[i], i);
		pod_side(ps, i);
		nlw_sock_free(ps);
	}
	t = now_ms() - t0;
	for (unsigned i = 0; i < npods; i++)
		close(fds[i]);
	free(fds);
	env_down(&e);
	return t;
}

/* Write the ip batch files for the host and the pod side. */
static void write_batches(FILE *h, FILE *p, pid_t pod_pid)
{
	char a[INET_ADDRSTRLEN], r[INET_ADDRSTRLEN];

	for (unsigned i = 0; i < npods; i++) {
		struct ip_prefix pa, pr;

		pod_addr(i, &pa, &pr);
		fprintf(h, "link add vh%u up master br0 type veth peer name p%u netns %d\n", i, i,
			(int)pod_pid);
		fprintf(p,
			"addr add %s/32 dev p%u\nlink set p%u up\n"
			"route add %s/32 dev p%u scope link\n",
			inet_ntop(AF_INET, &pa.addr, a, sizeof(a)), i, i,
			inet_ntop(AF_INET, &pr.addr, r, sizeof(r)), i);
	}
	fflush(h);
	fflush(p);
}

/* Run `ip -batch file` with the child in netns fd; returns its wall time. */
static double ip_batch(int netns_fd, const char *file)
{
	double t0 = now_ms();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (setns(netns_fd, CLONE_NEWNET) < 0)
			_exit(126);
		dup2(null, STDOUT_FILENO);
		execlp("ip", "ip", "-batch", file, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		die("ip -batch failed", EIO);
	return now_ms() - t0;
}

static double run_ip(void)
{
	char hf[] = "/tmp/nlw-micro-host-XXXXXX", pf[] = "/tmp/nlw-micro-pod-XXXXXX";
	int hfd = mkstemp(hf), pfd = mkstemp(pf);
	FILE *h = fdopen(hfd, "w"), *p = fdopen(pfd, "w");
	struct env e;
	pid_t holder;
	double t;

	if (!h || !p)
		die("mkstemp", errno);
	env_up(&e);
	/* ip names the peer's netns by a pid living in it. */
	holder = fork();
	if (holder == 0) {
		if (setns(e.pod, CLONE_NEWNET) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(20 * 1000);
	write_batches(h, p, holder);
	t = ip_batch(e.host, hf) + ip_batch(e.pod, pf);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	fclose(h);
	fclose(p);
	unlink(hf);
	unlink(pf);
	env_down(&e);
	return t;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"pods", required_argument, NULL, 'n'}, {"rounds", required_argument, NULL, 'r'},
	    {"ipv6", no_argument, NULL, '6'},	    {"per-pod-netns", no_argument, NULL, 'p'},
	    {"smoke", no_argument, NULL, 's'},	    {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			npods = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			rounds = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case '6':
			ipv6 = true;
			break;
		case 'p':
			per_pod_netns = true;
			break;
		case 's':
			smoke = true;
			npods = 5;
			rounds = 1;
			break;
		default:
			exit(2);
		}
	}
	if (npods == 0 || npods > 60000 || rounds == 0 || rounds > 50) {
		fprintf(stderr, "nlw-micro: --pods 1..60000, --rounds 1..50\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	double *tn, *ti, *tp, *tl, mn, mi, ml;

	parse_args(argc, argv);
	if (geteuid() != 0) {
		fprintf(stderr, "nlw-micro: needs root\n");
		return 77;
	}
	tn = calloc(rounds, sizeof(double));
	ti = calloc(rounds, sizeof(double));
	tp = calloc(rounds, sizeof(double));
	tl = calloc(rounds, sizeof(double));
	/*
	 * Rotate the order every round: a run right after a big teardown pays
	 * for the kernel's asynchronous namespace cleanup.
	 */
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned k = 0; k < 4; k++) {
			switch ((k + r) % 4) {
			case 0:
				ti[r] = run_ip();
				break;
			case 1:
				tn[r] = run_nlw(false);
				break;
			case 2:
				tl[r] = run_nlw(true);
				break;
			default:
				if (per_pod_netns)
					tp[r] = run_nlw_per_pod();
			}
		}
	}
	mn = median(tn, rounds);
	mi = median(ti, rounds);
	ml = median(tl, rounds);
	printf("| variant | pods | rounds | median total (ms) | per pod (us) | vs ip -batch |\n");
	printf("|---|---|---|---|---|---|\n");
	printf(
	    "| ip -batch (kernel floor, 1 process per netns) | %u | %u | %.1f | %.1f | 1.00x |\n",
	    npods, rounds, mi, mi * 1e3 / npods);
	printf("| nlw, same order as ip | %u | %u | %.1f | %.1f | %.2fx |\n", npods, rounds, mn,
	       mn * 1e3 / npods, mn / mi);
	printf("| nlw, pod by pod | %u | %u | %.1f | %.1f | %.2fx |\n", npods, rounds, ml,
	       ml * 1e3 / npods, ml / mi);
	if (per_pod_netns) {
		double mp = median(tp, rounds);

		printf("| nlw, one netns + socket per pod | %u | %u | %.1f | %.1f | %.2fx |\n",
		       npods, rounds, mp, mp * 1e3 / npods, mp / mi);
	}
	printf("\nIPv6 %s in the bench namespaces.\n", ipv6 ? "enabled" : "disabled");
	free(tn);
	free(ti);
	free(tp);
	free(tl);
	return 0;
}
