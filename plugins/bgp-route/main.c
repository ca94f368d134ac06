/* SPDX-License-Identifier: Apache-2.0 */
/* bgp-route: routed veth pods, host routes announced by BIRD 2. */
#include "bgp-route.h"
#include "cni/plugin.h"
#include "ipam/host-local.h"
#include "ipam/static.h"
#include "podnet/ipam.h"
#ifdef HAVE_IPAM_CLUSTER
#include "ipam/cluster-ipam.h"
#endif

/* IPAM types run in-process; any other is exec'd through CNI_PATH. */
static const struct podnet_ipam_type ipam_types[] = {
    {"host-local", &ipam_host_local_ops},
    {"static", &ipam_static_ops},
#ifdef HAVE_IPAM_CLUSTER
    {"cluster-ipam", &ipam_cluster_ops},
#endif
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	podnet_set_ipam_types(ipam_types);
	return cni_plugin_main(&bgpr_ops, argc, argv);
}
