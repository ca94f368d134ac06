/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-inspect: the node's pod attachments as the plugins keep them (the
 * libcni result cache, multinet's cache, sriov-rdma's state records, host-local
 * leases, host veths tagged "podwire:<network>/<containerID>/<ifname>") joined
 * with live counters (link stats64 from one RTM_GETLINK dump per netns, RDMA
 * port and hw counters from sysfs) and health (netns present, CHECK).
 *
 * Flow: sources (read files, never a crash on bad ones: each bad file becomes
 * one pi_file_error) -> live (netlink dumps, sysfs) -> health -> output.
 * Ownership: a struct pi_inv owns everything hanging from it.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "nlw/link.h"

struct cni_cache_entry;

/* Defaults: where the plugins keep their state. */
#define PI_DEFAULT_CACHE_DIR "/var/lib/cni"
#define PI_DEFAULT_MULTINET_DIR "/var/lib/cni/multinet"
#define PI_DEFAULT_STATE_DIR "/var/lib/cni/sriov-rdma"
#define PI_DEFAULT_LEASE_DIR "/var/lib/cni/networks"
#define PI_DEFAULT_SYSFS_ROOT "/sys"
/* Caps on untrusted input sizes. */
#define PI_FILE_MAX (4u << 20)
#define PI_DIR_MAX_FILES 65536

/* Where an attachment was seen (bit set). */
enum {
	PI_SRC_CACHE = 1u << 0,	   /* libcni result cache */
	PI_SRC_MULTINET = 1u << 1, /* multinet's cache (a delegate of a pod) */
	PI_SRC_SRIOV = 1u << 2,	   /* sriov-rdma state record */
	PI_SRC_VETH = 1u << 3,	   /* podwire-tagged host veth */
	PI_SRC_LEASE = 1u << 4,	   /* host-local lease */
};

enum pi_netns_state {
	PI_NETNS_UNKNOWN = 0, /* not recorded anywhere */
	PI_NETNS_PRESENT,
	PI_NETNS_GONE, /* recorded, but the path no longer opens as a netns */
};

enum pi_check_state {
	PI_CHECK_NOT_RUN = 0,
	PI_CHECK_OK,
	PI_CHECK_FAILED,
	PI_CHECK_SKIPPED, /* nothing to check with (no cached config), reason in check_msg */
};

struct pi_counter {
	char *name;
	uint64_t value;
};

struct pi_counters {
	struct pi_counter *v;
	size_t n;
};

struct pi_rdma_port {
	unsigned port;
	char *state;			/* "4: ACTIVE" or NULL */
	char *link_layer;		/* "Ethernet", "InfiniBand" or NULL */
	struct pi_counters counters;	/* ports/<p>/counters */
	struct pi_counters hw_counters; /* ports/<p>/hw_counters (lifespan excluded) */
};

struct pi_att {
	char *container_id;
	char *ifname;
	char *network;
	char *netns; /* path, or NULL */
	char *pod_namespace, *pod_name, *pod_uid;
	char **plugins; /* chain of plugin types, in order */
	size_t n_plugins;
	unsigned sources;
	char **files;	    /* every state file naming this attachment */
	unsigned *file_src; /* PI_SRC_* of files[i] */
	size_t n_files;
	struct cni_cache_entry *cache; /* libcni entry (for --check), owned, or NULL */
	char **ips;		       /* "10.1.2.3/24" */
	size_t n_ips;
	char mac[18];		    /* pod-side MAC from the result or the live link, or "" */
	char host_ifname[IFNAMSIZ]; /* veth peer on the host, or "" */
	char bridge[IFNAMSIZ];	    /* the host veth's master, or "" */
	char *vf_pci;		    /* SR-IOV VF PCI address */
	char *pf;		    /* its PF netdev */
	char *rdma_dev;		    /* RDMA device name */
	bool sriov_incomplete;	    /* state record with complete: false */
	/* live */
	enum pi_netns_state netns_state;
	bool pod_link_found;
	bool pod_link_up;
	unsigned nft_elements; /* podwire nftables elements tagged with this attachment */
	bool has_pod_stats, has_host_stats;
	struct nlw_link_stats pod_stats, host_stats;
	struct pi_rdma_port *rdma_ports;
	size_t n_rdma_ports;
	char *rdma_error;	 /* why no counters were read, or NULL */
	const char *rdma_source; /* "sysfs", "nldev" (STAT_GET in the pod netns) or NULL */
	/* health: what inspection found wrong ("netns gone", ...) */
	char **problems;
	size_t n_problems;
	enum pi_check_state check;
	char *check_msg;
};

