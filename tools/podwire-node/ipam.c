/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-node ipam show|check: read everything under <prefix>/ipam/ in
 * one range, then print it or cross-check it (handles against block
 * ordinals, blocks against affinities, this node's blackholes against the
 * blocks it holds).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/macro.h"
#include "ipam/cluster-ipam.h"
#include "pwnode.h"

struct node_opts {
	bool json, check;
	const char *node_config;
	const char *endpoints[PWETCD_MAX_ENDPOINTS];
	size_t n_endpoints;
	const char *prefix, *node;
	unsigned protocol;
};

struct akv { /* an affinity */
	char *node;
	struct ip_prefix cidr;
	bool matched;
};

struct model {
	struct cipam_pool pools[64];
	size_t n_pools;
	struct cipam_block *blocks;
	size_t n_blocks;
	struct cipam_handle *handles;
	size_t n_handles;
	struct akv *affs;
	size_t n_affs;
	json_t *problems; /* array of strings */
};

static const char usage[] =
    "usage: podwire-node ipam show|check [--json] [--node-config FILE]\n"
    "       [--etcd-endpoint URL]... [--prefix P] [--node NAME] [--block-protocol N]\n"
    "  show   pools, blocks (affinity, used/free) and allocations (IP, handle, node)\n"
    "  check  exit 1 naming every inconsistency: an IP in two handles, a handle\n"
    "         pointing at a free ordinal, a block without affinity, an affinity\n"
    "         without block, a blackhole on this node for a block it does not hold\n";

static void problem(struct model *m, const char *fmt, ...) _printf_(2, 3);
static void problem(struct model *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(m->problems, json_string(buf));
}

static int parse_args(int argc, char **argv, struct node_opts *o, FILE *err)
{
	static const struct option longs[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"node-config", required_argument, NULL, 'c'},
	    {"etcd-endpoint", required_argument, NULL, 'e'},
	    {"prefix", required_argument, NULL, 'p'},
	    {"node", required_argument, NULL, 'n'},
	    {"block-protocol", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int ch;

	memset(o, 0, sizeof(*o));
	o->protocol = CIPAM_DEFAULT_ROUTE_PROTO;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (ch == 'j')
			o->json = true;
		else if (ch == 'c')
			o->node_config = optarg;
		else if (ch == 'e' && o->n_endpoints < PWETCD_MAX_ENDPOINTS)
			o->endpoints[o->n_endpoints++] = optarg;
		else if (ch == 'p')
			o->prefix = optarg;
		else if (ch == 'n')
			o->node = optarg;
		else if (ch == 'b')
			o->protocol = (unsigned)strtoul(optarg, NULL, 10);
		else if (ch == 'h')
			return fputs(usage, err), 3;
		else
			return fprintf(err, "podwire-node ipam: bad option '%s'\n%s",
				       argv[optind - 1], usage),
			       2;
	}
	if (optind + 1 != argc || (strcmp(argv[optind], "show") && strcmp(argv[optind], "check")))
		return fputs(usage, err), 2;
	o->check = strcmp(argv[optind], "check") == 0;
	if (o->protocol == 0 || o->protocol > 255)
		return fprintf(err, "podwire-node ipam: --block-protocol: not 1..255\n"), 2;
	return 0;
}

/* The node config's "etcd"; endpoints on the command line win (its TLS files stay). */
static int etcd_config(const struct node_opts *o, const struct pwn_conf *c,
		       struct pwetcd_config *ret, FILE *err)
{
	*ret = (struct pwetcd_config){
	    .endpoints = c->etcd_endpoints,
	    .n_endpoints = c->n_etcd_endpoints,
	    .ca_file = c->etcd_ca_file,
	    .cert_file = c->etcd_cert_file,
	    .key_file = c->etcd_key_file,
	    .timeout_ms = c->etcd_timeout_ms,
	};
	if (o->n_endpoints > 0) {
		ret->endpoints = o->endpoints;
		ret->n_endpoints = o->n_endpoints;
	}
	if (ret->n_endpoints == 0) {
		fprintf(err, "podwire-node ipam: no etcd: give --node-config with \"etcd\" or "
			     "--etcd-endpoint\n");
		return -EINVAL;
	}
	return 0;
}

