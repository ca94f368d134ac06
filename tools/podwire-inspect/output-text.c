/* SPDX-License-Identifier: Apache-2.0 */
/* The table a person reads (one line per attachment; -v adds counters), leaks, rates. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/parse.h"
#include "inspect.h"

#define CID_SHORT 12

static void pod_label(const struct pi_att *a, char *buf, size_t len)
{
	if (a->pod_namespace || a->pod_name)
		snprintf(buf, len, "%s/%s", a->pod_namespace ? a->pod_namespace : "",
			 a->pod_name ? a->pod_name : "");
	else
		snprintf(buf, len, "-");
}

static void join(char *const *v, size_t n, const char *sep, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		int k = snprintf(buf + used, len - used, "%s%s", i ? sep : "", v[i]);

		if (k < 0)
			break;
		used += (size_t)k;
	}
	if (!n)
		snprintf(buf, len, "-");
}

static void device_label(const struct pi_att *a, char *buf, size_t len)
{
	const char *dev = pi_att_device(a);

	snprintf(buf, len, "%s%s%s%s%s", *dev ? dev : "-", a->bridge[0] ? "@" : "", a->bridge,
		 a->rdma_dev ? " rdma:" : "", a->rdma_dev ? a->rdma_dev : "");
}

static void print_stats(FILE *f, const char *end, const struct nlw_link_stats *s)
{
	fprintf(f,
		"    %-4s rx %llu B %llu pkt %llu err %llu drop | tx %llu B %llu pkt %llu err "
		"%llu drop\n",
		end, (unsigned long long)s->rx_bytes, (unsigned long long)s->rx_packets,
		(unsigned long long)s->rx_errors, (unsigned long long)s->rx_dropped,
		(unsigned long long)s->tx_bytes, (unsigned long long)s->tx_packets,
		(unsigned long long)s->tx_errors, (unsigned long long)s->tx_dropped);
}

static void print_counters(FILE *f, const char *what, const struct pi_counters *c)
{
	if (!c->n)
		return;
	fprintf(f, "      %s:", what);
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, " %s=%llu", c->v[i].name, (unsigned long long)c->v[i].value);
	fputc('\n', f);
}

static void print_verbose(FILE *f, const struct pi_att *a)
{
	if (a->has_pod_stats)
		print_stats(f, "pod", &a->pod_stats);
	if (a->has_host_stats)
		print_stats(f, "host", &a->host_stats);
	for (size_t i = 0; i < a->n_rdma_ports; i++) {
		const struct pi_rdma_port *p = &a->rdma_ports[i];

		fprintf(f, "    rdma %s/%u %s %s\n", a->rdma_dev, p->port,
			p->state ? p->state : "-", p->link_layer ? p->link_layer : "");
		print_counters(f, "counters", &p->counters);
		print_counters(f, "hw_counters", &p->hw_counters);
	}
	if (a->rdma_error)
		fprintf(f, "    rdma: %s\n", a->rdma_error);
	for (size_t i = 0; i < a->n_problems; i++)
		fprintf(f, "    problem: %s\n", a->problems[i]);
	if (a->check_msg)
		fprintf(f, "    check: %s\n", a->check_msg);
}

static const char *health_cell(const struct pi_att *a)
{
	if (a->netns_state == PI_NETNS_GONE)
		return "netns-gone";
	if (a->check == PI_CHECK_FAILED)
		return "check-failed";
	return pi_att_health(a);
}

void pi_time_str(long long t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, 32, "%lld", t);
}

/* sriov-rdma's lost VFs, after the attachments (nothing when there is none). */
static void print_lost(FILE *f, const struct pi_inv *inv)
{
	if (!inv->n_lost)
		return;
	fprintf(f, "\n%-13s %-10s %-4s %-15s %-17s %-5s %-24s %-20s %s\n", "LOST-VF", "PF", "VF",
		"NETDEV", "MAC", "MTU", "FROM", "SINCE", "REASON");
	for (size_t i = 0; i < inv->n_lost; i++) {
		const struct pi_lost_vf *l = &inv->lost[i];
		char from[64], at[32];

		snprintf(from, sizeof(from), "%.12s/%s", l->container_id, l->ifname);
		pi_time_str(l->lost_at, at);
		fprintf(f, "%-13s %-10s %-4d %-15s %-17s %-5u %-24s %-20s %s\n", l->pci,
			*l->pf ? l->pf : "-", l->vf, l->netdev, l->mac, l->mtu, from, at,
			l->reason);
	}
}

