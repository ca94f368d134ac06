/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge ADD, in the reference's order: bridge, veth (peer created directly
 * in the pod netns, host end enslaved in the same request), host end tagged
 * and set up, port flags and VLANs, macspoofchk, IPAM, pod addresses and
 * routes, gateway on the bridge, forwarding, ipMasq, host port state. Every
 * created resource is pushed on ctx->undo, so a failure leaves nothing
 * behind. DEL and CHECK are in bridge-del.c and bridge-check.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "bridge.h"
#include "cni/log.h"
#include "nlw/addr.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "nlw/route.h"
#include "nlw/sock.h"
#include "nlw/sysctl.h"
#include "podnet/iface.h"
#include "podnet/lock.h"
#include "podnet/name.h"
#include "podnet/ipam.h"
#include "podnet/veth.h"
#include "pwnft/nft.h"

static void add_state_done(struct bridge_add *a)
{
	a->br_lock = podnet_unlock(a->br_lock);
	bridge_conf_done(&a->conf);
	a->result = cni_result_free(a->result);
}

static int create_bridge(struct cni_ctx *ctx, struct bridge_add *a)
{
	bool vf = a->conf.vlan || a->conf.has_trunk;
	int r;

	r = nlw_link_add_bridge(a->pn->host, &(struct nlw_bridge_params){
						 .name = a->conf.bridge,
						 .mtu = a->conf.mtu,
						 .has_vlan_filtering = vf,
						 .vlan_filtering = vf,
					     });
	if (r == -EEXIST)
		return 0; /* a concurrent ADD created it first */
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "create bridge '%s'%s", a->conf.bridge,
				   vf ? " with VLAN filtering (vlan/vlanTrunk)" : "");
	/*
	 * The bridge is shared: another ADD may join it the moment the lock is
	 * released, so the undo step removes it only if, under the same lock,
	 * it has no port left (podnet's undo rule).
	 */
	return bridge_undo_unused_bridge(a->pn, a->conf.bridge);
}

static int ensure_bridge(struct cni_ctx *ctx, struct bridge_add *a)
{
	char path[64];
	int r;

	r = nlw_link_get_by_name(a->pn->host, a->conf.bridge, &a->br);
	if (r == -ENODEV) {
		r = create_bridge(ctx, a);
		if (r >= 0)
			r = nlw_link_get_by_name(a->pn->host, a->conf.bridge, &a->br);
	}
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "look up bridge '%s'", a->conf.bridge);
	memcpy(a->br_mac_before, a->br.mac, 6);
	if (strcmp(a->br.kind, "bridge") != 0)
		return cni_errorf(&ctx->err, CNI_ERR_EXISTS, -EEXIST,
				  "bridge: \"%s\" already exists but is not a bridge (kind '%s')",
				  a->conf.bridge, a->br.kind);
	if (a->conf.promisc_mode && !a->br.promisc) {
		r = nlw_link_set_promisc(a->pn->host, a->br.ifindex, true);
		if (r < 0)
			return podnet_fail(ctx, a->pn->host, r, "set promisc on '%s'",
					   a->conf.bridge);
	}
	snprintf(path, sizeof(path), "net/ipv6/conf/%s/accept_ra", a->conf.bridge);
	podnet_sysctl_try(ctx, path, "0");
	if (!(a->br.flags & IFF_UP)) {
		r = nlw_link_set_up(a->pn->host, a->br.ifindex);
		if (r < 0)
			return podnet_fail(ctx, a->pn->host, r, "set bridge '%s' up",
					   a->conf.bridge);
	}
	return 0;
}

/*
 * One RTM_NEWLINK: host end derived "veth%08x", enslaved and still down; pod
 * end named CNI_IFNAME created directly in the pod netns with the MTU and MAC.
 */
static int create_veth(struct cni_ctx *ctx, struct bridge_add *a)
{
	(void)ctx;
	return podnet_veth_add(a->pn,
			       &(struct podnet_veth){
				   .host_prefix = BRIDGE_VETH_PREFIX,
				   .host_hex = BRIDGE_VETH_HEX,
				   .mtu = a->conf.mtu,
				   .master = a->br.ifindex,
				   .pod_mac = a->conf.mac_source ? a->conf.mac : NULL,
			       },
			       &a->veth);
}

/*
 * The port's VLANs (vlan/vlanTrunk only). The list lives on the heap: at up
 * to 4095 entries it would otherwise put 32 KB on the stack of every ADD.
 */
