/* SPDX-License-Identifier: Apache-2.0 */
/* veth pairs between the host and the pod. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "podnet/name.h"
#include "podnet/veth.h"

#define VETH_NAME_TRIES 10
#define WAIT_UP_STEP_NS (2 * 1000 * 1000)
#define WAIT_UP_MAX_STEPS 1250

static int create_pair(struct podnet *pn, const struct podnet_veth *v, const char *host_name)
{
	return nlw_link_add_veth(pn->host, &(struct nlw_veth_params){
					       .name = host_name,
					       .mtu = v->mtu,
					       .mac = v->host_mac,
					       .master = v->master,
					       .peer_name = pn->ctx->ifname,
					       .peer_netns_fd = pn->netns_fd,
					       .peer_mac = v->pod_mac,
					   });
}

int podnet_veth_add(struct podnet *pn, const struct podnet_veth *v, struct podnet_veth_pair *ret)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_link probe;
	int r = -EEXIST;

	for (unsigned attempt = 0; attempt < VETH_NAME_TRIES && r == -EEXIST; attempt++) {
		r = podnet_host_ifname(v->host_prefix, v->host_hex, ctx->container_id, ctx->ifname,
				       attempt, ret->host_name);
		if (r < 0)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, r,
					  "host interface prefix '%s' is too long", v->host_prefix);
		r = create_pair(pn, v, ret->host_name);
		/* Which name is taken? The pod's is a hard error, ours a retry. */
		if (r == -EEXIST && nlw_link_get_by_name(pn->pod, ctx->ifname, &probe) >= 0)
			return cni_errorf(
			    &ctx->err, CNI_ERR_EXISTS, -EEXIST,
			    "container veth name (\"%s\") peer provided (\"%s\") already "
			    "exists: CNI_IFNAME '%s' is taken in the pod netns '%s'",
			    ctx->ifname, ret->host_name, ctx->ifname, ctx->netns);
	}
	if (r == -EEXIST)
		return cni_errorf(&ctx->err, CNI_ERR_EXISTS, r,
				  "host veth name '%s' and the %u derived before it are all taken "
				  "in the host netns",
				  ret->host_name, VETH_NAME_TRIES - 1);
	if (r < 0)
		return podnet_fail(ctx, pn->host, r, "create veth '%s' (peer '%s' in '%s')",
				   ret->host_name, ctx->ifname, ctx->netns);
	r = podnet_undo_host_link(pn, ret->host_name);
	if (r < 0)
		return r;
	r = nlw_link_get_by_name(pn->host, ret->host_name, &ret->host);
	if (r >= 0)
		r = nlw_link_get_by_name(pn->pod, ctx->ifname, &ret->pod);
	if (r < 0)
		return podnet_fail(ctx, pn->host, r, "look up veth '%s'", ret->host_name);
	return 0;
}

int podnet_veth_tag_up(struct podnet *pn, struct podnet_veth_pair *p)
{
	struct cni_ctx *ctx = pn->ctx;
	char alias[NLW_ALIAS_MAX];
	int r;

	podnet_alias(ctx->conf.name, ctx->container_id, ctx->ifname, alias);
	r = nlw_link_set_alias(pn->host, p->host.ifindex, alias);
	if (r < 0)
		return podnet_fail(ctx, pn->host, r, "set alias of veth '%s'", p->host_name);
	r = nlw_link_set_up(pn->host, p->host.ifindex);
	if (r < 0)
		return podnet_fail(ctx, pn->host, r, "set veth '%s' up", p->host_name);
	return 0;
}

int podnet_veth_wait_up(struct podnet *pn, struct podnet_veth_pair *p)
{
	struct cni_ctx *ctx = pn->ctx;

	for (unsigned i = 0; i < WAIT_UP_MAX_STEPS; i++) {
		int r = nlw_link_get_by_index(pn->host, p->host.ifindex, &p->host);

		if (r < 0)
			return podnet_fail(ctx, pn->host, r, "look up '%s'", p->host_name);
		if (p->host.operstate == NLW_OPER_UP)
			return 0;
		nanosleep(&(struct timespec){.tv_nsec = WAIT_UP_STEP_NS}, NULL);
	}
	return cni_errorf(&ctx->err, CNI_ERR_TRY_AGAIN, -ETIMEDOUT,
			  "host veth '%s' not up (operstate %u) after 2.5s", p->host_name,
			  p->host.operstate);
}

/* Returns 1 when the pod end was deleted (its host peer went with it). */
static int del_pod_end(struct podnet *pn)
{
	struct cni_ctx *ctx = pn->ctx;
	int r;

	if (!podnet_has_pod(pn))
		return 0;
	r = nlw_link_del_by_name(pn->pod, ctx->ifname);
	if (r == -ENODEV) /* second DEL */
		return 0;
	if (r < 0)
		return podnet_fail(ctx, pn->pod, r, "delete '%s' in '%s'", ctx->ifname, ctx->netns);
	return 1;
}

/* The host end outlives an empty CNI_NETNS when the pod netns lives on. */
static int del_host_end(struct podnet *pn, const char *name)
{
	struct cni_ctx *ctx = pn->ctx;
	struct nlw_link l;
	int r;

	r = nlw_link_get_by_name(pn->host, name, &l);
	if (r == -ENODEV)
		return 0;
	if (r >= 0 &&
	    (strcmp(l.kind, "veth") != 0 ||
	     !podnet_alias_matches(l.alias, ctx->conf.name, ctx->container_id, ctx->ifname)))
		return 0; /* not ours */
	if (r >= 0)
		r = nlw_link_del(pn->host, l.ifindex);
	if (r < 0 && r != -ENODEV)
		return podnet_fail(ctx, pn->host, r, "delete host veth '%s'", name);
	return 0;
}

int podnet_veth_del(struct podnet *pn, const char *host_name)
{
	int first = 0, r;

	r = del_pod_end(pn);
	podnet_keep_first(&first, r);
	if (r != 1)
		podnet_keep_first(&first, del_host_end(pn, host_name));
	return first;
}
