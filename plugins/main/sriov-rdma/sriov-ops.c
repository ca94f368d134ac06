/* SPDX-License-Identifier: Apache-2.0 */
/* The plugin's handler table: each command and what podnet opens for it. */
#include "sriov-rdma.h"

static const char *const args_keys[] = {
    "IgnoreUnknown", "MAC", "K8S_POD_NAMESPACE", "K8S_POD_NAME", "K8S_POD_INFRA_CONTAINER_ID",
    "K8S_POD_UID",   NULL};

/* A command on its own run, released afterwards. */
static int with_run(struct podnet *pn, int (*fn)(struct sr_run *))
{
	struct sr_run r = SR_RUN_INIT(pn);
	int e = fn(&r);

	sr_run_done(&r);
	return e;
}

static int cmd_del(struct podnet *pn)
{
	return with_run(pn, sr_del);
}

static int cmd_check(struct podnet *pn)
{
	return with_run(pn, sr_check);
}

static int cmd_gc(struct podnet *pn)
{
	return with_run(pn, sr_gc);
}

const struct podnet_plugin_ops sriov_rdma_ops = {
    .name = "sriov-rdma",
    .about = "podwire sriov-rdma: an SR-IOV VF and its RDMA device into the pod, restored on DEL",
    .cni_args_keys = args_keys,
    .add = {sr_cmd_add, PODNET_POD},
    /* DEL and GC: without a pod netns, teardown opens the one the record names. */
    .del = {cmd_del, PODNET_POD},
    .check = {cmd_check, PODNET_POD},
    .gc = {cmd_gc, PODNET_POD},
    .status = {sr_cmd_status, PODNET_NOTHING},
};