static int setup_port_vlans(struct cni_ctx *ctx, struct bridge_add *a)
{
	_cleanup_free_ struct nlw_bridge_vlan *v = NULL;
	unsigned n;
	int r;

	if (!a->conf.preserve_default_vlan) {
		/* A new port only carries the bridge's default PVID (1). */
		r = nlw_bridge_vlan_del(a->pn->host, a->veth.host.ifindex,
					&(struct nlw_bridge_vlan){.vid = 1}, 1);
		if (r < 0 && r != -ENOENT && r != -EINVAL)
			return podnet_fail(ctx, a->pn->host, r, "remove default VLAN from '%s'",
					   a->veth.host_name);
	}
	v = calloc(BRIDGE_TRUNK_MAX + 1, sizeof(*v));
	if (!v)
		return podnet_fail(ctx, a->pn->host, -ENOMEM, "add VLANs to port '%s'",
				   a->veth.host_name);
	n = bridge_plan_port_vlans(&a->conf, v, BRIDGE_TRUNK_MAX + 1);
	r = nlw_bridge_vlan_add(a->pn->host, a->veth.host.ifindex, v, n);
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r,
				   "add VLANs to port '%s' (needs bridge VLAN "
				   "filtering)",
				   a->veth.host_name);
	return 0;
}

static int setup_port(struct cni_ctx *ctx, struct bridge_add *a)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "net/ipv6/conf/%s/accept_ra", a->veth.host_name);
	podnet_sysctl_try(ctx, path, "0");
	r = nlw_bridge_port_set(a->pn->host, a->veth.host.ifindex,
				&(struct nlw_brport_params){.has_hairpin = true,
							    .hairpin = a->conf.hairpin_mode,
							    .has_isolated = true,
							    .isolated = a->conf.port_isolation});
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "set hairpin/isolated on port '%s'",
				   a->veth.host_name);
	if (!a->conf.vlan && !a->conf.has_trunk)
		return 0;
	return setup_port_vlans(ctx, a);
}

static int build_result(struct cni_ctx *ctx, struct bridge_add *a)
{
	char mac[18];
	int r;

	a->result = cni_result_new(CNI_V110);
	if (!a->result)
		return -ENOMEM;
	r = cni_result_add_iface(a->result, a->conf.bridge, nlw_mac_fmt(a->br.mac, mac), NULL);
	if (r >= 0)
		r = cni_result_add_iface(a->result, a->veth.host_name,
					 nlw_mac_fmt(a->veth.host.mac, mac), NULL);
	if (r >= 0)
		r = cni_result_add_iface(a->result, ctx->ifname, nlw_mac_fmt(a->veth.pod.mac, mac),
					 ctx->netns);
	return r < 0 ? r : 0;
}

/*
 * Add the attachment's macspoofchk (sp) or masquerade (mq) elements under the
 * network's nftables lock: a GC never drops a set this ADD adds to.
 */
static int add_elements(struct cni_ctx *ctx, const struct pw_nft_spoof *sp,
			const struct pw_nft_masq *mq)
{
	struct pw_nft *nft = NULL;
	int r, lock = -1;

	r = podnet_lock(ctx, "nft", ctx->conf.name, &lock);
	if (r < 0)
		return r;
	r = pw_nft_open(&nft);
	if (r >= 0)
		r = sp ? pw_nft_spoof_add(nft, sp) : pw_nft_masq_add(nft, mq);
	if (r < 0)
		r = podnet_fail_ack(ctx, nft ? pw_nft_ext_ack(nft) : NULL, r,
				    sp ? "macspoofchk: nftables" : "ipMasq: nftables");
	pw_nft_free(nft);
	podnet_unlock(lock);
	return r;
}

static int add_spoofchk(struct cni_ctx *ctx, struct bridge_add *a)
{
	struct pw_nft_spoof sp = bridge_nft_spoof(ctx, a->veth.host_name, a->veth.pod.mac);
	int r = add_elements(ctx, &sp, NULL);

	return r < 0 ? r : bridge_undo_spoof(a->pn, a->veth.host_name, a->veth.pod.mac);
}

static int add_masq(struct cni_ctx *ctx, struct bridge_add *a)
{
	_cleanup_free_ struct ip_prefix *addrs = NULL;
	struct pw_nft_masq mq;
	size_t n;
	int r = cni_result_addrs(a->result, &addrs, &n);

	if (r < 0 || n == 0)
		return r;
	mq = bridge_nft_masq(ctx, addrs, n);
	r = add_elements(ctx, NULL, &mq);
	return r < 0 ? r : bridge_undo_masq(a->pn, addrs, n);
}

/* IPAM ADD and the bridge's completion of its result (gateways, default routes). */
static int run_ipam(struct cni_ctx *ctx, struct bridge_add *a)
{
	int r = podnet_ipam_add_to(ctx, a->result);

	if (r < 0)
		return r;
	r = bridge_plan_l3(&a->conf, a->result, a->gws, ARRAY_SIZE(a->gws));
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r,
				  "too many gateway addresses in the IPAM result");
	a->n_gws = (size_t)r;
	return 0;
}