void pi_print_table(FILE *f, const struct pi_inv *inv, bool verbose)
{
	fprintf(f, "%-24s %-14s %-8s %-12s %-20s %-20s %-24s %s\n", "POD", "NETWORK", "IFNAME",
		"CONTAINER", "PLUGINS", "IPS", "HOST-DEVICE", "HEALTH");
	for (size_t i = 0; i < inv->n_atts; i++) {
		const struct pi_att *a = &inv->atts[i];
		char pod[256], plugins[256], ips[256], dev[128];

		pod_label(a, pod, sizeof(pod));
		join(a->plugins, a->n_plugins, ",", plugins, sizeof(plugins));
		join(a->ips, a->n_ips, ",", ips, sizeof(ips));
		device_label(a, dev, sizeof(dev));
		fprintf(f, "%-24s %-14s %-8s %-12.*s %-20s %-20s %-24s %s\n", pod,
			a->network ? a->network : "-", a->ifname, CID_SHORT, a->container_id,
			plugins, ips, dev, health_cell(a));
		if (verbose)
			print_verbose(f, a);
	}
	print_lost(f, inv);
	for (size_t i = 0; i < inv->n_errors; i++)
		fprintf(f, "error: %s: %s\n", inv->errors[i].path, inv->errors[i].msg);
}

void pi_print_leaks(FILE *f, const struct pi_inv *inv)
{
	if (!inv->n_leaks) {
		fprintf(f, "no leaks\n");
		return;
	}
	fprintf(f, "%-15s %-48s %-24s %s\n", "KIND", "OBJECT", "ATTACHMENT", "REASON");
	for (size_t i = 0; i < inv->n_leaks; i++) {
		const struct pi_leak *l = &inv->leaks[i];
		char att[256];

		snprintf(att, sizeof(att), "%.12s/%s", l->container_id ? l->container_id : "-",
			 l->ifname ? l->ifname : "-");
		fprintf(f, "%-15s %-48s %-24s %s\n", l->kind, l->object, att, l->reason);
	}
	for (size_t i = 0; i < inv->n_errors; i++)
		fprintf(f, "error: %s: %s\n", inv->errors[i].path, inv->errors[i].msg);
}

static double rate(uint64_t a, uint64_t b, double s)
{
	return b >= a && s > 0 ? (double)(b - a) / s : 0.0;
}

static void print_rdma_rates(FILE *f, const struct pi_att *x, const struct pi_att *y, double s)
{
	for (size_t i = 0; i < y->n_rdma_ports; i++) {
		const struct pi_rdma_port *q = &y->rdma_ports[i];
		const struct pi_rdma_port *p = NULL;

		for (size_t k = 0; k < x->n_rdma_ports; k++)
			if (x->rdma_ports[k].port == q->port)
				p = &x->rdma_ports[k];
		if (!p)
			continue;
		fprintf(f, "    rdma %s/%u:", y->rdma_dev, q->port);
		for (size_t k = 0; k < q->hw_counters.n; k++) {
			const struct pi_counter *c =
			    pi_counters_find(&p->hw_counters, q->hw_counters.v[k].name);

			if (c)
				fprintf(f, " %s/s=%.1f", c->name,
					rate(c->value, q->hw_counters.v[k].value, s));
		}
		fputc('\n', f);
	}
}

void pi_print_rates(FILE *f, const struct pi_inv *a, const struct pi_inv *b, double seconds)
{
	fprintf(f, "%-24s %-14s %-8s %12s %12s %10s %10s\n", "POD", "NETWORK", "IFNAME", "RX-B/S",
		"TX-B/S", "RX-PKT/S", "TX-PKT/S");
	for (size_t i = 0; i < b->n_atts; i++) {
		const struct pi_att *y = &b->atts[i];
		const struct pi_att *x = pi_inv_find(a, y->container_id, y->ifname);
		char pod[256];

		if (!x)
			continue;
		pod_label(y, pod, sizeof(pod));
		if (x->has_pod_stats && y->has_pod_stats)
			fprintf(f, "%-24s %-14s %-8s %12.1f %12.1f %10.1f %10.1f\n", pod,
				y->network ? y->network : "-", y->ifname,
				rate(x->pod_stats.rx_bytes, y->pod_stats.rx_bytes, seconds),
				rate(x->pod_stats.tx_bytes, y->pod_stats.tx_bytes, seconds),
				rate(x->pod_stats.rx_packets, y->pod_stats.rx_packets, seconds),
				rate(x->pod_stats.tx_packets, y->pod_stats.tx_packets, seconds));
		else
			fprintf(f, "%-24s %-14s %-8s %12s %12s %10s %10s\n", pod,
				y->network ? y->network : "-", y->ifname, "-", "-", "-", "-");
		print_rdma_rates(f, x, y, seconds);
	}
	fflush(f);
}
