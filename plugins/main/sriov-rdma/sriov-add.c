/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ADD, in order, every step on podnet's undo list: resolve the VF in sysfs,
 * check the RDMA prerequisites, take the per-VF lock, check the ownership
 * record (a stale one is restored and taken over), record the original
 * state in the state file before the first change, apply the PF-side keys
 * the config asks for, move the netdev into the pod (renamed, MAC, MTU), IPAM,
 * addresses, up, routes, move and verify the RDMA device, then mark the
 * state complete. A failure unwinds in reverse: the VF is restored, the
 * state removed and the lock released.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "cni/log.h"
#include "nlw/link.h"
#include "nlw/netns.h"
#include "nlw/sock.h"
#include "sriov-rdma.h"

#define LOCK_TIMEOUT_MS 30000

static void run_free(void *arg)
{
	sr_run_done(arg);
	free(arg);
}

/* The VF's record and lock: the state file once written; the lock goes with the working set. */
static int undo_record(struct podnet *pn, void *arg)
{
	struct sr_run *r = arg;

	(void)pn;
	return r->recorded ? sr_state_remove(r->dir_fd, r->st.vf.bdf) : 0;
}

/*
 * The working set lives on the heap: the undo step of the VF's record owns
 * it, pushed first so it runs last and frees it after every other step.
 * On failure the push has freed it.
 */
static int run_new(struct podnet *pn, struct sr_run **ret)
{
	struct sr_run *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	*r = (struct sr_run)SR_RUN_INIT(pn);
	*ret = r;
	return podnet_undo_push(pn, "remove the state file, unlock the VF", undo_record, r,
				run_free);
}

struct pf_undo {
	struct sr_run *r;
	unsigned key;
};

static int undo_pf(struct podnet *pn, void *arg)
{
	struct pf_undo *u = arg;

	(void)pn;
	return sr_pf_restore(u->r, u->key);
}

static int undo_netdev(struct podnet *pn, void *arg)
{
	(void)pn;
	return sr_netdev_release(arg);
}

static int undo_rdma(struct podnet *pn, void *arg)
{
	(void)pn;
	return sr_rdma_release(arg);
}

/* A record of another attachment: in use (its netns exists) or stale (taken over). */
static int check_owner(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	struct podnet pn;
	struct sr_run old;
	int fd, e;

	sr_run_borrow(&old, &pn, r);
	old.conf.vf_return_timeout_ms = r->conf.vf_return_timeout_ms;
	e = sr_state_load(r->dir_fd, r->conf.device_id, &old.st);
	if (e == -ENOENT)
		return 0;
	if (e < 0)
		return podnet_fail(ctx, NULL, e, "read the state of VF %s", r->conf.device_id);
	if (streq(old.st.container_id, ctx->container_id) && streq(old.st.ifname, ctx->ifname))
		return cni_errorf(&ctx->err, CNI_ERR_EXISTS, -EEXIST,
				  "VF %s is already attached to this container as '%s'",
				  r->conf.device_id, ctx->ifname);
	if (nlw_netns_open(old.st.netns, &fd) >= 0) {
		close(fd);
		return cni_errorf(&ctx->err, CNI_ERR_EXISTS, -EBUSY, "VF %s is in use by %s",
				  r->conf.device_id, old.st.container_id);
	}
	cni_log_info("VF %s: taking over the stale record of %s (netns '%s' is gone)",
		     r->conf.device_id, old.st.container_id, old.st.netns);
	e = sr_teardown(&old);
	podnet_close_pod(&pn); /* the stale owner's netns, if teardown found it */
	old.rdma = nlw_sock_free(old.rdma);
	if (e < 0)
		return cni_error_wrapf(&ctx->err, e, "VF %s: restore after the stale owner %s",
				       r->conf.device_id, old.st.container_id);
	return 0;
}

/* A VF recorded as lost by an earlier DEL: restore its netdev first (or refuse while it is away).
 */
