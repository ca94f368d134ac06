#!/usr/bin/env bash
# podwire's mission in one command (`make demo`), on one machine, in well
# under two minutes:
#
#   Part 1, a routed cluster: three node namespaces on a fabric bridge, one
#   etcd, one BIRD per node configured by `podwire-node bird-config`, two pods
#   per node wired by bgp-route + cluster-ipam through cnitool; BGP sessions,
#   routes, IPAM state, pings across nodes (v4 and v6) and the time from ADD
#   returning to the route being on every peer.
#
#   Part 2, the GPU pod shape: multinet asking an apiserver stand-in for the
#   pod's annotation, eth0 on the cluster network of part 1, net1 on
#   sriov-rdma over a FAKE SR-IOV sysfs tree (this machine has no SR-IOV
#   hardware), the network-status annotation, podwire-inspect, and DEL with
#   the apiserver stopped.
#
# Usage: scripts/demo.sh [BUILD_DIR]      (as root)
#
# Nothing on the real host is touched: every interface lives in the demo's
# own namespaces, etcd listens on 127.0.0.1 free ports and a unix socket, the
# apiserver stand-in on 127.0.0.1 inside a node namespace, and every state,
# cache and data dir is under one temporary directory. Everything is removed
# at the end, also on failure or Ctrl-C. Exit status: 0 when every step
# passed, 1 when one failed, 130 when interrupted.
#
# The cluster and fake-tree plumbing is the e2e tests' own, sourced as it is
# (plain bash, no bats): e2e/bgp-helpers.bash (fabric, bird, etcd, pods),
# e2e/sriov-helpers.bash (the fake SR-IOV tree), e2e/multinet-helpers.bash
# (certificates, the stand-in, pod and NAD fixtures). e2e/335-demo-mission.bats
# runs this script.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || exit 1
BIN="$BUILD/bin"
NODES=3
PODS_PER_NODE=2
ETCD_PREFIX=/podwire

if [ -t 1 ]; then
	BOLD=$'\033[1m' PLAIN=$'\033[0m'
else
	BOLD='' PLAIN=''
fi
heading() { printf '\n%s=== %s ===%s\n' "$BOLD" "$*" "$PLAIN"; }
die() {
	printf 'demo: %s\n' "$*" >&2
	exit 1
}

preflight() {
	local t
	[ "$(id -u)" -eq 0 ] || die "must run as root (it creates network namespaces)"
	for t in ip jq ping bird birdc etcd etcdctl curl openssl /usr/bin/python3; do
		command -v "$t" >/dev/null || die "'$t' is missing: run scripts/bootstrap.sh"
	done
	for t in cnitool bgp-route cluster-ipam podwire-node sriov-rdma multinet; do
		[ -x "$BIN/$t" ] || die "$BIN/$t is not built: run 'make build' (or pass the build dir)"
	done
}
preflight

# shellcheck source=e2e/bgp-helpers.bash
. "$SRC/e2e/bgp-helpers.bash"
# shellcheck source=e2e/sriov-helpers.bash
. "$SRC/e2e/sriov-helpers.bash"
# shellcheck disable=SC2034 # read by multinet-helpers.bash
PODWIRE_SRC=$SRC
# shellcheck source=e2e/multinet-helpers.bash
. "$SRC/e2e/multinet-helpers.bash"

PODWIRE_BIN=$BIN
BGP_ID="pwm$(printf '%05d' $(($$ % 100000)))"
BGP_FAB="$BGP_ID-fab"
BGP_DIR=""
STEP_PID="" # the step running now (see step)
GPU_NS="$BGP_ID-gpu"

# running PID COMM: PID is COMM and not a zombie (this container's init reaps late).
running() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] &&
		[ "$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" != Z ]
}

# stop_pid PID COMM: TERM (KILL after 2 s), only while PID is still COMM.
stop_pid() {
	local pid=$1 comm=$2 t
	for t in $(seq 1 30); do
		if ! running "$pid" "$comm"; then
			[ "$t" -gt 1 ] && echo "stopped $comm (pid $pid)"
			return 0
		fi
		case $t in
		1) kill -TERM "$pid" 2>/dev/null ;;
		20) kill -KILL "$pid" 2>/dev/null ;;
		esac
		sleep 0.1
	done
}

