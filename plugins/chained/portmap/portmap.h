/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The portmap plugin's private interface: parsed config (portmap-conf.c),
 * pure planning (portmap-plan.c) and the handlers (portmap.c). Tests link
 * the same library the binary ships.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"
#include "podnet/podnet.h"
#include "pwnft/portmap.h"

#define PORTMAP_DEFAULT_MARK_BIT 13
/* Most portMappings entries of one attachment: its elements (up to 7 per
 * entry, dual stack, snat and masqAll) and their replacement fit one batch. */
#define PORTMAP_MAX_MAPPINGS 16

/* One runtimeConfig.portMappings entry, validated. */
struct portmap_entry {
	uint16_t host_port, container_port;
	uint8_t proto;	  /* IPPROTO_TCP / UDP / SCTP */
	int host_family;  /* AF_INET / AF_INET6 when hostIP is set, 0: any */
	bool has_host_ip; /* false for "" and for 0.0.0.0 / :: (any of that family) */
	union ip_addr host_ip;
	size_t index; /* position in runtimeConfig.portMappings */
};

struct portmap_conf {
	bool snat;		/* default true */
	bool masq_all;		/* default false */
	unsigned mark_masq_bit; /* default 13; validated, not used by nftables */
	bool has_external_set_mark_chain;
	struct portmap_entry *maps; /* owned */
	size_t n_maps;
};

/*
 * Parse and validate the plugin's keys and runtimeConfig.portMappings
 * (entry keys matched case-insensitively: containerd sends "HostPort").
 * ADD/CHECK: a bad value is code 7 naming the key and value. DEL/GC: bad
 * entries are logged and skipped. Returns 0 or a negative errno with
 * ctx->err set. Free with portmap_conf_done.
 */
int portmap_conf_parse(struct cni_ctx *ctx, struct portmap_conf *ret);
void portmap_conf_done(struct portmap_conf *c);

/* Protocol name -> IPPROTO_* (case-insensitive tcp/udp/sctp; "" = tcp). 0 if unknown. */
uint8_t portmap_proto_parse(const char *s);
const char *portmap_proto_name(uint8_t proto);

/* The pod addresses portmap serves: first IPv4 and first IPv6 of CNI_IFNAME. */
struct portmap_addrs {
	bool has_v4, has_v6;
	union ip_addr v4, v6;
};

/*
 * The reference's choice: per family the first IP whose interface index is
 * absent, out of range, or names the sandbox interface `ifname`.
 */
void portmap_pod_addrs(const struct cni_result *r, const char *ifname, struct portmap_addrs *ret);

/*
 * Expand the mappings over the pod addresses: an entry with a hostIP only
 * for the address of that family. out (and src, when not NULL: the
 * runtimeConfig.portMappings index of each) must hold 2 * c->n_maps entries.
 * Returns the count.
 */
size_t portmap_plan(const struct portmap_conf *c, const struct portmap_addrs *a,
		    struct pw_nft_hostport *out, size_t *src);

extern const struct podnet_plugin_ops portmap_ops;
