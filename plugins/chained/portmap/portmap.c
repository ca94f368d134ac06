/* SPDX-License-Identifier: Apache-2.0 */
/*
 * portmap handlers: ADD adds the attachment's map and set elements (one
 * nftables transaction) and sets route_localnet on the link towards the
 * pod; DEL removes exactly this attachment's elements (no netns needed);
 * CHECK verifies them; GC removes elements of attachments not listed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/route-get.h"
#include "nlw/sysctl.h"
#include "podnet/chain.h"
#include "portmap.h"
#include "pwnft/portmap.h"

/* What one invocation works on: config and the expanded entries. */
struct portmap_run {
	struct portmap_conf conf;
	struct portmap_addrs addrs;
	struct pw_nft_hostport *ports;
	size_t *src; /* portMappings index of each port */
	size_t n_ports;
	struct pw_nft_portmap pm;
};

static void run_done(struct portmap_run *r)
{
	portmap_conf_done(&r->conf);
	free(r->ports);
	free(r->src);
}

static int run_init(struct cni_ctx *ctx, struct portmap_run *run)
{
	int r;

	memset(run, 0, sizeof(*run));
	r = portmap_conf_parse(ctx, &run->conf);
	if (r < 0)
		return r;
	portmap_pod_addrs(ctx->prev_result, ctx->ifname, &run->addrs);
	run->ports = calloc(2 * run->conf.n_maps + 1, sizeof(*run->ports));
	run->src = calloc(2 * run->conf.n_maps + 1, sizeof(*run->src));
	if (!run->ports || !run->src)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	run->n_ports = portmap_plan(&run->conf, &run->addrs, run->ports, run->src);
	run->pm = (struct pw_nft_portmap){.network = ctx->conf.name,
					  .container_id = ctx->container_id,
					  .ifname = ctx->ifname,
					  .ports = run->ports,
					  .n_ports = run->n_ports,
					  .snat = run->conf.snat,
					  .masq_all = run->conf.masq_all};
	return 0;
}

/* "runtimeConfig.portMappings[i] (tcp 8080 -> 10.1.2.3:80)" */
static void describe(const struct portmap_run *run, size_t k, char *buf, size_t len)
{
	const struct pw_nft_hostport *p = &run->ports[k];
	char a[INET6_ADDRSTRLEN];

	ip_addr_fmt(p->family, &p->pod_ip, a);
	snprintf(buf, len, "runtimeConfig.portMappings[%zu] (%s %u -> %s%s%s:%u)", run->src[k],
		 portmap_proto_name(p->proto), p->host_port, p->family == AF_INET6 ? "[" : "", a,
		 p->family == AF_INET6 ? "]" : "", p->container_port);
}

/* The config and the expanded entries are the handler's: the step keeps its own copy. */
struct elems_undo {
	size_t n_ports;
	bool snat, masq_all;
	struct pw_nft_hostport ports[];
};

static int undo_elems(struct podnet *pn, void *arg)
{
	const struct cni_ctx *ctx = pn->ctx;
	struct elems_undo *u = arg;
	struct pw_nft *nft = NULL;
	int r = pw_nft_open(&nft);

	if (r >= 0)
		r = pw_nft_portmap_del(nft,
				       &(struct pw_nft_portmap){.network = ctx->conf.name,
								.container_id = ctx->container_id,
								.ifname = ctx->ifname,
								.ports = u->ports,
								.n_ports = u->n_ports,
								.snat = u->snat,
								.masq_all = u->masq_all});
	pw_nft_free(nft);
	return r;
}

static int push_elems_undo(struct podnet *pn, const struct pw_nft_portmap *pm)
{
	struct elems_undo *u = calloc(1, sizeof(*u) + pm->n_ports * sizeof(*pm->ports));

	if (!u)
		return -ENOMEM;
	memcpy(u->ports, pm->ports, pm->n_ports * sizeof(*pm->ports));
	u->n_ports = pm->n_ports;
	u->snat = pm->snat;
	u->masq_all = pm->masq_all;
	return podnet_undo_push(pn, "portmap elements", undo_elems, u, free);
}

/* route_localnet=1 on the link the host uses to reach the pod (reference behaviour). */
static int enable_localnet(struct podnet *pn, const union ip_addr *pod)
{
	struct cni_ctx *ctx = pn->ctx;
	char path[96];
	struct nlw_link l;
	int oif = 0, r;

	r = nlw_route_get_oif(pn->host, AF_INET, pod, &oif);
	if (r == -ENETUNREACH || r == -EHOSTUNREACH)
		return 0; /* no route to the pod: nothing to enable (as the reference) */
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "find the link to the pod: %s",
				  strerror(-r));
	if (oif <= 0 || nlw_link_get_by_index(pn->host, oif, &l) < 0)
		return 0; /* no routable host link: nothing to enable (as the reference) */
	snprintf(path, sizeof(path), "net/ipv4/conf/%s/route_localnet", l.name);
	r = nlw_sysctl_set(ctx->procfs_fd, path, "1");
	if (r < 0)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, r, "set %s: %s", path, strerror(-r));
	return 0;
}

