/* SPDX-License-Identifier: Apache-2.0 */
#include "cni/plugin.h"
#include "ipam/cluster-ipam.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&ipam_cluster_ops, argc, argv);
}
