/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge ADD's gateway step: the gateway addresses on the bridge (or on the
 * "<bridge>.<vlan>" link of an L3 VLAN network) with the reference's
 * ensureAddr conflict rule and forceAddress, the bridge MAC pinned, and
 * forwarding on. Bridge and gateway link are shared by every pod of the
 * network: no undo step removes them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "bridge.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "podnet/iface.h"
#include "podnet/name.h"

static bool mac_is_zero(const unsigned char mac[6])
{
	static const unsigned char zero[6];

	return memcmp(mac, zero, 6) == 0;
}

/*
 * ensureAddr's conflict rule over the link's addresses of gw's family: a
 * conflicting one is an error, or removed with forceAddress. *ret_present
 * tells whether gw itself (same address and prefix) is there. Returns the
 * number of addresses removed.
 */
static int clear_conflicts(struct cni_ctx *ctx, struct bridge_add *a, const struct nlw_link *link,
			   const struct ip_prefix *gw, bool *ret_present)
{
	_cleanup_free_ struct nlw_addr *list = NULL;
	char want[IP_PREFIX_STRLEN], have[IP_PREFIX_STRLEN];
	unsigned n = 0;
	int r, removed = 0;

	*ret_present = false;
	r = nlw_addr_list(a->pn->host, link->ifindex, gw->family, &list, &n);
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "list addresses of '%s'", link->name);
	ip_prefix_fmt(gw, want);
	for (unsigned i = 0; i < n; i++) {
		const struct ip_prefix *p = &list[i].prefix;

		if (p->prefixlen == gw->prefixlen &&
		    ip_addr_equal(p->family, &p->addr, &gw->addr)) {
			*ret_present = true;
			continue;
		}
		if (!bridge_addr_conflicts(p, gw) || (p->family == AF_INET6 && list[i].scope != 0))
			continue;
		if (!a->conf.force_address)
			return cni_errorf(
			    &ctx->err, CNI_ERR_EXISTS, -EEXIST,
			    "\"%s\" already has an IP address different from %s (%s); "
			    "set forceAddress to replace it",
			    link->name, want, ip_prefix_fmt(p, have));
		r = nlw_addr_del(a->pn->host, link->ifindex, p);
		if (r < 0 && r != -EADDRNOTAVAIL)
			return podnet_fail(ctx, a->pn->host, r, "remove address %s from '%s'",
					   ip_prefix_fmt(p, have), link->name);
		removed++;
	}
	return removed;
}

static int add_gw_addr(struct nlw_sock *s, int ifindex, const struct ip_prefix *gw)
{
	/*
	 * No DAD for the gateway: it is ours by configuration, and a tentative
	 * gateway would leave pods without IPv6 for a second after the first ADD.
	 */
	return nlw_addr_add(
	    s, ifindex, gw,
	    &(struct nlw_addr_opts){.flags = gw->family == AF_INET6 ? NLW_ADDR_NODAD : 0});
}

/*
 * Pin the MAC so it stops following the lowest port MAC: the one the bridge
 * had before our port joined (as the reference does), unless that was
 * all-zero (an empty existing bridge; the reference then fails with EINVAL):
 * then the current one.
 */
static int pin_mac(struct cni_ctx *ctx, struct bridge_add *a, const struct nlw_link *link)
{
	struct nlw_link now;
	int r;

	r = nlw_link_get_by_index(a->pn->host, link->ifindex, &now);
	if (r >= 0 && link->ifindex == a->br.ifindex && !mac_is_zero(a->br_mac_before))
		memcpy(now.mac, a->br_mac_before, 6);
	if (r >= 0 && now.has_mac && !mac_is_zero(now.mac))
		r = nlw_link_set_mac(a->pn->host, link->ifindex, now.mac);
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "pin MAC of '%s'", link->name);
	return 0;
}