static int add_elems(struct podnet *pn, struct portmap_run *run)
{
	struct cni_ctx *ctx = pn->ctx;
	char owner[PW_NFT_PORTMAP_TAG_MAX + 1] = "", what[160];
	struct pw_nft *nft = NULL;
	size_t which = 0;
	int r;

	r = pw_nft_open(&nft);
	if (r < 0)
		return podnet_fail_ack(ctx, NULL, r, "open nftables socket");
	r = pw_nft_portmap_add(nft, &run->pm, owner, &which);
	if (r == -EEXIST) {
		describe(run, which < run->n_ports ? which : 0, what, sizeof(what));
		r = cni_errorf(&ctx->err, CNI_ERR_EXISTS, r,
			       "%s: host port already mapped by attachment '%s'", what, owner);
	} else if (r < 0) {
		r = podnet_fail_ack(ctx, pw_nft_ext_ack(nft), r, "add hostPort mappings");
	}
	pw_nft_free(nft);
	return r < 0 ? r : push_elems_undo(pn, &run->pm);
}

/* A command's frame: the config and plan, prevResult when need_prev, then step. */
static int with_run(struct podnet *pn, bool need_prev,
		    int (*step)(struct podnet *, struct portmap_run *))
{
	struct portmap_run run;
	int r = run_init(pn->ctx, &run);

	if (r >= 0 && need_prev)
		r = podnet_require_prev(pn->ctx);
	if (r >= 0)
		r = step(pn, &run);
	run_done(&run);
	return r;
}

static int add_step(struct podnet *pn, struct portmap_run *run)
{
	struct cni_ctx *ctx = pn->ctx;
	int r = 0;

	ctx->result = cni_result_dup(ctx->prev_result);
	if (!ctx->result)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	if (run->n_ports > 0)
		r = add_elems(pn, run);
	if (r >= 0 && run->n_ports > 0 && run->conf.snat && run->addrs.has_v4)
		r = enable_localnet(pn, &run->addrs.v4);
	return r;
}

static int del_step(struct podnet *pn, struct portmap_run *run)
{
	struct cni_ctx *ctx = pn->ctx;
	struct pw_nft *nft = NULL;
	int r;

	/* The reference does nothing without mappings; GC catches leftovers. */
	if (run->conf.n_maps == 0)
		return 0;
	r = pw_nft_open(&nft);
	if (r < 0)
		return podnet_fail_ack(ctx, NULL, r, "open nftables socket");
	/* Without prevResult addresses (n_ports 0) the maps are scanned for our tag. */
	r = pw_nft_portmap_del(nft, &run->pm);
	if (r < 0)
		r = podnet_fail_ack(ctx, pw_nft_ext_ack(nft), r, "remove hostPort mappings");
	pw_nft_free(nft);
	return r;
}

static int check_step(struct podnet *pn, struct portmap_run *run)
{
	struct cni_ctx *ctx = pn->ctx;
	struct pw_nft *nft = NULL;
	size_t which = 0;
	char what[160];
	int r;

	if (run->n_ports == 0)
		return 0;
	r = pw_nft_open(&nft);
	if (r >= 0)
		r = pw_nft_portmap_check(nft, &run->pm, &which);
	if (r < 0) {
		r = podnet_fail_ack(ctx, pw_nft_ext_ack(nft), r, "check hostPort mappings");
	} else if (r == 0) {
		describe(run, which < run->n_ports ? which : 0, what, sizeof(what));
		r = cni_errorf(&ctx->err, CNI_ERR_CHECK_FAILED, -EINVAL,
			       "%s: nftables element missing or changed", what);
	} else {
		r = 0;
	}
	pw_nft_free(nft);
	return r;
}

static int portmap_add(struct podnet *pn)
{
	return with_run(pn, true, add_step);
}

static int portmap_del(struct podnet *pn)
{
	return with_run(pn, false, del_step);
}

static int portmap_check(struct podnet *pn)
{
	return with_run(pn, true, check_step);
}

static bool gc_keep(const char *container_id, const char *ifname, void *userdata)
{
	const struct cni_conf *conf = userdata;

	for (size_t i = 0; i < conf->n_valid_attachments; i++)
		if (strcmp(conf->valid_attachments[i].container_id, container_id) == 0 &&
		    strcmp(conf->valid_attachments[i].ifname, ifname) == 0)
			return true;
	return false;
}

/* GC: without cni.dev/valid-attachments there is nothing to compare with. */
static int portmap_gc(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	struct pw_nft *nft = NULL;
	int r;

	if (!ctx->conf.has_valid_attachments)
		return 0;
	r = pw_nft_open(&nft);
	if (r >= 0)
		r = pw_nft_portmap_gc(nft, ctx->conf.name, gc_keep, &ctx->conf);
	if (r > 0)
		cni_log_info("gc: removed %d hostPort elements of network '%s'", r, ctx->conf.name);
	if (r < 0)
		r = podnet_fail_ack(ctx, pw_nft_ext_ack(nft), r, "gc hostPort mappings");
	pw_nft_free(nft);
	return r < 0 ? r : 0;
}

const struct podnet_plugin_ops portmap_ops = {
    .name = "portmap",
    .about = "podwire portmap: hostPort DNAT through nftables maps (chained plugin)",
    .add = {portmap_add, PODNET_HOST},
    .del = {portmap_del, PODNET_NOTHING},
    .check = {portmap_check, PODNET_NOTHING},
    .gc = {portmap_gc, PODNET_NOTHING},
};
