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

static void warn_unknown(const json_t *obj, const char *path, const char *const *known, FILE *warn)
{
	const char *key;
	json_t *v;

	if (!warn)
		return;
	json_object_foreach ((json_t *)obj, key, v) {
		const char *hint;
		bool found = false;

		for (size_t i = 0; known[i]; i++)
			found = found || streq(known[i], key);
		if (found)
			continue;
		hint = cni_key_suggest(key, known);
		fprintf(warn, "podwire-node: warning: unknown key '%s%s%s' ignored%s%s%s\n", path,
			*path ? "." : "", key, hint ? " (did you mean '" : "", hint ? hint : "",
			hint ? "'?)" : "");
	}
}

/* A string member; -EINVAL when present with another type. */
static int get_str(const json_t *obj, const char *path, const char *key, const char **ret,
		   struct cni_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		_cleanup_free_ char *repr = cni_json_repr(v);

		return BAD(err, "%s%s: expected a string, got %s", path, key, repr ? repr : "?");
	}
	*ret = json_string_value(v);
	return 1;
}

static int get_uint(const json_t *obj, const char *path, const char *key, json_int_t min,
		    json_int_t max, json_int_t *ret, struct cni_error *err)
{
	json_t *v = json_object_get(obj, key);
	json_int_t n;

	if (!v || json_is_null(v))
		return 0;
	if (!cni_json_whole_number(v, &n) || n < min || n > max) {
		_cleanup_free_ char *repr = cni_json_repr(v);

		return BAD(err, "%s%s: expected an integer from %lld to %lld, got %s", path, key,
			   (long long)min, (long long)max, repr ? repr : "?");
	}
	*ret = n;
	return 1;
}

static int get_typed(const json_t *obj, const char *path, const char *key, json_type type,
		     const json_t **ret, struct cni_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v || json_is_null(v))
		return 0;
	if (json_typeof(v) != type) {
		_cleanup_free_ char *repr = cni_json_repr(v);

		return BAD(err, "%s%s: expected %s, got %s", path, key,
			   type == JSON_OBJECT ? "an object" : "an array", repr ? repr : "?");
	}
	*ret = v;
	return 1;
}

static int get_ipv4(const json_t *obj, const char *path, const char *key, struct in_addr *ret,
		    struct cni_error *err)
{
	const char *s = NULL;
	union ip_addr a;
	int r, family;

	r = get_str(obj, path, key, &s, err);
	if (r <= 0)
		return r;
	if (ip_addr_parse(s, &family, &a) < 0 || family != AF_INET)
		return BAD(err, "%s%s: expected an IPv4 address, got \"%s\"", path, key, s);
	*ret = a.in;
	return 1;
}

static int get_dup(const json_t *obj, const char *key, const char *def, char **ret,
		   struct cni_error *err)
{
	const char *s = def;
	int r = get_str(obj, "", key, &s, err);

	if (r < 0)
		return r;
	if (r > 0 && isempty(s))
		return BAD(err, "%s: must not be empty", key);
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* "10.0.0.1" or "10.0.0.1/24" (the length is kept only for the record). */
static int parse_addr(const json_t *v, const char *path, size_t i, struct ip_prefix *ret,
		      struct cni_error *err)
{
	const char *s = json_string_value(v);

