/* SPDX-License-Identifier: Apache-2.0 */
/* macvlan: a macvlan of a host interface as the pod interface (drop-in). */
#include "macvlan.h"
#include "podnet/ipam-local.h"

/* IPAM types run in-process: host-local and static; any other is exec'd through CNI_PATH. */
int main(int argc, char **argv)
{
	return podnet_main_node_local(&macvlan_ops, argc, argv);
}
