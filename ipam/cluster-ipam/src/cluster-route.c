/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Block routes: `blackhole <block> proto N` in the netns cluster-ipam runs
 * in (the host), while the node holds the block. BIRD announces them;
 * bgp-route calls an IP "borrowed" when no such route covers it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "ipam/cluster-ipam.h"
#include "nlw/route.h"
#include "nlw/sock.h"

/* Add or delete the blackhole; one already there (or already gone) is no error. */
static int blackhole(const struct ip_prefix *block, unsigned protocol, bool add)
{
	_cleanup_(nlw_sock_freep) struct nlw_sock *s = NULL;
	struct nlw_route r = {
	    .dst = *block, .type = NLW_ROUTE_BLACKHOLE, .protocol = (unsigned char)protocol};
	int e = nlw_sock_open(&s);

	if (e < 0)
		return e;
	e = add ? nlw_route_add(s, &r) : nlw_route_del(s, &r);
	return e == (add ? -EEXIST : -ESRCH) ? 0 : e;
}

int cipam_route_add(const struct ip_prefix *block, unsigned protocol)
{
	return blackhole(block, protocol, true);
}

int cipam_route_del(const struct ip_prefix *block, unsigned protocol)
{
	return blackhole(block, protocol, false);
}

int cipam_route_list(unsigned protocol, struct ip_prefix **ret, size_t *ret_n)
{
	_cleanup_(nlw_sock_freep) struct nlw_sock *s = NULL;
	struct nlw_route_filter f = {.family = AF_UNSPEC, .protocol = (unsigned char)protocol};
	_cleanup_free_ struct nlw_route *routes = NULL;
	struct ip_prefix *out;
	unsigned n = 0;
	size_t k = 0;
	int e = nlw_sock_open(&s);

	if (e < 0)
		return e;
	e = nlw_route_list(s, &f, &routes, &n);
	if (e < 0)
		return e;
	out = calloc(n + 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		if (routes[i].type == NLW_ROUTE_BLACKHOLE &&
		    (routes[i].table == 0 || routes[i].table == 254))
			out[k++] = routes[i].dst;
	*ret = out;
	*ret_n = k;
	return 0;
}