# stop_tree PID: freeze PID, do the same to its children, then kill it.
stop_tree() {
	local child
	kill -STOP "$1" 2>/dev/null || return 0
	for child in $(pgrep -P "$1"); do
		stop_tree "$child"
	done
	kill -KILL "$1" 2>/dev/null
}

cleanup() {
	local ret=$? pid comm ns
	trap '' INT TERM
	trap - EXIT
	[ -n "$BGP_DIR" ] && [ -d "$BGP_DIR" ] || exit "$ret"
	heading "Cleaning up"
	if [ -n "$STEP_PID" ]; then
		stop_tree "$STEP_PID"
		wait "$STEP_PID" 2>/dev/null
		echo "stopped the interrupted step (pid $STEP_PID) and what it had started"
	fi
	for pid in $(cat "$BGP_DIR"/n*/bird.pid 2>/dev/null); do
		stop_pid "$pid" bird
	done
	# "PID COMM" lines; bgp_etcd_start writes a bare PID (its etcd)
	while read -r pid comm; do
		stop_pid "$pid" "${comm:-etcd}"
	done < <(cat "$BGP_DIR/pids" 2>/dev/null)
	while read -r ns; do
		ip netns del "$ns" 2>/dev/null && echo "removed netns $ns"
	done < <(tac "$BGP_DIR/netns" 2>/dev/null)
	# A step interrupted between "ip netns add" and recording the name leaves
	# one the list does not know: every netns with the demo's tag goes.
	while read -r ns _; do
		ip netns del "$ns" 2>/dev/null && echo "removed netns $ns"
	done < <(ip netns list 2>/dev/null | grep "^$BGP_ID-")
	rm -rf "$BGP_DIR" && echo "removed $BGP_DIR"
	exit "$ret"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
BGP_DIR=$(mktemp -d /tmp/podwire-demo.XXXXXX) || die "mktemp failed"
# Lock files of shared resources (the bridge's): in this run's temp dir, not /run/podwire.
export PODWIRE_LOCK_DIR="${PODWIRE_LOCK_DIR:-$BGP_DIR/locks}"
: >"$BGP_DIR/netns"
: >"$BGP_DIR/pids"
export PODWIRE_BIN BGP_ID BGP_FAB BGP_DIR

# Steps run in a subshell with errexit; what later steps need is saved to
# $BGP_DIR/state.env (save VAR...) and read back before each step. The
# subshell runs in the background and the script waits for it: a Ctrl-C
# interrupts `wait` at once and the INT trap runs (bash runs a trap only
# after a foreground command has ended), and the cleanup stops the step's
# whole process tree first, before anything else is removed.
save() { declare -p "$@" | sed 's/^declare -x /declare -gx /; s/^declare -- /declare -g /' >>"$BGP_DIR/state.env"; }
STEP_NAMES=()
STEP_RESULTS=()
STEP_TIMES=()
FAILED=0

# step TITLE PROVES FUNCTION: exit 0 PASS, 77 SKIPPED (said why), else FAIL.
step() {
	local t0 rc
	STEP_NAMES+=("$1")
	heading "$1"
	echo "Proves: $2"
	echo
	if [ "$FAILED" -ne 0 ]; then
		echo "SKIPPED: an earlier step failed"
		STEP_RESULTS+=(SKIPPED)
		STEP_TIMES+=(-)
		return
	fi
	t0=$(date +%s%N)
	(
		set -e
		shopt -s inherit_errexit
		# shellcheck disable=SC1091
		[ ! -f "$BGP_DIR/state.env" ] || . "$BGP_DIR/state.env"
		"$3"
	) &
	STEP_PID=$!
	wait "$STEP_PID"
	rc=$?
	STEP_PID=""
	STEP_TIMES+=("$(awk -v ns=$(($(date +%s%N) - t0)) 'BEGIN { printf "%.1f s", ns / 1e9 }')")
	case $rc in
	0) STEP_RESULTS+=(PASS) ;;
	77) STEP_RESULTS+=(SKIPPED) ;;
	*)
		STEP_RESULTS+=(FAIL)
		FAILED=1
		echo "FAILED (exit $rc)"
		;;
	esac
}

