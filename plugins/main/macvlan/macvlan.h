/* SPDX-License-Identifier: Apache-2.0 */
/*
 * macvlan (main plugin): a macvlan sub-interface of `master` as CNI_IFNAME
 * in the pod, created from the host netns directly into the pod (or inside
 * the pod when linkInContainer), with optional IPAM. Drop-in for the
 * reference macvlan plugin; written on podnet.
 */
#pragma once

#include <stdbool.h>

#include "cni/plugin.h"
#include "nlw/link.h"
#include "podnet/podnet.h"

struct macvlan_conf {
	const char *master;	    /* borrowed; NULL: the default route's interface */
	enum nlw_macvlan_mode mode; /* default bridge */
	const char *mode_str;	    /* as configured, "bridge" when absent */
	unsigned mtu;		    /* 0: the kernel's (the master's) */
	bool has_mac;
	unsigned char mac[NLW_MAC_LEN];
	const char *mac_src; /* which key gave the MAC */
	bool link_in_container;
	unsigned bc_queue_len; /* bcqueuelen, 0: the kernel's default */
	bool l3;	       /* ipam.type set: addresses from IPAM */
};

/*
 * Parse the plugin's keys (no kernel calls). mac: "mac" < CNI_ARGS MAC <
 * runtimeConfig.mac, as the reference. Returns 0 or a negative errno with
 * ctx->err set (code 7 naming the key and the value); on DEL and GC bad
 * values are warnings.
 */
int macvlan_conf_parse(struct cni_ctx *ctx, struct macvlan_conf *ret);

/* "bridge", "private", "vepa", "passthru" ("" = bridge). 0 or -EINVAL. */
int macvlan_mode_parse(const char *s, enum nlw_macvlan_mode *ret);
const char *macvlan_mode_str(enum nlw_macvlan_mode m);

/*
 * MTU rule of the reference: 0 (inherit) or up to the master's MTU.
 * Returns 0 or -EINVAL with a code-7 error naming both.
 */
int macvlan_check_mtu(struct cni_ctx *ctx, const struct macvlan_conf *c, unsigned master_mtu);

extern const struct podnet_plugin_ops macvlan_ops;
