/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attachment framework: opening the pod netns (by the netns rules of
 * podnet/rules.h) and one netlink socket per netns once per invocation, and
 * the undo steps that use them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "base/parse.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "nlw/sock.h"
#include "podnet/podnet.h"

static int kernel_open_pod(int netns_fd, struct nlw_sock **ret)
{
	return nlw_sock_open_in_netns(netns_fd, NETLINK_ROUTE, ret);
}

static const struct podnet_ops kernel_ops = {
    .open_netns = nlw_netns_open,
    .open_host = nlw_sock_open,
    .open_pod = kernel_open_pod,
};

static const struct podnet_ops *ops = &kernel_ops;

void podnet_set_ops(const struct podnet_ops *o)
{
	static struct podnet_ops merged;

	if (!o) {
		ops = &kernel_ops;
		return;
	}
	merged.open_netns = o->open_netns ? o->open_netns : kernel_ops.open_netns;
	merged.open_host = o->open_host ? o->open_host : kernel_ops.open_host;
	merged.open_pod = o->open_pod ? o->open_pod : kernel_ops.open_pod;
	ops = &merged;
}

/* Open what `needs` names, by the netns rules (podnet/rules.h). */
static int attach(struct podnet *pn, struct cni_ctx *ctx, enum podnet_needs needs, bool required)
{
	int r;

	*pn = (struct podnet){.ctx = ctx, .netns_fd = -1};
	if (needs == PODNET_NOTHING)
		return 0;
	if (needs == PODNET_POD) {
		r = podnet_netns_open(ctx, required, ops->open_netns, &pn->netns_fd);
		if (r < 0)
			return r;
	}
	r = ops->open_host(&pn->host);
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "open netlink socket");
	if (pn->netns_fd < 0)
		return 0;
	r = ops->open_pod(pn->netns_fd, &pn->pod);
	if (r < 0)
		return podnet_fail(ctx, NULL, r, "open netlink socket in netns '%s'", ctx->netns);
	return 0;
}

int podnet_open_recorded(struct podnet *pn, const char *path)
{
	bool own;
	int r;

	if (pn->netns_fd < 0) {
		if (isempty(path))
			return 0;
		r = ops->open_netns(path, &pn->netns_fd);
		own = r >= 0 && nlw_netns_is_self(pn->netns_fd) > 0;
		if (r < 0 || own) {
			podnet_netns_log_gone("recorded netns", path, r, own);
			podnet_close_pod(pn);
			return 0;
		}
	}
	if (!pn->pod) {
		r = ops->open_pod(pn->netns_fd, &pn->pod);
		if (r < 0) {
			cni_log_warning("recorded netns '%s': no netlink socket in it: %s", path,
					strerror(-r));
			pn->pod = NULL;
		}
	}
	return 1;
}

void podnet_close_pod(struct podnet *pn)
{
	pn->pod = nlw_sock_free(pn->pod);
	if (pn->netns_fd >= 0)
		close(pn->netns_fd);
	pn->netns_fd = -1;
}

void podnet_done(struct podnet *pn)
{
	pn->host = nlw_sock_free(pn->host);
	podnet_close_pod(pn);
}

/* ---- undo steps ---- */

struct podnet_step {
	struct podnet *pn;
	podnet_undo_fn fn;
	void *arg;
	void (*free_arg)(void *arg);
};

static int step_run(void *p)
{
	struct podnet_step *s = p;

	return s->fn(s->pn, s->arg);
}

static void step_free(void *p)
{
	struct podnet_step *s = p;

	if (s->free_arg)
		s->free_arg(s->arg);
	free(s);
}

int podnet_undo_push(struct podnet *pn, const char *what, podnet_undo_fn fn, void *arg,
		     void (*free_arg)(void *arg))
{
	struct podnet_step *s = malloc(sizeof(*s));

	if (!s) {
		if (free_arg)
			free_arg(arg);
		return -ENOMEM;
	}
	*s = (struct podnet_step){pn, fn, arg, free_arg};
	return cni_undo_push(&pn->ctx->undo, what, step_run, s, step_free);
}

static int undo_host_link(struct podnet *pn, void *name)
{
	int r = nlw_link_del_by_name(pn->host, name);

	return r == -ENODEV ? 0 : r; /* already gone with its peer */
}

int podnet_undo_host_link(struct podnet *pn, const char *name)
{
	char *copy = strdup(name);
	char what[64];

	if (!copy)
		return -ENOMEM;
	snprintf(what, sizeof(what), "delete link '%s'", name);
	return podnet_undo_push(pn, what, undo_host_link, copy, free);
}

static int undo_pod_link(struct podnet *pn, void *arg)
{
	int r = nlw_link_del(pn->pod, *(int *)arg);

	return r == -ENODEV ? 0 : r;
}

int podnet_undo_pod_link(struct podnet *pn, int ifindex)
{
	int *idx = malloc(sizeof(*idx));
	char what[64];

	if (!idx)
		return -ENOMEM;
	*idx = ifindex;
	snprintf(what, sizeof(what), "delete link %d in the pod", ifindex);
	return podnet_undo_push(pn, what, undo_pod_link, idx, free);
}

/* ---- podnet_plugin_main ---- */

/* The skeleton's ops for a podnet plugin: ctx->ops points at .cni. */
struct podnet_run {
	struct cni_plugin_ops cni;
	const struct podnet_plugin_ops *ops;
};

static const struct podnet_cmd *command_of(const struct podnet_plugin_ops *o, enum cni_command c)
{
	switch (c) {
	case CNI_CMD_ADD:
		return &o->add;
	case CNI_CMD_DEL:
		return &o->del;
	case CNI_CMD_CHECK:
		return &o->check;
	case CNI_CMD_GC:
		return &o->gc;
	case CNI_CMD_STATUS:
		return &o->status;
	default:
		return NULL;
	}
}

/*
 * Open, run the handler, finish (the undo list on failure) with everything
 * still open, then close.
 */
static int dispatch(struct cni_ctx *ctx)
{
	const struct podnet_run *run =
	    (const struct podnet_run *)((const char *)ctx->ops - offsetof(struct podnet_run, cni));
	const struct podnet_cmd *cmd = command_of(run->ops, ctx->command);
	struct podnet pn;
	int r;

	if (!cmd || !cmd->run)
		return 0;
	r = attach(&pn, ctx, cmd->needs, podnet_netns_required(ctx->command));
	if (r >= 0)
		r = cmd->run(&pn);
	r = cni_plugin_finish(ctx, r);
	podnet_done(&pn);
	return r;
}

static struct podnet_run run_of(const struct podnet_plugin_ops *o)
{
	return (struct podnet_run){.cni = {.name = o->name,
					   .about = o->about,
					   .cni_args_keys = o->cni_args_keys,
					   .dispatch = dispatch},
				   .ops = o};
}

int podnet_plugin_main(const struct podnet_plugin_ops *o, int argc, char **argv)
{
	struct podnet_run run = run_of(o);

	return cni_plugin_main(&run.cni, argc, argv);
}

int podnet_plugin_run(const struct podnet_plugin_ops *o, char *const *env, const char *stdin_buf,
		      size_t stdin_len, FILE *out)
{
	struct podnet_run run = run_of(o);

	return cni_plugin_run(&run.cni, env, stdin_buf, stdin_len, out);
}
