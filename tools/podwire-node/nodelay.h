/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `podwire-node bgp-nodelay`: a sock_ops BPF program on BIRD's cgroup that
 * sets TCP_NODELAY on every BGP connection (local or remote port 179) as it
 * is established. BIRD 2 leaves Nagle's algorithm on, so an UPDATE written
 * while a KEEPALIVE is unacknowledged waits for the peer's delayed ACK
 * (bench/bgp/README.md). The program is a handful of instructions built
 * here, loaded and attached with the bpf(2) syscall: no libbpf, no compiler.
 */
#pragma once
#include <stddef.h>
#include <stdio.h>

#include <linux/bpf.h>

#define PWN_NODELAY_PROG_NAME "pw_bgp_nodelay"
#define PWN_BGP_PORT 179
#define PWN_NODELAY_MAX_INSNS 24

/* The program's instructions into insns[max]; returns their count. */
size_t pwn_nodelay_prog(struct bpf_insn *insns, size_t max);

/*
 * The cgroup v2 mount point from /proc/self/mountinfo text (octal escapes
 * decoded) into buf. Returns 0, -ENOENT (no cgroup2 mount), -ENAMETOOLONG.
 */
int pwn_cgroup2_mount(const char *mountinfo, char *buf, size_t size);

/*
 * The unified-hierarchy path ("0::/path") from /proc/self/cgroup text into
 * buf. Returns 0, -ENOENT (no "0::" line), -ENAMETOOLONG.
 */
int pwn_cgroup_self_path(const char *proc_cgroup, char *buf, size_t size);

int pwn_cmd_bgp_nodelay(int argc, char **argv, FILE *out, FILE *err);
