#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bgp-route + BIRD benchmark (issue 17). See bench/bgp/README.md.
#
#   bench/bgp/run.sh [--build DIR] [--nodes K] [--pods N] [--out DIR]
#
# A cluster of K node namespaces on a fabric bridge, each with its own BIRD
# (rendered by podwire-node), N pods per node added one after another with
# bgp-route (host-local, dual stack), then deleted. Measured in the same run:
# - ADD and DEL latency of bgp-route, against the bridge plugin's ADD
#   (dual stack, isGateway, host-local) and a kernel veth delete
#   (`ip link del` of a veth whose peer is in another netns, also one
#   process) in their own namespaces;
# - ADD returned -> the pod's /32 in every peer's kernel, DEL returned ->
#   withdrawn everywhere: one netlink route monitor per node
#   (routewatch.py), no polling;
# - BIRD's RSS and CPU time over the pod phase.
# Defaults K=3, N=10 (about 20 s); the issue's sizes: --nodes 5|10|20.
# Exits non-zero when a plugin call fails or a route event never reached a
# peer (never on timing), so a small run is a smoke test.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$SRC/build"
NODES=3
PODS=10
OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$(cd "${2:?}" && pwd); shift ;;
	--nodes) NODES=${2:?}; shift ;;
	--pods) PODS=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	-h|--help) sed -n 3,20p "$0"; exit 0 ;;
	*) echo "usage: $0 [--build DIR] [--nodes K] [--pods N] [--out DIR]" >&2; exit 2 ;;
	esac
	shift
done
[ "$NODES" -ge 2 ] && [ "$NODES" -le 200 ] || { echo "--nodes: 2..200" >&2; exit 2; }
export PODWIRE_BIN="$BUILD/bin"
BATS_TMPDIR=${TMPDIR:-/tmp}
# shellcheck source=../../e2e/bgp-helpers.bash
. "$SRC/e2e/bgp-helpers.bash"

bgp_setup_dirs
trap bgp_teardown EXIT
OUT=${OUT:-$BGP_DIR/results}
mkdir -p "$OUT"
R="$BGP_DIR/raw"
mkdir -p "$R"

echo "bench: $NODES nodes x $PODS pods, cluster up..." >&2
bgp_cluster_up "$NODES"

# One route monitor per node.
for i in $(seq 1 "$NODES"); do
	ip netns exec "$(bgp_ns "$i")" /usr/bin/python3 -u "$SRC/bench/bgp/routewatch.py" \
		>"$R/watch.$i" 2>/dev/null &
	echo "$!" >>"$BGP_DIR/pids"
done
for i in $(seq 1 "$NODES"); do
	for t in $(seq 1 100); do
		grep -q ready "$R/watch.$i" 2>/dev/null && break
		sleep 0.05
	done
done

node_conf() {
	cat <<EOF
{"cniVersion":"1.1.0","name":"bgpnet","type":"bgp-route","mtu":1500,
 "ipam":{"type":"host-local","dataDir":"$BGP_DIR/n$1/ipam",
   "ranges":[[{"subnet":"10.244.$1.0/24"}],[{"subnet":"fd00:244:$1::/64"}]]}}
EOF
}

bridge_conf() {
	cat <<EOF
{"cniVersion":"1.1.0","name":"brnet","type":"bridge","bridge":"br0","isGateway":true,
 "ipam":{"type":"host-local","dataDir":"$BGP_DIR/bridge-ipam",
   "ranges":[[{"subnet":"10.200.0.0/16"}],[{"subnet":"fd00:200::/64"}]]}}
EOF
}

# plugin NS PLUGIN CMD CID POD CONFFILE OUTFILE: one call, timed; prints "start end".
plugin() {
	local ns=$1 bin=$2 cmd=$3 cid=$4 pod=$5 conf=$6 out=$7 t0 t1
	t0=$EPOCHREALTIME
	ip netns exec "$ns" env CNI_COMMAND="$cmd" CNI_CONTAINERID="$cid" \
		CNI_NETNS="/var/run/netns/$pod" CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_BIN" \
		"$PODWIRE_BIN/$bin" <"$conf" >"$out" || {
		echo "bench: $bin $cmd $cid failed: $(cat "$out")" >&2
		exit 1
	}
	t1=$EPOCHREALTIME
	echo "$t0 $t1"
}

bird_usage() { # node -> "rss_kb cpu_ticks"
	local pid
	pid=$(bgp_bird_pid "$1")
	echo "$(awk '/VmRSS/ {print $2}' "/proc/$pid/status") $(awk '{print $14 + $15}' "/proc/$pid/stat")"
}

for i in $(seq 1 "$NODES"); do
	node_conf "$i" >"$BGP_DIR/n$i/conf.json"
	bird_usage "$i" >"$R/bird.before.$i"
done

# Pods (netns) first, untimed.
for i in $(seq 1 "$NODES"); do
	for j in $(seq 1 "$PODS"); do
		bgp_netns_new "$BGP_ID-p$i-$j"
	done
done

# The references run in their own namespace, interleaved with the
# bgp-route calls so both see the same machine load (BIRDs and monitors).
BRH="$BGP_ID-brh"
bgp_netns_new "$BRH"
bridge_conf >"$BGP_DIR/bridge.json"
: >"$R/bridge"
: >"$R/vethdel"

