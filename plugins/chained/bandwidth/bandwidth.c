/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bandwidth handlers. Ingress (towards the pod): a tbf root qdisc on the
 * host veth. Egress (from the pod): an IFB device, the ingress qdisc on the
 * host veth with a u32 match-all filter redirecting to the IFB, and a tbf
 * on the IFB. With unshapedSubnets/shapedSubnets the tbf becomes an htb
 * with a shaped class 1:1, an unshaped class 1:2 and one u32 filter per
 * subnet. DEL deletes the IFB and the qdiscs; CHECK compares them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bandwidth.h"
#include "base/macro.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "nlw/tc.h"
#include "podnet/chain.h"

#define ROOT_HANDLE NLW_TC_HANDLE(1, 0)

/* ---- undo steps ---- */

struct undo_qdisc {
	int ifindex;
	uint32_t parent;
};

static int undo_qdisc_fn(struct podnet *pn, void *arg)
{
	const struct undo_qdisc *u = arg;

	return nlw_qdisc_del(pn->host, u->ifindex, u->parent);
}

static int push_qdisc_undo(struct podnet *pn, int ifindex, uint32_t parent)
{
	struct undo_qdisc *u = malloc(sizeof(*u));

	if (!u)
		return -ENOMEM;
	*u = (struct undo_qdisc){ifindex, parent};
	return podnet_undo_push(pn, "qdisc", undo_qdisc_fn, u, free);
}

/* ---- shaping ---- */

/*
 * Rate and burst of one direction: ingress (towards the pod) shapes the host
 * veth and its subnet filters match the source; egress the IFB, destination.
 */
static void direction(const struct bandwidth_conf *c, bool ingress, uint64_t *rate, uint64_t *burst)
{
	*rate = ingress ? c->ingress_rate : c->egress_rate;
	*burst = ingress ? c->ingress_burst : c->egress_burst;
}

/* Classes of the htb: a shaped 1:1, an unshaped 1:2, and a filter per subnet. */
static int add_htb_classes(struct nlw_sock *s, int ifindex, const struct bandwidth_conf *c,
			   bool ingress)
{
	struct nlw_tbf shaped, open;
	uint32_t to = NLW_TC_HANDLE(1, c->subnets_shaped ? 1 : 2);
	uint64_t rate, burst;
	int r;

	direction(c, ingress, &rate, &burst);
	bandwidth_tbf(rate, burst, &shaped);
	bandwidth_tbf(BANDWIDTH_UNCAPPED_RATE * 8, burst, &open);
	r = nlw_class_add_htb(
	    s, ifindex,
	    &(struct nlw_htb_class){NLW_TC_HANDLE(1, 1), ROOT_HANDLE, shaped.rate, shaped.buffer});
	if (r >= 0)
		r = nlw_class_add_htb(s, ifindex,
				      &(struct nlw_htb_class){NLW_TC_HANDLE(1, 2), ROOT_HANDLE,
							      open.rate, open.buffer});
	for (size_t i = 0; r >= 0 && i < c->n_subnets; i++)
		r = nlw_filter_add_prefix(s, ifindex,
					  &(struct nlw_prefix_filter){ROOT_HANDLE,
								      (uint16_t)(16 + i),
								      &c->subnets[i], ingress, to});
	return r;
}

/* Root shaping qdisc of a link: tbf, or htb with subnets; undo pushed once created. */
static int shape(struct podnet *pn, const struct nlw_link *l, const struct bandwidth_conf *c,
		 bool ingress)
{
	struct nlw_sock *s = pn->host;
	uint64_t rate, burst;
	struct nlw_tbf t;
	int r;

	direction(c, ingress, &rate, &burst);
	bandwidth_tbf(rate, burst, &t);
	if (c->n_subnets)
		r = nlw_qdisc_add_htb(s, l->ifindex, ROOT_HANDLE, NLW_TC_H_ROOT,
				      c->subnets_shaped ? 2 : 1);
	else
		r = nlw_qdisc_add_tbf(s, l->ifindex, ROOT_HANDLE, NLW_TC_H_ROOT, &t);
	if (r >= 0)
		r = push_qdisc_undo(pn, l->ifindex, NLW_TC_H_ROOT);
	if (r >= 0 && c->n_subnets)
		r = add_htb_classes(s, l->ifindex, c, ingress);
	return r < 0 ? podnet_fail(pn->ctx, s, r, "add shaping qdisc on '%s'", l->name) : 0;
}