summary() {
	local i n=${#STEP_NAMES[@]} bad=0
	heading "Summary"
	printf '%-3s %-58s %-8s %s\n' "#" "Step" "Result" "Time"
	for ((i = 0; i < n; i++)); do
		printf '%-3s %-58s %-8s %s\n' "$((i + 1))" "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}" "${STEP_TIMES[$i]}"
		[ "${STEP_RESULTS[$i]}" != FAIL ] || bad=$((bad + 1))
	done
	if [ "$FAILED" -eq 0 ]; then
		echo "demo: every step passed (${SECONDS} s in all)"
	else
		echo "demo: FAILED: $bad of $n steps failed (the steps after it were skipped)"
	fi
}

# ---------------------------------------------------------------- part 1

node_json() { # node_json I: node I's podwire-node config (static mesh, blocks)
	bgp_node_config "$1" "$NODES" | jq '.exportMode = "blocks"'
}

node_ipam() { # node_ipam I: node I's cluster-ipam object
	jq -nc --arg n "node$1" --arg ep "$BGP_ETCD_UNIX" --arg p "$ETCD_PREFIX" \
		--arg d "$BGP_DIR/n$1/cipam" \
		'{type: "cluster-ipam", nodeName: $n, etcd: {endpoints: [$ep]}, etcdPrefix: $p,
		  dataDir: $d, pools: [{cidr: "10.244.0.0/16", blockSize: 26},
		  {cidr: "fd00:10:244::/56", blockSize: 122}]}'
}

s_fabric() {
	bgp_fabric_up "$NODES"
	local i
	for i in $(seq 1 "$NODES"); do
		printf '%s: ' "$(bgp_ns "$i")"
		ip -n "$(bgp_ns "$i")" -br addr show dev fab0 | awk '{$2 = ""; print}'
	done
	echo "(fabric bridge br0 in $BGP_FAB; no route anywhere yet but the fabric subnet)"
}

s_etcd() {
	bgp_etcd_start
	etcdctl_b endpoint health
	echo "etcd: $BGP_ETCD and $BGP_ETCD_UNIX (data in $BGP_DIR/etcd)"
	save BGP_ETCD BGP_ETCD_UNIX
}

s_bird() {
	local i
	for i in $(seq 1 "$NODES"); do
		node_json "$i" >"$BGP_DIR/n$i/node.json"
		"$BIN/podwire-node" bird-config --node-config "$BGP_DIR/n$i/node.json" \
			--output "$BGP_DIR/n$i/bird.conf"
		bgp_bird_start "$i" </dev/null >"$BGP_DIR/n$i/bird.log" 2>&1
		bgp_netconf_ipam "$i" "$(node_ipam "$i")"
	done
	echo "node1's bird.conf (excerpt, rendered by podwire-node bird-config):"
	grep -E '^(router id|define|protocol bgp)' "$BGP_DIR/n1/bird.conf" | sed 's/^/  /'
	for i in $(seq 1 "$NODES"); do
		bgp_wait_established "$i" $((2 * (NODES - 1)))
	done
	for i in $(seq 1 "$NODES"); do
		echo "node$i: birdc show protocols"
		birdc_n "$i" show protocols | grep -E '^(Name|peer)' | sed 's/^/  /'
	done
}

# route_wait POD: until every other node routes both of POD's addresses (10 s at most).
route_wait() {
	local pod=$1 home k fam t
	home=$(cat "$BGP_DIR/pods/$pod.node")
	for k in $(seq 1 "$NODES"); do
		[ "$k" != "$home" ] || continue
		for fam in 4 6; do
			for t in $(seq 1 200); do
				ip -n "$(bgp_ns "$k")" "-$fam" route get "$(bgp_pod_ip "$pod" "$fam")" 2>/dev/null |
					grep -q 'dev fab0' && break
				[ "$t" -lt 200 ] || return 1
				sleep 0.05
			done
		done
	done
}

# The time stamps: `ip -ts monitor route` in every node (started before the
# first ADD), and the moment cnitool returned (bash's $EPOCHREALTIME, written
# by the wrapped bgp_cni, no process spawned in between).
monitors_start() {
	local i
	for i in $(seq 1 "$NODES"); do
		ip netns exec "$(bgp_ns "$i")" ip -ts -o monitor route >"$BGP_DIR/n$i/routes.mon" 2>&1 &
		echo "$! ip" >>"$BGP_DIR/pids"
	done
	sleep 0.3
}

