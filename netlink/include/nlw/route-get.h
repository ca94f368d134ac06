/* SPDX-License-Identifier: Apache-2.0 */
/* Route lookup (RTM_GETROUTE for one destination): which link a packet takes. */
#pragma once

#include "base/ipaddr.h"

struct nlw_sock;

/*
 * Ask the kernel which output interface it would use for dst (the FIB
 * lookup `ip route get` does). *ret_oif is the ifindex (0 when the route has
 * none, e.g. a blackhole). Errors: -ENETUNREACH/-EHOSTUNREACH (no route),
 * -EINVAL (family), kernel errnos.
 */
int nlw_route_get_oif(struct nlw_sock *sock, int family, const union ip_addr *dst, int *ret_oif);
