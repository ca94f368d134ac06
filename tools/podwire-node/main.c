/* SPDX-License-Identifier: Apache-2.0 */
/* podwire-node: the node tool (BIRD config, node registry, cluster IPAM view). */
#include <stdio.h>
#include <string.h>

#include "nodelay.h"
#include "pwnode.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: podwire-node COMMAND [OPTIONS]\n"
		   "  bird-config --node-config FILE [--output FILE]\n"
		   "                         render and check this node's bird.conf\n"
		   "  run --node-config FILE keep bird.conf current from the etcd node registry\n"
		   "  bgp-nodelay attach|detach|status [--cgroup DIR]\n"
		   "                         TCP_NODELAY on BIRD's BGP sockets (sock_ops BPF)\n"
		   "  ipam show|check [--json]\n"
		   "                         cluster-ipam pools, blocks and allocations\n"
		   "  --help, --version\n");
}

static int cmd_ipam(int argc, char **argv)
{
#ifdef HAVE_IPAM_CLUSTER
	return pwn_cmd_ipam(argc, argv, stdout, stderr);
#else
	(void)argc;
	(void)argv;
	fprintf(stderr, "podwire-node ipam: this podwire-node was built without cluster-ipam\n");
	return 2;
#endif
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    strcmp(cmd, "help") == 0) {
		usage(cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("podwire-node %s\n", PODWIRE_VERSION);
		return 0;
	}
	if (strcmp(cmd, "bird-config") == 0)
		return pwn_cmd_bird_config(argc - 1, argv + 1, stdout, stderr);
	if (strcmp(cmd, "run") == 0)
		return pwn_cmd_run(argc - 1, argv + 1, stdout, stderr);
	if (strcmp(cmd, "bgp-nodelay") == 0)
		return pwn_cmd_bgp_nodelay(argc - 1, argv + 1, stdout, stderr);
	if (strcmp(cmd, "ipam") == 0)
		return cmd_ipam(argc - 1, argv + 1);
	fprintf(stderr, "podwire-node: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
