/* SPDX-License-Identifier: Apache-2.0 */
/* Neighbour (ARP/NDP) entries. */
#pragma once

#include "base/ipaddr.h"

struct nlw_sock;

/*
 * Add or replace a permanent neighbour entry addr -> mac on ifindex
 * (NUD_PERMANENT, NLM_F_CREATE|NLM_F_REPLACE). addr and mac are borrowed.
 * Errors: -ENODEV, -EINVAL (family).
 */
int nlw_neigh_add_permanent(struct nlw_sock *sock, int ifindex, int family,
			    const union ip_addr *addr, const unsigned char mac[6]);

/* Delete a neighbour entry. Errors: -ENOENT (no such entry), -ENODEV. */
int nlw_neigh_del(struct nlw_sock *sock, int ifindex, int family, const union ip_addr *addr);

/* Read back one entry (RTM_GETNEIGH). ret_state gets NUD_*. Errors: -ENOENT. */
int nlw_neigh_get(struct nlw_sock *sock, int ifindex, int family, const union ip_addr *addr,
		  unsigned char ret_mac[6], unsigned *ret_state);

/*
 * The proxy_delay of ifindex's neighbour parameters (what
 * /proc/sys/net/ipv4/neigh/<link>/proxy_delay holds, here in milliseconds)
 * in one RTM_SETNEIGHTBL of the family's table (arp_cache, ndisc_cache).
 * Errors: -EINVAL (family), -ENOENT (the link has no parameters in that
 * table), -ENODEV.
 */
int nlw_neigh_set_proxy_delay(struct nlw_sock *sock, int family, int ifindex, unsigned ms);