monitors_stop() {
	local pid comm
	while read -r pid comm; do
		[ "$comm" != ip ] || stop_pid "$pid" ip >/dev/null
	done <"$BGP_DIR/pids"
}

eval "bgp_cni_timed() $(declare -f bgp_cni | tail -n +2)"
bgp_cni() {
	printf '%s' "$EPOCHREALTIME" >"$BGP_DIR/cni.start"
	bgp_cni_timed "$@"
	local rc=$?
	printf '%s' "$EPOCHREALTIME" >"$BGP_DIR/cni.end"
	return "$rc"
}

# route_time POD: when the last peer got a route (proto bird) covering POD's
# addresses, relative to the end of its ADD, from the monitors' logs.
route_time() {
	local pod=$1 home k logs=()
	home=$(cat "$BGP_DIR/pods/$pod.node")
	for k in $(seq 1 "$NODES"); do
		[ "$k" = "$home" ] || logs+=("$BGP_DIR/n$k/routes.mon")
	done
	/usr/bin/python3 - "$(cat "$BGP_DIR/cni.start")" "$(cat "$BGP_DIR/cni.end")" \
		"$(bgp_pod_ip "$pod" 4)" "$(bgp_pod_ip "$pod" 6)" "${logs[@]}" <<'PY'
import datetime, ipaddress, sys
start, end = float(sys.argv[1]), float(sys.argv[2])
addrs = [ipaddress.ip_address(a) for a in sys.argv[3:5]]
def first_route(log, addr):
    for line in open(log):
        stamp, _, rest = line.lstrip("[").partition("] ")
        words = rest.split()
        if not words or words[0] == "Deleted" or "proto bird" not in rest:
            continue
        try:
            net = ipaddress.ip_network(words[0], strict=False)
        except ValueError:
            continue
        if net.version == addr.version and addr in net:
            return datetime.datetime.fromisoformat(stamp).timestamp()
    sys.exit("no route to %s in %s" % (addr, log))
last = max(first_route(log, a) for log in sys.argv[5:] for a in addrs)
if last < start:
    print("already routed (the block came with the node's first pod)")
else:
    print("%.0f ms after ADD returned" % ((last - end) * 1000) if last >= end
          else "%.0f ms before ADD returned" % ((end - last) * 1000))
PY
}

s_pods() {
	local i j pod add when
	monitors_start
	for i in $(seq 1 "$NODES"); do
		for j in $(seq 1 "$PODS_PER_NODE"); do
			pod="$BGP_ID-p$i-$j"
			CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=demo;K8S_POD_NAME=web-$i-$j" bgp_pod_add "$i" "$j"
			add=$(awk -v a="$(cat "$BGP_DIR/cni.start")" -v b="$(cat "$BGP_DIR/cni.end")" \
				'BEGIN { printf "%.0f", (b - a) * 1000 }')
			route_wait "$pod" || die "web-$i-$j is not routed on every peer after 10 s"
			when=$(route_time "$pod")
			printf 'node%s web-%s-%s: %-15s %-36s ADD %4s ms; on every peer: %s\n' \
				"$i" "$i" "$j" "$(bgp_pod_ip "$pod" 4)" "$(bgp_pod_ip "$pod" 6)" "$add" "$when"
		done
	done
	monitors_stop
	echo "(time stamps from 'ip -ts monitor route' on every node; this machine is shared"
	echo " with other jobs, so the numbers include its load)"
}

s_routes() {
	local i n4 n6
	for i in $(seq 1 "$NODES"); do
		echo "node$i: own blocks (proto 81, blackhole) and pods (proto 80):"
		ip -n "$(bgp_ns "$i")" route show proto 81 | sed 's/^/  /'
		ip -n "$(bgp_ns "$i")" -6 route show proto 81 | sed 's/^/  /'
		ip -n "$(bgp_ns "$i")" route show proto 80 | sed 's/^/  /'
		echo "node$i: learned from its peers (proto bird):"
		ip -n "$(bgp_ns "$i")" route show proto bird | sed 's/^/  /'
		ip -n "$(bgp_ns "$i")" -6 route show proto bird | sed 's/^/  /'
		n4=$(ip -n "$(bgp_ns "$i")" route show proto bird | wc -l)
		n6=$(ip -n "$(bgp_ns "$i")" -6 route show proto bird | wc -l)
		[ "$n4" -ge $((NODES - 1)) ] || die "node$i learned $n4 IPv4 routes, wanted $((NODES - 1))"
		[ "$n6" -ge $((NODES - 1)) ] || die "node$i learned $n6 IPv6 routes, wanted $((NODES - 1))"
	done
}

