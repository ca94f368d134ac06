/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Configuring a pod interface from a result: any netdev in the pod netns
 * (the pod end of a veth, a moved VF, a macvlan).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cni/result.h"
#include "podnet/podnet.h"

struct podnet_iface {
	int ifindex;	  /* in the pod netns */
	const char *name; /* its name there (CNI_IFNAME) */
	/*
	 * IPv6 duplicate address detection: off by default (addresses are
	 * added NODAD, accept_dad=0), so a pod has IPv6 at once. With it on,
	 * ADD waits (5 s at most) until no address is tentative when the
	 * result has an IPv6 gateway, as the reference's enableDad.
	 */
	bool enable_dad;
	/* Already set up by the caller: no second RTM_SETLINK. */
	bool is_up;
	/*
	 * A point-to-point link to a host end created with it (bgp-route): the
	 * only neighbour is that new device, whose neighbour table holds no
	 * stale entry to correct, so no arp_notify / ndisc_notify (and no
	 * first visit of the pod's net/ipv4 sysctls, which costs the kernel a
	 * walk of one dentry alias per network namespace on the node).
	 */
	bool p2p;
	/*
	 * Routes added before the result's, e.g. bgp-route's
	 * "169.254.1.1/32 scope link", which makes its gateway reachable from
	 * a /32 address (an on-link gateway).
	 */
	const struct cni_route *pre_routes;
	size_t n_pre_routes;
};

/*
 * In order: the interface's sysctls in one visit of the pod netns
 * (arp_notify unless p2p, and with IPv6: ndisc_notify unless p2p,
 * disable_ipv6=0 on lo and the interface, keep_addr_on_down, accept_dad),
 * every address of res->ips,
 * link up (unless is_up), the DAD wait, then pre_routes and res->routes (a route without a
 * gateway uses the result's gateway of its family; the same route twice is
 * fine). Sysctls are best effort (logged at debug, as the reference).
 */
int podnet_iface_configure(struct podnet *pn, const struct podnet_iface *o,
			   const struct cni_result *res);

/* Add one route in the pod netns (dst host bits cleared). */
int podnet_pod_route_add(struct podnet *pn, int ifindex, const struct cni_route *rt,
			 const struct cni_result *res);

/*
 * Turn on forwarding of `family` in the host netns (net.ipv4.ip_forward or
 * net.ipv6.conf.all.forwarding), read first so a steady node writes nothing.
 */
int podnet_host_forwarding(struct cni_ctx *ctx, int family);

/* Best-effort host sysctl (logged at debug when it fails, as the reference). */
void podnet_sysctl_try(struct cni_ctx *ctx, const char *path, const char *value);
