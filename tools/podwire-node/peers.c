/* SPDX-License-Identifier: Apache-2.0 */
/* peers.c: registry records (JSON) and the peer plan bird.conf is rendered from. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "pwnode.h"

void pwn_node_from_conf(const struct pwn_conf *c, struct pwn_node *ret)
{
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->name, sizeof(ret->name), "%s", c->node_name);
	ret->router_id = c->router_id;
	ret->as = c->as;
	memcpy(ret->addresses, c->addresses, sizeof(ret->addresses));
	ret->n_addresses = c->n_addresses;
	ret->is_reflector = c->is_reflector;
}

char *pwn_node_encode(const struct pwn_node *n)
{
	char buf[INET6_ADDRSTRLEN];
	json_t *o, *arr;
	char *s;

	arr = json_array();
	for (size_t i = 0; arr && i < n->n_addresses; i++)
		json_array_append_new(arr, json_string(ip_addr_fmt(n->addresses[i].family,
								   &n->addresses[i].addr, buf)));
	o = json_pack("{s:s, s:s, s:I, s:o*, s:b}", "nodeName", n->name, "routerId",
		      ip_addr_fmt(AF_INET, (const union ip_addr *)&n->router_id, buf), "asNumber",
		      (json_int_t)n->as, "addresses", arr, "routeReflector", n->is_reflector);
	if (!o)
		return NULL;
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

static int decode_fields(const json_t *o, struct pwn_node *n, struct cni_error *err)
{
	const char *name = NULL, *rid = NULL;
	json_int_t as = 0;
	json_t *addrs = NULL, *v;
	int rr = 0, family;
	union ip_addr a;
	size_t i;

	if (json_unpack((json_t *)o, "{s:s, s:s, s:I, s?o, s?b}", "nodeName", &name, "routerId",
			&rid, "asNumber", &as, "addresses", &addrs, "routeReflector", &rr) < 0)
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
				  "registry record: nodeName, routerId and asNumber are required");
	if (strlen(name) > PWN_NAME_MAX || !cni_valid_name(name))
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL, "registry record: bad nodeName");
	if (ip_addr_parse(rid, &family, &a) < 0 || family != AF_INET || as < 1 || as > UINT32_MAX)
		return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
				  "registry record %s: bad routerId or asNumber", name);
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->router_id = a.in;
	n->as = (uint32_t)as;
	n->is_reflector = rr;
	json_array_foreach (addrs, i, v) {
		if (n->n_addresses == PWN_MAX_ADDRESSES || !json_is_string(v) ||
		    ip_prefix_parse_full(json_string_value(v), true,
					 &n->addresses[n->n_addresses]) < 0)
			return cni_errorf(err, CNI_ERR_DECODE, -EINVAL,
					  "registry record %s: bad addresses[%zu]", name, i);
		n->n_addresses++;
	}
	return 0;
}

int pwn_node_decode(const char *buf, size_t len, struct pwn_node *ret, struct cni_error *err)
{
	json_t *o = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = cni_json_loadb(buf, len, "registry record", &o, err);
	if (r < 0)
		return r;
	if (!json_is_object(o))
		r = cni_errorf(err, CNI_ERR_DECODE, -EINVAL, "registry record: not an object");
	else
		r = decode_fields(o, ret, err);
	json_decref(o);
	if (r >= 0 && ret->n_addresses == 0) {
		ret->addresses[0].family = AF_INET;
		ret->addresses[0].addr.in = ret->router_id;
		ret->addresses[0].prefixlen = 32;
		ret->n_addresses = 1;
	}
	return r;
}

static int peer_cmp(const void *a, const void *b)
{
	const struct pwn_peer *x = a, *y = b;

	if (x->family != y->family)
		return x->family == AF_INET ? -1 : 1;
	return memcmp(&x->addr, &y->addr, ip_addr_len(x->family));
}

static bool has_family(const struct ip_prefix *a, size_t n, int family)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].family == family)
			return true;
	return false;
}

/* Should this node peer with registered node n, and is n an rr client of ours? */
static bool wants(const struct pwn_conf *c, const struct pwn_node *n, bool any_rr, bool *ret_client)
{
	*ret_client = false;
	if (c->is_reflector) {
		*ret_client = !n->is_reflector;
		return true;
	}
	return !any_rr || n->is_reflector;
}

static size_t add_node(const struct pwn_conf *c, const struct pwn_node *n, bool client,
		       struct pwn_peer *out)
{
	static const int families[] = {AF_INET, AF_INET6};
	size_t k = 0;

	for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
		if (!has_family(c->addresses, c->n_addresses, families[f]))
			continue;
		for (size_t i = 0; i < n->n_addresses; i++) {
			if (n->addresses[i].family != families[f])
				continue;
			out[k] = (struct pwn_peer){.family = families[f],
						   .addr = n->addresses[i].addr,
						   .as = n->as,
						   .rr_client = client};
			snprintf(out[k].node, sizeof(out[k].node), "%s", n->name);
			k++;
			break;
		}
	}
	return k;
}

static bool any_reflector(const struct pwn_conf *c, const struct pwn_node *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (nodes[i].is_reflector && !streq(nodes[i].name, c->node_name))
			return true;
	return false;
}

static bool is_static(const struct pwn_conf *c, const struct pwn_peer *q)
{
	for (size_t i = 0; i < c->n_peers; i++)
		if (peer_cmp(&c->peers[i], q) == 0)
			return true;
	return false;
}

/* Sort, then drop duplicates of one address (two nodes registering it). */
static size_t sort_unique(struct pwn_peer *p, size_t n)
{
	size_t k = 0;

	qsort(p, n, sizeof(*p), peer_cmp);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || peer_cmp(&p[k - 1], &p[i]) != 0)
			p[k++] = p[i];
	return k;
}

int pwn_plan_peers(const struct pwn_conf *c, const struct pwn_node *nodes, size_t n_nodes,
		   FILE *warn, struct pwn_peer **ret)
{
	bool any_rr = any_reflector(c, nodes, n_nodes);
	struct pwn_peer *p;
	size_t k = c->n_peers, n;

	p = calloc(c->n_peers + 2 * n_nodes + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (c->n_peers)
		memcpy(p, c->peers, c->n_peers * sizeof(*p));
	for (size_t i = 0; i < n_nodes; i++) {
		bool client;

		if (streq(nodes[i].name, c->node_name))
			continue;
		if (nodes[i].router_id.s_addr == c->router_id.s_addr) {
			if (warn)
				fprintf(warn,
					"podwire-node: node %s registers this node's router id; "
					"ignored (duplicate router id)\n",
					nodes[i].name);
			continue;
		}
		if (!wants(c, &nodes[i], any_rr, &client))
			continue;
		n = add_node(c, &nodes[i], client, p + k);
		for (size_t j = 0, base = k; j < n; j++)
			if (!is_static(c, &p[base + j]))
				p[k++] = p[base + j];
	}
	k = sort_unique(p, k);
	*ret = p;
	return (int)k;
}
