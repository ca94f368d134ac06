/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-node: the node config (JSON), the peer plan, the bird.conf renderer,
 * the node registry records kept in etcd, and the helpers that write, check
 * and reload BIRD's config. Everything here but pwn_bird_* and pwn_run is
 * pure (no files, no processes) so the unit tests and the fuzzer call it.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "base/ipaddr.h"
#include "cni/error.h"

enum pwn_export_mode {
	PWN_EXPORT_PODS,   /* host-local clusters: export proto pod + borrowed */
	PWN_EXPORT_BLOCKS, /* cluster-ipam clusters: export proto block + borrowed */
};

#define PWN_NAME_MAX 63
#define PWN_MAX_PEERS 4096
#define PWN_MAX_ADDRESSES 8
#define PWN_MAX_ENDPOINTS 16

/* One BGP neighbour of the node, as it ends up in bird.conf. */
struct pwn_peer {
	int family; /* AF_INET or AF_INET6 */
	union ip_addr addr;
	uint32_t as;
	bool rr_client;		     /* this node reflects routes to it */
	char node[PWN_NAME_MAX + 1]; /* registry node name, "" for static peers */
};

struct pwn_conf {
	json_t *root; /* owned reference; etcd is borrowed from it */
	char *node_name;
	struct in_addr router_id;
	uint32_t as;
	/* The node's own BGP addresses (session source, registry record). */
	struct ip_prefix addresses[PWN_MAX_ADDRESSES];
	size_t n_addresses;
	struct pwn_peer *peers; /* static "peers" */
	size_t n_peers;
	bool is_reflector;
	struct in_addr rr_cluster_id;
	enum pwn_export_mode export_mode;
	unsigned proto_pod, proto_block, proto_borrowed;
	char *pod_if_prefix;
	char *bird_socket;
	char *bird_config;
	const json_t *etcd; /* borrowed; NULL when absent */
	/* etcd's keys, validated; strings borrowed from root. */
	const char *etcd_endpoints[PWN_MAX_ENDPOINTS];
	size_t n_etcd_endpoints;
	const char *etcd_ca_file, *etcd_cert_file, *etcd_key_file;
	unsigned etcd_timeout_ms;
	char *etcd_prefix;
	unsigned lease_ttl; /* seconds */
};

/*
 * Parse a node config from JSON text (`what` names the input in messages).
 * Unknown keys are reported as warnings on `warn` (may be NULL). Returns 0,
 * or -EINVAL (err: code 6 for JSON syntax, 7 for a bad key, naming the key
 * and the value), -ENOMEM.
 */
int pwn_conf_parse(const char *buf, size_t len, const char *what, FILE *warn, struct pwn_conf *ret,
		   struct cni_error *err);
/* Read and parse a file; -errno (err names the path) when it cannot be read. */
int pwn_conf_load(const char *path, FILE *warn, struct pwn_conf *ret, struct cni_error *err);
void pwn_conf_done(struct pwn_conf *c);

/* A registered node, as stored under <etcdPrefix>/nodes/<name>. */
struct pwn_node {
	char name[PWN_NAME_MAX + 1];
	struct in_addr router_id;
	uint32_t as;
	struct ip_prefix addresses[PWN_MAX_ADDRESSES];
	size_t n_addresses;
	bool is_reflector;
};

/* This node's own record. */
void pwn_node_from_conf(const struct pwn_conf *c, struct pwn_node *ret);
/* Encode as compact JSON (owned string) or NULL on ENOMEM. */
char *pwn_node_encode(const struct pwn_node *n);
/* Decode a registry value; -EINVAL with err naming the field. */
int pwn_node_decode(const char *buf, size_t len, struct pwn_node *ret, struct cni_error *err);

/*
 * The peer list bird.conf is rendered from: the static peers plus, for each
 * registered node other than this one, one peer per address family both
 * nodes have. Route-reflector rules over the registry: a reflector peers with
 * every other node (non-reflectors become rr clients); a client with the
 * reflectors only when there are any; otherwise everyone peers with
 * everyone. A registered node that reuses this node's router id is skipped
 * and reported on `warn`. The result is sorted (family, address) and has no
 * duplicates. Returns the count (>= 0) with *ret owned, or -ENOMEM.
 */
int pwn_plan_peers(const struct pwn_conf *c, const struct pwn_node *nodes, size_t n_nodes,
		   FILE *warn, struct pwn_peer **ret);

/* Render a complete bird.conf for the plan to out. Returns 0 or -EIO. */
int pwn_bird_render(const struct pwn_conf *c, const struct pwn_peer *peers, size_t n_peers,
		    FILE *out);
/* Render into a new string (owned) or NULL on ENOMEM. */
char *pwn_bird_render_str(const struct pwn_conf *c, const struct pwn_peer *peers, size_t n_peers);

/*
 * The bird binary to use: $PODWIRE_BIRD (test-only) or the first "bird" in
 * PATH (then /usr/sbin, /sbin). Returns NULL when none is found. Same for
 * birdc ($PODWIRE_BIRDC).
 */
const char *pwn_find_bird(char *buf, size_t size);
const char *pwn_find_birdc(char *buf, size_t size);

/*
 * Check text with `bird -p -c <tmp>` and, when path is non-NULL, write it to
 * path through a temp file in the same directory and rename(2). With
 * path NULL the text goes to `out` only once bird accepted it. When bird is
 * not installed the check is skipped (with a warning on `warn`) unless
 * require_bird. Returns 0, or a negative errno with err set (bird's own
 * message in details when it rejected the file).
 */
int pwn_bird_write(const char *text, const char *path, FILE *out, FILE *warn, bool require_bird,
		   struct cni_error *err);

/* `birdc -s <socket> configure`; 0 when BIRD answered that it reconfigured. */
int pwn_birdc_configure(const char *socket, struct cni_error *err);

/*
 * Run a program (argv[0] absolute) and collect stdout+stderr (up to 64 KiB,
 * owned, NUL-terminated) and its exit status. Returns 0 when it ran, or a
 * negative errno when it could not be spawned.
 */
int pwn_spawn(char *const *argv, char **ret_output, int *ret_status);

/* The subcommands (argv[0] is the subcommand name). Exit status. */
int pwn_cmd_bird_config(int argc, char **argv, FILE *out, FILE *err);
int pwn_cmd_run(int argc, char **argv, FILE *out, FILE *err);
/*
 * `ipam show|check` (ipam.c, built with cluster-ipam): cluster-ipam's data
 * in etcd, for operators. Options: --json, --node-config FILE (the node
 * config: its "etcd", "etcdPrefix" and "nodeName"), --etcd-endpoint URL
 * (repeatable; overrides the node config's endpoints), --prefix P
 * (etcdPrefix, default /podwire), --node NAME (whose blackhole routes in
 * the current netns are checked; default: nodeName, else the hostname),
 * --block-protocol N (default 81), --help. Exit status: 0 ok (check:
 * consistent), 1 check found inconsistencies (each named on `out`), 2
 * usage, config or etcd error (on `err`).
 */
int pwn_cmd_ipam(int argc, char **argv, FILE *out, FILE *err);