static void add_pool(struct model *m, const struct pwetcd_kv *kv)
{
	const char *why = "";

	if (m->n_pools >= ARRAY_SIZE(m->pools))
		return;
	if (cipam_pool_parse(kv->value ? kv->value : "", kv->value_len, &m->pools[m->n_pools],
			     &why) < 0)
		problem(m, "pool %s unreadable: %s", kv->key, why);
	else
		m->n_pools++;
}

static void add_block(struct model *m, const struct pwetcd_kv *kv, const char *tail)
{
	struct ip_prefix cidr;
	const char *why = "";

	if (cipam_keypart_parse(tail, &cidr) < 0) {
		problem(m, "key %s: not a block key", kv->key);
		return;
	}
	if (cipam_block_parse(kv->value ? kv->value : "", kv->value_len, &cidr,
			      &m->blocks[m->n_blocks], &why) < 0)
		problem(m, "block %s unreadable: %s", kv->key, why);
	else
		m->blocks[m->n_blocks++].mod_revision = kv->mod_revision;
}

static void add_affinity(struct model *m, const struct pwetcd_kv *kv, const char *tail)
{
	const char *slash = strchr(tail, '/');
	struct akv *a = &m->affs[m->n_affs];

	if (!slash || cipam_keypart_parse(slash + 1, &a->cidr) < 0) {
		problem(m, "key %s: not an affinity key", kv->key);
		return;
	}
	a->node = strndup(tail, (size_t)(slash - tail));
	if (a->node)
		m->n_affs++;
}

static void add_handle(struct model *m, const struct pwetcd_kv *kv, const char *tail)
{
	const char *why = "";

	if (cipam_handle_parse(kv->value ? kv->value : "", kv->value_len, &m->handles[m->n_handles],
			       &why) < 0) {
		problem(m, "handle %s unreadable: %s", kv->key, why);
		return;
	}
	if (strcmp(m->handles[m->n_handles].id, tail) != 0) {
		problem(m, "handle %s: its id '%s' differs from its key", kv->key,
			m->handles[m->n_handles].id);
		cipam_handle_done(&m->handles[m->n_handles]);
		return;
	}
	m->n_handles++;
}

static int load_model(struct pwetcd_client *c, const char *prefix, struct model *m, FILE *err)
{
	_cleanup_free_ char *dir = cipam_key_dir(prefix, "", NULL);
	struct pwetcd_range_req rr = {.prefix = true};
	struct pwetcd_range_result res = {0};
	size_t dl;
	int r;

	if (!dir)
		return -ENOMEM;
	dir[strlen(dir) - 1] = '\0'; /* "<prefix>/ipam/" */
	dl = strlen(dir);
	rr.key = dir;
	r = pwetcd_range(c, &rr, &res);
	if (r < 0) {
		fprintf(err, "podwire-node ipam: %s\n", pwetcd_errmsg(c));
		return r;
	}
	m->blocks = calloc(res.n_kvs + 1, sizeof(*m->blocks));
	m->handles = calloc(res.n_kvs + 1, sizeof(*m->handles));
	m->affs = calloc(res.n_kvs + 1, sizeof(*m->affs));
	if (!m->blocks || !m->handles || !m->affs)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < res.n_kvs; i++) {
		const struct pwetcd_kv *kv = &res.kvs[i];
		const char *t = kv->key + dl;

		if (!strncmp(t, "pools/", 6))
			add_pool(m, kv);
		else if (!strncmp(t, "blocks/", 7))
			add_block(m, kv, t + 7);
		else if (!strncmp(t, "affinity/", 9))
			add_affinity(m, kv, t + 9);
		else if (!strncmp(t, "handles/", 8))
			add_handle(m, kv, t + 8);
	}
	pwetcd_range_result_done(&res);
	return r;
}

static void model_done(struct model *m)
{
	for (size_t i = 0; i < m->n_blocks; i++)
		cipam_block_done(&m->blocks[i]);
	for (size_t i = 0; i < m->n_handles; i++)
		cipam_handle_done(&m->handles[i]);
	for (size_t i = 0; i < m->n_affs; i++)
		free(m->affs[i].node);
	free(m->blocks);
	free(m->handles);
	free(m->affs);
	json_decref(m->problems);
}