static int add_egress(struct podnet *pn, const struct nlw_link *veth,
		      const struct bandwidth_conf *c)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_sock *s = pn->host;
	char ifb_name[IFNAMSIZ], mac[18], alias[NLW_ALIAS_MAX];
	struct nlw_link ifb;
	int r;

	if (bandwidth_ifb_name(ctx->conf.name, ctx->container_id, ifb_name) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	r = nlw_link_add_ifb(s, ifb_name, veth->mtu);
	if (r < 0)
		return podnet_fail(ctx, s, r, "create ifb device on '%s'", ifb_name);
	r = podnet_undo_host_link(pn, ifb_name);
	if (r >= 0)
		r = nlw_link_get_by_name(s, ifb_name, &ifb);
	/* The kernel ignores IFLA_IFALIAS at creation: a second request. Too long
	 * for an alias (network + ID > 108 bytes): none, and GC skips the IFB. */
	if (r >= 0 &&
	    bandwidth_ifb_alias(ctx->conf.name, ctx->container_id, alias, sizeof(alias)) >= 0)
		r = nlw_link_set_alias(s, ifb.ifindex, alias);
	if (r < 0)
		return podnet_fail(ctx, s, r, "read ifb device on '%s'", ifb_name);
	r = cni_result_add_iface(ctx->result, ifb_name,
				 ifb.has_mac ? nlw_mac_fmt(ifb.mac, mac) : NULL, NULL);
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "out of memory");
	r = nlw_qdisc_add_ingress(s, veth->ifindex);
	if (r >= 0)
		r = push_qdisc_undo(pn, veth->ifindex, NLW_TC_H_INGRESS);
	if (r >= 0)
		r = nlw_filter_add_redirect(s, veth->ifindex, NLW_TC_HANDLE(0xffff, 0), 1,
					    ifb.ifindex);
	if (r < 0)
		return podnet_fail(ctx, s, r, "redirect to ifb on '%s'", veth->name);
	return shape(pn, &ifb, c, false);
}

static int apply(struct podnet *pn, const struct bandwidth_conf *c)
{
	struct nlw_link veth;
	int r;

	r = podnet_host_peer(pn, &veth);
	if (r >= 0 && bandwidth_ingress(c))
		r = shape(pn, &veth, c, true);
	if (r >= 0 && bandwidth_egress(c))
		r = add_egress(pn, &veth, c);
	return r;
}

/* ADD's and CHECK's frame: parse the config, require prevResult, run step. */
static int with_conf(struct podnet *pn, int (*step)(struct podnet *, const struct bandwidth_conf *))
{
	struct bandwidth_conf c;
	int r = bandwidth_conf_parse(pn->ctx, &c);

	if (r < 0)
		return r;
	r = podnet_require_prev(pn->ctx);
	if (r >= 0)
		r = step(pn, &c);
	bandwidth_conf_done(&c);
	return r;
}

static int add_step(struct podnet *pn, const struct bandwidth_conf *c)
{
	struct cni_ctx *ctx = pn->ctx;

	ctx->result = cni_result_dup(ctx->prev_result);
	if (!ctx->result)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	return bandwidth_ingress(c) || bandwidth_egress(c) ? apply(pn, c) : 0;
}

static int bandwidth_add(struct podnet *pn)
{
	return with_conf(pn, add_step);
}

static bool ours_root(const struct nlw_qdisc *q)
{
	return q->parent == NLW_TC_H_ROOT && q->handle == ROOT_HANDLE &&
	       (strcmp(q->kind, "tbf") == 0 || strcmp(q->kind, "htb") == 0);
}

/* Remove our qdiscs from a host veth listed in prevResult (if it still exists). */
static int del_veth_qdiscs(struct nlw_sock *s, const char *name)
{
	_cleanup_free_ struct nlw_qdisc *q = NULL;
	struct nlw_link l;
	unsigned n = 0;
	int r, first = 0;

	r = nlw_link_get_by_name(s, name, &l);
	if (r == -ENODEV || (r >= 0 && strcmp(l.kind, "veth") != 0))
		return 0;
	if (r >= 0)
		r = nlw_qdisc_list(s, l.ifindex, &q, &n);
	for (unsigned i = 0; r >= 0 && i < n; i++) {
		int d = 0;

		if (ours_root(&q[i]))
			d = nlw_qdisc_del(s, l.ifindex, NLW_TC_H_ROOT);
		else if (q[i].parent == NLW_TC_H_INGRESS && strcmp(q[i].kind, "ingress") == 0)
			d = nlw_qdisc_del(s, l.ifindex, NLW_TC_H_INGRESS);
		if (d < 0 && d != -ENOENT && d != -EINVAL && !first)
			first = d;
	}
	return r < 0 && r != -ENODEV ? r : first;
}

