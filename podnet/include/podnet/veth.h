/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A veth pair between the host and the pod: one RTM_NEWLINK creates both
 * ends, the pod end directly in the pod netns under CNI_IFNAME, the host end
 * under a derived name (podnet_host_ifname), still down until tagged.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>

#include "nlw/link.h"
#include "podnet/podnet.h"

struct podnet_veth {
	const char *host_prefix;       /* "veth", "pwr", ... */
	unsigned host_hex;	       /* hex digits after the prefix */
	unsigned mtu;		       /* 0: kernel default */
	int master;		       /* host end enslaved at creation (0: none) */
	const unsigned char *host_mac; /* NULL: random */
	const unsigned char *pod_mac;  /* NULL: random */
};

/* Filled by podnet_veth_add. */
struct podnet_veth_pair {
	char host_name[IFNAMSIZ];
	struct nlw_link host; /* as read back after creation */
	struct nlw_link pod;
};

/*
 * Create the pair; a host name that is taken is retried with the next
 * attempt's name, CNI_IFNAME taken in the pod is code 103 naming it. Pushes
 * the undo step "delete the host end" (the pod end goes with it).
 */
int podnet_veth_add(struct podnet *pn, const struct podnet_veth *v, struct podnet_veth_pair *ret);

/*
 * Tag the host end with the attachment's alias, then set it up. The order
 * matters: an alias change on an up link is a NETDEV_CHANGE, which IPv6
 * answers with a walk of the netns's whole routing table (about 1.5 ms with
 * 1000 ports); on a down link it notifies nobody.
 */
int podnet_veth_tag_up(struct podnet *pn, struct podnet_veth_pair *p);

/*
 * Wait (2 ms steps, 2.5 s at most) until the host end is oper-up; p->host
 * is re-read. Code 11 after the bound.
 */
int podnet_veth_wait_up(struct podnet *pn, struct podnet_veth_pair *p);

/*
 * DEL: delete CNI_IFNAME in the pod netns (the host end goes with it); when
 * that was not possible (no pod netns, pod end already gone), delete the
 * host end `host_name` only if it is a veth carrying this attachment's tag.
 * A missing netns or link is success.
 */
int podnet_veth_del(struct podnet *pn, const char *host_name);