static bool same_prefix(const struct ip_prefix *a, const struct ip_prefix *b)
{
	return a->family == b->family && a->prefixlen == b->prefixlen &&
	       ip_addr_equal(a->family, &a->addr, &b->addr);
}

static struct cipam_block *block_of(struct model *m, const struct ip_prefix *ip)
{
	for (size_t i = 0; i < m->n_blocks; i++)
		if (ip_prefix_contains(&m->blocks[i].cidr, ip->family, &ip->addr))
			return &m->blocks[i];
	return NULL;
}

static void check_handles(struct model *m)
{
	char a[IP_PREFIX_STRLEN], b[IP_PREFIX_STRLEN];

	for (size_t i = 0; i < m->n_handles; i++) {
		const struct cipam_handle *h = &m->handles[i];

		for (size_t k = 0; k < h->n_ips; k++) {
			const struct ip_prefix *ip = &h->ips[k];
			struct cipam_block *blk = block_of(m, ip);
			const char *holder;

			for (size_t j = 0; j < i; j++)
				for (size_t l = 0; l < m->handles[j].n_ips; l++)
					if (ip_addr_equal(ip->family, &ip->addr,
							  &m->handles[j].ips[l].addr) &&
					    ip->family == m->handles[j].ips[l].family)
						problem(m, "IP %s is in two handles: %s and %s",
							ip_addr_fmt(ip->family, &ip->addr, a),
							m->handles[j].id, h->id);
			if (!blk) {
				problem(m, "handle %s: IP %s is in no block", h->id,
					ip_addr_fmt(ip->family, &ip->addr, a));
				continue;
			}
			holder = blk->used[cipam_block_ordinal(&blk->cidr, &ip->addr)];
			if (!holder)
				problem(m, "handle %s points at a free ordinal: %s of block %s",
					h->id, ip_addr_fmt(ip->family, &ip->addr, a),
					ip_prefix_fmt(&blk->cidr, b));
			else if (strcmp(holder, h->id) != 0)
				problem(m, "handle %s: %s of block %s is held by %s", h->id,
					ip_addr_fmt(ip->family, &ip->addr, a),
					ip_prefix_fmt(&blk->cidr, b), holder);
		}
	}
}

static const struct cipam_handle *handle_by_id(const struct model *m, const char *id)
{
	for (size_t i = 0; i < m->n_handles; i++)
		if (strcmp(m->handles[i].id, id) == 0)
			return &m->handles[i];
	return NULL;
}

static void check_blocks(struct model *m)
{
	char a[IP_PREFIX_STRLEN], b[IP_PREFIX_STRLEN];

	for (size_t i = 0; i < m->n_blocks; i++) {
		const struct cipam_block *blk = &m->blocks[i];
		bool aff = false;

		for (size_t k = 0; k < m->n_affs; k++)
			if (same_prefix(&m->affs[k].cidr, &blk->cidr) && blk->node &&
			    strcmp(m->affs[k].node, blk->node) == 0)
				aff = m->affs[k].matched = true;
		if (blk->node && !aff)
			problem(m, "block %s without affinity (node %s)",
				ip_prefix_fmt(&blk->cidr, a), blk->node);
		for (unsigned o = 0; o < blk->size; o++) {
			union ip_addr ip;

			if (!blk->used[o] || handle_by_id(m, blk->used[o]))
				continue;
			cipam_block_addr(&blk->cidr, o, &ip);
			problem(m, "block %s: %s is allocated to %s, which has no handle",
				ip_prefix_fmt(&blk->cidr, a), ip_addr_fmt(blk->cidr.family, &ip, b),
				blk->used[o]);
		}
	}
	for (size_t k = 0; k < m->n_affs; k++)
		if (!m->affs[k].matched)
			problem(m, "affinity without block: %s -> %s", m->affs[k].node,
				ip_prefix_fmt(&m->affs[k].cidr, a));
}

static bool in_pools(const struct model *m, const struct ip_prefix *p)
{
	for (size_t i = 0; i < m->n_pools; i++)
		if (ip_prefix_contains(&m->pools[i].cidr, p->family, &p->addr) &&
		    p->prefixlen == m->pools[i].block_size)
			return true;
	return false;
}

