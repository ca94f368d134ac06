/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Links: get by name/index (single GET, never a dump), create veth (peer
 * placed directly in another netns), bridge, macvlan, vxlan; set attributes;
 * move between namespaces; delete; bridge port flags and bridge VLANs.
 *
 * Ownership: params structs and their strings are borrowed for the call only.
 * Common errors of every request: -ENOMEM, -EMSGSIZE (request does not fit
 * the buffer), -EINVAL (bad parameter), and whatever the kernel returns, with
 * its extended-ACK text in nlw_sock_ext_ack(). Typical kernel errnos are
 * listed per function.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

struct nlw_sock;

#define NLW_MAC_LEN 6
#define NLW_KIND_MAX 16
#define NLW_ALIAS_MAX 128
/* IF_OPER_UP (RFC 2863); <linux/if.h> has it but clashes with <net/if.h>. */
#define NLW_OPER_UP 6

/* The counters of IFLA_STATS64 an operator looks at first. */
struct nlw_link_stats {
	uint64_t rx_packets, tx_packets;
	uint64_t rx_bytes, tx_bytes;
	uint64_t rx_errors, tx_errors;
	uint64_t rx_dropped, tx_dropped;
};

/* A link as read back from RTM_GETLINK / RTM_NEWLINK. */
struct nlw_link {
	int ifindex;
	char name[IFNAMSIZ];
	char kind[NLW_KIND_MAX];       /* IFLA_INFO_KIND: "veth", "bridge", ... or "" */
	char slave_kind[NLW_KIND_MAX]; /* IFLA_INFO_SLAVE_KIND: "bridge" for a port */
	char alias[NLW_ALIAS_MAX];
	unsigned mtu;
	unsigned char mac[NLW_MAC_LEN];
	bool has_mac;		 /* IFLA_ADDRESS present and 6 bytes */
	int master;		 /* IFLA_MASTER, 0 if none */
	unsigned flags;		 /* ifi_flags: IFF_UP, IFF_RUNNING, ... */
	unsigned char operstate; /* IF_OPER_* */
	int link;		 /* IFLA_LINK: peer ifindex of a veth, parent of macvlan */
	int link_netnsid;	 /* IFLA_LINK_NETNSID, -1 if absent (peer in same netns) */
	bool promisc;		 /* IFF_PROMISC in flags */
	bool allmulti;		 /* IFF_ALLMULTI in flags */
	unsigned txqlen;	 /* IFLA_TXQLEN */
	bool has_txqlen;
	/* kind == "bridge" (IFLA_INFO_DATA) */
	bool has_vlan_filtering;
	bool vlan_filtering;
	/* slave_kind == "bridge" (IFLA_INFO_SLAVE_DATA) */
	bool has_brport;
	bool hairpin;
	bool learning;
	bool isolated;
	/* kind == "macvlan" */
	uint32_t macvlan_mode;	       /* IFLA_MACVLAN_MODE, 0 if absent */
	uint32_t macvlan_bc_queue_len; /* IFLA_MACVLAN_BC_QUEUE_LEN, 0 if absent */
	/* kind == "vxlan" */
	uint32_t vxlan_id;   /* IFLA_VXLAN_ID, 0 if absent */
	uint16_t vxlan_port; /* IFLA_VXLAN_PORT in host byte order, 0 if absent */
	bool has_stats;	     /* IFLA_STATS64 present (dumps and GETs carry it) */
	struct nlw_link_stats stats;
	/* IFLA_AF_SPEC / AF_INET6: what /proc/sys/net/ipv6/conf/<link>/ shows */
	bool has_inet6_conf; /* IFLA_INET6_CONF present (IPv6 on, the link has an inet6_dev) */
	int32_t inet6_forwarding, inet6_disable_ipv6, inet6_accept_dad;
	int inet6_addr_gen_mode; /* IFLA_INET6_ADDR_GEN_MODE, -1 when absent */
};

/*
 * Get one link with a single RTM_GETLINK request. Errors: -ENODEV (no such
 * link; the kernel answers -EINVAL for some unknown names, mapped here),
 * -EINVAL (name NULL, empty or too long).
 */
int nlw_link_get_by_name(struct nlw_sock *sock, const char *name, struct nlw_link *ret);
int nlw_link_get_by_index(struct nlw_sock *sock, int ifindex, struct nlw_link *ret);

/* Filter for nlw_link_list: zero/NULL fields match everything. */
struct nlw_link_filter {
	int master;	  /* ifindex of the master (bridge ports) */
	const char *kind; /* IFLA_INFO_KIND, e.g. "veth" */
};

/*
 * Dump the netns's links matching f (NULL: all). *ret is owned by the caller
 * (free()). One dump, however many links: GC and inspection use it instead
 * of a request per link. Errors: -EAGAIN (dump kept being interrupted),
 * -ENOMEM.
 */
int nlw_link_list(struct nlw_sock *sock, const struct nlw_link_filter *f, struct nlw_link **ret,
		  unsigned *ret_n);

