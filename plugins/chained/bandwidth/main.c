/* SPDX-License-Identifier: Apache-2.0 */
/* bandwidth: tbf shaping of a chained attachment (drop-in for the reference). */
#include "bandwidth.h"
#include "cni/plugin.h"

int main(int argc, char **argv)
{
	return podnet_plugin_main(&bandwidth_ops, argc, argv);
}
