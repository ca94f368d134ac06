/* SPDX-License-Identifier: Apache-2.0 */
#include "cni/plugin.h"
#include "ipam/host-local.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&ipam_host_local_ops, argc, argv);
}