struct pi_file_error {
	char *path;
	char *msg;
};

/* A podwire-made object that no attachment explains (a GC candidate). */
struct pi_leak {
	char *kind; /* "host-veth", "nft-element", "lease", "sriov-state", "multinet-cache",
		     * "result-cache" */
	char *object;
	char *reason;
	char *container_id, *ifname, *network; /* as tagged, or NULL */
};

/*
 * A VF that sriov-rdma recorded as lost: its netdev did not come back to the
 * host at DEL (<state-dir>/lost/<BDF>.json); GC or the next ADD restores it.
 */
struct pi_lost_vf {
	char *file;
	char *pci, *pf, *netdev, *mac; /* netdev and mac: what it is restored to */
	char *container_id, *ifname, *network, *rdma_dev, *reason;
	int vf;
	unsigned mtu;
	long long lost_at; /* Unix time, seconds */
};

struct pi_inv {
	bool keep_cache; /* keep each libcni entry on its attachment (--check needs it) */
	struct pi_att *atts;
	size_t n_atts, cap_atts;
	struct pi_file_error *errors;
	size_t n_errors, cap_errors;
	struct pi_leak *leaks;
	size_t n_leaks, cap_leaks;
	struct pi_lost_vf *lost;
	size_t n_lost, cap_lost;
	/* host veths tagged podwire but matching no attachment, kept for leaks */
	char **stray_veths; /* "<name>\t<network>/<cid>/<ifname>" */
	size_t n_stray_veths;
};

struct pi_options {
	const char *cache_dir;
	const char *multinet_dir;
	const char *state_dir;
	const char *lease_dir;
	const char *sysfs_root;
	const char *cni_path; /* for --check; NULL: $CNI_PATH */
	bool check;
	bool live; /* false: no netlink (--no-netlink) */
};

