/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DEL and GC: restore what a state record says ADD changed, in this order:
 * the RDMA device back to the host, the PF-side keys (before the netdev:
 * some drivers refuse a netdev MAC that differs from an untrusted VF's admin
 * MAC), then the netdev (from the pod, or found in the host when the netns is
 * gone) with its name, MAC, MTU and up state. The state file is removed only
 * when every step succeeded, so a retried DEL finishes the job.
 */
#include <errno.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "nlw/sock.h"
#include "sriov-rdma.h"

#define DEL_LOCK_TIMEOUT_MS 30000
#define GC_LOCK_TIMEOUT_MS 1000

static void keep_first(int *first, int e)
{
	if (e < 0 && *first == 0)
		*first = e;
}

/* The PF may have been renamed or re-created: find it by name again. */
static void refresh_pf(struct sr_run *r)
{
	struct nlw_link pf;

	if (r->st.applied && nlw_link_get_by_name(r->host, r->st.vf.pf_name, &pf) >= 0)
		r->st.pf_ifindex = pf.ifindex;
}

/* Pod netns of the record: CNI_NETNS, else the recorded path; gone or our own = none. */
static void open_pod(struct sr_run *r, const char *path)
{
	if (r->pod_ns_fd < 0 && !isempty(path) && nlw_netns_open(path, &r->pod_ns_fd) < 0)
		r->pod_ns_fd = -1;
	if (r->pod_ns_fd >= 0 && nlw_netns_is_self(r->pod_ns_fd) > 0) {
		close(r->pod_ns_fd);
		r->pod_ns_fd = -1;
	}
	if (r->pod_ns_fd >= 0 && !r->pod &&
	    nlw_sock_open_in_netns(r->pod_ns_fd, NETLINK_ROUTE, &r->pod) < 0)
		r->pod = NULL;
}

int sr_teardown(struct sr_run *r)
{
	int first = 0, e;

	open_pod(r, r->st.netns);
	keep_first(&first, sr_rdma_release(r));
	refresh_pf(r);
	for (size_t i = ARRAY_SIZE(sr_pf_order); i-- > 0;)
		if (r->st.applied & sr_pf_order[i])
			keep_first(&first, sr_pf_restore(r, sr_pf_order[i]));
	keep_first(&first, sr_netdev_release(r));
	if (first < 0)
		return first;
	e = sr_state_remove(r->dir_fd, r->st.vf.bdf);
	if (e < 0)
		return sr_fail(r->ctx, NULL, e, "stateDir: remove the state of VF %s",
			       r->st.vf.bdf);
	cni_log_debug("VF %s restored and released", r->st.vf.bdf);
	return 0;
}

/* The record of this attachment: by deviceID, else by scanning the directory. */
static int find_state(struct sr_run *r, char *bdf)
{
	struct cni_ctx *ctx = r->ctx;
	int e = -ENOENT;

	if (sr_bdf_valid(r->conf.device_id)) {
		e = sr_state_load(r->dir_fd, r->conf.device_id, &r->st);
		if (e >= 0 && !(streq(r->st.container_id, ctx->container_id) &&
				streq(r->st.ifname, ctx->ifname)))
			e = -ENOENT; /* the VF belongs to someone else now (late DEL) */
	}
	if (e < 0)
		e = sr_state_find(r->dir_fd, ctx->container_id, ctx->ifname, &r->st);
	if (e >= 0)
		memcpy(bdf, r->st.vf.bdf, SR_BDF_LEN);
	return e;
}

/* Under the lock: re-read, and make sure it is still ours. */
static int lock_state(struct sr_run *r, const char *bdf, unsigned timeout_ms)
{
	int e = sr_state_lock(r->dir_fd, bdf, timeout_ms, &r->lock_fd);

	if (e < 0)
		return sr_fail(r->ctx, NULL, e, "lock VF %s", bdf);
	e = sr_state_load(r->dir_fd, bdf, &r->st);
	if (e == -ENOENT)
		return 1;
	if (e < 0)
		return sr_fail(r->ctx, NULL, e, "stateDir: read the state of VF %s", bdf);
	return 0;
}

static int dir_open_existing(struct sr_run *r)
{
	int e = sr_state_dir_open(r->conf.state_dir, &r->dir_fd);

	return e < 0 ? sr_fail(r->ctx, NULL, e, "stateDir: open '%s'", r->conf.state_dir) : 0;
}