s_ipam() {
	"$BIN/podwire-node" ipam show --etcd-endpoint "$BGP_ETCD_UNIX" --prefix "$ETCD_PREFIX"
	"$BIN/podwire-node" ipam check --etcd-endpoint "$BGP_ETCD_UNIX" --prefix "$ETCD_PREFIX"
	echo "podwire-node ipam check: consistent"
}

s_ping() {
	local i j k fam src dst n=0
	for i in $(seq 1 "$NODES"); do
		k=$((i % NODES + 1))
		src="$BGP_ID-p$k-1"
		for j in $(seq 1 "$PODS_PER_NODE"); do
			dst="$BGP_ID-p$i-$j"
			for fam in 4 6; do
				ip netns exec "$src" ping "-$fam" -c 1 -W 2 -q "$(bgp_pod_ip "$dst" "$fam")" >/dev/null ||
					die "ping web-$i-$j ($(bgp_pod_ip "$dst" "$fam")) from web-$k-1 on node$k failed"
				printf 'web-%s-1 (node%s) -> web-%s-%s (node%s) %-20s ok\n' "$k" "$k" "$i" "$j" "$i" \
					"$(bgp_pod_ip "$dst" "$fam")"
				n=$((n + 1))
			done
		done
	done
	echo "$n of $n pings answered"
}

# ---------------------------------------------------------------- part 2

GPU_UID=uid-trainer-0
VF=7 # the fake tree's VF with an RDMA device (mlx5_7)

gpu_vars() {
	HOST_NS=$(bgp_ns 1)
	STATE="$BGP_DIR/gpu"
	MN="$STATE/mn"
	# shellcheck disable=SC2034 # read by mn_pod
	POD_UID=$GPU_UID
	SYS="$STATE/sys"
	SR_STATE_DIR="$STATE/sriov"
}

# rdma_counters: what the kernel shows under class/infiniband for mlx5_7 (fake).
rdma_counters() {
	local p="$SYS/class/infiniband/mlx5_7/ports/1" kv
	mkdir -p "$p/counters" "$p/hw_counters"
	echo "4: ACTIVE" >"$p/state"
	echo Ethernet >"$p/link_layer"
	for kv in counters/port_xmit_data=81920 counters/port_rcv_data=40960 \
		hw_counters/out_of_sequence=0 hw_counters/np_cnp_sent=3 hw_counters/rp_cnp_handled=2; do
		echo "${kv#*=}" >"$p/${kv%=*}"
	done
}

