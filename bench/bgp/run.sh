#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bgp-route + BIRD benchmark. See bench/bgp/README.md.
#
#   bench/bgp/run.sh [--build DIR] [--nodes K] [--pods N] [--out DIR] [--no-announce]
#                    [--keep-raw] [--pin] [--quickack] [--no-nodelay] [--pcap FILE]
#
# A cluster of K node namespaces on a fabric bridge, each with its own BIRD
# (rendered by podwire-node), N pods per node added one after another with
# bgp-route (host-local, dual stack), then deleted. Measured in the same run:
# - ADD and DEL latency of bgp-route, against the bridge plugin's ADD
#   (dual stack, isGateway, host-local) in the same node namespace (the
#   same BIRD and monitor listening: the reference) and in a namespace of
#   its own (as before), and against kernel veth deletes in the same node namespace, launched the
#   same way as the plugin (`ip netns exec NODE env CMD`): the floor, a veth
#   configured like a pod's (MAC, sysctls, addresses, routes, neighbour,
#   IPv6 link-locals settled) in the state bgp-route's DEL deletes it (its
#   host routes already gone), and a bare veth for comparison;
# - ADD returned -> the pod's /32 in every peer's kernel, DEL returned ->
#   withdrawn everywhere: one netlink route monitor per node
#   (routewatch, bench/bgp/routewatch.c), no polling;
# - BIRD's RSS and CPU time over the pod phase.
# Defaults K=3, N=10 (about 20 s); the issue's sizes: --nodes 5|10|20.
# --no-announce: the pods' host routes get protocol numbers BIRD neither
# learns nor exports (90/91/92), so no route spreads and the propagation rows
# are left out: the plugin's cost without the other nodes' BIRDs, which share
# this machine's cores, working on its route while it finishes.
# --pin: the simulated cluster (every BIRD, every route monitor) on CPU 1,
# this script and so every timed call (plugin and reference alike) on CPU
# 0: the other nodes' work off the core the calls run on, as on separate
# machines (the local BIRD too). A diagnostic; the default shares all cores.
# --quickack: every node's route to the fabric (its BGP peers) with
# `quickack 1`, so a node ACKs what its peers send at once. BIRD leaves
# Nagle on for its BGP sockets: an UPDATE written while the node's last
# KEEPALIVE to a peer is still unacknowledged waits for that ACK, which the
# peer delays up to 40 ms (seen with --pcap). A diagnostic: the default
# fabric is as a node's network is unless its operator sets this.
# Every BIRD runs in a cgroup of the run with `podwire-node bgp-nodelay`
# attached (TCP_NODELAY on its BGP sockets, set by a sock_ops BPF program),
# as podwire's manifest runs BIRD (tools/podwire-node/README.md); needs a
# cgroup v2 mount. --no-nodelay: BIRD as Debian ships it, Nagle on (before
# 2026-12-02's fourth pass, every run was this).
# --pcap FILE: the BGP traffic on the fabric bridge into FILE (tcpdump).
# --keep-raw: also copy the raw stamps (every call's start and end, the
# monitors' events) to <out>/raw.
# Exits non-zero when a plugin call fails or a route event never reached a
# peer (never on timing), so a small run is a smoke test.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$SRC/build"
NODES=3
PODS=10
OUT=""
ANNOUNCE=1
KEEP_RAW=0
PIN=0
NODELAY=1
while [ $# -gt 0 ]; do
	case "$1" in
	--build) BUILD=$(cd "${2:?}" && pwd); shift ;;
	--nodes) NODES=${2:?}; shift ;;
	--pods) PODS=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--no-announce) ANNOUNCE=0 ;;
	--keep-raw) KEEP_RAW=1 ;;
	--pin) PIN=1 ;;
	--quickack) export BGP_QUICKACK=1 ;;
	--no-nodelay) NODELAY=0 ;;
	--pcap) export BGP_TCPDUMP=${2:?}; shift ;;
	-h|--help) sed -n 3,48p "$0"; exit 0 ;;
	*) echo "usage: $0 [--build DIR] [--nodes K] [--pods N] [--out DIR] [--no-announce] [--keep-raw] [--pin] [--quickack] [--no-nodelay] [--pcap FILE]" >&2
		exit 2 ;;
	esac
	shift
