#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bridge DEL with host-local in-process vs exec'd (PODWIRE_IPAM_EXEC=1),
# interleaved on one bridge in a throwaway host netns, so both see the same
# machine and bridge state (the full bench's ipam-exec mode
# runs at another time than bridge-v4 and showed ~24 ms more).
#   bench/ipam-exec-del.sh BUILD_DIR [N]      (root)
set -euo pipefail
B=$(cd "${1:?build dir}" && pwd)/bin
n=${2:-40}
H="pwie$$h" P="pwie$$p"
D=$(mktemp -d /tmp/pwbench-ie.XXXXXX)
cleanup() { ip netns del "$H" 2>/dev/null || true; ip netns del "$P" 2>/dev/null || true; rm -rf "$D"; }
trap cleanup EXIT
ip netns add "$H"
ip netns add "$P"
ip -n "$H" link set lo up
conf=$(jq -nc --arg d "$D/ipam" '{cniVersion:"1.0.0", name:"ie", type:"bridge", bridge:"brie",
	isGateway:true, ipam:{type:"host-local", subnet:"10.66.0.0/24", dataDir:$d}}')
call() { # CMD ID ENV
	ip netns exec "$H" env CNI_COMMAND="$1" CNI_CONTAINERID="c$2" CNI_NETNS="/var/run/netns/$P" \
		CNI_IFNAME="e$2" CNI_PATH="$B" PODWIRE_LOCK_DIR="$D/locks" "$3" "$B/bridge" \
		<<<"$conf" >/dev/null
}
declare -A sum=([in]=0 [ex]=0)
for ((i = 1; i <= n; i++)); do
	for mode in in ex; do
		env=PODWIRE_IPAM_EXEC=0
		[ "$mode" = ex ] && env=PODWIRE_IPAM_EXEC=1
		call ADD "$mode$i" "$env"
		sleep 0.03
		s=$(date +%s%N)
		call DEL "$mode$i" "$env"
		e=$(date +%s%N)
		sum[$mode]=$((sum[$mode] + (e - s) / 1000))
	done
done
echo "bridge DEL, host-local in-process: mean $((sum[in] / n)) us"
echo "bridge DEL, host-local exec'd:     mean $((sum[ex] / n)) us   (n=$n each, interleaved)"
