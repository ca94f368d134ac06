/* SPDX-License-Identifier: Apache-2.0 */
/* macvlan: a macvlan of a host interface as the pod interface (drop-in). */
#include "cni/plugin.h"
#include "ipam/host-local.h"
#include "ipam/static.h"
#include "macvlan.h"
#include "podnet/ipam.h"

/* IPAM types run in-process; any other is exec'd through CNI_PATH. */
static const struct podnet_ipam_type ipam_types[] = {
    {"host-local", &ipam_host_local_ops},
    {"static", &ipam_static_ops},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
	podnet_set_ipam_types(ipam_types);
	return cni_plugin_main(&macvlan_ops, argc, argv);
}
