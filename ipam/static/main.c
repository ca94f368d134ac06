/* SPDX-License-Identifier: Apache-2.0 */
#include "cni/plugin.h"
#include "ipam/static.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&ipam_static_ops, argc, argv);
}
