/* SPDX-License-Identifier: Apache-2.0 */
/* tuning: sysctls and interface attributes of a pod interface (chained). */
#include "cni/plugin.h"
#include "tuning.h"

int main(int argc, char **argv)
{
	return podnet_plugin_main(&tuning_ops, argc, argv);
}
