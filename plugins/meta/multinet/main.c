/* SPDX-License-Identifier: Apache-2.0 */
/* multinet: Multus-compatible meta plugin (cluster network + pod networks). */
#include "multinet.h"

int main(int argc, char **argv)
{
	return podnet_plugin_main(&multinet_ops, argc, argv);
}
