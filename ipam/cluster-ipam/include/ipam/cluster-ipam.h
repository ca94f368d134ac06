/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam: cluster-wide block IPAM on etcd v3. Usable as the
 * `cluster-ipam` binary and in-process through ipam_cluster_ops (links
 * pwhttp: libssl is dlopen()ed for https:// etcd endpoints only).
 *
 * The data model, config keys and error codes are in README.md.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"
#include "cni/result.h"
#include "pwetcd/etcd.h"

#define CIPAM_DEFAULT_PREFIX "/podwire"
#define CIPAM_DEFAULT_DATA_DIR "/var/lib/cni/cluster-ipam"
#define CIPAM_DEFAULT_BLOCK_V4 26
#define CIPAM_DEFAULT_BLOCK_V6 122
#define CIPAM_DEFAULT_MAX_BLOCKS 20
#define CIPAM_DEFAULT_GRACE_S 300
#define CIPAM_DEFAULT_ROUTE_PROTO 81
#define CIPAM_MAX_POOLS 16
#define CIPAM_MAX_REQUESTED 8
#define CIPAM_MAX_BLOCK_ADDRS 4096 /* v4 /20, v6 /116 */

extern const struct cni_plugin_ops ipam_cluster_ops;

typedef unsigned __int128 cipam_u128;

struct cipam_pool {
	struct ip_prefix cidr; /* masked */
	unsigned block_size;
};

struct cipam_etcd_conf {
	char *endpoints[PWETCD_MAX_ENDPOINTS];
	size_t n_endpoints;
	char *ca_file, *cert_file, *key_file;
	unsigned timeout_ms;
};

struct cipam_conf {
	char *node;
	char *prefix; /* etcdPrefix, no trailing '/' */
	char *data_dir;
	struct cipam_etcd_conf etcd;
	struct cipam_pool pools[CIPAM_MAX_POOLS];
	size_t n_pools;
	unsigned max_blocks;  /* 0 = no cap */
	bool strict_affinity; /* never borrow */
	unsigned grace_s;     /* empty blocks older than this are released by GC */
	unsigned route_protocol;
	struct ip_prefix requested[CIPAM_MAX_REQUESTED];
	size_t n_requested;
	struct cni_result *routes; /* ipam.routes, NULL when none */
};

/*
 * Parse ctx->conf.ipam. etcd, etcdPrefix, nodeName and dataDir are checked
 * on every command (they decide what is touched); pools, requested IPs and
 * the rest only on ADD/CHECK/STATUS (warned about on DEL/GC). Code 7 naming
 * the key and value. Returns 0 or a negative errno with ctx->err set.
 */
int cipam_conf_parse(struct cni_ctx *ctx, struct cipam_conf *ret);
void cipam_conf_done(struct cipam_conf *c);
/* session_dir: where TLS sessions of https endpoints are kept (NULL: none). */
int cipam_etcd_open(const struct cipam_etcd_conf *c, const char *session_dir,
		    struct pwetcd_client **ret);

/* Address arithmetic (host order 128-bit numbers; IPv4 in the low 32 bits). */
cipam_u128 cipam_addr_num(int family, const union ip_addr *a);
void cipam_num_addr(int family, cipam_u128 n, union ip_addr *ret);
/* Number of blocks of a pool (saturates at 2^120). */
cipam_u128 cipam_pool_blocks(const struct cipam_pool *p);
/* Addresses per block. */
unsigned cipam_block_addrs(int family, unsigned block_size);
/* Block number i of the pool. */
void cipam_pool_block(const struct cipam_pool *p, cipam_u128 i, struct ip_prefix *ret);
/* Index of the block holding addr (addr inside the pool). */
cipam_u128 cipam_pool_block_index(const struct cipam_pool *p, const union ip_addr *a);
/* Ordinal of addr in block b, and back. */
unsigned cipam_block_ordinal(const struct ip_prefix *b, const union ip_addr *a);
void cipam_block_addr(const struct ip_prefix *b, unsigned ordinal, union ip_addr *ret);
/* The configured pool holding addr, or -1. */
int cipam_pool_find(const struct cipam_conf *c, int family, const union ip_addr *a);
/* FNV-1a of s: where a node starts looking for a free block. */
uint64_t cipam_hash(const char *s);

/* Key encoding: fixed-width lowercase hex + "-" + prefix length ("0af40100-26"). */
#define CIPAM_KEYPART_LEN 40
const char *cipam_keypart(const struct ip_prefix *p, char buf[CIPAM_KEYPART_LEN]);
/* Parse "<fam>/<hex>-<len>" (the tail of a block, pool or affinity key). */
int cipam_keypart_parse(const char *s, struct ip_prefix *ret);
char *cipam_key_pool(const char *prefix, const struct ip_prefix *cidr);
char *cipam_key_block(const char *prefix, const struct ip_prefix *cidr);
char *cipam_key_affinity(const char *prefix, const char *node, const struct ip_prefix *cidr);
char *cipam_key_handle(const char *prefix, const char *node, const char *cid, const char *ifname);
/* Key prefixes for ranges: "<prefix>/ipam/<what>/" (node: affinity/handles of that node). */
char *cipam_key_dir(const char *prefix, const char *what, const char *node);
/* Range [*ret_key, *ret_end) of the block keys of a pool. */
int cipam_pool_block_range(const char *prefix, const struct cipam_pool *p, char **ret_key,
			   char **ret_end);

/* Values. */
struct cipam_block {
	struct ip_prefix cidr;
	char *node; /* affinity; NULL = none */
	int64_t claimed, updated;
	uint64_t seq;
	unsigned next; /* where the next allocation starts looking */
	unsigned size;
	char **used; /* size entries: handle ID or NULL */
	unsigned n_used;
	int64_t mod_revision; /* of the key it was read from; 0 = new */
};
int cipam_block_init(struct cipam_block *b, const struct ip_prefix *cidr, const char *node,
		     int64_t now);
void cipam_block_done(struct cipam_block *b);
/*
 * Parse a block value (untrusted: from etcd). key_cidr, when non-NULL, must
 * equal the value's cidr. Returns 0 or -EBADMSG with *why set.
 */
int cipam_block_parse(const char *json, size_t len, const struct ip_prefix *key_cidr,
		      struct cipam_block *ret, const char **why);
char *cipam_block_json(const struct cipam_block *b);
/* First free ordinal at or after b->next (wrapping), or -1 when full. */
int cipam_block_pick(const struct cipam_block *b);
int cipam_block_take(struct cipam_block *b, unsigned ordinal, const char *handle, int64_t now);
/* Free ordinal if held by handle. Returns true when it was. */
bool cipam_block_release(struct cipam_block *b, unsigned ordinal, const char *handle, int64_t now);

#define CIPAM_MAX_HANDLE_IPS 8
struct cipam_handle {
	char *id; /* "<node>/<containerID>/<ifname>" */
	char *node, *container_id, *ifname, *network, *pod;
	int64_t created;
	struct ip_prefix ips[CIPAM_MAX_HANDLE_IPS]; /* IP with its block's prefix length */
	size_t n_ips;
	int64_t mod_revision;
};
void cipam_handle_done(struct cipam_handle *h);
int cipam_handle_parse(const char *json, size_t len, struct cipam_handle *ret, const char **why);
char *cipam_handle_json(const struct cipam_handle *h);

/* Pool value: {"cidr","blockSize"}. */
int cipam_pool_parse(const char *json, size_t len, struct cipam_pool *ret, const char **why);
char *cipam_pool_json(const struct cipam_pool *p);

/* Block routes (blackhole <block> proto N) in the current netns. */
int cipam_route_add(const struct ip_prefix *block, unsigned protocol);
int cipam_route_del(const struct ip_prefix *block, unsigned protocol);
/* Blackholes of this protocol in the current netns (*ret owned). */
int cipam_route_list(unsigned protocol, struct ip_prefix **ret, size_t *ret_n);
