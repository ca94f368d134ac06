/* SPDX-License-Identifier: Apache-2.0 */
/* Pure planning: which pod addresses, which nftables entries. */
#include <string.h>

#include "portmap.h"

void portmap_pod_addrs(const struct cni_result *r, const char *ifname, struct portmap_addrs *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; r && i < r->n_ips; i++) {
		const struct cni_ip *ip = &r->ips[i];
		bool v4 = ip->address.family == AF_INET;
		int idx = ip->interface;

		if (v4 ? ret->has_v4 : ret->has_v6)
			continue;
		/* Skip addresses of known non-sandbox or other interfaces. */
		if (idx >= 0 && (size_t)idx < r->n_ifaces &&
		    (strcmp(r->ifaces[idx].name, ifname) != 0 || !r->ifaces[idx].sandbox ||
		     !r->ifaces[idx].sandbox[0]))
			continue;
		if (v4) {
			ret->has_v4 = true;
			ret->v4 = ip->address.addr;
		} else {
			ret->has_v6 = true;
			ret->v6 = ip->address.addr;
		}
	}
}

size_t portmap_plan(const struct portmap_conf *c, const struct portmap_addrs *a,
		    struct pw_nft_hostport *out, size_t *src)
{
	size_t n = 0;

	for (int f = 0; f < 2; f++) {
		int family = f == 0 ? AF_INET : AF_INET6;

		if (!(f == 0 ? a->has_v4 : a->has_v6))
			continue;
		for (size_t i = 0; i < c->n_maps; i++) {
			const struct portmap_entry *e = &c->maps[i];
			struct pw_nft_hostport *p = &out[n];

			if (e->host_family && e->host_family != family)
				continue;
			memset(p, 0, sizeof(*p));
			p->family = family;
			p->pod_ip = f == 0 ? a->v4 : a->v6;
			p->proto = e->proto;
			p->host_port = e->host_port;
			p->container_port = e->container_port;
			p->has_host_ip = e->has_host_ip;
			p->host_ip = e->host_ip;
			if (src)
				src[n] = e->index;
			n++;
		}
	}
	return n;
}
