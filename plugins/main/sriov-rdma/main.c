/* SPDX-License-Identifier: Apache-2.0 */
/* sriov-rdma: an SR-IOV VF and its RDMA device into the pod, restored on DEL. */
#include "sriov-rdma.h"
#include "podnet/ipam-local.h"

/* IPAM types run in-process: host-local and static; any other (whereabouts,
 * cluster-ipam, ...) is exec'd through CNI_PATH. */
int main(int argc, char **argv)
{
	return podnet_main_node_local(&sriov_rdma_ops, argc, argv);
}