s_gpu_setup() {
	gpu_vars
	mkdir -p "$MN"/{fixtures/pods,fixtures/nads,conf,cache,devinfo/dp,certs}
	: >"$MN/requests.log"
	sr_tree 8
	rdma_counters
	echo "FAKE SR-IOV: this machine has no SR-IOV NIC, so $SYS is a made-up sysfs tree"
	echo "(PODWIRE_SYSFS_ROOT): PF $SR_PF with 8 VFs whose netdevs are veth devices in node1;"
	echo "VF $(sr_vf_bdf $VF) has an RDMA device mlx5_7 with made-up counters. sriov-rdma moves,"
	echo "renames, addresses and restores the VF netdev for real; the RDMA device is not"
	echo "moved (rdma: off), a fake one has nothing RDMA netlink could move."
	mn_certs "$MN/certs"
	mn_apiserver_start
	echo "$MN_APISERVER_PID python3" >>"$BGP_DIR/pids"
	echo "apiserver stand-in (test/apiserver/apiserver.py): https://127.0.0.1:$MN_PORT inside node1, own CA"
	cat >"$MN/checkpoint" <<JSON
{"Data":{"PodDeviceEntries":[{"PodUID":"$GPU_UID","ContainerName":"trainer",
 "ResourceName":"example.com/rdma_rail_a","DeviceIDs":{"0":["$(sr_vf_bdf $VF)"]}}]},"Checksum":1}
JSON
	mn_nad ml rdma-rail-a "$(jq -nc --arg d "$SR_STATE_DIR" '{cniVersion: "1.0.0", name: "rdma-rail-a",
	  plugins: [{type: "sriov-rdma", rdma: "off", mtu: 9000, stateDir: $d,
	  capabilities: {deviceID: true, CNIDeviceInfoFile: true},
	  ipam: {type: "static", addresses: [{address: "10.210.0.11/24"}]}}]}')" example.com/rdma_rail_a
	mn_pod trainer-0 '[{"name":"rdma-rail-a","interface":"net1"}]' ml
	echo "pod ml/trainer-0 asks for: $(jq -r '.metadata.annotations["k8s.v1.cni.cncf.io/networks"]' \
		"$MN/fixtures/pods/ml/trainer-0.json")"
	echo "NAD ml/rdma-rail-a: resource example.com/rdma_rail_a, kubelet checkpoint gives it VF $(sr_vf_bdf $VF)"
	mn_conf "$(jq -nc --arg c "$BGP_DIR/n1/net.d/10-bgpnet.conflist" '{clusterNetwork: $c}')"
	jq '{cniVersion: "1.0.0", name: "gpu", plugins: [.]}' "$MN/multinet.json" \
		>"$BGP_DIR/n1/net.d/20-gpu.conflist"
	# the rail's far end: the VF's veth peer in node1 answers on 10.210.0.1
	ip -n "$HOST_NS" addr add 10.210.0.1/24 dev "pwvp$VF"
	ip -n "$HOST_NS" link set "pwvp$VF" mtu 9000 up
}

gpu_cni() { # gpu_cni add|del: cnitool for network "gpu" (multinet) inside node1
	ip netns exec "$HOST_NS" env NETCONFPATH="$BGP_DIR/n1/net.d" CNI_PATH="$BIN" \
		PODWIRE_SYSFS_ROOT="$SYS" \
		CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ml;K8S_POD_NAME=trainer-0;K8S_POD_UID=$GPU_UID" \
		"$BIN/cnitool" --cache-dir "$BGP_DIR/n1/cache" --timeout 30 "$1" gpu "/var/run/netns/$GPU_NS"
}

s_gpu_add() {
	gpu_vars
	bgp_netns_new "$GPU_NS"
	gpu_cni add | jq -c '{interfaces: [.interfaces[] | select(.sandbox) | .name], ips: [.ips[].address]}'
	ip -n "$GPU_NS" -br addr show | grep -v '^lo'
	local links
	# grep -q would stop reading early: with pipefail, ip's SIGPIPE failed the step
	links=$(ip -n "$GPU_NS" -br link show)
	grep -q '^eth0' <<<"$links" || die "no eth0 in the pod"
	grep -q '^net1' <<<"$links" || die "no net1 in the pod"
}

s_gpu_status() {
	gpu_vars
	mn_status_annotation trainer-0 ml | jq .
	mn_status_annotation trainer-0 ml |
		jq -e '[.[].interface] == ["eth0", "net1"] and .[1].name == "ml/rdma-rail-a"' >/dev/null
	echo "requests the stand-in served: $(jq -r '.method' "$MN/requests.log" | tr '\n' ' ')"
}

s_gpu_traffic() {
	gpu_vars
	local ip4
	ip4=$(ip -n "$GPU_NS" -j addr show dev eth0 | jq -r '.[0].addr_info[] | select(.family == "inet") | .local')
	route_wait_node2 "$ip4"
	ip netns exec "$BGP_ID-p2-1" ping -c 1 -W 2 -q "$ip4" | grep -E 'transmitted'
	echo "eth0: web-2-1 on node2 reaches trainer-0 ($ip4) over the routed cluster"
	ip netns exec "$GPU_NS" ping -I net1 -c 3 -i 0.2 -W 2 -q 10.210.0.1 | grep -E 'transmitted'
	echo "net1: trainer-0 reaches the rail's far end 10.210.0.1 over the VF"
}

route_wait_node2() { # a pod of node1 in the same block: node2 already has the route
	local t
	for t in $(seq 1 100); do
		grep -q 'dev fab0' <<<"$(ip -n "$(bgp_ns 2)" route get "$1" 2>/dev/null)" && return 0
		sleep 0.05
	done
	die "node2 has no route to $1"
}

