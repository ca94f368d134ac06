/* SPDX-License-Identifier: Apache-2.0 */
/* bgp-route: routed veth pods, host routes announced by BIRD 2. */
#include "bgp-route.h"
#include "cni/plugin.h"
#include "podnet/ipam-local.h"
#ifdef HAVE_IPAM_CLUSTER
#include "ipam/cluster-ipam.h"
#endif

/* IPAM types run in-process; any other is exec'd through CNI_PATH. */
static const struct podnet_ipam_type ipam_types[] = {
    PODNET_IPAM_NODE_LOCAL,
#ifdef HAVE_IPAM_CLUSTER
    {"cluster-ipam", &ipam_cluster_ops},
#endif
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	podnet_set_ipam_types(ipam_types);
	return podnet_plugin_main(&bgpr_ops, argc, argv);
}