int sr_cmd_del(struct cni_ctx *ctx)
{
	struct sr_run *r = NULL;
	char bdf[SR_BDF_LEN];
	int e = sr_run_new(ctx, &r);

	if (e < 0)
		return e;
	e = sr_conf_parse(ctx, &r->conf);
	if (e >= 0)
		e = sr_sysfs_root(ctx, &r->sysfs_fd);
	if (e >= 0)
		e = dir_open_existing(r);
	if (e < 0)
		return e;
	if (find_state(r, bdf) < 0) {
		cni_log_debug("no state for %s/%s: nothing to restore", ctx->container_id,
			      ctx->ifname);
		return ctx->conf.ipam_type ? sr_ipam_run(ctx, CNI_CMD_DEL) : 0;
	}
	e = lock_state(r, bdf, DEL_LOCK_TIMEOUT_MS);
	if (e != 0 || !streq(r->st.container_id, ctx->container_id) ||
	    !streq(r->st.ifname, ctx->ifname))
		return e < 0 ? e : 0;
	if (r->st.has_ipam && ctx->conf.ipam_type) {
		e = sr_ipam_run(ctx, CNI_CMD_DEL);
		if (e < 0)
			return e;
	}
	e = sr_open(r, false);
	return e < 0 ? e : sr_teardown(r);
}

static bool valid_attachment(const struct cni_ctx *ctx, const struct sr_state *s)
{
	for (size_t i = 0; i < ctx->conf.n_valid_attachments; i++)
		if (streq(ctx->conf.valid_attachments[i].container_id, s->container_id) &&
		    streq(ctx->conf.valid_attachments[i].ifname, s->ifname))
			return true;
	return false;
}

/* One record of GC: restore it unless valid or busy. */
static int gc_one(struct sr_run *base, const char *bdf)
{
	struct sr_run r = {.ctx = base->ctx,
			   .sysfs_fd = base->sysfs_fd,
			   .dir_fd = base->dir_fd,
			   .lock_fd = -1,
			   .host_ns_fd = base->host_ns_fd,
			   .pod_ns_fd = -1,
			   .host = base->host};
	int e = sr_state_lock(base->dir_fd, bdf, GC_LOCK_TIMEOUT_MS, &r.lock_fd);

	if (e == -ETIMEDOUT) { /* an ADD or DEL is at work on it: the next GC looks again */
		cni_log_info("GC: VF %s is busy, skipped", bdf);
		return 0;
	}
	if (e >= 0)
		e = sr_state_load(base->dir_fd, bdf, &r.st);
	if (e == -ENOENT || e == -EBADMSG)
		e = 1; /* gone meanwhile, or not a record of ours */
	if (e < 0)
		e = sr_fail(base->ctx, NULL, e, "GC: VF %s", bdf);
	if (e == 0 && streq(r.st.network, base->ctx->conf.name) &&
	    !valid_attachment(base->ctx, &r.st)) {
		cni_log_info("GC: VF %s of %s/%s is not a valid attachment: restoring", bdf,
			     r.st.container_id, r.st.ifname);
		e = sr_teardown(&r);
	}
	if (r.lock_fd >= 0)
		close(r.lock_fd);
	if (r.pod_ns_fd >= 0)
		close(r.pod_ns_fd);
	nlw_sock_free(r.pod);
	nlw_sock_free(r.rdma);
	return e < 0 ? e : 0;
}

static int gc_scan(struct sr_run *r)
{
	_cleanup_close_ int fd = dup(r->dir_fd);
	struct dirent *de;
	int first = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd)))
		return sr_fail(r->ctx, NULL, negative_errno(), "stateDir: list");
	fd = -1;
	rewinddir(d);
	while ((de = readdir(d))) {
		char bdf[SR_BDF_LEN];
		size_t n = strlen(de->d_name);

		if (n != SR_BDF_LEN - 1 + 5 || !streq(de->d_name + SR_BDF_LEN - 1, ".json"))
			continue;
		memcpy(bdf, de->d_name, SR_BDF_LEN - 1);
		bdf[SR_BDF_LEN - 1] = '\0';
		if (sr_bdf_valid(bdf))
			keep_first(&first, gc_one(r, bdf));
	}
	closedir(d);
	return first;
}

int sr_cmd_gc(struct cni_ctx *ctx)
{
	struct sr_run *r = NULL;
	int e = sr_run_new(ctx, &r), first;

	if (e < 0)
		return e;
	e = sr_conf_parse(ctx, &r->conf);
	if (e >= 0)
		e = sr_sysfs_root(ctx, &r->sysfs_fd);
	if (e >= 0)
		e = dir_open_existing(r);
	if (e >= 0)
		e = sr_open(r, false);
	if (e < 0)
		return e;
	first = gc_scan(r);
	if (ctx->conf.ipam_type)
		keep_first(&first, sr_ipam_run(ctx, CNI_CMD_GC));
	return first;
}