/* Put gw on the link (the reference's ensureAddr), honouring forceAddress. */
static int ensure_addr(struct cni_ctx *ctx, struct bridge_add *a, const struct nlw_link *link,
		       const struct ip_prefix *gw)
{
	char want[IP_PREFIX_STRLEN];
	bool present;
	int r;

	ip_prefix_fmt(gw, want);
	if (gw->family == AF_INET) {
		/*
		 * Steady state without a dump: IPv4 answers EEXIST only for the same
		 * address and mask. Conflicts are looked for after a fresh add.
		 */
		r = add_gw_addr(a->pn->host, link->ifindex, gw);
		if (r == -EEXIST)
			return 0; /* already there: nothing to do, MAC pin included */
		if (r < 0)
			return podnet_fail(ctx, a->pn->host, r, "add gateway %s to '%s'", want,
					   link->name);
		r = clear_conflicts(ctx, a, link, gw, &present);
		if (r < 0) {
			(void)nlw_addr_del(a->pn->host, link->ifindex, gw);
			return r;
		}
		/*
		 * Removing an IPv4 primary address removes the secondaries of its
		 * subnet with it (unless promote_secondaries is set): the gateway
		 * we just added may be one of them, so put it back.
		 */
		if (r > 0)
			r = add_gw_addr(a->pn->host, link->ifindex, gw);
		if (r < 0 && r != -EEXIST)
			return podnet_fail(ctx, a->pn->host, r, "add gateway %s to '%s'", want,
					   link->name);
		return pin_mac(ctx, a, link);
	}
	/* IPv6 answers EEXIST for the same address with any prefix: look first. */
	r = clear_conflicts(ctx, a, link, gw, &present);
	if (r < 0 || present)
		return r;
	r = add_gw_addr(a->pn->host, link->ifindex, gw);
	if (r < 0 && r != -EEXIST)
		return podnet_fail(ctx, a->pn->host, r, "add gateway %s to '%s'", want, link->name);
	return pin_mac(ctx, a, link);
}

/* The "<bridge>.<vlan>" gateway veth of an L3 VLAN network (created once, shared). */
static int ensure_vlan_gw_link(struct cni_ctx *ctx, struct bridge_add *a, struct nlw_link *ret)
{
	char name[IFNAMSIZ + 16], peer[IFNAMSIZ], mac[18]; /* bridge "." vid: fits */
	struct nlw_link p;
	int r;

	snprintf(name, sizeof(name), "%s.%u", a->conf.bridge, a->conf.vlan);
	if (strlen(name) >= IFNAMSIZ)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "bridge: '%s' + VLAN %u gives gateway link name '%s', longer "
				  "than 15 bytes",
				  a->conf.bridge, a->conf.vlan, name);
	r = nlw_link_get_by_name(a->pn->host, name, ret);
	if (r == -ENODEV) {
		(void)podnet_host_ifname(BRIDGE_VETH_PREFIX, BRIDGE_VETH_HEX, a->conf.bridge, name,
					 0, peer);
		r = nlw_link_add_veth(a->pn->host,
				      &(struct nlw_veth_params){.name = peer,
								.master = a->br.ifindex,
								.up = true,
								.peer_name = name,
								.peer_netns_fd = -1});
		/* No undo step: shared by every pod of the VLAN, like the bridge. */
		if (r >= 0)
			r = nlw_link_get_by_name(a->pn->host, peer, &p);
		if (r >= 0)
			r = nlw_bridge_vlan_add(a->pn->host, p.ifindex,
						&(struct nlw_bridge_vlan){
						    .vid = (uint16_t)a->conf.vlan,
						    .flags = NLW_BRVLAN_PVID | NLW_BRVLAN_UNTAGGED},
						1);
		if (r >= 0)
			r = nlw_link_get_by_name(a->pn->host, name, ret);
		if (r >= 0)
			r = nlw_link_set_up(a->pn->host, ret->ifindex);
	}
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "set up VLAN gateway link '%s'", name);
	r = cni_result_add_iface(a->result, name, nlw_mac_fmt(ret->mac, mac), NULL);
	return r < 0 ? r : 0;
}

int bridge_setup_gateways(struct cni_ctx *ctx, struct bridge_add *a)
{
	struct nlw_link gwlink = a->br;
	bool fam[2] = {false, false};
	int r;

	if (a->n_gws == 0)
		return 0;
	if (a->conf.vlan) {
		r = ensure_vlan_gw_link(ctx, a, &gwlink);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < a->n_gws; i++) {
		r = ensure_addr(ctx, a, &gwlink, &a->gws[i].addr);
		if (r < 0)
			return r;
		fam[a->gws[i].addr.family == AF_INET6] = true;
	}
	r = fam[0] ? podnet_host_forwarding(ctx, AF_INET) : 0;
	if (r >= 0 && fam[1])
		r = podnet_host_forwarding(ctx, AF_INET6);
	return r;
}
