#!/bin/bash
# Start-up cost of linking libibverbs, the measurement behind sriov-rdma's
# dlopen-on-demand (plugins/main/sriov-rdma/README.md, "Measured"): an empty
# program unlinked (a), linked against libibverbs (b), and dlopen()ing it
# (c), interleaved, 200 execs per round, median of ROUNDS rounds (default 15).
# Prints ns per exec. Needs gcc and libibverbs-dev. The machine's load goes
# straight into the numbers: report it next to them.
set -euo pipefail
ROUNDS=${ROUNDS:-15}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
echo 'int main(void) { return 0; }' >a.c
printf '#include <infiniband/verbs.h>\nint main(int c, char **v) { (void)v; if (c > 5) ibv_get_device_list(0); return 0; }\n' >b.c
printf '#include <dlfcn.h>\nint main(void) { return dlopen("libibverbs.so.1", RTLD_NOW) ? 0 : 1; }\n' >c.c
gcc -O2 a.c -o a
gcc -O2 b.c -o b -libverbs
gcc -O2 c.c -o c -ldl
declare -A all
for ((r = 0; r < ROUNDS; r++)); do
	for p in a b c; do
		t0=$(date +%s%N)
		for ((i = 0; i < 200; i++)); do ./$p; done
		all[$p]+="$((($(date +%s%N) - t0) / 200)) "
	done
done
mid=$((ROUNDS / 2 + 1))
for p in a b c; do
	echo "$p $(tr ' ' '\n' <<<"${all[$p]}" | grep . | sort -n | sed -n "${mid}p") ns/exec"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
