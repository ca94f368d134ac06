/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bandwidth plugin's private interface: parsed config and token-bucket
 * arithmetic (bandwidth-conf.c, pure) and the handlers (bandwidth.c).
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"
#include "nlw/tc.h"
#include "podnet/podnet.h"

#define BANDWIDTH_IFB_PREFIX "bwp"
#define BANDWIDTH_MAX_SUBNETS 64
/* Rate of the unshaped htb class: 100 Gbit/s, in bytes/s. */
#define BANDWIDTH_UNCAPPED_RATE (100000000000ull / 8)

struct bandwidth_conf {
	uint64_t ingress_rate, ingress_burst; /* bits/s, bits */
	uint64_t egress_rate, egress_burst;
	bool from_runtime_config;  /* runtimeConfig.bandwidth, else the static keys */
	struct ip_prefix *subnets; /* owned; unshapedSubnets or shapedSubnets */
	size_t n_subnets;
	bool subnets_shaped; /* true: shapedSubnets (only they are shaped) */
};

/*
 * Parse the static keys (they win when any is present, as the reference),
 * else runtimeConfig.bandwidth (keys matched case-insensitively: containerd
 * sends "IngressRate"); unshapedSubnets/shapedSubnets. Rate and burst are
 * validated as the reference does: both or neither, burst < 4 GB (in
 * bytes). Code 7 naming key and value. Free with bandwidth_conf_done.
 */
int bandwidth_conf_parse(struct cni_ctx *ctx, struct bandwidth_conf *ret);
void bandwidth_conf_done(struct bandwidth_conf *c);

static inline bool bandwidth_ingress(const struct bandwidth_conf *c)
{
	return c->ingress_rate > 0 && c->ingress_burst > 0;
}

static inline bool bandwidth_egress(const struct bandwidth_conf *c)
{
	return c->egress_rate > 0 && c->egress_burst > 0;
}

/*
 * The reference's tbf parameters for a rate (bits/s) and burst (bits):
 * bytes/s, buffer in ticks (burst time at 15.625 ticks/us), limit =
 * rate * 25 ms + burst, bytes.
 */
void bandwidth_tbf(uint64_t rate_bits, uint64_t burst_bits, struct nlw_tbf *ret);

/* "bwp" + 12 hex of SHA-512(network + containerID), as the reference. 0 or -ENOMEM. */
int bandwidth_ifb_name(const char *network, const char *container_id, char buf[IFNAMSIZ]);

/* Alias of the IFB, "podwire-bandwidth:<network>/<containerID>" (GC finds its owner). */
#define BANDWIDTH_IFB_ALIAS_PREFIX "podwire-bandwidth:"
int bandwidth_ifb_alias(const char *network, const char *container_id, char *buf, size_t len);
/*
 * The container ID of an IFB alias of `network`, copied into cid; 0, or
 * -EINVAL when the alias is not one of this network's.
 */
int bandwidth_ifb_alias_parse(const char *alias, const char *network, char *cid, size_t len);

extern const struct podnet_plugin_ops bandwidth_ops;