static int bandwidth_del(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_sock *s = pn->host;
	const struct cni_result *pr = ctx->prev_result;
	char ifb_name[IFNAMSIZ];
	struct nlw_link l;
	int r, first = 0;

	for (size_t i = 0; pr && i < pr->n_ifaces; i++)
		if (!pr->ifaces[i].sandbox || !pr->ifaces[i].sandbox[0]) {
			r = del_veth_qdiscs(s, pr->ifaces[i].name);
			if (r < 0 && !first)
				first = podnet_fail(ctx, s, r, "remove qdiscs on '%s'",
						    pr->ifaces[i].name);
		}
	if (bandwidth_ifb_name(ctx->conf.name, ctx->container_id, ifb_name) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	r = nlw_link_get_by_name(s, ifb_name, &l);
	if (r >= 0 && strcmp(l.kind, "ifb") == 0)
		r = nlw_link_del(s, l.ifindex);
	if (r < 0 && r != -ENODEV && !first)
		first = podnet_fail(ctx, s, r, "delete ifb device on '%s'", ifb_name);
	return first;
}

/* 1 when the root qdisc of ifindex is what c asks for, 0 when not. */
static int root_matches(struct nlw_sock *s, int ifindex, const struct bandwidth_conf *c,
			uint64_t rate, uint64_t burst)
{
	_cleanup_free_ struct nlw_qdisc *q = NULL;
	struct nlw_tbf want;
	unsigned n = 0;
	int r = nlw_qdisc_list(s, ifindex, &q, &n);

	if (r < 0)
		return r;
	bandwidth_tbf(rate, burst, &want);
	for (unsigned i = 0; i < n; i++) {
		if (!ours_root(&q[i]))
			continue;
		if (c->n_subnets)
			return strcmp(q[i].kind, "htb") == 0;
		return q[i].has_tbf && q[i].tbf.rate == want.rate &&
		       q[i].tbf.buffer == want.buffer && q[i].tbf.limit == want.limit;
	}
	return 0;
}

static int check_egress(struct cni_ctx *ctx, struct nlw_sock *s, const struct bandwidth_conf *c)
{
	char ifb_name[IFNAMSIZ];
	struct nlw_link ifb;
	int r;

	if (bandwidth_ifb_name(ctx->conf.name, ctx->container_id, ifb_name) < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	r = nlw_link_get_by_name(s, ifb_name, &ifb);
	if (r == -ENODEV || (r >= 0 && strcmp(ifb.kind, "ifb") != 0))
		return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -ENODEV,
				  "egress: ifb device '%s' missing", ifb_name);
	if (r >= 0)
		r = root_matches(s, ifb.ifindex, c, c->egress_rate, c->egress_burst);
	if (r == 0)
		return cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
				  "egress: qdisc on '%s' missing or differs from egressRate %llu "
				  "egressBurst %llu",
				  ifb_name, (unsigned long long)c->egress_rate,
				  (unsigned long long)c->egress_burst);
	return r < 0 ? podnet_fail(ctx, s, r, "list qdiscs on '%s'", ifb_name) : 0;
}

static int check_step(struct podnet *pn, const struct bandwidth_conf *c)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_sock *s = pn->host;
	struct nlw_link veth;
	int r = 0;

	if (bandwidth_ingress(c) || bandwidth_egress(c))
		r = podnet_host_peer(pn, &veth);
	if (r >= 0 && bandwidth_ingress(c)) {
		r = root_matches(s, veth.ifindex, c, c->ingress_rate, c->ingress_burst);
		if (r == 0)
			r = cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
				       "ingress: qdisc on '%s' missing or differs from ingressRate "
				       "%llu ingressBurst %llu",
				       veth.name, (unsigned long long)c->ingress_rate,
				       (unsigned long long)c->ingress_burst);
		else if (r < 0)
			r = podnet_fail(ctx, s, r, "list qdiscs on '%s'", veth.name);
	}
	if (r >= 0 && bandwidth_egress(c))
		r = check_egress(ctx, s, c);
	return r < 0 ? r : 0;
}

static int bandwidth_check(struct podnet *pn)
{
	return with_conf(pn, check_step);
}

static bool cid_valid(const struct cni_conf *conf, const char *cid)
{
	for (size_t i = 0; i < conf->n_valid_attachments; i++)
		if (strcmp(conf->valid_attachments[i].container_id, cid) == 0)
			return true;
	return false;
}

/*
 * GC: delete the IFBs this network created (their alias names network and
 * container ID) for containers not in cni.dev/valid-attachments. Without
 * the key: nothing.
 */
static int bandwidth_gc(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_sock *s = pn->host;
	_cleanup_free_ struct nlw_link *links = NULL;
	char cid[NLW_ALIAS_MAX];
	unsigned n = 0;
	int r, first = 0;

	if (!ctx->conf.has_valid_attachments)
		return 0;
	r = nlw_link_list(s, &(struct nlw_link_filter){.kind = "ifb"}, &links, &n);
	if (r < 0)
		return podnet_fail(ctx, s, r, "list ifb devices on 'host'");
	for (unsigned i = 0; i < n; i++) {
		if (bandwidth_ifb_alias_parse(links[i].alias, ctx->conf.name, cid, sizeof(cid)) <
			0 ||
		    cid_valid(&ctx->conf, cid))
			continue;
		cni_log_info("gc: deleting ifb '%s' of container '%s'", links[i].name, cid);
		r = nlw_link_del(s, links[i].ifindex);
		if (r < 0 && r != -ENODEV && !first)
			first = podnet_fail(ctx, s, r, "delete ifb device on '%s'", links[i].name);
	}
	return first;
}

const struct podnet_plugin_ops bandwidth_ops = {
    .name = "bandwidth",
    .about = "podwire bandwidth: tbf shaping over rtnetlink (chained plugin)",
    .add = {bandwidth_add, PODNET_POD},
    .del = {bandwidth_del, PODNET_HOST},
    .check = {bandwidth_check, PODNET_POD},
    .gc = {bandwidth_gc, PODNET_HOST},
};