done
[ "$NODES" -ge 2 ] && [ "$NODES" -le 200 ] || { echo "--nodes: 2..200" >&2; exit 2; }
if [ "$NODELAY" = 1 ]; then
	grep -q ' - cgroup2 ' /proc/self/mountinfo ||
		{ echo "no cgroup v2 mount for bgp-nodelay: run with --no-nodelay" >&2; exit 2; }
	export BGP_NODELAY=1
fi
export PODWIRE_BIN="$BUILD/bin"
WATCH="$BUILD/bench/routewatch"
[ -x "$WATCH" ] || { echo "$WATCH missing: build the bench (bench/bgp/routewatch.c)" >&2; exit 2; }
export BATS_TMPDIR=${TMPDIR:-/tmp}
# shellcheck source=../../e2e/bgp-helpers.bash
. "$SRC/e2e/bgp-helpers.bash"

bgp_setup_dirs
trap bgp_teardown EXIT
OUT=${OUT:-$BGP_DIR/results}
mkdir -p "$OUT"
R="$BGP_DIR/raw"
mkdir -p "$R"
# the bridge's lock files in our own directory, never the host's /run/podwire
export PODWIRE_LOCK_DIR="$BGP_DIR/locks"

echo "bench: $NODES nodes x $PODS pods, cluster up..." >&2
bgp_cluster_up "$NODES"

ON_CLUSTER=()
if [ "$PIN" = 1 ]; then
	[ "$(nproc)" -ge 2 ] || { echo "--pin: needs 2 CPUs" >&2; exit 2; }
	for i in $(seq 1 "$NODES"); do
		taskset -a -p -c 1 "$(bgp_bird_pid "$i")" >/dev/null
	done
	ON_CLUSTER=(taskset -c 1)
	taskset -p -c 0 $$ >/dev/null
fi

# One route monitor per node.
for i in $(seq 1 "$NODES"); do
	"${ON_CLUSTER[@]}" ip netns exec "$(bgp_ns "$i")" "$WATCH" >"$R/watch.$i" \
		2>"$R/watch.$i.err" &
	echo "$!" >>"$BGP_DIR/pids"
	disown "$!" # stopped by PID at exit (SIGKILL): no "Killed" line from bash
done
for i in $(seq 1 "$NODES"); do
	for t in $(seq 1 100); do
		grep -q ready "$R/watch.$i" 2>/dev/null && break
		sleep 0.05
	done
done