/* veth pair. name/peer_name are required; unset numbers/pointers = kernel default. */
struct nlw_veth_params {
	const char *name;
	unsigned mtu;		  /* 0: default */
	const unsigned char *mac; /* NLW_MAC_LEN bytes or NULL (random) */
	int master;		  /* ifindex to enslave to at creation, 0: none */
	bool up;		  /* bring the host side up at creation */
	const char *peer_name;
	int peer_netns_fd;	       /* -1: same netns; else peer created directly there */
	unsigned peer_mtu;	       /* 0: same as mtu */
	const unsigned char *peer_mac; /* NULL: random */
};

/*
 * Create a veth pair in ONE RTM_NEWLINK (NLM_F_CREATE|NLM_F_EXCL), the peer
 * placed directly in params->peer_netns_fd when >= 0.
 * Errors: -EEXIST (either name taken in its netns), -EINVAL.
 */
int nlw_link_add_veth(struct nlw_sock *sock, const struct nlw_veth_params *params);

struct nlw_bridge_params {
	const char *name;
	unsigned mtu;		  /* 0: default */
	const unsigned char *mac; /* NULL: kernel chooses */
	bool has_vlan_filtering;
	bool vlan_filtering;
	bool up;
};

/* Create a bridge (NLM_F_CREATE|NLM_F_EXCL). Errors: -EEXIST, -EINVAL. */
int nlw_link_add_bridge(struct nlw_sock *sock, const struct nlw_bridge_params *params);

/* Switch IFLA_BR_VLAN_FILTERING of an existing bridge. Errors: -ENODEV, -EOPNOTSUPP. */
int nlw_bridge_set_vlan_filtering(struct nlw_sock *sock, int ifindex, bool on);

enum nlw_macvlan_mode {
	NLW_MACVLAN_PRIVATE = 1, /* values equal MACVLAN_MODE_* */
	NLW_MACVLAN_VEPA = 2,
	NLW_MACVLAN_BRIDGE = 4,
	NLW_MACVLAN_PASSTHRU = 8,
	NLW_MACVLAN_SOURCE = 16,
};

struct nlw_macvlan_params {
	const char *name;
	int parent;		    /* ifindex of the lower device (IFLA_LINK) */
	enum nlw_macvlan_mode mode; /* 0: bridge */
	unsigned mtu;
	const unsigned char *mac;
	int netns_fd;	       /* -1: current netns; else created there */
	uint32_t bc_queue_len; /* IFLA_MACVLAN_BC_QUEUE_LEN, 0: kernel default (not sent) */
};

/* Create a macvlan. Errors: -EEXIST, -ENODEV (parent), -EINVAL. */
int nlw_link_add_macvlan(struct nlw_sock *sock, const struct nlw_macvlan_params *params);

struct nlw_vxlan_params {
	const char *name;
	uint32_t vni; /* 0..2^24-1 */
	int family;   /* AF_INET/AF_INET6 of local/group, 0: neither */
	bool has_local;
	uint8_t local[16]; /* struct in_addr / in6_addr bytes */
	bool has_group;	   /* multicast group or unicast remote */
	uint8_t group[16];
	int dev;       /* underlay ifindex, 0: none */
	uint16_t port; /* UDP port (host order), 0: kernel default */
	bool learning;
	unsigned mtu;
	const unsigned char *mac;
};

/* Create a vxlan. Errors: -EEXIST, -EINVAL (vni out of range), kernel errors. */
int nlw_link_add_vxlan(struct nlw_sock *sock, const struct nlw_vxlan_params *params);

/* Setters on an existing link (RTM_SETLINK by ifindex). Errors: -ENODEV, kernel errnos. */
int nlw_link_set_up(struct nlw_sock *sock, int ifindex);
int nlw_link_set_down(struct nlw_sock *sock, int ifindex);
/* master_ifindex 0 releases the link from its master. */
int nlw_link_set_master(struct nlw_sock *sock, int ifindex, int master_ifindex);
int nlw_link_set_mtu(struct nlw_sock *sock, int ifindex, unsigned mtu);
int nlw_link_set_mac(struct nlw_sock *sock, int ifindex, const unsigned char mac[NLW_MAC_LEN]);
/* alias "" clears it. Errors: -EINVAL (longer than NLW_ALIAS_MAX-1). */
int nlw_link_set_alias(struct nlw_sock *sock, int ifindex, const char *alias);

/* One IPv4 per-interface setting: id is IPV4_DEVCONF_* of <linux/ip.h>. */
struct nlw_inet_conf {
	uint16_t id;
	uint32_t value;
};

#define NLW_INET_CONF_MAX 8

