/* SPDX-License-Identifier: Apache-2.0 */
/*
 * DEL and GC: restore what a state record says ADD changed, in this order:
 * the RDMA device back to the host, the PF-side keys (before the netdev:
 * some drivers refuse a netdev MAC that differs from an untrusted VF's admin
 * MAC), then the netdev (from the pod, or found in the host when the netns is
 * gone) with its name, MAC, MTU and up state. A device the kernel has not
 * returned is waited for, at most vfReturnTimeoutMs for the whole call; a
 * netdev still missing then makes the VF "lost" (sriov-lost.c) and DEL
 * succeeds. Any other failed step keeps the state file, so a retried DEL
 * finishes the job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/sock.h"
#include "sriov-rdma.h"

#define DEL_LOCK_TIMEOUT_MS 30000
#define GC_LOCK_TIMEOUT_MS 1000

/* The PF may have been renamed or re-created: find it by name again. */
static void refresh_pf(struct sr_run *r)
{
	struct nlw_link pf;

	if (r->st.applied && nlw_link_get_by_name(r->pn->host, r->st.vf.pf_name, &pf) >= 0)
		r->st.pf_ifindex = pf.ifindex;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool sr_return_wait(struct sr_run *r, unsigned *step_ms)
{
	int64_t now = mono_ns();
	struct timespec ts;

	if (!r->return_deadline_ns)
		r->return_deadline_ns = now + (int64_t)r->conf.vf_return_timeout_ms * 1000000;
	*step_ms = sr_plan_poll_ms(*step_ms, (r->return_deadline_ns - now) / 1000000);
	if (!*step_ms)
		return false;
	ts.tv_sec = *step_ms / 1000;
	ts.tv_nsec = (long)(*step_ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
	return true;
}

/* The RDMA device back to the host; one the kernel never returns is left to it. */
static int release_rdma(struct sr_run *r)
{
	unsigned step = 0;
	int e;

	while ((e = sr_rdma_release(r)) == -ENODEV && sr_return_wait(r, &step))
		;
	if (e == -ENODEV)
		cni_log_warning("rdma: '%s' of VF %s is neither in netns '%s' nor back in the host "
				"after %u ms: left to the kernel (it returns the device when the "
				"netns is freed)",
				r->st.vf.rdma_dev, r->st.vf.bdf, r->st.netns,
				r->conf.vf_return_timeout_ms);
	return e == -ENODEV ? 0 : e;
}

/* Is the VF netdev (if it has one) in the pod or the host, within the bound? */
static bool netdev_present(struct sr_run *r)
{
	struct nlw_link l;
	unsigned step = 0;
	bool in_pod, found;

	if (r->st.vf.dpdk || !r->st.orig.netdev[0])
		return true;
	while (!(found = sr_netdev_locate(r, &l, &in_pod) >= 0) && sr_return_wait(r, &step))
		;
	return found;
}

/* One PF-side key; a failure that need not keep the record is only logged. */
static int restore_key(struct sr_run *r, unsigned key, bool vf_lost)
{
	struct cni_error earlier = {0};
	int e;

	cni_error_move(&earlier, &r->ctx->err);
	e = sr_pf_restore(r, key);
	if (e < 0 && !sr_plan_restore_fatal(e, vf_lost)) {
		cni_log_warning("VF %s: %s, going on (%s)", r->st.vf.bdf, r->ctx->err.msg,
				e == -ENODEV ? "the PF is gone" : "the VF is lost");
		cni_error_done(&r->ctx->err);
		e = 0;
	}
	if (cni_error_isset(&earlier)) { /* the first error recorded stays the one reported */
		cni_error_done(&r->ctx->err);
		cni_error_move(&r->ctx->err, &earlier);
	}
	return e;
}

static int restore_pf(struct sr_run *r, bool vf_lost)
{
	int first = 0;

	refresh_pf(r);
	for (size_t i = ARRAY_SIZE(sr_pf_order); i-- > 0;)
		if (r->st.applied & sr_pf_order[i])
			podnet_keep_first(&first, restore_key(r, sr_pf_order[i], vf_lost));
	return first;
}

/* Record the VF as lost (its netdev did not come back): GC or the next ADD restores it. */
static int record_lost(struct sr_run *r)
{
	struct sr_lost l;
	char why[256];
	int e;

	snprintf(why, sizeof(why), "netdev %s within %u ms of DEL",
		 r->pn->netns_fd < 0 ? "not back in the host (netns gone)"
				     : "found neither in the pod nor in the host",
		 r->conf.vf_return_timeout_ms);
	sr_lost_from_state(&r->st, (int64_t)time(NULL), why, &l);
	e = sr_lost_save(r->dir_fd, &l);
	if (e < 0)
		return podnet_fail(r->ctx, NULL, e, "stateDir: record VF %s as lost", r->st.vf.bdf);
	cni_log_warning("VF %s: %s; recorded as lost (stateDir %s/%s.json): GC or the next "
			"ADD of the VF restores '%s' when it is back",
			r->st.vf.bdf, why, SR_LOST_DIR, r->st.vf.bdf, r->st.orig.netdev);
	return 0;
}

int sr_teardown(struct sr_run *r)
{
	int first = 0, e;
	bool lost;

	(void)podnet_open_recorded(r->pn, r->st.netns); /* CNI_NETNS, else the record's */
	podnet_keep_first(&first, release_rdma(r));
	lost = !netdev_present(r);
	podnet_keep_first(&first, restore_pf(r, lost));
	podnet_keep_first(&first, lost ? record_lost(r) : sr_netdev_release(r));
	if (first < 0)
		return first;
	e = sr_state_remove(r->dir_fd, r->st.vf.bdf);
	if (e < 0)
		return podnet_fail(r->ctx, NULL, e, "stateDir: remove the state of VF %s",
				   r->st.vf.bdf);
	cni_log_debug("VF %s %s", r->st.vf.bdf,
		      lost ? "recorded as lost" : "restored and released");
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
		return podnet_fail(r->ctx, NULL, e, "lock VF %s", bdf);
	e = sr_state_load(r->dir_fd, bdf, &r->st);
	if (e == -ENOENT)
		return 1;
	if (e < 0)
		return podnet_fail(r->ctx, NULL, e, "stateDir: read the state of VF %s", bdf);
	return 0;
}

static int dir_open_existing(struct sr_run *r)
{
	int e = sr_state_dir_open(r->conf.state_dir, &r->dir_fd);

	return e < 0 ? podnet_fail(r->ctx, NULL, e, "stateDir: open '%s'", r->conf.state_dir) : 0;
}

/* DEL's and GC's start: the config, sysfs and the stateDir that exists. */
static int open_run(struct sr_run *r)
{
	int e = sr_conf_parse(r->ctx, &r->conf);

	if (e >= 0)
		e = sr_sysfs_root(r->ctx, &r->sysfs_fd);
	return e < 0 ? e : dir_open_existing(r);
}

int sr_del(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	char bdf[SR_BDF_LEN];
	int e = open_run(r);

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
	e = sr_host_ns_open(r);
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
	struct podnet pn;
	struct sr_run r;
	int e;

	sr_run_borrow(&r, &pn, base);
	r.conf.vf_return_timeout_ms = base->conf.vf_return_timeout_ms;
	r.return_deadline_ns = base->return_deadline_ns;
	e = sr_state_lock(base->dir_fd, bdf, GC_LOCK_TIMEOUT_MS, &r.lock_fd);
	if (e == -ETIMEDOUT) { /* an ADD or DEL is at work on it: the next GC looks again */
		cni_log_info("GC: VF %s is busy, skipped", bdf);
		return 0;
	}
	if (e >= 0)
		e = sr_state_load(base->dir_fd, bdf, &r.st);
	if (e == -ENOENT || e == -EBADMSG)
		e = 1; /* gone meanwhile, or not a record of ours */
	if (e < 0)
		e = podnet_fail(base->ctx, NULL, e, "GC: VF %s", bdf);
	if (e == 0 && streq(r.st.network, base->ctx->conf.name) &&
	    !valid_attachment(base->ctx, &r.st)) {
		cni_log_info("GC: VF %s of %s/%s is not a valid attachment: restoring", bdf,
			     r.st.container_id, r.st.ifname);
		e = sr_teardown(&r);
	}
	base->return_deadline_ns = r.return_deadline_ns; /* one bound for the whole GC */
	if (r.lock_fd >= 0)
		close(r.lock_fd);
	podnet_close_pod(&pn); /* the record's netns, if teardown opened it */
	nlw_sock_free(r.rdma);
	return e < 0 ? e : 0;
}

/* A lost VF whose netdev is back: restored, its record removed (any network: it is no attachment).
 */
static int gc_lost_one(struct sr_run *base, const char *bdf)
{
	int lock_fd = -1, e = sr_state_lock(base->dir_fd, bdf, GC_LOCK_TIMEOUT_MS, &lock_fd);
	struct sr_lost l;

	if (e == -ETIMEDOUT) {
		cni_log_info("GC: VF %s is busy, skipped", bdf);
		return 0;
	}
	if (e >= 0)
		e = sr_lost_load(base->dir_fd, bdf, &l);
	if (e == -EBADMSG)
		cni_log_warning("GC: %s/%s.json is not a lost-VF record, left alone", SR_LOST_DIR,
				bdf);
	if (e >= 0) {
		e = sr_lost_restore(base, &l);
		if (e == -ENODEV)
			cni_log_info("GC: VF %s still lost (its netdev '%s' is not back)", bdf,
				     l.netdev);
	}
	if (lock_fd >= 0)
		close(lock_fd);
	if (e == -ENOENT || e == -EBADMSG || e == -ENODEV)
		return 0;
	return e < 0 && !cni_error_isset(&base->ctx->err)
		   ? podnet_fail(base->ctx, NULL, e, "GC: lost VF %s", bdf)
		   : e;
}

/* fn on every <BDF>.json of the directory fd. */
static int gc_scan(struct sr_run *r, int dir_fd, int (*fn)(struct sr_run *, const char *))
{
	_cleanup_close_ int fd = dup(dir_fd);
	struct dirent *de;
	int first = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd)))
		return podnet_fail(r->ctx, NULL, negative_errno(), "stateDir: list");
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
			podnet_keep_first(&first, fn(r, bdf));
	}
	closedir(d);
	return first;
}

static int gc_lost(struct sr_run *r)
{
	_cleanup_close_ int fd =
	    openat(r->dir_fd, SR_LOST_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return errno == ENOENT ? 0
				       : podnet_fail(r->ctx, NULL, negative_errno(),
						     "stateDir: open %s/", SR_LOST_DIR);
	return gc_scan(r, fd, gc_lost_one);
}

int sr_gc(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	int e = open_run(r), first;

	if (e >= 0)
		e = sr_host_ns_open(r);
	if (e < 0)
		return e;
	first = gc_scan(r, r->dir_fd, gc_one);
	podnet_keep_first(&first, gc_lost(r));
	if (ctx->conf.ipam_type)
		podnet_keep_first(&first, sr_ipam_run(ctx, CNI_CMD_GC));
	return first;
}
