/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test-only: `pwnode-ipam-driver show|check ...` behaves as
 * `podwire-node ipam show|check ...` (the e2e prefer the real podwire-node
 * when $PODWIRE_BIN/podwire-node exists).
 */
#include <stdio.h>

#include "ipam/cluster-node.h"

int main(int argc, char **argv)
{
	argv[0] = (char *)"ipam";
	return podwire_node_ipam(argc, argv, stdout, stderr);
}
