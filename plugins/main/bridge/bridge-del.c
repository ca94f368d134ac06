/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge DEL and GC. DEL is idempotent and best effort: a missing netns,
 * link, set element or lease is success; it keeps going after an error and
 * returns the first one. Unlike the reference it also removes nftables state
 * when CNI_NETNS is empty (containerd) and deletes the host veth when the pod
 * end is unreachable.
 */
#include <errno.h>
#include <string.h>

#include "base/macro.h"
#include "bridge.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "podnet/gc.h"
#include "podnet/ipam.h"
#include "podnet/lock.h"
#include "podnet/name.h"
#include "podnet/veth.h"
#include "pwnft/nft.h"

/* What DEL knows about the attachment: from prevResult, else derived. */
struct del_info {
	char host_name[IFNAMSIZ];
	bool has_mac;
	unsigned char mac[6];
};

void bridge_find_attachment(const struct cni_ctx *ctx, const struct bridge_conf *c,
			    char host_name[IFNAMSIZ], unsigned char mac[6], bool *has_mac)
{
	const struct cni_result *pr = ctx->prev_result;

	(void)podnet_host_ifname(BRIDGE_VETH_PREFIX, BRIDGE_VETH_HEX, ctx->container_id,
				 ctx->ifname, 0, host_name);
	*has_mac = false;
	for (size_t i = 0; pr && i < pr->n_ifaces; i++) {
		const struct cni_iface *f = &pr->ifaces[i];

		if (f->sandbox && f->sandbox[0]) {
			if (strcmp(f->name, ctx->ifname) == 0 && f->mac &&
			    nlw_mac_parse(f->mac, mac) >= 0)
				*has_mac = true;
			continue;
		}
		/* The host veth: not the bridge, not the "<bridge>.<vlan>" gateway link. */
		if (strcmp(f->name, c->bridge) != 0 && strncmp(f->name, "veth", 4) == 0 &&
		    strlen(f->name) < IFNAMSIZ)
			snprintf(host_name, IFNAMSIZ, "%s", f->name);
	}
}

static int del_nft(struct cni_ctx *ctx, const struct bridge_conf *c, const struct del_info *d)
{
	_cleanup_free_ struct ip_prefix *addrs = NULL;
	struct pw_nft *nft = NULL;
	int r, first = 0;
	size_t n = 0;

	r = pw_nft_open(&nft);
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "open nftables socket");
	if (c->macspoofchk) {
		struct pw_nft_spoof sp = bridge_nft_spoof(ctx, d->has_mac ? d->host_name : NULL,
							  d->has_mac ? d->mac : NULL);

		podnet_keep_first(&first, pw_nft_spoof_del(nft, &sp));
	}
	if (c->ip_masq && c->is_layer3) {
		struct pw_nft_masq mq;

		/* Without prevResult addresses the sets are scanned for our tag. */
		r = cni_result_addrs(ctx->prev_result, &addrs, &n);
		mq = bridge_nft_masq(ctx, addrs, n);
		if (r >= 0)
			r = pw_nft_masq_del(nft, &mq);
		podnet_keep_first(&first, r);
	}
	if (first < 0)
		first =
		    podnet_fail_ack(ctx, pw_nft_ext_ack(nft), first, "remove nftables elements");
	pw_nft_free(nft);
	return first;
}

int bridge_cmd_del(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bridge_conf c;
	struct del_info d;
	int r, first = 0;

	r = bridge_conf_parse(ctx, &c);
	if (r < 0)
		return r;
	bridge_find_attachment(ctx, &c, d.host_name, d.mac, &d.has_mac);
	podnet_keep_first(&first, podnet_veth_del(pn, d.host_name));
	if (c.macspoofchk || (c.ip_masq && c.is_layer3))
		podnet_keep_first(&first, del_nft(ctx, &c, &d));
	if (c.is_layer3)
		podnet_keep_first(&first, podnet_ipam_run(ctx, CNI_CMD_DEL));
	bridge_conf_done(&c);
	return first;
}

static bool gc_keep(const char *container_id, const char *ifname, void *userdata)
{
	return cni_conf_attachment_valid(userdata, container_id, ifname);
}

/* Host veths on the bridge tagged for this network whose attachment is gone. */
static int gc_host_veths(struct podnet *pn, const struct bridge_conf *c)
{
	struct nlw_link br;
	int r = nlw_link_get_by_name(pn->host, c->bridge, &br);

	if (r == -ENODEV)
		return 0; /* no bridge, no port */
	if (r < 0)
		return podnet_fail(pn->ctx, pn->host, r, "look up bridge '%s'", c->bridge);
	return podnet_gc_host_links(
	    pn, &(struct nlw_link_filter){.master = br.ifindex, .kind = "veth"});
}

/*
 * nftables elements of attachments not in cni.dev/valid-attachments; then,
 * under the network's nftables lock (every ADD takes it around its
 * elements), the network's sets and chains once they hold nothing.
 */
static int gc_nft(struct cni_ctx *ctx)
{
	struct pw_nft *nft = NULL;
	int r, dropped, lock = -1;

	r = pw_nft_open(&nft);
	if (r >= 0)
		r = pw_nft_gc(nft, ctx->conf.name, gc_keep, &ctx->conf);
	if (r > 0)
		cni_log_info("GC removed %d nftables element(s)", r);
	if (r >= 0)
		r = podnet_lock(ctx, "nft", ctx->conf.name, &lock);
	if (r >= 0) {
		dropped = pw_nft_drop_network_if_empty(nft, ctx->conf.name);
		if (dropped > 0)
			cni_log_info("GC removed the %d nftables set(s) of network '%s' and their "
				     "chains: no attachment left",
				     dropped, ctx->conf.name);
		r = dropped;
	}
	podnet_unlock(lock);
	if (r < 0 && !cni_error_isset(&ctx->err))
		r = podnet_fail(ctx, NULL, r, "GC of nftables elements");
	pw_nft_free(nft);
	return r < 0 ? r : 0;
}

/*
 * GC: host veths and nftables elements of attachments not in
 * cni.dev/valid-attachments, then the IPAM plugin's GC. Without the key there
 * is nothing to compare with, so veths and nftables state are left alone
 * (cnitool's GC DELs cached attachments first).
 */
int bridge_cmd_gc(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bridge_conf c;
	int r, first = 0;

	r = bridge_conf_parse(ctx, &c);
	if (r < 0)
		return r;
	if (ctx->conf.has_valid_attachments) {
		podnet_keep_first(&first, gc_host_veths(pn, &c));
		podnet_keep_first(&first, gc_nft(ctx));
	}
	if (c.is_layer3)
		podnet_keep_first(&first, podnet_ipam_run(ctx, CNI_CMD_GC));
	bridge_conf_done(&c);
	return first;
}
