/* SPDX-License-Identifier: Apache-2.0 */
/* Undo steps of the bridge's own resources: a bridge nobody joined, nftables elements. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "bridge.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "podnet/lock.h"
#include "pwnft/nft.h"

/* ---- undo steps: each owns everything it needs (the handler's state is gone) ---- */

/* Under the bridge's lock: delete it only when no port is left (ours went first). */
static int undo_unused_bridge(void *arg)
{
	_cleanup_nlw_sock_ struct nlw_sock *s = NULL;
	_cleanup_free_ struct nlw_link *ports = NULL;
	const char *name = arg;
	struct nlw_link br;
	unsigned n = 0;
	int r, fd = -1;

	r = podnet_lock_fd("bridge", name, &fd);
	if (r >= 0)
		r = podnet_open_host_sock(&s);
	if (r >= 0)
		r = nlw_link_get_by_name(s, name, &br);
	if (r >= 0 && strcmp(br.kind, "bridge") == 0)
		r = nlw_link_list(s, &(struct nlw_link_filter){.master = br.ifindex}, &ports, &n);
	if (r >= 0 && strcmp(br.kind, "bridge") == 0 && n == 0)
		r = nlw_link_del(s, br.ifindex);
	podnet_unlock(fd);
	return r == -ENODEV ? 0 : r;
}

int bridge_undo_unused_bridge(struct cni_ctx *ctx, const char *name)
{
	char *copy = strdup(name);

	if (!copy)
		return -ENOMEM;
	return cni_undo_push(&ctx->undo, "delete the bridge if no port joined it",
			     undo_unused_bridge, copy, free);
}

struct nft_undo {
	char *network, *cid, *ifname, *host_ifname;
	unsigned char mac[6];
	bool spoof;
	struct ip_prefix *addrs;
	size_t n_addrs;
};

static void nft_undo_free(void *arg)
{
	struct nft_undo *u = arg;

	free(u->network);
	free(u->cid);
	free(u->ifname);
	free(u->host_ifname);
	free(u->addrs);
	free(u);
}

static int undo_nft(void *arg)
{
	struct nft_undo *u = arg;
	struct pw_nft *nft = NULL;
	int r = pw_nft_open(&nft);

	if (r < 0)
		return r;
	if (u->spoof)
		r = pw_nft_spoof_del(nft, &(struct pw_nft_spoof){.network = u->network,
								 .container_id = u->cid,
								 .ifname = u->ifname,
								 .host_ifname = u->host_ifname,
								 .mac = u->mac});
	else
		r = pw_nft_masq_del(nft, &(struct pw_nft_masq){.network = u->network,
							       .container_id = u->cid,
							       .ifname = u->ifname,
							       .addrs = u->addrs,
							       .n_addrs = u->n_addrs});
	pw_nft_free(nft);
	return r;
}

static struct nft_undo *nft_undo_new(struct cni_ctx *ctx)
{
	struct nft_undo *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->network = strdup(ctx->conf.name);
	u->cid = strdup(ctx->container_id);
	u->ifname = strdup(ctx->ifname);
	if (!u->network || !u->cid || !u->ifname) {
		nft_undo_free(u);
		return NULL;
	}
	return u;
}

int bridge_undo_spoof(struct cni_ctx *ctx, const char *host_ifname, const unsigned char mac[6])
{
	struct nft_undo *u = nft_undo_new(ctx);

	if (!u)
		return -ENOMEM;
	u->spoof = true;
	memcpy(u->mac, mac, 6);
	u->host_ifname = strdup(host_ifname);
	if (!u->host_ifname) {
		nft_undo_free(u);
		return -ENOMEM;
	}
	return cni_undo_push(&ctx->undo, "remove macspoofchk elements", undo_nft, u, nft_undo_free);
}

int bridge_undo_masq(struct cni_ctx *ctx, const struct ip_prefix *addrs, size_t n)
{
	struct nft_undo *u = nft_undo_new(ctx);

	if (!u)
		return -ENOMEM;
	u->addrs = malloc_multiply(n, sizeof(*addrs));
	if (!u->addrs) {
		nft_undo_free(u);
		return -ENOMEM;
	}
	memcpy(u->addrs, addrs, n * sizeof(*addrs));
	u->n_addrs = n;
	return cni_undo_push(&ctx->undo, "remove masquerade elements", undo_nft, u, nft_undo_free);
}
