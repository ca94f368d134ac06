#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# cluster-ipam throughput against a real etcd 3.4, all in one run (see
# README.md in this directory):
#   bench/cluster-ipam/run.sh <build-dir> [--runs N] [--nodes N] [--pods N] [--rounds N]
#                             [--bgp-pairs N]
# Starts its own etcd (temp data dir on /dev/shm, free ports, unix socket),
# its own node and pod netns, and removes everything on exit. Per run: raw
# etcd CAS txn rates (pwetcd), then NODES x PODS parallel cluster-ipam ADDs
# (one process per ADD, ROUNDS each), the same with host-local (the
# harness's floor: no network, no etcd), then BGP_PAIRS interleaved bgp-route
# ADDs with host-local and with cluster-ipam in-process (each in its own
# throwaway host netns, each pod its own netns). Prints medians over the
# runs, the ratio ADD rate / raw kept-connection txn rate and the ADD rate
# against host-local's; fails on any duplicate address or failed ADD, never
# on timing.
set -euo pipefail

BUILD=$(cd "${1:?usage: run.sh <build-dir> [--runs N] [--nodes N] [--pods N] [--rounds N]}" && pwd)
shift
RUNS=5 NODES=8 PODS=8 ROUNDS=4 BGP_PAIRS=40
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=$2; shift ;;
	--nodes) NODES=$2; shift ;;
	--pods) PODS=$2; shift ;;
	--rounds) ROUNDS=$2; shift ;;
	--bgp-pairs) BGP_PAIRS=$2; shift ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
BENCH=$BUILD/bench/cipam-bench
PLUGIN=$BUILD/bin/cluster-ipam
[ -x "$BENCH" ] && [ -x "$PLUGIN" ] || { echo "run.sh: build cipam-bench and cluster-ipam first" >&2; exit 2; }

