/* SPDX-License-Identifier: Apache-2.0 */
/* bridge: veth pair from the pod to a Linux bridge (drop-in for the reference). */
#include "bridge.h"
#include "cni/plugin.h"
#include "podnet/ipam-local.h"

/* IPAM types run in-process; any other is exec'd through CNI_PATH. */
static const struct podnet_ipam_type ipam_types[] = {
    PODNET_IPAM_NODE_LOCAL,
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	podnet_set_ipam_types(ipam_types);
	return podnet_plugin_main(&bridge_ops, argc, argv);
}
