/* SPDX-License-Identifier: Apache-2.0 */
/* node-conf.c: the node config JSON -> struct pwn_conf, every key validated. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/conf.h"
#include "pwnode.h"

#define CFG_MAX (1u << 20)
#define BAD(err, ...) cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, __VA_ARGS__)

static const char *const top_keys[] = {
    "nodeName",		  "routerId",	"asNumber",   "addresses",  "peers",
    "routeReflector",	  "birdSocket", "birdConfig", "exportMode", "routeProtocols",
    "podInterfacePrefix", "etcd",	"etcdPrefix", "leaseTtl",   NULL,
};
static const char *const peer_keys[] = {"address", "asNumber", NULL};
static const char *const rr_keys[] = {"clusterId", "clients", NULL};
static const char *const etcd_keys[] = {"endpoints", "caFile",	  "certFile",
					"keyFile",   "timeoutMs", NULL};
static const char *const proto_keys[] = {"pod", "block", "borrowed", NULL};

/*
 * Unknown keys of obj are warnings on `warn` (may be NULL), but one that
 * differs from a known key only in letter case is an error: it was meant.
 */
static int check_unknown(struct cni_error *err, const json_t *obj, const char *path,
			 const char *const *known, FILE *warn)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)obj, key, v) {
		const char *hint = cni_key_case_miss(key, known);

		if (hint && !streq(hint, key))
			return BAD(err, "%s%s'%s': unknown key (did you mean '%s'?)", path,
				   *path ? "." : "", key, hint);
		if (hint || !warn)
			continue;
		hint = cni_key_suggest(key, known);
		fprintf(warn, "podwire-node: warning: unknown key '%s%s%s' ignored%s%s%s\n", path,
			*path ? "." : "", key, hint ? " (did you mean '" : "", hint ? hint : "",
			hint ? "'?)" : "");
	}
	return 0;
}

static int get_ipv4(const struct cni_conf_reader *rd, const char *key, struct in_addr *ret,
		    bool *ret_present)
{
	const char *s = NULL;
	union ip_addr a;
	int r, family;

	r = cni_conf_get_string(rd, key, &s, ret_present);
	if (r < 0 || !s)
		return r;
	if (ip_addr_parse(s, &family, &a) < 0 || family != AF_INET)
		return BAD(rd->err, "%s%s%s: expected an IPv4 address, got \"%s\"", rd->path,
			   *rd->path ? "." : "", key, s);
	*ret = a.in;
	return 0;
}