static int take_lost(struct sr_run *r)
{
	struct sr_lost l;
	int e = sr_lost_load(r->dir_fd, r->conf.device_id, &l);

	if (e == -ENOENT)
		return 0;
	if (e == -EBADMSG) {
		cni_log_warning("VF %s: %s/%s.json is not a lost-VF record, ignored",
				r->conf.device_id, SR_LOST_DIR, r->conf.device_id);
		return 0;
	}
	if (e < 0)
		return podnet_fail(r->ctx, NULL, e, "stateDir: read the lost record of VF %s",
				   r->conf.device_id);
	e = sr_lost_restore(r, &l);
	if (e == -ENODEV)
		return cni_errorf(&r->ctx->err, CNI_ERR_PLUGIN, -ENODEV,
				  "VF %s is lost: its netdev '%s' has not come back to the host "
				  "since the DEL of %s/%s (%s)",
				  l.bdf, l.netdev, l.container_id, l.ifname, l.reason);
	if (e < 0)
		return e;
	/* Restored under its original name, whatever sysfs showed before. */
	memcpy(r->st.vf.netdev, l.netdev, sizeof(r->st.vf.netdev));
	return 0;
}

static int lock_and_record(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	int e = sr_state_dir_open(r->conf.state_dir, &r->dir_fd);

	if (e < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, e, "stateDir: cannot create '%s': %s",
				  r->conf.state_dir, strerror(-e));
	e = sr_state_lock(r->dir_fd, r->conf.device_id, LOCK_TIMEOUT_MS, &r->lock_fd);
	if (e < 0)
		return podnet_fail(ctx, NULL, e, "lock VF %s", r->conf.device_id);
	e = check_owner(r);
	if (e >= 0 && !r->st.vf.dpdk)
		e = take_lost(r);
	if (e < 0)
		return e;
	snprintf(r->st.container_id, sizeof(r->st.container_id), "%s", ctx->container_id);
	snprintf(r->st.ifname, sizeof(r->st.ifname), "%s", ctx->ifname);
	snprintf(r->st.netns, sizeof(r->st.netns), "%s", ctx->netns);
	snprintf(r->st.network, sizeof(r->st.network), "%s", ctx->conf.name);
	e = sr_pf_read(r);
	if (e >= 0 && !r->st.vf.dpdk)
		e = sr_netdev_record(r);
	if (e < 0)
		return e;
	r->st.applied = r->conf.pf_keys;
	sr_plan_want(&r->conf, r->st.vf.index, &r->st.want);
	r->st.has_ipam = ctx->conf.ipam_type != NULL;
	r->recorded = true; /* a half-written file is removed too */
	e = sr_state_save(r->dir_fd, &r->st);
	if (e < 0)
		return podnet_fail(ctx, NULL, e, "stateDir: write the state of VF %s",
				   r->st.vf.bdf);
	return 0;
}

static int apply_pf(struct sr_run *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(sr_pf_order); i++) {
		unsigned key = sr_pf_order[i];
		struct pf_undo *u;
		int e;

		if (!(r->st.applied & key))
			continue;
		e = sr_pf_apply(r, key);
		if (e < 0)
			return e;
		u = malloc(sizeof(*u));
		if (!u)
			return -ENOMEM;
		*u = (struct pf_undo){r, key};
		e = podnet_undo_push(r->pn, sr_pf_key_name(key), undo_pf, u, free);
		if (e < 0)
			return e;
	}
	return 0;
}

/* Move IPs, routes and DNS of the IPAM result into ours (empty so far). */
static void take_ipam(struct cni_result *res, struct cni_result *ipam)
{
	struct cni_dns dns = res->dns;

	res->ips = TAKE_PTR(ipam->ips);
	res->n_ips = ipam->n_ips;
	ipam->n_ips = 0;
	res->routes = TAKE_PTR(ipam->routes);
	res->n_routes = ipam->n_routes;
	ipam->n_routes = 0;
	res->dns = ipam->dns;
	ipam->dns = dns;
}