	if (!s || ip_prefix_parse_full(s, true, ret) < 0) {
		_cleanup_free_ char *repr = cni_json_repr(v);

		return BAD(err, "%s[%zu]: expected an IP address, got %s", path, i,
			   repr ? repr : "?");
	}
	return 0;
}

static int parse_addresses(const json_t *root, struct pwn_conf *c, struct cni_error *err)
{
	const json_t *arr = NULL;
	size_t i;
	json_t *v;
	int r;

	r = get_typed(root, "", "addresses", JSON_ARRAY, &arr, err);
	if (r < 0)
		return r;
	if (r == 0) {
		c->addresses[0].family = AF_INET;
		c->addresses[0].addr.in = c->router_id;
		c->addresses[0].prefixlen = 32;
		c->n_addresses = 1;
		return 0;
	}
	if (json_array_size(arr) == 0 || json_array_size(arr) > PWN_MAX_ADDRESSES)
		return BAD(err, "addresses: expected 1 to %d addresses, got %zu", PWN_MAX_ADDRESSES,
			   json_array_size(arr));
	json_array_foreach (arr, i, v) {
		r = parse_addr(v, "addresses", i, &c->addresses[i], err);
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

static int parse_peer(const json_t *v, size_t i, const struct pwn_conf *c, struct pwn_peer *p,
		      struct cni_error *err)
{
	char path[48], buf[INET6_ADDRSTRLEN];
	const char *s = NULL;
	json_int_t as = c->as;
	int r;

	snprintf(path, sizeof(path), "peers[%zu].", i);
	if (!json_is_object(v))
		return BAD(err, "peers[%zu]: expected an object", i);
	r = get_str(v, path, "address", &s, err);
	if (r < 0)
		return r;
	if (r == 0)
		return BAD(err, "peers[%zu].address: required", i);
	if (ip_addr_parse(s, &p->family, &p->addr) < 0)
		return BAD(err, "peers[%zu].address: expected an IP address, got \"%s\"", i, s);
	if (is_own_address(c, p->family, &p->addr))
		return BAD(
		    err, "peers[%zu].address: %s is this node's own address (duplicate router id)",
		    i, ip_addr_fmt(p->family, &p->addr, buf));
	r = get_uint(v, path, "asNumber", 1, UINT32_MAX, &as, err);
	if (r < 0)
		return r;
	p->as = (uint32_t)as;
	return 0;
}

static int find_peer(const struct pwn_conf *c, int family, const union ip_addr *a)
{
	for (size_t i = 0; i < c->n_peers; i++)
		if (c->peers[i].family == family && ip_addr_equal(family, &c->peers[i].addr, a))
			return (int)i;
	return -1;
}

static int parse_peers(const json_t *root, struct pwn_conf *c, FILE *warn, struct cni_error *err)
{
	const json_t *arr = NULL;
	char buf[INET6_ADDRSTRLEN];
	size_t i;
	json_t *v;
	int r;

	r = get_typed(root, "", "peers", JSON_ARRAY, &arr, err);
	if (r <= 0)
		return r;
	if (json_array_size(arr) > PWN_MAX_PEERS)
		return BAD(err, "peers: at most %d peers, got %zu", PWN_MAX_PEERS,
			   json_array_size(arr));
	c->peers = calloc(json_array_size(arr) + 1, sizeof(*c->peers));
	if (!c->peers)
		return -ENOMEM;
	json_array_foreach (arr, i, v) {
		struct pwn_peer p = {0};

		r = parse_peer(v, i, c, &p, err);
		if (r < 0)
			return r;
		if (find_peer(c, p.family, &p.addr) >= 0)
			return BAD(err, "peers[%zu].address: %s is listed twice", i,
				   ip_addr_fmt(p.family, &p.addr, buf));
		if (json_is_object(v))
			warn_unknown(v, "peers[]", peer_keys, warn);
		c->peers[c->n_peers++] = p;
	}
	return 0;
}

static int parse_rr_clients(const json_t *rr, struct pwn_conf *c, struct cni_error *err)
{
	const json_t *arr = NULL;
	size_t i;
	json_t *v;
	int r;

	r = get_typed(rr, "routeReflector.", "clients", JSON_ARRAY, &arr, err);
	if (r <= 0)
		return r;
	json_array_foreach (arr, i, v) {
		struct ip_prefix p;
		int k;

		r = parse_addr(v, "routeReflector.clients", i, &p, err);
		if (r < 0)
			return r;
		k = find_peer(c, p.family, &p.addr);
		if (k < 0 || p.prefixlen != ip_family_bits(p.family))
			return BAD(err,
				   "routeReflector.clients[%zu]: %s is not one of peers[].address",
				   i, json_string_value(v));
		if (c->peers[k].as != c->as)
			return BAD(err,
				   "routeReflector.clients[%zu]: %s has asNumber %u, a client must "
				   "be in this node's AS %u",
				   i, json_string_value(v), c->peers[k].as, c->as);
		c->peers[k].rr_client = true;
	}
	return 0;
}

static int parse_rr(const json_t *root, struct pwn_conf *c, FILE *warn, struct cni_error *err)
{
	const json_t *rr = NULL;
	int r;

	r = get_typed(root, "", "routeReflector", JSON_OBJECT, &rr, err);
	if (r <= 0)
		return r;
	warn_unknown(rr, "routeReflector", rr_keys, warn);
	c->is_reflector = true;
	c->rr_cluster_id = c->router_id;
	r = get_ipv4(rr, "routeReflector.", "clusterId", &c->rr_cluster_id, err);
	if (r < 0)
		return r;
	return parse_rr_clients(rr, c, err);
}

static int parse_protos(const json_t *root, struct pwn_conf *c, FILE *warn, struct cni_error *err)
{
	const json_t *o = NULL;
	json_int_t v[3] = {80, 81, 82};
	int r;

	r = get_typed(root, "", "routeProtocols", JSON_OBJECT, &o, err);
	if (r < 0)
		return r;
	if (r > 0) {
		warn_unknown(o, "routeProtocols", proto_keys, warn);
		for (size_t i = 0; i < 3; i++) {
			/* 0-4 and 12 are the kernel's and BIRD's own: BIRD never learns them. */
			r = get_uint(o, "routeProtocols.", proto_keys[i], 5, 255, &v[i], err);
			if (r < 0)
				return r;
			if (v[i] == 12)
				return BAD(err, "routeProtocols.%s: 12 is BIRD's own protocol",
					   proto_keys[i]);
		}
		if (v[0] == v[1] || v[0] == v[2] || v[1] == v[2])
			return BAD(err,
				   "routeProtocols: pod, block and borrowed must differ (%lld, "
				   "%lld, %lld)",
				   (long long)v[0], (long long)v[1], (long long)v[2]);
	}
	c->proto_pod = (unsigned)v[0];
	c->proto_block = (unsigned)v[1];
	c->proto_borrowed = (unsigned)v[2];
	return 0;
}

static int parse_export_mode(const json_t *root, struct pwn_conf *c, struct cni_error *err)
{
	const char *s = "pods";
	int r = get_str(root, "", "exportMode", &s, err);

	if (r < 0)
		return r;
	if (streq(s, "pods"))
		c->export_mode = PWN_EXPORT_PODS;
	else if (streq(s, "blocks"))
		c->export_mode = PWN_EXPORT_BLOCKS;
	else
		return BAD(err, "exportMode: expected \"pods\" or \"blocks\", got \"%s\"", s);
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

static int parse_identity(const json_t *root, struct pwn_conf *c, struct cni_error *err)
{
	json_int_t as = 0;
	int r;

	r = get_dup(root, "nodeName", "", &c->node_name, err);
	if (r < 0)
		return r;
	if (isempty(c->node_name) || strlen(c->node_name) > PWN_NAME_MAX ||
	    !cni_valid_name(c->node_name))
		return BAD(err, "nodeName: required, 1-%d characters [a-zA-Z0-9_.-], got \"%s\"",
			   PWN_NAME_MAX, c->node_name);
	r = get_ipv4(root, "", "routerId", &c->router_id, err);
	if (r < 0)
		return r;
	if (r == 0)
		return BAD(err, "routerId: required (an IPv4 address)");
	r = get_uint(root, "", "asNumber", 1, UINT32_MAX, &as, err);
	if (r < 0)
		return r;
	if (r == 0)
		return BAD(err, "asNumber: required (1 to 4294967295)");
	c->as = (uint32_t)as;
	return 0;
}

static bool valid_endpoint(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0 ||
	       strncmp(s, "unix:///", 8) == 0;
}

/* The same "etcd" object cluster-ipam reads. */
static int parse_etcd(struct pwn_conf *c, FILE *warn, struct cni_error *err)
{
	const json_t *arr = NULL;
	json_int_t ms = 2000;
	size_t i;
	json_t *v;
	int r;

	warn_unknown(c->etcd, "etcd", etcd_keys, warn);
	r = get_typed(c->etcd, "etcd.", "endpoints", JSON_ARRAY, &arr, err);
	if (r < 0)
		return r;
	if (r == 0 || json_array_size(arr) == 0 || json_array_size(arr) > PWN_MAX_ENDPOINTS)
		return BAD(err, "etcd.endpoints: required, 1 to %d URLs", PWN_MAX_ENDPOINTS);
	json_array_foreach (arr, i, v) {
		const char *s = json_string_value(v);

		if (!s || !valid_endpoint(s)) {
			_cleanup_free_ char *repr = cni_json_repr(v);

			return BAD(err,
				   "etcd.endpoints[%zu]: expected an http://, https:// or unix:/// "
				   "URL, got %s",
				   i, repr ? repr : "?");
		}
		c->etcd_endpoints[i] = s;
	}
	c->n_etcd_endpoints = json_array_size(arr);
	if ((r = get_str(c->etcd, "etcd.", "caFile", &c->etcd_ca_file, err)) < 0 ||
	    (r = get_str(c->etcd, "etcd.", "certFile", &c->etcd_cert_file, err)) < 0 ||
	    (r = get_str(c->etcd, "etcd.", "keyFile", &c->etcd_key_file, err)) < 0)
		return r;
	if (!c->etcd_cert_file != !c->etcd_key_file)
		return BAD(err, "etcd: certFile and keyFile go together");
	r = get_uint(c->etcd, "etcd.", "timeoutMs", 1, 600000, &ms, err);
	if (r < 0)
		return r;
	c->etcd_timeout_ms = (unsigned)ms;
	return 0;
}

static int parse_bird_and_etcd(const json_t *root, struct pwn_conf *c, FILE *warn,
			       struct cni_error *err)
{
	json_int_t ttl = 10;
	int r;

	r = get_dup(root, "birdSocket", "/run/bird/bird.ctl", &c->bird_socket, err);
	if (r < 0)
		return r;
	r = get_dup(root, "birdConfig", "/etc/bird/bird.conf", &c->bird_config, err);
	if (r < 0)
		return r;
	r = get_dup(root, "podInterfacePrefix", "pwr", &c->pod_if_prefix, err);
	if (r < 0)
		return r;
	if (!valid_if_prefix(c->pod_if_prefix))
		return BAD(err, "podInterfacePrefix: 1-4 characters [a-zA-Z0-9_-], got \"%s\"",
			   c->pod_if_prefix);
	r = get_typed(root, "", "etcd", JSON_OBJECT, &c->etcd, err);
	if (r < 0)
		return r;
	if (r > 0 && (r = parse_etcd(c, warn, err)) < 0)
		return r;
	r = get_dup(root, "etcdPrefix", "/podwire", &c->etcd_prefix, err);
	if (r < 0)
		return r;
	if (c->etcd_prefix[0] != '/')
		return BAD(err, "etcdPrefix: must start with '/', got \"%s\"", c->etcd_prefix);
	r = get_uint(root, "", "leaseTtl", 2, 3600, &ttl, err);
	if (r < 0)
		return r;
	c->lease_ttl = (unsigned)ttl;
	return 0;
}

static int parse_root(const json_t *root, struct pwn_conf *c, FILE *warn, struct cni_error *err)
{
	int r;

	if (!json_is_object(root))
		return BAD(err, "node config: expected a JSON object");
	warn_unknown(root, "", top_keys, warn);
	r = parse_identity(root, c, err);
	if (r >= 0)
		r = parse_addresses(root, c, err);
	if (r >= 0)
		r = parse_peers(root, c, warn, err);
	if (r >= 0)
		r = parse_rr(root, c, warn, err);
	if (r >= 0)
		r = parse_protos(root, c, warn, err);
	if (r >= 0)
		r = parse_export_mode(root, c, err);
	if (r >= 0)
		r = parse_bird_and_etcd(root, c, warn, err);
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
