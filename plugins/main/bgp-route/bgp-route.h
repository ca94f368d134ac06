/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bgp-route: a routed veth per pod (no bridge). The pod gets IP/32 and
 * IP/128 with 169.254.1.1 (IPv4) and the host end's link-local (IPv6) as
 * gateways; the host gets "IP dev <hostif> scope link proto <P>" routes
 * whose protocol number tells BIRD (podwire-node's bird.conf) what to
 * announce. bgp-route never talks to BIRD.
 */
#pragma once
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/ipaddr.h"
#include "cni/plugin.h"
#include "nlw/route.h"
#include "podnet/podnet.h"

#define BGPR_MTU_DEFAULT 1500u
#define BGPR_MTU_MIN 68u
#define BGPR_MTU_MAX 65535u
#define BGPR_PREFIX_DEFAULT "pwr"
#define BGPR_HOST_HEX 11u /* "pwr" + 11 hex = 14 characters, below IFNAMSIZ */
/* IPv6 host routes: below BIRD's default kernel metric (32), so a learned
 * duplicate of a local pod's /128 never wins; IPv4 routes keep metric 0. */
#define BGPR_V6_METRIC 16u
#define BGPR_GW4 "169.254.1.1"

extern const unsigned char bgpr_host_mac[6]; /* ee:ee:ee:ee:ee:ee */

/*
 * The host end's IPv6 link-local address, the pod's IPv6 gateway:
 * fe80::ecee:eeff:feee:eeee, the EUI-64 address the kernel gives a link
 * with MAC bgpr_host_mac and addr_gen_mode 0 (which ADD sets on it).
 */
void bgpr_host_ll(union ip_addr *ret);

struct bgpr_conf {
	unsigned mtu;
	char host_if_prefix[8];
	unsigned char proto_pod, proto_block, proto_borrowed;
	const char *bird_socket; /* borrowed from the config; NULL: not set */
	bool strict_borrow;	 /* ipam is cluster-ipam: outside our blocks = borrowed */
};

/*
 * Parse bgp-route's keys from ctx->conf.root. On ADD, CHECK and STATUS a
 * wrong key is code 7 naming it and its value (ipam is required); on DEL
 * and GC it is a warning and the default is used.
 */
int bgpr_conf_parse(struct cni_ctx *ctx, struct bgpr_conf *ret);

/*
 * The protocol number of the host route of `ip`: borrowed when it lies in
 * no local block (blackhole routes of proto_block in `blocks`) and blocks
 * are in use (strict, or any block of its family exists), else pod.
 */
unsigned char bgpr_route_proto(const struct bgpr_conf *c, const struct ip_prefix *ip,
			       const struct nlw_route *blocks, size_t n_blocks);

/* The host route of ip (address as a /32 or /128) on oif with protocol proto. */
void bgpr_host_route(const struct ip_prefix *ip, int oif, unsigned char proto,
		     struct nlw_route *ret);

/* Is r one of ours (a host route of proto pod or borrowed)? */
bool bgpr_is_pod_route(const struct bgpr_conf *c, const struct nlw_route *r);

/*
 * The pod's routes for the result: the IPAM's routes of each family the pod
 * has, each via the family's gateway (169.254.1.1, or gw6), plus a default
 * route per family when IPAM gave none. Routes of a family the pod lacks
 * are dropped. Returns 0 or -ENOMEM.
 */
struct cni_result;
int bgpr_pod_routes(struct cni_result *res, const union ip_addr *gw6);

/* Rewrite the IPAM's ips: /32 and /128, no gateway, interface 1 (the pod). */
void bgpr_pod_ips(struct cni_result *res);

struct podnet;
int bgpr_cmd_add(struct podnet *pn);
int bgpr_cmd_del(struct podnet *pn);
int bgpr_cmd_check(struct podnet *pn);
int bgpr_cmd_gc(struct podnet *pn);
int bgpr_cmd_status(struct podnet *pn);

extern const struct podnet_plugin_ops bgpr_ops;
