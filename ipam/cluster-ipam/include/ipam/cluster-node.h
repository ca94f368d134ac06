/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `podwire-node ipam show|check [--json]`: the cluster-ipam data in etcd,
 * for operators. The podwire-node binary dispatches its `ipam` subcommand
 * here (argv[0] = "ipam").
 *
 * Options: --json, --node-config FILE (the node config JSON: "nodeName",
 * "etcd" {endpoints, caFile, certFile, keyFile, timeoutMs}, "etcdPrefix"),
 * --etcd-endpoint URL (repeatable; overrides the node config's endpoints),
 * --prefix P (etcdPrefix, default /podwire), --node NAME (whose blackhole
 * routes in the current netns are checked; default: nodeName, else the
 * hostname), --block-protocol N (default 81), --help.
 *
 * Exit codes: 0 ok (check: consistent), 1 check found inconsistencies
 * (each named on `out`), 2 usage, config or etcd error (on `err`).
 */
#pragma once

#include <stdio.h>

int podwire_node_ipam(int argc, char **argv, FILE *out, FILE *err);
