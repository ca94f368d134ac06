/* SPDX-License-Identifier: Apache-2.0 */
/* portmap: hostPort DNAT for a chained attachment (drop-in for the reference). */
#include "cni/plugin.h"
#include "portmap.h"

int main(int argc, char **argv)
{
	return podnet_plugin_main(&portmap_ops, argc, argv);
}
