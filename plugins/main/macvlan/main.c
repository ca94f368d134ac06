/* SPDX-License-Identifier: Apache-2.0 */
/* macvlan: a macvlan of a host interface as the pod interface (drop-in). */
#include "cni/plugin.h"
#include "macvlan.h"
#include "podnet/ipam-local.h"

/* IPAM types run in-process; any other is exec'd through CNI_PATH. */
static const struct podnet_ipam_type ipam_types[] = {
    PODNET_IPAM_NODE_LOCAL,
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	podnet_set_ipam_types(ipam_types);
	return podnet_plugin_main(&macvlan_ops, argc, argv);
}
