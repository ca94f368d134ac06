/* SPDX-License-Identifier: Apache-2.0 */
/* multinet: Multus-compatible meta plugin (cluster network + pod networks). */
#include "cni/plugin.h"
#include "multinet.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&multinet_ops, argc, argv);
}