node_conf() {
	local protos=""
	[ "$ANNOUNCE" = 1 ] || protos='"routeProtocols":{"pod":90,"block":91,"borrowed":92},'
	cat <<EOF
{"cniVersion":"1.1.0","name":"bgpnet","type":"bgp-route","mtu":1500,$protos
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

# veth_del NS DEV: `ip link del` launched as plugin() launches a plugin; prints "start end".
veth_del() {
	local t0
	t0=$EPOCHREALTIME
	ip netns exec "$1" env ip link del dev "$2"
	echo "$t0 $EPOCHREALTIME"
}

# ref_pod NS HOSTIF POD I J: in node NS, a veth configured as bgp-route
# configures a pod's (host end: MAC ee:..., the routing sysctls, up; pod end:
# /32 and /128, 169.254.1.1 on-link and default routes, the permanent
# neighbour, IPv6 default via the host link-local, no DAD), then its host
# routes deleted, as DEL does before the veth. Proto boot host routes: BIRD
# neither learns nor announces them, and `direct` skips pwr* links.
ref_pod() {
	local ns=$1 h=$2 p=$3 i=$4 j=$5 c
	ip -n "$ns" link add "$h" address ee:ee:ee:ee:ee:ee mtu 1500 type veth \
		peer name eth0 netns "$p"
	c=net.ipv4.conf.$h
	ip netns exec "$ns" sysctl -qw "$c.proxy_arp=1" "$c.forwarding=1" "$c.rp_filter=1" \
		"net.ipv4.neigh.$h.proxy_delay=0" "net.ipv6.conf.$h.accept_dad=0" \
		"net.ipv6.conf.$h.forwarding=1"
	ip netns exec "$p" sysctl -qw net.ipv4.conf.eth0.arp_notify=1 \
		net.ipv6.conf.eth0.ndisc_notify=1 net.ipv6.conf.eth0.keep_addr_on_down=1 \
		net.ipv6.conf.eth0.accept_dad=0
	ip -n "$ns" link set "$h" up
	ip -n "$p" addr add "10.97.$i.$j/32" dev eth0
	ip -n "$p" addr add "fd00:97:$i::$j/128" dev eth0 nodad
	ip -n "$p" link set eth0 up
	ip -n "$p" route add 169.254.1.1 dev eth0 scope link
	ip -n "$p" route add default via 169.254.1.1 dev eth0
	ip -n "$p" neigh add 169.254.1.1 lladdr ee:ee:ee:ee:ee:ee dev eth0 nud permanent
	ip -n "$p" -6 route add default via fe80::ecee:eeff:feee:eeee dev eth0
	ip -n "$ns" route add "10.97.$i.$j/32" dev "$h" scope link
	ip -n "$ns" -6 route add "fd00:97:$i::$j/128" dev "$h" metric 16
	ip -n "$ns" route del "10.97.$i.$j/32" dev "$h"
	ip -n "$ns" -6 route del "fd00:97:$i::$j/128" dev "$h"
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

# The references run interleaved with the
# bgp-route calls so both see the same machine load (BIRDs and monitors).
BRH="$BGP_ID-brh"
bgp_netns_new "$BRH"
bridge_conf >"$BGP_DIR/bridge.json"
: >"$R/bridge"
: >"$R/vethdel"
: >"$R/vethbare"

# bridge_add NS I J FILE: one timed bridge ADD in NS, appended to FILE.
# Its result goes to a file of its own, as every bgp-route ADD's does.
bridge_add() {
	plugin "$1" bridge ADD "b$4$2-$3" "$BGP_ID-$4-$2-$3" "$BGP_DIR/bridge.json" \
		"$R/res.$4.$2.$3" >>"$R/$4"
}

# Nothing but the plugins runs between two calls: the bridge pods' netns
# are made first, and the pods' addresses are read from their results
# after the ADD phase (a jq or an `ip netns add` right after an ADD shared
# the two cores with the BIRDs still spreading its route).
for j in $(seq 1 "$PODS"); do
	for i in $(seq 1 "$NODES"); do
		bgp_netns_new "$BGP_ID-bridge-$i-$j"
		bgp_netns_new "$BGP_ID-bridge-own-$i-$j"
	done
done

echo "bench: ADD..." >&2
: >"$R/add"
: >"$R/bridge-own"
for j in $(seq 1 "$PODS"); do
	for i in $(seq 1 "$NODES"); do
		node=$(bgp_ns "$i")
		# alternate who goes first: the one right after a bgp-route ADD
		# shares the machine with the BIRDs spreading its route
		if [ $((j % 2)) = 0 ]; then
			bridge_add "$node" "$i" "$j" bridge
			bridge_add "$BRH" "$i" "$j" bridge-own
		fi
		pod="$BGP_ID-p$i-$j"
		t=$(plugin "$node" bgp-route ADD "c$i-$j" "$pod" "$BGP_DIR/n$i/conf.json" \
			"$R/res.$i.$j")
		echo "$i $j $t" >>"$R/add"
		if [ $((j % 2)) = 1 ]; then
			bridge_add "$node" "$i" "$j" bridge
			bridge_add "$BRH" "$i" "$j" bridge-own
		fi
	done
done
sleep 1 # let the last routes arrive
while read -r i j t0 t1; do
	echo "$i $j $t0 $t1 $(jq -r '.ips[] | select(.address | contains(".")) | .address' \
		"$R/res.$i.$j")"
done <"$R/add" >"$R/add.ip"
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
		# the floor: a veth like the pod's, in the same node namespace
		bgp_netns_new "$BGP_ID-v$i-$j"
		ref_pod "$(bgp_ns "$i")" "pwrref${i}x$j" "$BGP_ID-v$i-$j" "$i" "$j"
		veth_del "$(bgp_ns "$i")" "pwrref${i}x$j" >>"$R/vethdel"
		# and a bare one (no addresses, down, IPv6 link-locals never assigned)
		bgp_netns_new "$BGP_ID-w$i-$j"
		ip -n "$(bgp_ns "$i")" link add "pwrbare${i}x$j" type veth peer name eth0 \
			netns "$BGP_ID-w$i-$j"
		veth_del "$(bgp_ns "$i")" "pwrbare${i}x$j" >>"$R/vethbare"
	done
done
sleep 1
for i in $(seq 1 "$NODES"); do
	bird_usage "$i" >"$R/bird.after.$i"
done

rc=0
/usr/bin/python3 - "$R" "$NODES" "$PODS" "$ANNOUNCE" "$NODELAY" <<'PY' | tee "$OUT/bgp-bench-k$NODES.md" || rc=$?
import sys, statistics
R, K, N, ANNOUNCE = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
NODELAY = sys.argv[5] == "1"

def ns(x):
    return int(round(float(x) * 1e9))

def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]

def ms(v):
    return "%.2f" % (v / 1e6)

adds = [l.split() for l in open(R + "/add.ip")]
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
        if p == i or not ANNOUNCE:
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
        if p == i or not ANNOUNCE:
            continue
        t = seen(p, "del", dst, ns(t0))
        if t is None:
            missing += 1
            continue
        worst = t if worst is None else max(worst, t)
    if worst is not None:
        prop_del.append(worst - ns(t1))
br = [ns(b) - ns(a) for a, b in (l.split() for l in open(R + "/bridge"))]
bro = [ns(b) - ns(a) for a, b in (l.split() for l in open(R + "/bridge-own"))]
vd = [ns(b) - ns(a) for a, b in (l.split() for l in open(R + "/vethdel"))]
vb = [ns(b) - ns(a) for a, b in (l.split() for l in open(R + "/vethbare"))]
rss, cpu = [], []
for i in range(1, K + 1):
    b = open("%s/bird.before.%d" % (R, i)).read().split()
    m = open("%s/bird.added.%d" % (R, i)).read().split()
    a = open("%s/bird.after.%d" % (R, i)).read().split()
    rss.append(int(m[0]))
    cpu.append((int(a[1]) - int(b[1])) * 10)  # ticks of 10 ms

print("## bgp-route bench: %d nodes x %d pods%s%s" % (K, N, "" if ANNOUNCE else ", --no-announce",
                                                     "" if NODELAY else ", --no-nodelay"))
print()
print("| measure | p50 ms | p99 ms | max ms | n |")
print("|---|---|---|---|---|")
for name, v in [("bgp-route ADD", add_lat), ("bridge ADD, same node namespace (reference)", br),
                ("bridge ADD, namespace of its own", bro),
                ("bgp-route DEL", del_lat),
                ("veth delete, configured like a pod's (floor)", vd),
                ("veth delete, bare (for comparison)", vb),
                ("ADD returned -> /32 on every peer", prop_add),
                ("DEL returned -> withdrawn on every peer", prop_del)]:
    if v:
        print("| %s | %s | %s | %s | %d |" % (name, ms(q(v, 50)), ms(q(v, 99)), ms(max(v)), len(v)))
print()
print("ADD median / bridge ADD median: %.2f (bridge in a namespace of its own: %.2f)" % (
    statistics.median(add_lat) / statistics.median(br),
    statistics.median(add_lat) / statistics.median(bro)))
print("DEL median - pod-like veth delete median: %s ms (bare veth: %s ms)" % (
    ms(statistics.median(del_lat) - statistics.median(vd)),
    ms(statistics.median(del_lat) - statistics.median(vb))))
print("BIRD RSS with all pods: max %d KiB; BIRD CPU over ADD+DEL: max %d ms per node" % (max(rss), max(cpu)))
print("route events not seen on a peer: %d" % missing)
sys.exit(1 if missing else 0)
PY
# the per-call start/end stamps and the monitors' events, for a closer look
[ "$KEEP_RAW" = 0 ] || cp -r "$R" "$OUT/raw"
exit "$rc"