/* ---- model.c ---- */
void pi_inv_init(struct pi_inv *inv);
void pi_inv_done(struct pi_inv *inv);
/* Find the attachment (container ID, ifname), or create it. NULL on ENOMEM. */
struct pi_att *pi_inv_get(struct pi_inv *inv, const char *container_id, const char *ifname);
struct pi_att *pi_inv_find(const struct pi_inv *inv, const char *container_id, const char *ifname);
/* Sort attachments by (pod, network, ifname, container ID) for stable output. */
void pi_inv_sort(struct pi_inv *inv);
int pi_inv_file_error(struct pi_inv *inv, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int pi_inv_leak(struct pi_inv *inv, const char *kind, const char *object, const char *reason,
		const struct pi_att *tag);
/* A new, zeroed lost-VF entry of inv. NULL on ENOMEM. */
struct pi_lost_vf *pi_inv_add_lost(struct pi_inv *inv);
/* Set *slot to a copy of s if it is unset (first source wins). */
int pi_set_str(char **slot, const char *s);
int pi_att_add_file(struct pi_att *a, const char *path, unsigned src);
int pi_att_add_ip(struct pi_att *a, const char *ip);
int pi_att_add_plugin(struct pi_att *a, const char *type);
int pi_att_add_problem(struct pi_att *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool pi_att_has_plugin(const struct pi_att *a, const char *type);
/* "ok", "degraded" (problems or CHECK failed) */
const char *pi_att_health(const struct pi_att *a);
/* A short name for the host side: host veth, else VF PCI address, else "". */
const char *pi_att_device(const struct pi_att *a);
void pi_counters_done(struct pi_counters *c);
int pi_counters_add(struct pi_counters *c, const char *name, uint64_t value);
const struct pi_counter *pi_counters_find(const struct pi_counters *c, const char *name);

/* ---- parse.c: pure parsers of the files (fuzzed) ---- */
/*
 * Merge what a parsed libcni cache entry says into the inventory (pod from
 * CNI_ARGS K8S_POD_*, chain, IPs, MAC and host device from the result).
 * Takes ownership of e. `path` names the file.
 */
int pi_merge_cache_entry(struct pi_inv *inv, struct cni_cache_entry *e, const char *path);
/* A multinet cache file (multinetCacheV1): one attachment per delegate. */
int pi_parse_multinet(struct pi_inv *inv, const char *buf, size_t len, const char *path);
/* A sriov-rdma state record (<BDF>.json). */
int pi_parse_sriov(struct pi_inv *inv, const char *buf, size_t len, const char *path);
/* A sriov-rdma lost-VF record (lost/<BDF>.json). */
int pi_parse_sriov_lost(struct pi_inv *inv, const char *buf, size_t len, const char *path);
/*
 * A host-local lease file "<containerID>\r\n<ifname>" (or a legacy one with
 * only the container ID). Returns 0 and owned strings (*ifname may be NULL).
 */
int pi_parse_lease(const char *buf, size_t len, char **container_id, char **ifname);
/* What a result says: IPs, pod MAC, host device. */
void pi_merge_result(struct pi_att *a, const json_t *result);

/* ---- sources.c: directory scans ---- */
/* Read every source under opt's directories into inv (per-file errors kept). */
int pi_read_sources(struct pi_inv *inv, const struct pi_options *opt);
/* Leases are matched, not listed: called after every source and the live scan. */
int pi_find_lease_leaks(struct pi_inv *inv, const char *lease_dir);
/* Read a whole regular file (at most PI_FILE_MAX bytes). 0, or -errno / -EFBIG. */
int pi_read_file_at(int dirfd, const char *name, char **ret, size_t *ret_len);

/* ---- rdma.c: sysfs counters ---- */
/*
 * Read <root>/class/infiniband/<dev>/ports/ * /{counters,hw_counters,state,
 * link_layer} into a's rdma_ports. A missing device sets rdma_error.
 */
int pi_rdma_read(struct pi_att *a, const char *sysfs_root);
/* The RDMA device of a VF from <root>/bus/pci/devices/<pci>/infiniband/. */
int pi_rdma_dev_of_pci(const char *sysfs_root, const char *pci, char **ret);

/* RDMA devices of VFs (sysfs) and every device's counters. */
int pi_rdma_scan(struct pi_inv *inv, const char *sysfs_root);

/* ---- live.c: netlink ---- */
/* Host dump (tagged veths), per-netns dumps (pod link), netns presence. */
int pi_live_scan(struct pi_inv *inv, const struct pi_options *opt);
/*
 * RDMA devices sysfs does not show (exclusive mode: they live in the pod's
 * netns): hw counters by nldev STAT_GET through a socket in the pod netns.
 */
int pi_rdma_nldev_scan(struct pi_inv *inv);
/* Attachments from cache files whose netns is gone, state without attachment, ... */
int pi_find_leaks(struct pi_inv *inv);

/* ---- check.c ---- */
int pi_run_checks(struct pi_inv *inv, const struct pi_options *opt);

/* ---- output.c ---- */
/* The documented JSON document (schema in README.md). New reference. */
json_t *pi_json(const struct pi_inv *inv, bool with_leaks);
/*
 * The same document as text, one attachment per line, built piece by piece
 * (a fraction of the whole tree's memory) but returned whole, so nothing is
 * printed unless all of it was made. Owned; NULL on ENOMEM.
 */
char *pi_json_text(const struct pi_inv *inv, bool with_leaks);
void pi_print_table(FILE *f, const struct pi_inv *inv, bool verbose);
void pi_print_leaks(FILE *f, const struct pi_inv *inv);
/* "2026-12-07T19:30:00Z" of a Unix time. */
void pi_time_str(long long t, char buf[32]);
void pi_print_prometheus(FILE *f, const struct pi_inv *inv);
/* Rates between two samples taken `seconds` apart (--watch). */
json_t *pi_rates_json(const struct pi_inv *a, const struct pi_inv *b, double seconds);
void pi_print_rates(FILE *f, const struct pi_inv *a, const struct pi_inv *b, double seconds);

/* ---- cli.c ---- */
int pi_main(int argc, char **argv);
