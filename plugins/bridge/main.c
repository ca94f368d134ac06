/* SPDX-License-Identifier: Apache-2.0 */
/* bridge: veth pair from the pod to a Linux bridge (drop-in for the reference). */
#include "bridge.h"
#include "cni/plugin.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&bridge_ops, argc, argv);
}
