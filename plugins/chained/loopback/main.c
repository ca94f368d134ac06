/* SPDX-License-Identifier: Apache-2.0 */
/* loopback: lo up in the pod's network namespace (drop-in for the reference). */
#include "cni/plugin.h"
#include "loopback.h"

int main(int argc, char **argv)
{
	return cni_plugin_main(&loopback_ops, argc, argv);
}
