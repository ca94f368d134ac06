/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of the bridge handlers: errors with kernel context, undo steps. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "bridge.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "pwnft/nft.h"

int bridge_fail(struct cni_ctx *ctx, struct nlw_sock *sock, int r, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	unsigned code = CNI_ERR_PLUGIN;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r == -EAGAIN || r == -EBUSY || r == -ETIMEDOUT)
		code = CNI_ERR_TRY_AGAIN;
	r = cni_errorf(&ctx->err, code, r, "%s: %s", what, strerror(-r));
	if (sock && nlw_sock_ext_ack(sock))
		cni_error_add_detail(&ctx->err, nlw_sock_ext_ack(sock));
	return r;
}

/* ---- undo steps: each owns everything it needs (the handler's state is gone) ---- */

static int undo_del_host_link(void *arg)
{
	_cleanup_nlw_sock_ struct nlw_sock *s = NULL;
	int r = nlw_sock_open(&s);

	if (r < 0)
		return r;
	r = nlw_link_del_by_name(s, arg);
	return r == -ENODEV ? 0 : r; /* already gone with its peer */
}

int bridge_undo_host_link(struct cni_ctx *ctx, const char *name)
{
	char *copy = strdup(name);
	char what[64];

	if (!copy)
		return -ENOMEM;
	snprintf(what, sizeof(what), "delete link '%s'", name);
	return cni_undo_push(&ctx->undo, what, undo_del_host_link, copy, free);
}

static int undo_ipam(void *arg)
{
	return bridge_ipam_run(arg, CNI_CMD_DEL);
}

int bridge_undo_ipam(struct cni_ctx *ctx)
{
	return cni_undo_push(&ctx->undo, "IPAM DEL", undo_ipam, ctx, NULL);
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
		r = pw_nft_spoof_del(nft, &(struct pw_nft_spoof){ .network = u->network,
								  .container_id = u->cid,
								  .ifname = u->ifname,
								  .host_ifname = u->host_ifname,
								  .mac = u->mac });
	else
		r = pw_nft_masq_del(nft, &(struct pw_nft_masq){ .network = u->network,
								.container_id = u->cid,
								.ifname = u->ifname,
								.addrs = u->addrs,
								.n_addrs = u->n_addrs });
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

/* Pod addresses of a result (with their prefix), for the nft sets. *ret owned. */
int bridge_result_addrs(const struct cni_result *r, struct ip_prefix **ret, size_t *ret_n)
{
	struct ip_prefix *a;

	*ret = NULL;
	*ret_n = 0;
	if (!r || r->n_ips == 0)
		return 0;
	a = malloc_multiply(r->n_ips, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_ips; i++)
		a[i] = r->ips[i].address;
	*ret = a;
	*ret_n = r->n_ips;
	return 0;
}
