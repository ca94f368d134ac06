/* SPDX-License-Identifier: Apache-2.0 */
/* bridge: veth pair from the pod to a Linux bridge (drop-in for the reference). */
#include "bridge.h"
#include "podnet/ipam-local.h"

/* IPAM types run in-process: host-local and static; any other is exec'd through CNI_PATH. */
int main(int argc, char **argv)
{
	return podnet_main_node_local(&bridge_ops, argc, argv);
}