static void check_routes(struct model *m, const char *node, unsigned protocol)
{
	_cleanup_free_ struct ip_prefix *routes = NULL;
	char a[IP_PREFIX_STRLEN];
	size_t n = 0;
	int r = cipam_route_list(protocol, &routes, &n);

	if (r < 0) {
		problem(m, "cannot list the routes of this node: %s", strerror(-r));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		bool held = false;

		if (!in_pools(m, &routes[i]))
			continue;
		for (size_t k = 0; k < m->n_blocks && !held; k++)
			held = same_prefix(&m->blocks[k].cidr, &routes[i]) && m->blocks[k].node &&
			       strcmp(m->blocks[k].node, node) == 0;
		if (!held)
			problem(m,
				"blackhole route %s proto %u on node %s for a block it does not "
				"hold",
				ip_prefix_fmt(&routes[i], a), protocol, node);
	}
	for (size_t k = 0; k < m->n_blocks; k++) {
		bool found = false;

		if (!m->blocks[k].node || strcmp(m->blocks[k].node, node) != 0)
			continue;
		for (size_t i = 0; i < n && !found; i++)
			found = same_prefix(&m->blocks[k].cidr, &routes[i]);
		if (!found)
			problem(m, "block %s is held by node %s but has no blackhole route there",
				ip_prefix_fmt(&m->blocks[k].cidr, a), node);
	}
}

static json_t *show_json(const struct model *m)
{
	json_t *pools = json_array(), *blocks = json_array(), *allocs = json_array();
	char a[IP_PREFIX_STRLEN];

	for (size_t i = 0; i < m->n_pools; i++) {
		size_t nb = 0;

		for (size_t k = 0; k < m->n_blocks; k++)
			nb += ip_prefix_contains(&m->pools[i].cidr, m->blocks[k].cidr.family,
						 &m->blocks[k].cidr.addr);
		json_array_append_new(pools, json_pack("{sssisI}", "cidr",
						       ip_prefix_fmt(&m->pools[i].cidr, a),
						       "blockSize", (int)m->pools[i].block_size,
						       "blocks", (json_int_t)nb));
	}
	for (size_t k = 0; k < m->n_blocks; k++) {
		const struct cipam_block *b = &m->blocks[k];

		json_array_append_new(
		    blocks,
		    json_pack("{sssosIsI}", "cidr", ip_prefix_fmt(&b->cidr, a), "affinity",
			      b->node ? json_string(b->node) : json_null(), "used",
			      (json_int_t)b->n_used, "free", (json_int_t)(b->size - b->n_used)));
	}
	for (size_t i = 0; i < m->n_handles; i++) {
		const struct cipam_handle *h = &m->handles[i];

		for (size_t k = 0; k < h->n_ips; k++) {
			const struct cipam_block *b = block_of((struct model *)m, &h->ips[k]);

			json_array_append_new(
			    allocs, json_pack("{ss ss ss ss ss ss sb}", "ip",
					      ip_addr_fmt(h->ips[k].family, &h->ips[k].addr, a),
					      "handle", h->id, "node", h->node, "containerID",
					      h->container_id, "ifname", h->ifname, "network",
					      h->network ? h->network : "", "borrowed",
					      b && (!b->node || strcmp(b->node, h->node) != 0)));
		}
	}
	return json_pack("{sososo}", "pools", pools, "blocks", blocks, "allocations", allocs);
}

static void show_text(const json_t *j, FILE *out)
{
	size_t i;
	json_t *v;

	fprintf(out, "%-44s %-9s %s\n", "POOL", "BLOCKSIZE", "BLOCKS");
	json_array_foreach (json_object_get(j, "pools"), i, v)
		fprintf(out, "%-44s %-9lld %lld\n", json_string_value(json_object_get(v, "cidr")),
			json_integer_value(json_object_get(v, "blockSize")),
			json_integer_value(json_object_get(v, "blocks")));
	fprintf(out, "\n%-44s %-20s %-6s %s\n", "BLOCK", "AFFINITY", "USED", "FREE");
	json_array_foreach (json_object_get(j, "blocks"), i, v) {
		const json_t *aff = json_object_get(v, "affinity");

		fprintf(out, "%-44s %-20s %-6lld %lld\n",
			json_string_value(json_object_get(v, "cidr")),
			json_is_string(aff) ? json_string_value(aff) : "-",
			json_integer_value(json_object_get(v, "used")),
			json_integer_value(json_object_get(v, "free")));
	}
	fprintf(out, "\n%-40s %-20s %s\n", "IP", "NODE", "HANDLE");
	json_array_foreach (json_object_get(j, "allocations"), i, v)
		fprintf(out, "%-40s %-20s %s%s\n", json_string_value(json_object_get(v, "ip")),
			json_string_value(json_object_get(v, "node")),
			json_string_value(json_object_get(v, "handle")),
			json_is_true(json_object_get(v, "borrowed")) ? " (borrowed)" : "");
}

