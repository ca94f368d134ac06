/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON document (schema "podwire-inspect/v1", README.md). The whole
 * document is built in memory and written at once, so a failure never
 * leaves half a document on stdout.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "inspect.h"

#define PI_SCHEMA "podwire-inspect/v1"

/*
 * A JSON string of s, never NULL for lack of UTF-8: file names, kernel names
 * and jansson's error texts may hold any bytes; those that do not make valid
 * UTF-8 print as '?'. NULL only on ENOMEM.
 */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? jstr(s) : json_null();
}

static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *strv(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, jstr(v[i]));
	return a;
}

static const char *const netns_state_names[] = {
    [PI_NETNS_UNKNOWN] = "unknown", [PI_NETNS_PRESENT] = "present", [PI_NETNS_GONE] = "gone"};

static const char *const check_names[] = {[PI_CHECK_NOT_RUN] = "not-run",
					  [PI_CHECK_OK] = "ok",
					  [PI_CHECK_FAILED] = "failed",
					  [PI_CHECK_SKIPPED] = "skipped"};

static json_t *stats_json(bool has, const struct nlw_link_stats *s)
{
	if (!has)
		return json_null();
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "rx_bytes", u64(s->rx_bytes),
			 "tx_bytes", u64(s->tx_bytes), "rx_packets", u64(s->rx_packets),
			 "tx_packets", u64(s->tx_packets), "rx_errors", u64(s->rx_errors),
			 "tx_errors", u64(s->tx_errors), "rx_dropped", u64(s->rx_dropped),
			 "tx_dropped", u64(s->tx_dropped));
}

static json_t *counters_json(const struct pi_counters *c)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < c->n; i++)
		json_object_set_new(o, c->v[i].name, u64(c->v[i].value));
	return o;
}

static json_t *rdma_json(const struct pi_att *a)
{
	json_t *ports;

	if (!a->rdma_dev)
		return json_null();
	ports = json_array();
	for (size_t i = 0; ports && i < a->n_rdma_ports; i++) {
		const struct pi_rdma_port *p = &a->rdma_ports[i];

		json_array_append_new(
		    ports, json_pack("{s:I,s:o,s:o,s:o,s:o}", "port", (json_int_t)p->port, "state",
				     str_or_null(p->state), "linkLayer", str_or_null(p->link_layer),
				     "counters", counters_json(&p->counters), "hwCounters",
				     counters_json(&p->hw_counters)));
	}
	return json_pack("{s:o,s:o,s:o,s:o}", "device", jstr(a->rdma_dev), "source",
			 str_or_null(a->rdma_source), "error", str_or_null(a->rdma_error), "ports",
			 ports);
}

static json_t *sources_json(unsigned src)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
	    {PI_SRC_CACHE, "result-cache"},
	    {PI_SRC_MULTINET, "multinet-cache"},
	    {PI_SRC_SRIOV, "sriov-state"},
	    {PI_SRC_VETH, "host-veth"},
	};
	json_t *a = json_array();

	for (size_t i = 0; a && i < sizeof(names) / sizeof(names[0]); i++)
		if (src & names[i].bit)
			json_array_append_new(a, json_string(names[i].name));
	return a;
}

static json_t *pod_json(const struct pi_att *a)
{
	if (!a->pod_namespace && !a->pod_name)
		return json_null();
	return json_pack("{s:o,s:o,s:o}", "namespace", str_or_null(a->pod_namespace), "name",
			 str_or_null(a->pod_name), "uid", str_or_null(a->pod_uid));
}

static json_t *host_json(const struct pi_att *a)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o}", "ifname", str_or_null(a->host_ifname), "bridge",
			 str_or_null(a->bridge), "vfPci", str_or_null(a->vf_pci), "pf",
			 str_or_null(a->pf), "rdmaDevice", str_or_null(a->rdma_dev));
}

static json_t *health_json(const struct pi_att *a)
{
	return json_pack("{s:s,s:o,s:s,s:o}", "status", pi_att_health(a), "problems",
			 strv(a->problems, a->n_problems), "check", check_names[a->check],
			 "checkMessage", str_or_null(a->check_msg));
}