echo "bench: ADD..." >&2
: >"$R/add"
for j in $(seq 1 "$PODS"); do
	for i in $(seq 1 "$NODES"); do
		pod="$BGP_ID-p$i-$j"
		t=$(plugin "$(bgp_ns "$i")" bgp-route ADD "c$i-$j" "$pod" "$BGP_DIR/n$i/conf.json" "$R/res")
		ip4=$(jq -r '.ips[] | select(.address | contains(".")) | .address' "$R/res")
		echo "$i $j $t $ip4" >>"$R/add"
		bp="$BGP_ID-b$i-$j"
		bgp_netns_new "$bp"
		plugin "$BRH" bridge ADD "b$i-$j" "$bp" "$BGP_DIR/bridge.json" "$R/res" >>"$R/bridge"
	done
done
sleep 1 # let the last routes arrive
for i in $(seq 1 "$NODES"); do
	bird_usage "$i" >"$R/bird.added.$i"
done

echo "bench: DEL..." >&2
: >"$R/del"
for j in $(seq 1 "$PODS"); do
	for i in $(seq 1 "$NODES"); do
		pod="$BGP_ID-p$i-$j"
		t=$(plugin "$(bgp_ns "$i")" bgp-route DEL "c$i-$j" "$pod" "$BGP_DIR/n$i/conf.json" "$R/res")
		echo "$i $j $t" >>"$R/del"
		# the same kind of veth: its peer in another netns
		bgp_netns_new "$BGP_ID-v$i-$j"
		ip -n "$BRH" link add "kv$i-$j" type veth peer name eth0 netns "$BGP_ID-v$i-$j"
		t0=$EPOCHREALTIME
		ip -n "$BRH" link del "kv$i-$j"
		echo "$t0 $EPOCHREALTIME" >>"$R/vethdel"
	done
done
sleep 1
for i in $(seq 1 "$NODES"); do
	bird_usage "$i" >"$R/bird.after.$i"
done

/usr/bin/python3 - "$R" "$NODES" "$PODS" <<'PY' | tee "$OUT/bgp-bench-k$NODES.md"
import sys, statistics
R, K, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def ns(x):
    return int(round(float(x) * 1e9))

def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]

def ms(v):
    return "%.2f" % (v / 1e6)

adds = [l.split() for l in open(R + "/add")]
dels = [l.split() for l in open(R + "/del")]
watch = {}
for i in range(1, K + 1):
    ev = []
    for l in open("%s/watch.%d" % (R, i)):
        f = l.split()
        if len(f) == 4:
            ev.append((int(f[0]), f[1], f[2]))
    watch[i] = ev

def seen(node, kind, dst, after):
    for t, k, d in watch[node]:
        if k == kind and d == dst and t >= after:
            return t
    return None

add_lat, del_lat, prop_add, prop_del, missing = [], [], [], [], 0
ip_of = {}
for i, j, t0, t1, ip in adds:
    i, j = int(i), int(j)
    add_lat.append(ns(t1) - ns(t0))
    dst = ip.split("/")[0] + "/32"
    ip_of[(i, j)] = dst
    worst = None
    for p in range(1, K + 1):
        if p == i:
            continue
        t = seen(p, "new", dst, ns(t0))
        if t is None:
            missing += 1
            continue
        worst = t if worst is None else max(worst, t)
    if worst is not None:
        prop_add.append(worst - ns(t1))
for i, j, t0, t1 in dels:
    i, j = int(i), int(j)
    del_lat.append(ns(t1) - ns(t0))
    dst = ip_of[(i, j)]
    worst = None
    for p in range(1, K + 1):
        if p == i:
            continue
        t = seen(p, "del", dst, ns(t0))
        if t is None:
            missing += 1
            continue
        worst = t if worst is None else max(worst, t)
    if worst is not None:
        prop_del.append(worst - ns(t1))
br = [ns(b) - ns(a) for a, b in (l.split() for l in open(R + "/bridge"))]
vd = [ns(b) - ns(a) for a, b in (l.split() for l in open(R + "/vethdel"))]
rss, cpu = [], []
for i in range(1, K + 1):
    b = open("%s/bird.before.%d" % (R, i)).read().split()
    m = open("%s/bird.added.%d" % (R, i)).read().split()
    a = open("%s/bird.after.%d" % (R, i)).read().split()
    rss.append(int(m[0]))
    cpu.append((int(a[1]) - int(b[1])) * 10)  # ticks of 10 ms

print("## bgp-route bench: %d nodes x %d pods" % (K, N))
print()
print("| measure | p50 ms | p99 ms | max ms | n |")
print("|---|---|---|---|---|")
for name, v in [("bgp-route ADD", add_lat), ("bridge ADD (reference)", br),
                ("bgp-route DEL", del_lat), ("kernel veth delete (`ip link del`)", vd),
                ("ADD returned -> /32 on every peer", prop_add),
                ("DEL returned -> withdrawn on every peer", prop_del)]:
    if v:
        print("| %s | %s | %s | %s | %d |" % (name, ms(q(v, 50)), ms(q(v, 99)), ms(max(v)), len(v)))
print()
print("ADD median / bridge ADD median: %.2f" % (statistics.median(add_lat) / statistics.median(br)))
print("DEL median - veth delete median: %s ms" % ms(statistics.median(del_lat) - statistics.median(vd)))
print("BIRD RSS with all pods: max %d KiB; BIRD CPU over ADD+DEL: max %d ms per node" % (max(rss), max(cpu)))
print("route events not seen on a peer: %d" % missing)
sys.exit(1 if missing else 0)
PY
