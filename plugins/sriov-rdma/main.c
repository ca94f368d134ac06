/* SPDX-License-Identifier: Apache-2.0 */
/* sriov-rdma: an SR-IOV VF and its RDMA device into the pod, restored on DEL. */
#include "cni/plugin.h"
#include "sriov-rdma.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&sriov_rdma_ops, argc, argv);
}