static int pod_side(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	_cleanup_(cni_result_freep) struct cni_result *ipam = NULL;
	int e;

	if (!r->st.vf.dpdk) {
		e = sr_netdev_name_free(r);
		if (e >= 0)
			e = podnet_undo_push(r->pn, "return the VF netdev", undo_netdev, r, NULL);
		if (e >= 0)
			e = sr_netdev_to_pod(r);
		if (e < 0)
			return e;
	}
	if (ctx->conf.ipam_type) {
		e = sr_ipam_add(ctx, &ipam);
		if (e < 0)
			return e;
		take_ipam(r->result, ipam);
		for (size_t i = 0; i < r->result->n_ips; i++)
			r->result->ips[i].interface = 0;
	}
	if (r->st.vf.dpdk) /* DPDK: addresses are returned, not configured */
		return 0;
	return sr_pod_configure(r, r->st.pod_ifindex);
}

static int build_result(struct sr_run *r)
{
	static const unsigned char zero[6];
	const unsigned char *mac = r->st.pod_mac;
	char buf[18];
	int i;

	if (r->st.vf.dpdk)
		mac = (r->st.applied & SR_PF_MAC) ? r->conf.mac : r->st.orig.pf.mac;
	i = cni_result_add_iface(r->result, r->ctx->ifname,
				 memcmp(mac, zero, 6) ? nlw_mac_fmt(mac, buf) : NULL,
				 r->ctx->netns);
	if (i < 0)
		return i;
	r->result->ifaces[i].mtu = r->st.pod_mtu;
	r->result->ifaces[i].pci_id = strdup(r->st.vf.bdf);
	return r->result->ifaces[i].pci_id ? 0 : -ENOMEM;
}

static int resolve(struct sr_run *r)
{
	struct cni_ctx *ctx = r->ctx;
	int e = sr_conf_parse(ctx, &r->conf);

	if (e >= 0)
		e = sr_sysfs_root(ctx, &r->sysfs_fd);
	if (e >= 0)
		e = sr_sysfs_resolve(r->sysfs_fd, r->conf.device_id, &r->st.vf, &ctx->err);
	if (e < 0)
		return e;
	if (r->conf.master[0] && !streq(r->conf.master, r->st.vf.pf_name))
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "deviceID: VF %s belongs to PF '%s', not to master '%s'",
				  r->st.vf.bdf, r->st.vf.pf_name, r->conf.master);
	if (r->st.vf.dpdk && r->conf.mtu)
		return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "mtu: %u on DPDK VF %s (driver %s has no netdev)", r->conf.mtu,
				  r->st.vf.bdf, r->st.vf.driver);
	return 0;
}

static int new_result(struct sr_run *r)
{
	r->result = cni_result_new(CNI_V110);
	return r->result ? 0 : -ENOMEM;
}

static int move_rdma(struct sr_run *r)
{
	int e;

	if (!r->st.rdma_move)
		return 0;
	e = podnet_undo_push(r->pn, "return the RDMA device", undo_rdma, r, NULL);
	if (e >= 0)
		e = sr_rdma_to_pod(r);
	return e < 0 ? e : sr_rdma_verify(r);
}

static int save_complete(struct sr_run *r)
{
	int e;

	r->st.complete = true;
	e = sr_state_save(r->dir_fd, &r->st);
	return e < 0 ? podnet_fail(r->ctx, NULL, e, "stateDir: write the state of VF %s",
				   r->st.vf.bdf)
		     : 0;
}

static int write_devinfo(struct sr_run *r)
{
	int e = r->conf.devinfo_file ? sr_devinfo_write(r->conf.devinfo_file, &r->st) : 0;

	return e < 0 ? podnet_fail(r->ctx, NULL, e, "runtimeConfig.CNIDeviceInfoFile: write '%s'",
				   r->conf.devinfo_file)
		     : 0;
}

/* ADD's steps in order (each resource's undo is pushed where it is made). */
static int (*const add_steps[])(struct sr_run *) = {
    resolve,  sr_host_ns_open, sr_rdma_precheck, lock_and_record, apply_pf,	 new_result,
    pod_side, move_rdma,       build_result,	 save_complete,	  write_devinfo,
};

int sr_cmd_add(struct podnet *pn)
{
	struct sr_run *r = NULL;
	int e = run_new(pn, &r);

	for (size_t i = 0; e >= 0 && i < ARRAY_SIZE(add_steps); i++)
		e = add_steps[i](r);
	if (e < 0)
		return e;
	pn->ctx->result = TAKE_PTR(r->result);
	return 0;
}