/*
 * What nlw_link_set_conf changes in one RTM_SETLINK; unset fields stay.
 * The IPv4 settings are those of /proc/sys/net/ipv4/conf/<link>/ (the
 * kernel takes IFLA_AF_SPEC { AF_INET { IFLA_INET_CONF { id: value } } }
 * for any of them); IPv6 takes only the address generation mode this way.
 * Unlike a /proc write, the kernel sends no RTM_NEWNETCONF for them, and an
 * IPv4 forwarding change does not flush the route cache.
 */
struct nlw_link_conf {
	const char *alias; /* NULL: unchanged ("" clears it) */
	unsigned n_inet;
	struct nlw_inet_conf inet[NLW_INET_CONF_MAX];
	int inet6_addr_gen_mode; /* IN6_ADDR_GEN_MODE_*, -1: unchanged */
};

/*
 * Apply c to the link in one request. Meant for a link that is down: on an
 * up link every change here is a NETDEV_CHANGE (which IPv6 answers with a
 * walk of the netns's routing table while the link has no carrier).
 * Errors: -EINVAL (no change, n_inet too big, id 0, alias too long),
 * -EAFNOSUPPORT (the link has no IPv4/IPv6 state), -ENODEV.
 */
int nlw_link_set_conf(struct nlw_sock *sock, int ifindex, const struct nlw_link_conf *c);
/* Errors: -EINVAL (bad name), -EEXIST (name taken), -EBUSY (link up, some drivers). */
int nlw_link_set_name(struct nlw_sock *sock, int ifindex, const char *name);
int nlw_link_set_promisc(struct nlw_sock *sock, int ifindex, bool on);
/* IFF_ALLMULTI on or off (the user-requested flag, as ip-link's allmulticast). */
int nlw_link_set_allmulti(struct nlw_sock *sock, int ifindex, bool on);
/* Transmit queue length (IFLA_TXQLEN). Errors: -EINVAL (kernel: out of its range). */
int nlw_link_set_txqlen(struct nlw_sock *sock, int ifindex, unsigned txqlen);
/* Move to the netns netns_fd (borrowed) with IFLA_NET_NS_FD; optionally rename on the way. */
int nlw_link_set_netns(struct nlw_sock *sock, int ifindex, int netns_fd, const char *new_name);

/* Delete (RTM_DELLINK). Errors: -ENODEV (no such link). */
int nlw_link_del(struct nlw_sock *sock, int ifindex);
int nlw_link_del_by_name(struct nlw_sock *sock, const char *name);

/* Bridge port flags (RTM_SETLINK, AF_BRIDGE, IFLA_PROTINFO); only has_* fields are sent. */
struct nlw_brport_params {
	bool has_hairpin, hairpin;
	bool has_learning, learning;
	bool has_isolated, isolated;
};

/* Errors: -EINVAL (nothing to set), -EOPNOTSUPP (not a bridge port). */
int nlw_bridge_port_set(struct nlw_sock *sock, int ifindex, const struct nlw_brport_params *p);

#define NLW_BRVLAN_PVID (1U << 0)     /* BRIDGE_VLAN_INFO_PVID */
#define NLW_BRVLAN_UNTAGGED (1U << 1) /* BRIDGE_VLAN_INFO_UNTAGGED */
#define NLW_BRVLAN_SELF (1U << 2)     /* apply to the bridge device itself (BRIDGE_FLAGS_SELF) */

/* One VLAN or a range [vid, vid_end] (vid_end 0 = single). */
struct nlw_bridge_vlan {
	uint16_t vid;
	uint16_t vid_end;
	unsigned flags; /* NLW_BRVLAN_* */
};

/*
 * Add/delete VLANs on a bridge port (or the bridge itself with
 * NLW_BRVLAN_SELF) via IFLA_AF_SPEC + IFLA_BRIDGE_VLAN_INFO; all entries in
 * one request. Errors: -EINVAL (vid outside 1..4094, range reversed, PVID on
 * a range, n == 0), kernel errnos.
 */
int nlw_bridge_vlan_add(struct nlw_sock *sock, int ifindex, const struct nlw_bridge_vlan *v,
			unsigned n);
int nlw_bridge_vlan_del(struct nlw_sock *sock, int ifindex, const struct nlw_bridge_vlan *v,
			unsigned n);

/*
 * List the VLANs of one bridge port (AF_BRIDGE dump with RTEXT_FILTER_BRVLAN,
 * filtered to ifindex). *ret (one entry per vid, vid_end 0) is owned by the
 * caller (free()). Errors: -EAGAIN (dump kept being interrupted).
 */
int nlw_bridge_vlan_list(struct nlw_sock *sock, int ifindex, struct nlw_bridge_vlan **ret,
			 unsigned *ret_n);

/* Format a MAC as "aa:bb:cc:dd:ee:ff"; buf holds 18 bytes. Returns buf. */
const char *nlw_mac_fmt(const unsigned char mac[NLW_MAC_LEN], char buf[18]);
/* Parse "aa:bb:cc:dd:ee:ff" (case-insensitive). Returns 0 or -EINVAL. */
int nlw_mac_parse(const char *s, unsigned char mac[NLW_MAC_LEN]);