inspect() { # inspect ARGS...: podwire-inspect of node1, every dir the demo's own
	ip netns exec "$HOST_NS" env CNI_PATH="$BIN" "$BIN/podwire-inspect" \
		--cache-dir "$BGP_DIR/n1/cache" --multinet-dir "$MN/cache" --state-dir "$SR_STATE_DIR" \
		--lease-dir "$BGP_DIR/n1/ipam" --sysfs-root "$SYS" "$@"
}

s_gpu_inspect() {
	gpu_vars
	if [ ! -x "$BIN/podwire-inspect" ]; then
		echo "podwire-inspect not built, skipped"
		exit 77
	fi
	inspect -v
	inspect --json >"$STATE/inspect.json"
	jq -e '[.attachments[] | select(.pod.name == "trainer-0") | .ifname] | sort == ["eth0", "net1"]' \
		"$STATE/inspect.json" >/dev/null || die "podwire-inspect does not show eth0 and net1 of trainer-0"
	jq -e '.attachments[] | select(.pod.name == "trainer-0" and .ifname == "net1") |
		.host.rdmaDevice == "mlx5_7" and .counters.pod != null' "$STATE/inspect.json" >/dev/null ||
		die "podwire-inspect: net1 without its RDMA device or counters"
}

s_gpu_del() {
	gpu_vars
	local pid
	pid=$(awk '$2 == "python3" { print $1 }' "$BGP_DIR/pids" | tail -1)
	stop_pid "$pid" python3
	echo "apiserver stand-in stopped; cnitool del gpu (multinet works from its cache):"
	gpu_cni del
	echo "cnitool del: ok"
	! grep -qv '^lo' <<<"$(ip -n "$GPU_NS" -br link show)" || die "links left in the pod"
	ip -n "$HOST_NS" -br link show dev "pwvf$VF"
	echo "VF $(sr_vf_bdf $VF) is back in node1 as pwvf$VF; the pod has only lo"
}

echo "podwire demo: tag $BGP_ID, temp dir $BGP_DIR"

heading "PART 1: a routed cluster (bgp-route, cluster-ipam, podwire-node, BIRD)"
step "Fabric: $NODES node namespaces on one bridge" \
	"each node is a namespace with its own fabric address; no pod routes exist yet" s_fabric
step "etcd for cluster-ipam (127.0.0.1 free ports + unix socket)" \
	"the cluster's shared IPAM store is up, reachable from every node namespace" s_etcd
step "BIRD per node, bird.conf from podwire-node bird-config" \
	"the rendered config is accepted by BIRD and every node has BGP sessions (v4, v6) to every other" s_bird
step "$((NODES * PODS_PER_NODE)) pods through cnitool (bgp-route + cluster-ipam)" \
	"ADD gives each pod addresses from its node's block; peers learn the route in milliseconds" s_pods
step "Each node's routes" \
	"a node blackholes its own blocks, routes its own pods, and learned the other nodes' blocks" s_routes
step "podwire-node ipam show" \
	"etcd holds one block per node and family and one allocation per pod, consistently" s_ipam
step "Ping every pod from a pod on another node (v4 and v6)" \
	"pods on different nodes reach each other over routes BGP distributed, both families" s_ping

heading "PART 2: the GPU pod shape (multinet, sriov-rdma, podwire-inspect)"
step "Apiserver stand-in, pod annotation, FAKE SR-IOV tree" \
	"the inputs a kubelet node would have: pod annotation, NAD with a resource, device checkpoint" \
	s_gpu_setup
step "GPU pod ADD via multinet: eth0 cluster, net1 sriov-rdma" \
	"one ADD gives the pod its cluster NIC and its rail NIC, the VF picked by the checkpoint" s_gpu_add
step "network-status annotation written to the stand-in" \
	"multinet reports both attachments to the apiserver as the network-status spec says" s_gpu_status
step "Traffic on both NICs" \
	"eth0 is on the routed cluster (a pod on node2 reaches it) and net1 carries traffic on the VF" \
	s_gpu_traffic
step "podwire-inspect on node1" \
	"every attachment of the node, from the plugins' own state, with live and RDMA counters" \
	s_gpu_inspect
step "DEL with the apiserver stopped" \
	"tear-down never depends on the apiserver: the VF goes back to the node, the pod is empty" s_gpu_del

summary
[ "$FAILED" -eq 0 ]