static json_t *att_json(const struct pi_att *a)
{
	return json_pack(
	    "{s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:{s:o,s:o},s:I,s:o,s:o}",
	    "containerId", jstr(a->container_id), "ifname", jstr(a->ifname), "network",
	    str_or_null(a->network), "netns", str_or_null(a->netns), "netnsState",
	    netns_state_names[a->netns_state], "pod", pod_json(a), "plugins",
	    strv(a->plugins, a->n_plugins), "sources", sources_json(a->sources), "files",
	    strv(a->files, a->n_files), "ips", strv(a->ips, a->n_ips), "mac", str_or_null(a->mac),
	    "host", host_json(a), "counters", "pod", stats_json(a->has_pod_stats, &a->pod_stats),
	    "host", stats_json(a->has_host_stats, &a->host_stats), "nftElements",
	    (json_int_t)a->nft_elements, "rdma", rdma_json(a), "health", health_json(a));
}

static json_t *leak_json(const struct pi_leak *l)
{
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "kind", l->kind, "object", jstr(l->object),
			 "reason", jstr(l->reason), "containerId", str_or_null(l->container_id),
			 "ifname", str_or_null(l->ifname), "network", str_or_null(l->network));
}

static json_t *lost_json(const struct pi_lost_vf *l)
{
	char at[32];

	pi_time_str(l->lost_at, at);
	return json_pack("{s:o,s:o,s:o,s:i,s:o,s:o,s:i,s:o,s:o,s:o,s:o,s:s,s:o}", "file",
			 jstr(l->file), "pci", jstr(l->pci), "pf", str_or_null(l->pf), "vf", l->vf,
			 "netdev", jstr(l->netdev), "mac", jstr(l->mac), "mtu", (int)l->mtu,
			 "containerId", jstr(l->container_id), "ifname", jstr(l->ifname), "network",
			 str_or_null(l->network), "rdmaDevice", str_or_null(l->rdma_dev), "lostAt",
			 at, "reason", jstr(l->reason));
}

