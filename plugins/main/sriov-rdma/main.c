/* SPDX-License-Identifier: Apache-2.0 */
/* sriov-rdma: an SR-IOV VF and its RDMA device into the pod, restored on DEL. */
#include "podnet/ipam-local.h"
#include "sriov-rdma.h"

/* IPAM types run in-process; any other (whereabouts, cluster-ipam, ...) is exec'd. */
static const struct podnet_ipam_type ipam_types[] = {
    PODNET_IPAM_NODE_LOCAL,
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	podnet_set_ipam_types(ipam_types);
	return podnet_plugin_main(&sriov_rdma_ops, argc, argv);
}