static int configure_pod(struct cni_ctx *ctx, struct bridge_add *a)
{
	return podnet_iface_configure(a->pn,
				      &(struct podnet_iface){.ifindex = a->veth.pod.ifindex,
							     .name = ctx->ifname,
							     .enable_dad = a->conf.enable_dad},
				      a->result);
}

/* The final MACs of bridge and port; port_fresh: the port was just read. */
static int refresh_macs(struct cni_ctx *ctx, struct bridge_add *a, bool port_fresh)
{
	char mac[18];
	int r;

	r = nlw_link_get_by_index(a->pn->host, a->br.ifindex, &a->br);
	if (r >= 0 && !port_fresh)
		r = nlw_link_get_by_index(a->pn->host, a->veth.host.ifindex, &a->veth.host);
	if (r < 0)
		return podnet_fail(ctx, a->pn->host, r, "look up bridge and port");
	r = cni_result_set_iface_mac(a->result, 0, nlw_mac_fmt(a->br.mac, mac));
	if (r >= 0)
		r = cni_result_set_iface_mac(a->result, 1, nlw_mac_fmt(a->veth.host.mac, mac));
	return r;
}

static int add_l3(struct cni_ctx *ctx, struct bridge_add *a)
{
	int r;

	r = run_ipam(ctx, a);
	/*
	 * The spoof check goes in after IPAM (the reference: before), still
	 * before the pod's interface comes up: IPAM is the step most likely
	 * to fail, and a network's first ADD failing there then leaves no
	 * nftables table, chain or set behind.
	 */
	if (r >= 0 && a->conf.macspoofchk)
		r = add_spoofchk(ctx, a);
	if (r >= 0)
		r = configure_pod(ctx, a);
	if (r >= 0)
		r = bridge_setup_gateways(ctx, a);
	if (r >= 0 && a->conf.ip_masq)
		r = add_masq(ctx, a);
	return r;
}

static int add_steps(struct cni_ctx *ctx, struct bridge_add *a)
{
	int r;

	/* Create-or-join and the veth's enslavement, atomic against a creator's undo. */
	r = podnet_lock(ctx, "bridge", a->conf.bridge, &a->br_lock);
	if (r >= 0)
		r = ensure_bridge(ctx, a);
	if (r >= 0)
		r = create_veth(ctx, a);
	a->br_lock = podnet_unlock(a->br_lock);
	if (r >= 0)
		r = podnet_veth_tag_up(a->pn, &a->veth);
	if (r >= 0)
		r = setup_port(ctx, a);
	if (r >= 0)
		r = build_result(ctx, a);
	if (r >= 0 && a->conf.macspoofchk && !a->conf.is_layer3)
		r = add_spoofchk(ctx, a);
	if (r >= 0 && a->conf.is_layer3)
		r = add_l3(ctx, a);
	else if (r >= 0 && !a->conf.disable_container_interface) {
		r = nlw_link_set_up(a->pn->pod, a->veth.pod.ifindex);
		if (r < 0)
			r = podnet_fail(ctx, a->pn->pod, r, "set '%s' up", ctx->ifname);
	}
	if (r >= 0 && !a->conf.disable_container_interface)
		r = podnet_veth_wait_up(a->pn, &a->veth);
	if (r >= 0)
		r = refresh_macs(ctx, a, !a->conf.disable_container_interface);
	return r;
}

static int cmd_add(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bridge_add a = {.pn = pn, .br_lock = -1};
	int r;

	r = bridge_conf_parse(ctx, &a.conf);
	if (r >= 0)
		r = add_steps(ctx, &a);
	if (r >= 0)
		r = cni_result_apply_conf_dns(a.result, &ctx->conf);
	if (r >= 0) {
		a.result->version = ctx->conf.version;
		ctx->result = TAKE_PTR(a.result);
	}
	add_state_done(&a);
	return r;
}

static int cmd_status(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct bridge_conf c;
	int r = bridge_conf_parse(ctx, &c);

	if (r < 0)
		return r;
	if (c.is_layer3)
		r = podnet_ipam_run(ctx, CNI_CMD_STATUS);
	bridge_conf_done(&c);
	return r;
}

const struct podnet_plugin_ops bridge_ops = {
    .name = "bridge",
    .about = "podwire bridge plugin: veth pairs from pods to a Linux bridge "
	     "(drop-in for the reference bridge)",
    .cni_args_keys = bridge_cni_args_keys,
    .add = {cmd_add, PODNET_POD},
    .del = {bridge_cmd_del, PODNET_POD},
    .check = {bridge_cmd_check, PODNET_POD},
    .gc = {bridge_cmd_gc, PODNET_HOST},
    .status = {cmd_status, PODNET_NOTHING},
};