static json_t *lost_array(const struct pi_inv *inv)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < inv->n_lost; i++)
		if (json_array_append_new(a, lost_json(&inv->lost[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *pi_json(const struct pi_inv *inv, bool with_leaks)
{
	json_t *atts = json_array(), *errs = json_array(), *leaks = json_array();
	json_t *doc;

	for (size_t i = 0; atts && i < inv->n_atts; i++)
		if (json_array_append_new(atts, att_json(&inv->atts[i])) < 0)
			goto fail;
	for (size_t i = 0; errs && i < inv->n_errors; i++)
		if (json_array_append_new(errs,
					  json_pack("{s:o,s:o}", "path", jstr(inv->errors[i].path),
						    "message", jstr(inv->errors[i].msg))) < 0)
			goto fail;
	for (size_t i = 0; with_leaks && leaks && i < inv->n_leaks; i++)
		if (json_array_append_new(leaks, leak_json(&inv->leaks[i])) < 0)
			goto fail;
	doc = json_pack("{s:s,s:o,s:o,s:o,s:o}", "schema", PI_SCHEMA, "attachments", atts, "errors",
			errs, "leaks", leaks, "lostVfs", lost_array(inv));
	return doc;
fail:
	json_decref(atts);
	json_decref(errs);
	json_decref(leaks);
	return NULL;
}

static char *dump(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(j);
	return s;
}

/* Append ",\n  " (after the first) and the dump of j to f; false on ENOMEM. */
static bool put_piece(FILE *f, json_t *j, bool first)
{
	char *s = dump(j);

	if (!s)
		return false;
	fprintf(f, "%s%s", first ? "\n  " : ",\n  ", s);
	free(s);
	return true;
}

static bool put_array_tail(FILE *f, json_t *arr)
{
	char *s = dump(arr);

	if (!s)
		return false;
	fputs(s, f);
	free(s);
	return true;
}

char *pi_json_text(const struct pi_inv *inv, bool with_leaks)
{
	json_t *errs = json_array(), *leaks = json_array();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool ok = errs && leaks;

	if (!f) {
		json_decref(errs);
		json_decref(leaks);
		return NULL;
	}
	fputs("{\"attachments\":[", f);
	for (size_t i = 0; ok && i < inv->n_atts; i++)
		ok = put_piece(f, att_json(&inv->atts[i]), i == 0);
	for (size_t i = 0; ok && i < inv->n_errors; i++)
		ok = json_array_append_new(errs,
					   json_pack("{s:o,s:o}", "path", jstr(inv->errors[i].path),
						     "message", jstr(inv->errors[i].msg))) == 0;
	for (size_t i = 0; ok && with_leaks && i < inv->n_leaks; i++)
		ok = json_array_append_new(leaks, leak_json(&inv->leaks[i])) == 0;
	if (ok) {
		fputs(inv->n_atts ? "\n],\"errors\":" : "],\"errors\":", f);
		ok = put_array_tail(f, json_incref(errs));
	}
	if (ok) {
		fputs(",\"leaks\":", f);
		ok = put_array_tail(f, json_incref(leaks));
	}
	if (ok) {
		fputs(",\"lostVfs\":", f);
		ok = put_array_tail(f, lost_array(inv));
	}
	if (ok)
		fputs(",\"schema\":\"" PI_SCHEMA "\"}", f);
	json_decref(errs);
	json_decref(leaks);
	if (fclose(f) != 0)
		ok = false;
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- rates (--watch --json) ---- */

static double rate(uint64_t a, uint64_t b, double s)
{
	return b >= a && s > 0 ? (double)(b - a) / s : 0.0;
}

static json_t *stats_rates(const struct nlw_link_stats *x, const struct nlw_link_stats *y, double s)
{
	return json_pack(
	    "{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "rx_bytes", rate(x->rx_bytes, y->rx_bytes, s),
	    "tx_bytes", rate(x->tx_bytes, y->tx_bytes, s), "rx_packets",
	    rate(x->rx_packets, y->rx_packets, s), "tx_packets",
	    rate(x->tx_packets, y->tx_packets, s), "rx_errors", rate(x->rx_errors, y->rx_errors, s),
	    "tx_errors", rate(x->tx_errors, y->tx_errors, s), "rx_dropped",
	    rate(x->rx_dropped, y->rx_dropped, s), "tx_dropped",
	    rate(x->tx_dropped, y->tx_dropped, s));
}

static json_t *counter_rates(const struct pi_counters *x, const struct pi_counters *y, double s)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < y->n; i++) {
		const struct pi_counter *c = pi_counters_find(x, y->v[i].name);

		if (c)
			json_object_set_new(o, y->v[i].name,
					    json_real(rate(c->value, y->v[i].value, s)));
	}
	return o;
}

static const struct pi_rdma_port *find_port(const struct pi_att *a, unsigned port)
{
	for (size_t i = 0; i < a->n_rdma_ports; i++)
		if (a->rdma_ports[i].port == port)
			return &a->rdma_ports[i];
	return NULL;
}

static json_t *rdma_rates(const struct pi_att *x, const struct pi_att *y, double s)
{
	json_t *ports = json_array();

	for (size_t i = 0; ports && i < y->n_rdma_ports; i++) {
		const struct pi_rdma_port *q = &y->rdma_ports[i], *p = find_port(x, q->port);

		if (p)
			json_array_append_new(
			    ports,
			    json_pack("{s:I,s:o,s:o}", "port", (json_int_t)q->port, "counters",
				      counter_rates(&p->counters, &q->counters, s), "hwCounters",
				      counter_rates(&p->hw_counters, &q->hw_counters, s)));
	}
	return ports;
}

json_t *pi_rates_json(const struct pi_inv *a, const struct pi_inv *b, double seconds)
{
	json_t *atts = json_array();

	for (size_t i = 0; atts && i < b->n_atts; i++) {
		const struct pi_att *y = &b->atts[i];
		const struct pi_att *x = pi_inv_find(a, y->container_id, y->ifname);
		json_t *pod = json_null();

		if (!x)
			continue;
		if (x->has_pod_stats && y->has_pod_stats) {
			json_decref(pod);
			pod = stats_rates(&x->pod_stats, &y->pod_stats, seconds);
		}
		json_array_append_new(
		    atts, json_pack("{s:o,s:o,s:o,s:o,s:o}", "containerId", jstr(y->container_id),
				    "ifname", jstr(y->ifname), "network", str_or_null(y->network),
				    "rates", pod, "rdma", rdma_rates(x, y, seconds)));
	}
	return json_pack("{s:s,s:f,s:o}", "schema", PI_SCHEMA "-rates", "intervalSeconds", seconds,
			 "attachments", atts);
}