static int report(const struct node_opts *o, struct model *m, FILE *out)
{
	size_t i, n = json_array_size(m->problems);
	json_t *v;

	if (!o->check) {
		json_t *j = show_json(m);

		if (o->json) {
			json_object_set(j, "problems", m->problems);
			json_dumpf(j, out, JSON_INDENT(2) | JSON_SORT_KEYS);
			fputc('\n', out);
		} else {
			show_text(j, out);
		}
		json_decref(j);
		return 0;
	}
	if (o->json) {
		json_t *j = json_pack("{sbsO}", "consistent", n == 0, "problems", m->problems);

		json_dumpf(j, out, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', out);
		json_decref(j);
	} else {
		json_array_foreach (m->problems, i, v)
			fprintf(out, "INCONSISTENT: %s\n", json_string_value(v));
		fprintf(out, "ipam check: %zu problem%s\n", n, n == 1 ? "" : "s");
	}
	return n == 0 ? 0 : 1;
}

static int run(const struct node_opts *o, const struct pwetcd_config *cfg, const char *prefix,
	       const char *node, FILE *out, FILE *err)
{
	struct pwetcd_client *c = NULL;
	struct model m = {.problems = json_array()};
	int r = pwetcd_open(cfg, &c);

	if (r < 0) {
		fprintf(err, "podwire-node ipam: bad etcd endpoints\n");
		model_done(&m);
		return 2;
	}
	r = load_model(c, prefix, &m, err);
	pwetcd_close(c);
	if (r < 0) {
		model_done(&m);
		return 2;
	}
	if (o->check) {
		check_handles(&m);
		check_blocks(&m);
		check_routes(&m, node, o->protocol);
	}
	r = report(o, &m, out);
	model_done(&m);
	return r;
}

/* The node config (when given) read by the one parser podwire-node has. */
static int load_conf(const struct node_opts *o, struct pwn_conf *c, FILE *err)
{
	struct cni_error e = {0};

	memset(c, 0, sizeof(*c));
	if (!o->node_config || pwn_conf_load(o->node_config, err, c, &e) >= 0)
		return 0;
	fprintf(err, "podwire-node ipam: %s\n", e.msg ? e.msg : "bad node config");
	cni_error_done(&e);
	return -EINVAL;
}

int pwn_cmd_ipam(int argc, char **argv, FILE *out, FILE *err)
{
	_cleanup_free_ char *prefix = NULL, *node = NULL;
	struct pwetcd_config cfg;
	struct node_opts o;
	struct pwn_conf c;
	char host[256] = "";
	size_t n;
	int r = parse_args(argc, argv, &o, err);

	if (r == 3)
		return 0;
	if (r)
		return r;
	if (load_conf(&o, &c, err) < 0)
		return 2;
	if (etcd_config(&o, &c, &cfg, err) < 0) {
		pwn_conf_done(&c);
		return 2;
	}
	prefix = strdup(o.prefix ? o.prefix : c.etcd_prefix ? c.etcd_prefix : CIPAM_DEFAULT_PREFIX);
	if (o.node || c.node_name)
		node = strdup(o.node ? o.node : c.node_name);
	else if (gethostname(host, sizeof(host) - 1) == 0)
		node = strdup(host);
	n = prefix ? strlen(prefix) : 0;
	while (n > 0 && prefix[n - 1] == '/')
		prefix[--n] = '\0';
	r = prefix && node ? run(&o, &cfg, prefix, node, out, err) : 2;
	pwn_conf_done(&c);
	return r;
}
