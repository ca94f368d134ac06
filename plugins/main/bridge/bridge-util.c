/* SPDX-License-Identifier: Apache-2.0 */
/* Undo steps of the bridge's own resources: a bridge nobody joined, nftables elements. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "bridge.h"
#include "nlw/link.h"
#include "podnet/lock.h"
#include "pwnft/nft.h"

/*
 * Undo steps run with the invocation's sockets and context still open (the
 * handler's own state is gone): each keeps only what the handler held.
 */

/* Under the bridge's lock: delete it only when no port is left (ours went first). */
static int undo_unused_bridge(struct podnet *pn, void *arg)
{
	_cleanup_free_ struct nlw_link *ports = NULL;
	const char *name = arg;
	struct nlw_link br;
	unsigned n = 0;
	int r, fd = -1;

	r = podnet_lock_fd("bridge", name, &fd);
	if (r >= 0)
		r = nlw_link_get_by_name(pn->host, name, &br);
	if (r >= 0 && strcmp(br.kind, "bridge") == 0)
		r = nlw_link_list(pn->host, &(struct nlw_link_filter){.master = br.ifindex}, &ports,
				  &n);
	if (r >= 0 && strcmp(br.kind, "bridge") == 0 && n == 0)
		r = nlw_link_del(pn->host, br.ifindex);
	podnet_unlock(fd);
	return r == -ENODEV ? 0 : r;
}

int bridge_undo_unused_bridge(struct podnet *pn, const char *name)
{
	char *copy = strdup(name);

	if (!copy)
		return -ENOMEM;
	return podnet_undo_push(pn, "delete the bridge if no port joined it", undo_unused_bridge,
				copy, free);
}

struct pw_nft_spoof bridge_nft_spoof(const struct cni_ctx *ctx, const char *host_ifname,
				     const unsigned char *mac)
{
	return (struct pw_nft_spoof){.network = ctx->conf.name,
				     .container_id = ctx->container_id,
				     .ifname = ctx->ifname,
				     .host_ifname = host_ifname,
				     .mac = mac};
}

struct pw_nft_masq bridge_nft_masq(const struct cni_ctx *ctx, const struct ip_prefix *addrs,
				   size_t n)
{
	return (struct pw_nft_masq){.network = ctx->conf.name,
				    .container_id = ctx->container_id,
				    .ifname = ctx->ifname,
				    .addrs = addrs,
				    .n_addrs = n};
}

/* The attachment's nftables elements: its macspoofchk or its masquerade ones. */
struct nft_undo {
	char host_ifname[IFNAMSIZ];
	unsigned char mac[6];
	bool spoof;
	size_t n_addrs;
	struct ip_prefix addrs[];
};

static int undo_nft(struct podnet *pn, void *arg)
{
	struct nft_undo *u = arg;
	struct pw_nft *nft = NULL;
	struct pw_nft_spoof sp = bridge_nft_spoof(pn->ctx, u->host_ifname, u->mac);
	struct pw_nft_masq mq = bridge_nft_masq(pn->ctx, u->addrs, u->n_addrs);
	int r = pw_nft_open(&nft);

	if (r >= 0)
		r = u->spoof ? pw_nft_spoof_del(nft, &sp) : pw_nft_masq_del(nft, &mq);
	pw_nft_free(nft);
	return r;
}

int bridge_undo_spoof(struct podnet *pn, const char *host_ifname, const unsigned char mac[6])
{
	struct nft_undo *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->spoof = true;
	memcpy(u->mac, mac, 6);
	snprintf(u->host_ifname, sizeof(u->host_ifname), "%s", host_ifname);
	return podnet_undo_push(pn, "remove macspoofchk elements", undo_nft, u, free);
}

int bridge_undo_masq(struct podnet *pn, const struct ip_prefix *addrs, size_t n)
{
	struct nft_undo *u = calloc(1, sizeof(*u) + n * sizeof(*addrs));

	if (!u)
		return -ENOMEM;
	memcpy(u->addrs, addrs, n * sizeof(*addrs));
	u->n_addrs = n;
	return podnet_undo_push(pn, "remove masquerade elements", undo_nft, u, free);
}