static int get_dup(const struct cni_conf_reader *rd, const char *key, const char *def, char **ret)
{
	const char *s = def;
	bool present = false;
	int r = cni_conf_get_string(rd, key, &s, &present);

	if (r < 0)
		return r;
	if (present && isempty(s))
		return BAD(rd->err, "%s: must not be empty", key);
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* "10.0.0.1" or "10.0.0.1/24" (the length is kept only for the record). */
static int parse_addr(const struct cni_conf_reader *rd, size_t i, const json_t *v,
		      struct ip_prefix *ret)
{
	const char *s = json_string_value(v);

	if (!s || ip_prefix_parse_full(s, true, ret) < 0) {
		_cleanup_free_ char *repr = cni_json_repr(v);

		return BAD(rd->err, "%s[%zu]: expected an IP address, got %s", rd->path, i,
			   repr ? repr : "?");
	}
	return 0;
}

static int parse_addresses(const struct cni_conf_reader *rd, struct pwn_conf *c)
{
	const struct cni_conf_reader at = cni_conf_at(rd, NULL, "addresses");
	const json_t *arr = NULL;
	size_t i;
	json_t *v;
	int r;

	r = cni_conf_get_array(rd, "addresses", PWN_MAX_ADDRESSES, &arr, NULL);
	if (r < 0)
		return r;
	if (!arr) {
		c->addresses[0].family = AF_INET;
		c->addresses[0].addr.in = c->router_id;
		c->addresses[0].prefixlen = 32;
		c->n_addresses = 1;
		return 0;
	}
	if (json_array_size(arr) == 0)
		return BAD(rd->err, "addresses: expected 1 to %d addresses, got 0",
			   PWN_MAX_ADDRESSES);
	json_array_foreach (arr, i, v) {
		r = parse_addr(&at, i, v, &c->addresses[i]);
		if (r < 0)
			return r;
	}
	c->n_addresses = json_array_size(arr);
	return 0;
}

static bool is_own_address(const struct pwn_conf *c, int family, const union ip_addr *a)
{
	if (family == AF_INET && a->in.s_addr == c->router_id.s_addr)
		return true;
	for (size_t i = 0; i < c->n_addresses; i++)
		if (c->addresses[i].family == family &&
		    ip_addr_equal(family, &c->addresses[i].addr, a))
			return true;
	return false;
}

static int parse_peer(const struct cni_conf_reader *rd, size_t i, const struct pwn_conf *c,
		      struct pwn_peer *p)
{
	char buf[INET6_ADDRSTRLEN];
	const char *s = NULL;
	int r;

	if (!json_is_object(rd->obj))
		return cni_conf_bad_value(rd, NULL, rd->obj, "expected an object");
	r = cni_conf_get_string(rd, "address", &s, NULL);
	if (r < 0)
		return r;
	if (!s)
		return BAD(rd->err, "peers[%zu].address: required", i);
	if (ip_addr_parse(s, &p->family, &p->addr) < 0)
		return BAD(rd->err, "peers[%zu].address: expected an IP address, got \"%s\"", i, s);
	if (is_own_address(c, p->family, &p->addr))
		return BAD(
		    rd->err,
		    "peers[%zu].address: %s is this node's own address (duplicate router id)", i,
		    ip_addr_fmt(p->family, &p->addr, buf));
	p->as = c->as;
	return cni_conf_get_uint(rd, "asNumber", 1, UINT32_MAX, &p->as, NULL);
}

static int find_peer(const struct pwn_conf *c, int family, const union ip_addr *a)
{
	for (size_t i = 0; i < c->n_peers; i++)
		if (c->peers[i].family == family && ip_addr_equal(family, &c->peers[i].addr, a))
			return (int)i;
	return -1;
}

static int parse_peers(const struct cni_conf_reader *rd, struct pwn_conf *c, FILE *warn)
{
	const json_t *arr = NULL;
	char buf[INET6_ADDRSTRLEN], path[48];
	size_t i;
	json_t *v;
	int r;

	r = cni_conf_get_array(rd, "peers", PWN_MAX_PEERS, &arr, NULL);
	if (r < 0 || !arr)
		return r;
	c->peers = calloc(json_array_size(arr) + 1, sizeof(*c->peers));
	if (!c->peers)
		return -ENOMEM;
	json_array_foreach (arr, i, v) {
		const struct cni_conf_reader peer = cni_conf_at(rd, v, path);
		struct pwn_peer p = {0};

		snprintf(path, sizeof(path), "peers[%zu]", i);
		r = parse_peer(&peer, i, c, &p);
		if (r < 0)
			return r;
		if (find_peer(c, p.family, &p.addr) >= 0)
			return BAD(rd->err, "peers[%zu].address: %s is listed twice", i,
				   ip_addr_fmt(p.family, &p.addr, buf));
		r = check_unknown(rd->err, v, "peers[]", peer_keys, warn);
		if (r < 0)
			return r;
		c->peers[c->n_peers++] = p;
	}
	return 0;
}

static int parse_rr_clients(const struct cni_conf_reader *rr, struct pwn_conf *c)
{
	const struct cni_conf_reader at = cni_conf_at(rr, NULL, "routeReflector.clients");
	const json_t *arr = NULL;
	size_t i;
	json_t *v;
	int r;

	r = cni_conf_get_array(rr, "clients", PWN_MAX_PEERS, &arr, NULL);
	if (r < 0 || !arr)
		return r;
	json_array_foreach (arr, i, v) {
		struct ip_prefix p;
		int k;

		r = parse_addr(&at, i, v, &p);
		if (r < 0)
			return r;
		k = find_peer(c, p.family, &p.addr);
		if (k < 0 || p.prefixlen != ip_family_bits(p.family))
			return BAD(rr->err,
				   "routeReflector.clients[%zu]: %s is not one of peers[].address",
				   i, json_string_value(v));
		if (c->peers[k].as != c->as)
			return BAD(rr->err,
				   "routeReflector.clients[%zu]: %s has asNumber %u, a client must "
				   "be in this node's AS %u",
				   i, json_string_value(v), c->peers[k].as, c->as);
		c->peers[k].rr_client = true;
	}
	return 0;
}

static int parse_rr(const struct cni_conf_reader *rd, struct pwn_conf *c, FILE *warn)
{
	struct cni_conf_reader rr;
	const json_t *o = NULL;
	int r;

	r = cni_conf_get_object(rd, "routeReflector", &o, NULL);
	if (r < 0 || !o)
		return r;
	r = check_unknown(rd->err, o, "routeReflector", rr_keys, warn);
	if (r < 0)
		return r;
	rr = cni_conf_at(rd, o, "routeReflector");
	c->is_reflector = true;
	c->rr_cluster_id = c->router_id;
	r = get_ipv4(&rr, "clusterId", &c->rr_cluster_id, NULL);
	if (r < 0)
		return r;
	return parse_rr_clients(&rr, c);
}

static int parse_protos(const struct cni_conf_reader *rd, struct pwn_conf *c, FILE *warn)
{
	unsigned v[3] = {80, 81, 82};
	struct cni_conf_reader protos;
	const json_t *o = NULL;
	int r;

	r = cni_conf_get_object(rd, "routeProtocols", &o, NULL);
	if (r < 0)
		return r;
	if (o) {
		r = check_unknown(rd->err, o, "routeProtocols", proto_keys, warn);
		if (r < 0)
			return r;
		protos = cni_conf_at(rd, o, "routeProtocols");
		for (size_t i = 0; i < 3; i++) {
			/* 0-4 and 12 are the kernel's and BIRD's own: BIRD never learns them. */
			r = cni_conf_get_uint(&protos, proto_keys[i], 5, 255, &v[i], NULL);
			if (r < 0)
				return r;
			if (v[i] == 12)
				return BAD(rd->err, "routeProtocols.%s: 12 is BIRD's own protocol",
					   proto_keys[i]);
		}
		if (v[0] == v[1] || v[0] == v[2] || v[1] == v[2])
			return BAD(rd->err,
				   "routeProtocols: pod, block and borrowed must differ (%u, %u, "
				   "%u)",
				   v[0], v[1], v[2]);
	}
	c->proto_pod = v[0];
	c->proto_block = v[1];
	c->proto_borrowed = v[2];
	return 0;
}

static int parse_export_mode(const struct cni_conf_reader *rd, struct pwn_conf *c)
{
	const char *s = "pods";
	int r = cni_conf_get_string(rd, "exportMode", &s, NULL);

	if (r < 0)
		return r;
	if (streq(s, "pods"))
		c->export_mode = PWN_EXPORT_PODS;
	else if (streq(s, "blocks"))
		c->export_mode = PWN_EXPORT_BLOCKS;
	else
		return BAD(rd->err, "exportMode: expected \"pods\" or \"blocks\", got \"%s\"", s);
	return 0;
}

static bool valid_if_prefix(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 4)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!ascii_isalnum(s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static int parse_identity(const struct cni_conf_reader *rd, struct pwn_conf *c)
{
	bool present = false;
	int r;

	r = get_dup(rd, "nodeName", "", &c->node_name);
	if (r < 0)
		return r;
	if (isempty(c->node_name) || strlen(c->node_name) > PWN_NAME_MAX ||
	    !cni_valid_name(c->node_name))
		return BAD(rd->err,
			   "nodeName: required, 1-%d characters [a-zA-Z0-9_.-], got \"%s\"",
			   PWN_NAME_MAX, c->node_name);
	r = get_ipv4(rd, "routerId", &c->router_id, &present);
	if (r < 0)
		return r;
	if (!present)
		return BAD(rd->err, "routerId: required (an IPv4 address)");
	r = cni_conf_get_uint(rd, "asNumber", 1, UINT32_MAX, &c->as, &present);
	if (r < 0)
		return r;
	if (!present)
		return BAD(rd->err, "asNumber: required (1 to 4294967295)");
	return 0;
}

static bool valid_endpoint(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 ||
	       strncmp(s, "unix:///", 8) == 0;
}

/* The same "etcd" object cluster-ipam reads. */
static int parse_etcd(const struct cni_conf_reader *etcd, struct pwn_conf *c, FILE *warn)
{
	const json_t *arr = NULL;
	size_t i;
	json_t *v;
	int r;

	r = check_unknown(etcd->err, c->etcd, "etcd", etcd_keys, warn);
	if (r < 0)
		return r;
	r = cni_conf_get_array(etcd, "endpoints", PWN_MAX_ENDPOINTS, &arr, NULL);
	if (r < 0)
		return r;
	if (json_array_size(arr) == 0)
		return BAD(etcd->err, "etcd.endpoints: required, 1 to %d URLs", PWN_MAX_ENDPOINTS);
	json_array_foreach (arr, i, v) {
		const char *s = json_string_value(v);

		if (!s || !valid_endpoint(s)) {
			_cleanup_free_ char *repr = cni_json_repr(v);

			return BAD(etcd->err,
				   "etcd.endpoints[%zu]: expected an http://, https:// or unix:/// "
				   "URL, got %s",
				   i, repr ? repr : "?");
		}
		c->etcd_endpoints[i] = s;
	}
	c->n_etcd_endpoints = json_array_size(arr);
	if ((r = cni_conf_get_string(etcd, "caFile", &c->etcd_ca_file, NULL)) < 0 ||
	    (r = cni_conf_get_string(etcd, "certFile", &c->etcd_cert_file, NULL)) < 0 ||
	    (r = cni_conf_get_string(etcd, "keyFile", &c->etcd_key_file, NULL)) < 0)
		return r;
	if (!c->etcd_cert_file != !c->etcd_key_file)
		return BAD(etcd->err, "etcd: certFile and keyFile go together");
	c->etcd_timeout_ms = 2000;
	return cni_conf_get_uint(etcd, "timeoutMs", 1, 600000, &c->etcd_timeout_ms, NULL);
}

static int parse_bird_and_etcd(const struct cni_conf_reader *rd, struct pwn_conf *c, FILE *warn)
{
	struct cni_conf_reader etcd;
	int r;

	r = get_dup(rd, "birdSocket", "/run/bird/bird.ctl", &c->bird_socket);
	if (r < 0)
		return r;
	r = get_dup(rd, "birdConfig", "/etc/bird/bird.conf", &c->bird_config);
	if (r < 0)
		return r;
	r = get_dup(rd, "podInterfacePrefix", "pwr", &c->pod_if_prefix);
	if (r < 0)
		return r;
	if (!valid_if_prefix(c->pod_if_prefix))
		return BAD(rd->err, "podInterfacePrefix: 1-4 characters [a-zA-Z0-9_-], got \"%s\"",
			   c->pod_if_prefix);
	r = cni_conf_get_object(rd, "etcd", &c->etcd, NULL);
	etcd = cni_conf_at(rd, c->etcd, "etcd");
	if (r >= 0 && c->etcd)
		r = parse_etcd(&etcd, c, warn);
	if (r < 0)
		return r;
	r = get_dup(rd, "etcdPrefix", "/podwire", &c->etcd_prefix);
	if (r < 0)
		return r;
	if (c->etcd_prefix[0] != '/')
		return BAD(rd->err, "etcdPrefix: must start with '/', got \"%s\"", c->etcd_prefix);
	c->lease_ttl = 10;
	return cni_conf_get_uint(rd, "leaseTtl", 2, 3600, &c->lease_ttl, NULL);
}

static int parse_root(const json_t *root, struct pwn_conf *c, FILE *warn, struct cni_error *err)
{
	const struct cni_conf_reader rd = {.err = err, .obj = root, .path = ""};
	int r;

	if (!json_is_object(root))
		return BAD(err, "node config: expected a JSON object");
	r = check_unknown(err, root, "", top_keys, warn);
	if (r >= 0)
		r = parse_identity(&rd, c);
	if (r >= 0)
		r = parse_addresses(&rd, c);
	if (r >= 0)
		r = parse_peers(&rd, c, warn);
	if (r >= 0)
		r = parse_rr(&rd, c, warn);
	if (r >= 0)
		r = parse_protos(&rd, c, warn);
	if (r >= 0)
		r = parse_export_mode(&rd, c);
	if (r >= 0)
		r = parse_bird_and_etcd(&rd, c, warn);
	return r;
}

int pwn_conf_parse(const char *buf, size_t len, const char *what, FILE *warn, struct pwn_conf *ret,
		   struct cni_error *err)
{
	json_t *root = NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = cni_json_loadb(buf, len, what, &root, err);
	if (r < 0)
		return r;
	ret->root = root;
	r = parse_root(root, ret, warn, err);
	if (r < 0) {
		if (r == -ENOMEM)
			cni_errorf(err, CNI_ERR_PLUGIN, r, "%s: out of memory", what);
		else
			cni_error_wrapf(err, r, "%s", what);
		pwn_conf_done(ret);
	}
	return r;
}

int pwn_conf_load(const char *path, FILE *warn, struct pwn_conf *ret, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	size_t len = 0;
	ssize_t n;

	memset(ret, 0, sizeof(*ret));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cni_errorf(err, CNI_ERR_IO, -errno, "--node-config %s: cannot open", path);
	buf = malloc(CFG_MAX + 1);
	if (!buf)
		return -ENOMEM;
	while ((n = read(fd, buf + len, CFG_MAX - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		return cni_errorf(err, CNI_ERR_IO, -errno, "--node-config %s: cannot read", path);
	if (len == CFG_MAX)
		return BAD(err, "--node-config %s: larger than %u bytes", path, CFG_MAX);
	return pwn_conf_parse(buf, len, path, warn, ret, err);
}

void pwn_conf_done(struct pwn_conf *c)
{
	if (!c)
		return;
	json_decref(c->root);
	free(c->node_name);
	free(c->peers);
	free(c->pod_if_prefix);
	free(c->bird_socket);
	free(c->bird_config);
	free(c->etcd_prefix);
	memset(c, 0, sizeof(*c));
}