ID=cib$$
TMP=$(mktemp -d /dev/shm/pw-cipam-bench.XXXXXX 2>/dev/null || mktemp -d)
ETCD_PID=
cleanup() {
	set +e
	if [ -n "$ETCD_PID" ]; then
		kill "$ETCD_PID" 2>/dev/null
		wait "$ETCD_PID" 2>/dev/null
	fi
	for ns in $(ip netns list | awk '{print $1}' | grep "^${ID}"); do
		ip netns del "$ns"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

read -r PC PS PP < <(/usr/bin/python3 -c '
import socket
s=[socket.socket() for _ in range(3)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
SOCK="$TMP/localhost:$PS"
(cd "$TMP" && exec /usr/bin/etcd --name b --data-dir "$TMP/data" \
	--listen-client-urls "http://127.0.0.1:$PC,unix://localhost:$PS" \
	--advertise-client-urls "http://127.0.0.1:$PC" --listen-peer-urls "http://127.0.0.1:$PP" \
	--initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "b=http://127.0.0.1:$PP" \
	>"$TMP/etcd.log" 2>&1) &
ETCD_PID=$!
for _ in $(seq 1 100); do
	curl -sf --unix-socket "$SOCK" http://localhost/version >/dev/null && break
	sleep 0.1
done
ip netns add "${ID}pod"
for n in $(seq 1 "$NODES"); do
	ip netns add "${ID}n$n"
done

# bgp-route ADD with host-local vs with cluster-ipam in-process (the
# "+3 ms" target): interleaved pairs, fresh host netns per run and per side.
bgp_pairs() {
	local run=$1 i
	local d="$TMP/bgp$run"
	mkdir -p "$d/locks"
	ip netns add "${ID}bh$run"
	ip netns add "${ID}bc$run"
	for i in $(seq 0 $((BGP_PAIRS - 1))); do
		echo "netns add ${ID}bp${run}a$i"
		echo "netns add ${ID}bp${run}b$i"
	done | ip -batch -
	cat >"$d/hl.json" <<EOF2
{"cniVersion":"1.1.0","name":"bgpbench","type":"bgp-route","mtu":1500,
 "ipam":{"type":"host-local","dataDir":"$d/hl","ranges":[[{"subnet":"10.251.0.0/16"}]]}}
EOF2
	cat >"$d/ci.json" <<EOF2
{"cniVersion":"1.1.0","name":"bgpbench","type":"bgp-route","mtu":1500,
 "ipam":{"type":"cluster-ipam","nodeName":"bgp$run","etcd":{"endpoints":["unix://$SOCK"]},
  "etcdPrefix":"/bench/bgp$run","dataDir":"$d/ci","pools":[{"cidr":"10.250.0.0/16"}]}}
EOF2
	"$BENCH" pair "$BUILD/bin/bgp-route" "$BGP_PAIRS" "$d/locks" "${ID}bh$run" "$d/hl.json" \
		"${ID}bc$run" "$d/ci.json" "${ID}bp$run" |
		sed 's/^pair_a_ms/bgp_host_local_ms/; s/^pair_b_ms/bgp_cluster_ipam_ms/; s/^pair_diff_ms/bgp_diff_ms/' \
		>>"$TMP/results"
}

# The floor of this harness: the same NODES x PODS x ROUNDS ADDs of
# host-local (a process per ADD, files only: no network, no etcd), in the
# same run, right after cluster-ipam's.
host_local_floor() {
	local run=$1 n
	local d="$TMP/hl$run"
	mkdir -p "$d"
	for n in $(seq 1 "$NODES"); do
		cat >"$d/n$n.json" <<EOF2
{"cniVersion":"1.1.0","name":"benchhl","ipam":{"type":"host-local","dataDir":"$d/data-n$n",
 "ranges":[[{"subnet":"10.$((100 + n)).0.0/16"}]]}}
EOF2
	done
	"$BENCH" add "$BUILD/bin/host-local" "$d" "${ID}n" "${ID}pod" "$NODES" "$PODS" "$ROUNDS" |
		grep -E '^add_(rate|p99_ms) ' | sed 's/^add_/hl_add_/' >>"$TMP/results"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
: >"$TMP/results"
for run in $(seq 1 "$RUNS"); do
	prefix="/bench/$run"
	"$BENCH" raw "unix://$SOCK" "$prefix" 2000 "$NODES" >>"$TMP/results"
	mkdir -p "$TMP/conf$run"
	for n in $(seq 1 "$NODES"); do
		cat >"$TMP/conf$run/n$n.json" <<EOF2
{"cniVersion":"1.1.0","name":"bench","ipam":{"type":"cluster-ipam","nodeName":"n$n",
 "etcd":{"endpoints":["unix://$SOCK"],"timeoutMs":10000},"etcdPrefix":"$prefix",
 "dataDir":"$TMP/data-n$n","pools":[{"cidr":"10.240.0.0/12","blockSize":26}]}}
EOF2
	done
	"$BENCH" add "$PLUGIN" "$TMP/conf$run" "${ID}n" "${ID}pod" "$NODES" "$PODS" "$ROUNDS" >"$TMP/add$run"
	grep -v '^ip ' "$TMP/add$run" >>"$TMP/results"
	got=$(grep -c '^ip ' "$TMP/add$run")
	uniq=$(grep '^ip ' "$TMP/add$run" | sed 's|/.*||' | sort -u | wc -l)
	if [ "$got" -ne $((NODES * PODS * ROUNDS)) ] || [ "$uniq" -ne "$got" ]; then
		echo "run.sh: run $run: $got addresses, $uniq distinct, wanted $((NODES * PODS * ROUNDS))" >&2
		exit 1
	fi
	echo "dups 0" >>"$TMP/results"
	# (one /16 per node from 10.101.0.0: up to 150 nodes)
	[ -x "$BUILD/bin/host-local" ] && [ "$NODES" -le 150 ] && host_local_floor "$run"
	[ "$BGP_PAIRS" -gt 0 ] && [ -x "$BUILD/bin/bgp-route" ] && bgp_pairs "$run"
done
HL=$BUILD/bin/host-local
"$BENCH" exec "$PLUGIN" 200 | sed 's/exec_ms/exec_cluster_ipam_ms/' >>"$TMP/results"
[ -x "$HL" ] && "$BENCH" exec "$HL" 200 | sed 's/exec_ms/exec_host_local_ms/' >>"$TMP/results"

echo "cluster-ipam bench: etcd $(/usr/bin/etcd --version | head -1 | awk '{print $3}'), $RUNS runs, ${NODES}x${PODS} parallel ADDs x $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The medians read below (M_<key>, set by eval; empty when not measured).
M_add_rate='' M_raw_kept='' M_add_p99_ms='' M_hl_add_rate='' M_hl_add_p99_ms='' M_bgp_diff_ms=''
for k in raw_kept raw_newconn raw_parallel add_rate add_p50_ms add_p99_ms add_round0_p99_ms \
	add_later_p99_ms add_failed hl_add_rate hl_add_p99_ms exec_cluster_ipam_ms exec_host_local_ms \
	bgp_host_local_ms bgp_cluster_ipam_ms bgp_diff_ms; do
	grep -q "^$k " "$TMP/results" || continue
	v=$(awk -v k="$k" '$1==k {print $2}' "$TMP/results" | median)
	printf '%-22s %s\n' "$k" "$v"
	eval "M_$k=$v"
done
awk -v a="$M_add_rate" -v r="$M_raw_kept" 'BEGIN {printf "%-22s %.2f (target >= 0.50)\n", "add_rate/raw_kept", a / r}'
printf '%-22s %s ms (target <= 100)\n' "add p99" "$M_add_p99_ms"
if [ -n "${M_hl_add_rate:-}" ]; then
	awk -v a="$M_add_rate" -v h="$M_hl_add_rate" -v p="$M_hl_add_p99_ms" 'BEGIN {
		printf "%-22s %.2f (host-local in the same harness: %s /s, p99 %s ms)\n",
		"add_rate/host_local", a / h, h, p }'
fi
if [ -n "${M_bgp_diff_ms:-}" ]; then
	printf '%-22s %s ms (target <= 3; median over runs of the median per-pair difference)\n' \
		"bgp cluster-host" "$M_bgp_diff_ms"
fi
