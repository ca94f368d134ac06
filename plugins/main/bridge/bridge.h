/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bridge plugin's private interface: its parsed config (bridge-conf.c),
 * pure planning decisions (bridge-plan.c) and the command handlers
 * (bridge.c). Tests link the same library the binary ships.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"
#include "nlw/link.h"
#include "podnet/podnet.h"
#include "podnet/veth.h"

#define BRIDGE_DEFAULT_NAME "cni0"
/* Host veth names: "veth" + 8 hex digits (podnet_host_ifname), as the reference. */
#define BRIDGE_VETH_PREFIX "veth"
#define BRIDGE_VETH_HEX 8
#define BRIDGE_TRUNK_MAX 4094
#define BRIDGE_MTU_MIN 68
#define BRIDGE_MTU_MAX 65535

enum bridge_masq_backend {
	BRIDGE_MASQ_DEFAULT,  /* key absent */
	BRIDGE_MASQ_NFTABLES, /* "nftables" */
	BRIDGE_MASQ_IPTABLES, /* "iptables": accepted, served by nftables */
};

/* Where the MAC came from (later sources override earlier ones). */
enum bridge_mac_source {
	BRIDGE_MAC_NONE,
	BRIDGE_MAC_KEY,		   /* top-level "mac" (podwire extension) */
	BRIDGE_MAC_CNI_ARGS,	   /* CNI_ARGS MAC= */
	BRIDGE_MAC_ARGS,	   /* args.cni.mac */
	BRIDGE_MAC_RUNTIME_CONFIG, /* runtimeConfig.mac (capability "mac") */
};

/*
 * The plugin's keys, defaults applied. Plain data: no pointers into JSON.
 * has_* bits tell an explicit false/0 from an absent key.
 */
struct bridge_conf {
	char bridge[IFNAMSIZ];
	bool is_gateway, has_is_gateway;
	bool is_default_gateway;
	bool force_address;
	bool ip_masq;
	enum bridge_masq_backend masq_backend;
	unsigned mtu; /* 0: kernel default */
	bool hairpin_mode;
	bool promisc_mode;
	unsigned vlan;	 /* 0: none */
	uint16_t *trunk; /* sorted, unique VIDs; owned */
	size_t n_trunk;
	bool has_trunk; /* vlanTrunk present and non-empty */
	bool preserve_default_vlan;
	bool enable_dad;
	bool macspoofchk;
	bool disable_container_interface;
	bool port_isolation;
	enum bridge_mac_source mac_source;
	unsigned char mac[6];
	bool is_layer3; /* ipam.type set */
};

/*
 * Parse and validate the plugin's keys from ctx->conf (and CNI_ARGS MAC)
 * into *ret, applying defaults. On ADD/CHECK/STATUS a bad value is an error
 * (code 7; CNI_ARGS MAC: code 4) naming the key and value; on DEL/GC it is
 * logged and the default used. Unknown keys are logged as warnings (but a
 * known key in other letter case is an error on ADD and CHECK).
 * Returns 0 or -EINVAL/-ENOMEM with ctx->err set. Free with bridge_conf_done.
 */
int bridge_conf_parse(struct cni_ctx *ctx, struct bridge_conf *ret);
void bridge_conf_done(struct bridge_conf *c);

/* Keys of CNI_ARGS the bridge reads (for the skeleton). */
extern const char *const bridge_cni_args_keys[];

/* ---- planning (bridge-plan.c): pure functions ---- */

/* Gateway on the bridge for one family (gateway address with the subnet prefix). */
struct bridge_gw {
	struct ip_prefix addr;
};

#define BRIDGE_MAX_GWS 16

/*
 * Complete an IPAM result for the bridge (the reference's order): interface
 * index 2 on every IP; with is_gateway a missing gateway becomes the
 * subnet's first address; with is_default_gateway a default route per
 * family via that gateway unless the result already has a default route of
 * that family (with or without gw: podwire treats a gw-less one as found,
 * see README). Fills gws (one per distinct gateway/prefix) when is_gateway.
 * Returns the number of gateways, or -EINVAL (IP without gateway for a
 * default route / too many), -ENOMEM.
 */
int bridge_plan_l3(const struct bridge_conf *c, struct cni_result *r, struct bridge_gw *gws,
		   size_t max_gws);

/*
 * ensureAddr's decision for one existing bridge address: does it conflict
 * with the gateway we want? IPv4: any other address conflicts; IPv6: only
 * one whose subnet overlaps. Equal address+prefix is not a conflict.
 */
bool bridge_addr_conflicts(const struct ip_prefix *existing, const struct ip_prefix *want);

/* VLAN entries for the host port (vlan as PVID/untagged, trunk tagged). Returns count. */
unsigned bridge_plan_port_vlans(const struct bridge_conf *c, struct nlw_bridge_vlan *out,
				unsigned max);

/* ---- handlers (bridge.c) ---- */
extern const struct podnet_plugin_ops bridge_ops;

/* ---- nftables elements and undo steps of the bridge's own resources (bridge-util.c) ---- */
/* The attachment's macspoofchk elements (host end, pod MAC) and masquerade elements. */
struct pw_nft_spoof bridge_nft_spoof(const struct cni_ctx *ctx, const char *host_ifname,
				     const unsigned char *mac);
struct pw_nft_masq bridge_nft_masq(const struct cni_ctx *ctx, const struct ip_prefix *addrs,
				   size_t n);
/* Each copies what outlives the handler. 0 or -ENOMEM. */
int bridge_undo_spoof(struct podnet *pn, const char *host_ifname, const unsigned char mac[6]);
int bridge_undo_masq(struct podnet *pn, const struct ip_prefix *addrs, size_t n);
/* Delete the bridge this ADD created, under its lock, only if no port is left. */
int bridge_undo_unused_bridge(struct podnet *pn, const char *name);

/* ---- handler state (bridge.c, bridge-del.c, bridge-check.c) ---- */
struct bridge_add {
	struct bridge_conf conf;
	struct podnet *pn;
	struct nlw_link br;
	struct podnet_veth_pair veth;
	unsigned char br_mac_before[6]; /* bridge MAC before our port joined */
	int br_lock;			/* podnet_lock("bridge", name) while joining, else -1 */
	struct cni_result *result;
	struct bridge_gw gws[BRIDGE_MAX_GWS];
	size_t n_gws;
};

/* Gateway addresses, MAC pin and forwarding (bridge-gw.c). */
int bridge_setup_gateways(struct cni_ctx *ctx, struct bridge_add *a);
int bridge_cmd_del(struct podnet *pn);
int bridge_cmd_check(struct podnet *pn);
int bridge_cmd_gc(struct podnet *pn);
/*
 * Host veth name and pod MAC of this attachment from prevResult; without
 * one the derived name (attempt 0) and no MAC.
 */
void bridge_find_attachment(const struct cni_ctx *ctx, const struct bridge_conf *c,
			    char host_name[IFNAMSIZ], unsigned char mac[6], bool *has_mac);
