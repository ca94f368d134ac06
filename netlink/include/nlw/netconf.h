/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a netns's per-family IP settings over rtnetlink (RTM_GETNETCONF)
 * instead of /proc/sys: "all" and "default" as well as single links.
 */
#pragma once

struct nlw_sock;

#define NLW_NETCONF_ALL (-1)	 /* NETCONFA_IFINDEX_ALL: net.ipv4.ip_forward, ipv6 conf/all */
#define NLW_NETCONF_DEFAULT (-2) /* NETCONFA_IFINDEX_DEFAULT: conf/default */

/*
 * *ret = 1 or 0: forwarding of `ifindex` (a link, NLW_NETCONF_ALL or
 * NLW_NETCONF_DEFAULT) for family AF_INET or AF_INET6; -1 when the kernel's
 * answer did not say. Can be batched (nlw/batch.h): *ret is written when the
 * batch runs (-1 until then), so ret must outlive it.
 * Errors: -EINVAL, -ENODEV (no such link), -EOPNOTSUPP (old kernel).
 */
int nlw_netconf_get_forwarding(struct nlw_sock *sock, int family, int ifindex, int *ret);
