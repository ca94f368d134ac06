/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prometheus text exposition format (version 0.0.4), for node_exporter's
 * textfile collector: every family once, HELP and TYPE before its samples,
 * label values escaped (\\, \", \n). Labels of every podwire_attachment_*
 * sample: pod ("<namespace>/<name>" or ""), network, ifname, device (host
 * veth or VF PCI address), plus the family's own. Bytes outside printable
 * ASCII in a value print as '?'.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "inspect.h"

static void put_escaped(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			fputc('?',
			      f); /* values must be UTF-8: names here are ASCII, keep them so */
		else
			fputc(*s, f);
	}
}

static void label(FILE *f, const char *name, const char *value, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	put_escaped(f, value);
	fputc('"', f);
}

static void base_labels(FILE *f, const struct pi_att *a)
{
	char pod[512] = "";

	if (a->pod_namespace || a->pod_name)
		snprintf(pod, sizeof(pod), "%s/%s", a->pod_namespace ? a->pod_namespace : "",
			 a->pod_name ? a->pod_name : "");
	label(f, "pod", pod, true);
	label(f, "network", a->network ? a->network : "", false);
	label(f, "ifname", a->ifname, false);
	label(f, "device", pi_att_device(a), false);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void info_family(FILE *f, const struct pi_inv *inv)
{
	family(f, "podwire_attachment_info", "gauge",
	       "One per pod attachment; labels name it (value always 1).");
	for (size_t i = 0; i < inv->n_atts; i++) {
		const struct pi_att *a = &inv->atts[i];
		char plugins[512] = "";

		for (size_t k = 0, used = 0; k < a->n_plugins && used < sizeof(plugins); k++) {
			int n = snprintf(plugins + used, sizeof(plugins) - used, "%s%s",
					 k ? "," : "", a->plugins[k]);
			used += n > 0 ? (size_t)n : 0;
		}
		fputs("podwire_attachment_info{", f);
		base_labels(f, a);
		label(f, "container_id", a->container_id, false);
		label(f, "plugins", plugins, false);
		label(f, "rdma_device", a->rdma_dev ? a->rdma_dev : "", false);
		fputs("} 1\n", f);
	}
}

typedef double (*att_value_fn)(const struct pi_att *a, bool *skip);

static void gauge_family(FILE *f, const struct pi_inv *inv, const char *name, const char *help,
			 att_value_fn fn)
{
	family(f, name, "gauge", help);
	for (size_t i = 0; i < inv->n_atts; i++) {
		bool skip = false;
		double v = fn(&inv->atts[i], &skip);

		if (skip)
			continue;
		fprintf(f, "%s{", name);
		base_labels(f, &inv->atts[i]);
		fprintf(f, "} %g\n", v);
	}
}

static double v_healthy(const struct pi_att *a, bool *skip)
{
	(void)skip;
	return strcmp(pi_att_health(a), "ok") == 0;
}

static double v_netns(const struct pi_att *a, bool *skip)
{
	*skip = a->netns_state == PI_NETNS_UNKNOWN;
	return a->netns_state == PI_NETNS_PRESENT;
}

static double v_nft(const struct pi_att *a, bool *skip)
{
	(void)skip;
	return a->nft_elements;
}

static double v_check(const struct pi_att *a, bool *skip)
{
	*skip = a->check != PI_CHECK_OK && a->check != PI_CHECK_FAILED;
	return a->check == PI_CHECK_OK;
}

struct stat_field {
	const char *name;
	size_t off;
	const char *help;
};

#define STAT(n, h)                                                                                 \
	{                                                                                          \
		"podwire_attachment_" #n "_total", offsetof(struct nlw_link_stats, n), h           \
	}

static const struct stat_field stat_fields[] = {
    STAT(rx_bytes,
	 "Bytes received by the interface (end=pod: the pod's side, end=host: the host veth)."),
    STAT(tx_bytes, "Bytes sent by the interface."),
    STAT(rx_packets, "Packets received by the interface."),
    STAT(tx_packets, "Packets sent by the interface."),
    STAT(rx_errors, "Receive errors of the interface."),
    STAT(tx_errors, "Transmit errors of the interface."),
    STAT(rx_dropped, "Received packets dropped by the interface."),
    STAT(tx_dropped, "Packets dropped on transmit by the interface."),
};

static void stat_sample(FILE *f, const struct stat_field *sf, const struct pi_att *a,
			const char *end, const struct nlw_link_stats *s)
{
	uint64_t v;

	memcpy(&v, (const char *)s + sf->off, sizeof(v));
	fprintf(f, "%s{", sf->name);
	base_labels(f, a);
	label(f, "end", end, false);
	fprintf(f, "} %llu\n", (unsigned long long)v);
}

static void stats_families(FILE *f, const struct pi_inv *inv)
{
	for (size_t k = 0; k < sizeof(stat_fields) / sizeof(stat_fields[0]); k++) {
		family(f, stat_fields[k].name, "counter", stat_fields[k].help);
		for (size_t i = 0; i < inv->n_atts; i++) {
			const struct pi_att *a = &inv->atts[i];

			if (a->has_pod_stats)
				stat_sample(f, &stat_fields[k], a, "pod", &a->pod_stats);
			if (a->has_host_stats)
				stat_sample(f, &stat_fields[k], a, "host", &a->host_stats);
		}
	}
}

static void rdma_family(FILE *f, const struct pi_inv *inv, bool hw)
{
	const char *name =
	    hw ? "podwire_attachment_rdma_hw_total" : "podwire_attachment_rdma_port_total";

	family(f, name, "counter",
	       hw ? "RDMA driver counter of the attachment's device (ports/<port>/hw_counters)."
		  : "RDMA port counter (ports/<port>/counters; *_data in units of 4 octets).");
	for (size_t i = 0; i < inv->n_atts; i++) {
		const struct pi_att *a = &inv->atts[i];

		for (size_t p = 0; p < a->n_rdma_ports; p++) {
			const struct pi_counters *c =
			    hw ? &a->rdma_ports[p].hw_counters : &a->rdma_ports[p].counters;
			char port[16];

			snprintf(port, sizeof(port), "%u", a->rdma_ports[p].port);
			for (size_t k = 0; k < c->n; k++) {
				fprintf(f, "%s{", name);
				base_labels(f, a);
				label(f, "rdma_device", a->rdma_dev, false);
				label(f, "port", port, false);
				label(f, "counter", c->v[k].name, false);
				fprintf(f, "} %llu\n", (unsigned long long)c->v[k].value);
			}
		}
	}
}

static void inspect_families(FILE *f, const struct pi_inv *inv)
{
	static const char *const kinds[] = {"host-veth",   "nft-element",    "lease",
					    "sriov-state", "multinet-cache", "result-cache"};

	family(f, "podwire_inspect_leaked_objects", "gauge",
	       "podwire-made objects of no attachment, by kind (see podwire-inspect leaks).");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = 0;

		for (size_t i = 0; i < inv->n_leaks; i++)
			n += strcmp(inv->leaks[i].kind, kinds[k]) == 0;
		fprintf(f, "podwire_inspect_leaked_objects{kind=\"%s\"} %zu\n", kinds[k], n);
	}
	family(f, "podwire_inspect_file_errors", "gauge",
	       "State files that could not be read or parsed.");
	fprintf(f, "podwire_inspect_file_errors %zu\n", inv->n_errors);
	family(f, "podwire_inspect_lost_vfs", "gauge",
	       "SR-IOV VFs whose netdev did not come back to the host at DEL (sriov-rdma).");
	fprintf(f, "podwire_inspect_lost_vfs %zu\n", inv->n_lost);
}

void pi_print_prometheus(FILE *f, const struct pi_inv *inv)
{
	info_family(f, inv);
	gauge_family(f, inv, "podwire_attachment_healthy",
		     "1 when inspection found nothing wrong and CHECK (if run) passed.", v_healthy);
	gauge_family(f, inv, "podwire_attachment_netns_present",
		     "1 when the attachment's netns still exists.", v_netns);
	gauge_family(f, inv, "podwire_attachment_check_ok",
		     "1 when the chain's CHECK passed (only with --check).", v_check);
	gauge_family(f, inv, "podwire_attachment_nft_elements",
		     "podwire nftables set elements tagged with the attachment (masquerade, "
		     "spoof check).",
		     v_nft);
	stats_families(f, inv);
	rdma_family(f, inv, false);
	rdma_family(f, inv, true);
	inspect_families(f, inv);
}
