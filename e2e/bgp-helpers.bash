# Helpers for the bgp-route / podwire-node e2e tests (e2e/2xx-*.bats).
#
# A cluster on one machine: a fabric netns ($BGP_FAB) holding a bridge, and
# K node netns ($BGP_ID-n<i>), each wired to the bridge by a veth
# (10.98.0.<i>/24, fd00:98::<i>/64), each running its own bird with its own
# config, control socket and pidfile under $BGP_DIR/n<i>/, stopped by PID.
# Pods are netns of their own ($BGP_ID-p<i>-<j>) wired by the real
# bgp-route through cnitool. Nothing touches the host's namespace.
#
# Environment: PODWIRE_BGP_NODES (default 3) is the node count K.
# BGP_NODELAY=1 (bench/bgp/run.sh --nodelay): every bird runs in a cgroup of
# its own ($BGP_CGROUP) with `podwire-node bgp-nodelay` attached to it.

: "${PODWIRE_BGP_NODES:=3}"
BGP_AS=64512

bgp_ns() {
	printf '%s-n%s' "$BGP_ID" "$1"
}

# bgp_setup_dirs: $BGP_ID, $BGP_DIR and the bookkeeping for teardown.
bgp_setup_dirs() {
	BGP_ID="pwb$(printf '%04x%04x' "$$" "$RANDOM")"
	BGP_FAB="$BGP_ID-fab"
	BGP_DIR=$(mktemp -d "${BATS_TMPDIR:-/tmp}/podwire-bgp.XXXXXX")
	: >"$BGP_DIR/netns"
	: >"$BGP_DIR/pids"
	export BGP_ID BGP_FAB BGP_DIR
}

bgp_netns_new() {
	ip netns add "$1" && ip -n "$1" link set lo up && echo "$1" >>"$BGP_DIR/netns"
}

# bgp_fabric_node I: node namespace I, wired to the fabric bridge.
bgp_fabric_node() {
	local i=$1 ns
	ns=$(bgp_ns "$i")
	bgp_netns_new "$ns"
	ip -n "$ns" link add fab0 type veth peer name "n$i" netns "$BGP_FAB"
	ip -n "$BGP_FAB" link set "n$i" master br0 up
	ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv6.conf.fab0.accept_dad=0
	ip -n "$ns" addr add "10.98.0.$i/24" dev fab0
	ip -n "$ns" addr add "fd00:98::$i/64" dev fab0 nodad
	ip -n "$ns" link set fab0 up
	# BGP_QUICKACK (bench/bgp/run.sh --quickack): ACK the peers at once
	if [ -n "${BGP_QUICKACK:-}" ]; then
		ip -n "$ns" route change 10.98.0.0/24 dev fab0 proto kernel scope link src "10.98.0.$i" quickack 1
		ip -n "$ns" -6 route change fd00:98::/64 dev fab0 proto kernel metric 256 quickack 1
	fi
	mkdir -p "$BGP_DIR/n$i"
}

# bgp_fabric_up K: the fabric bridge and K node namespaces on it.
bgp_fabric_up() {
	local k=$1 i
	bgp_netns_new "$BGP_FAB"
	ip -n "$BGP_FAB" link add br0 type bridge
	ip -n "$BGP_FAB" link set br0 up
	for i in $(seq 1 "$k"); do
		bgp_fabric_node "$i"
	done
	# BGP_TCPDUMP=FILE (bench/bgp/run.sh --pcap): the sessions' packets, stopped by PID
	if [ -n "${BGP_TCPDUMP:-}" ]; then
		ip netns exec "$BGP_FAB" tcpdump -i br0 -nn -tt --time-stamp-precision=nano -w "$BGP_TCPDUMP" tcp port 179 2>/dev/null &
		echo "$!" >>"$BGP_DIR/pids"
		sleep 0.5
	fi
}

# bgp_node_config I K [EXTRA_JSON]: a static full-mesh node config for node I of K.
bgp_node_config() {
	local i=$1 k=$2 extra=${3:-} j peers=""
	for j in $(seq 1 "$k"); do
		[ "$j" = "$i" ] && continue
		peers="$peers{\"address\":\"10.98.0.$j\"},{\"address\":\"fd00:98::$j\"},"
	done
	cat <<EOF
{"nodeName":"node$i","routerId":"10.98.0.$i","asNumber":$BGP_AS,
 "addresses":["10.98.0.$i","fd00:98::$i"],"peers":[${peers%,}],
 "birdSocket":"$BGP_DIR/n$i/bird.ctl","birdConfig":"$BGP_DIR/n$i/bird.conf",
 "exportMode":"pods"$extra}
EOF
}

# bgp_cgroup_new: a cgroup v2 directory of this run ($BGP_CGROUP), removed
# by bgp_teardown. Fails when the machine has no cgroup v2 mount.
bgp_cgroup_new() {
	local mnt
	[ -n "${BGP_CGROUP:-}" ] && [ -s "$BGP_DIR/cgroup" ] && return 0
	mnt=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	[ -n "$mnt" ] || { echo "# no cgroup v2 mount" >&2; return 1; }
	BGP_CGROUP="$mnt/podwire-$BGP_ID"
	mkdir "$BGP_CGROUP" && echo "$BGP_CGROUP" >"$BGP_DIR/cgroup"
	export BGP_CGROUP
}

# bgp_in_cgroup CMD...: run CMD inside $BGP_CGROUP (as is, when unset).
bgp_in_cgroup() {
	if [ -n "${BGP_CGROUP:-}" ]; then
		(echo "$BASHPID" >"$BGP_CGROUP/cgroup.procs" && exec "$@")
	else
		"$@"
	fi
}

# bgp_bird_start I [-R]: start node I's bird (its own socket and pidfile).
bgp_bird_start() {
	local i=$1 d="$BGP_DIR/n$1"
	shift
	bgp_in_cgroup ip netns exec "$(bgp_ns "$i")" bird "$@" -c "$d/bird.conf" -s "$d/bird.ctl" \
		-P "$d/bird.pid"
	local t
	for t in $(seq 1 50); do
		[ -s "$d/bird.pid" ] && [ -S "$d/bird.ctl" ] && return 0
		sleep 0.1
	done
	echo "# bird of node $i did not start" >&2
	return 1
}

bgp_bird_pid() {
	cat "$BGP_DIR/n$1/bird.pid" 2>/dev/null
}

# bgp_bird_stop I [SIGNAL]: stop node I's bird by its PID.
bgp_bird_stop() {
	local pid
	pid=$(bgp_bird_pid "$1") || return 0
	[ -n "$pid" ] || return 0
	kill "-${2:-TERM}" "$pid" 2>/dev/null || true
	local t
	for t in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	rm -f "$BGP_DIR/n$1/bird.pid"
}

birdc_n() {
	local i=$1
	shift
	birdc -s "$BGP_DIR/n$i/bird.ctl" "$@"
}

# bgp_wait_established I N [SECONDS]: wait until node I has N Established sessions.
bgp_wait_established() {
	local i=$1 want=$2 secs=${3:-20} t got=0
	for t in $(seq 1 $((secs * 10))); do
		got=$(birdc_n "$i" show protocols 2>/dev/null | grep -c Established || true)
		[ "$got" -ge "$want" ] && return 0
		sleep 0.1
	done
	echo "# node $i: $got of $want BGP sessions Established" >&2
	birdc_n "$i" show protocols >&2 || true
	return 1
}

# bgp_wait_route NS PREFIX [present|absent] [SECONDS]: poll the kernel table.
bgp_wait_route() {
	local ns=$1 prefix=$2 want=${3:-present} secs=${4:-10} t out fam=-4
	case $prefix in *:*) fam=-6 ;; esac
	for t in $(seq 1 $((secs * 20))); do
		out=$(ip -n "$ns" "$fam" route show "$prefix" 2>/dev/null || true)
		if [ "$want" = present ] && [ -n "$out" ]; then
			return 0
		fi
		if [ "$want" = absent ] && [ -z "$out" ]; then
			return 0
		fi
		sleep 0.05
	done
	echo "# $ns: route $prefix not $want after ${secs}s: $out" >&2
	return 1
}

# bgp_last_reconfig I: BIRD's "Last reconfiguration" time stamp of node I.
# A birdc that gets no answer (a busy machine) is retried: an empty stamp
# would compare unequal without any reconfiguration. Fails after 5 s.
bgp_last_reconfig() {
	local t out
	for t in $(seq 1 50); do
		out=$(birdc_n "$1" show status 2>/dev/null | sed -n 's/^Last reconfiguration on //p')
		[ -n "$out" ] && { echo "$out"; return 0; }
		sleep 0.1
	done
	echo "# node $1: no 'Last reconfiguration' from birdc show status" >&2
	return 1
}

# bgp_reconfigs I: reconfigurations `podwire-node run` of node I logged so far.
bgp_reconfigs() {
	grep -c 'reconfiguration [0-9]*:' "$BGP_DIR/n$1/run.log" || true
}

# bgp_reconfigs_settled I...: wait until none of these nodes' podwire-node
# logged a reconfiguration for 2 s (more than a watch slice of a 5 s
# lease), so a membership change still being applied (a reload retried, a
# log line written after the sessions came up) is not counted later as if
# a pod had caused it. Fails after 30 s.
bgp_reconfigs_settled() {
	local t i now last="" stable=0
	for t in $(seq 1 150); do
		now=""
		for i in "$@"; do
			now="$now $(bgp_reconfigs "$i"):$(bgp_last_reconfig "$i")"
		done
		if [ "$now" = "$last" ]; then
			stable=$((stable + 1))
			[ "$stable" -ge 10 ] && return 0
		else
			stable=0
			last=$now
		fi
		sleep 0.2
	done
	echo "# podwire-node still reconfiguring after 30 s:$now" >&2
	return 1
}

# bgp_cluster_up K: fabric, rendered configs (static mesh), birds, sessions.
bgp_cluster_up() {
	local k=$1 i
	bgp_fabric_up "$k"
	if [ -n "${BGP_NODELAY:-}" ]; then
		bgp_cgroup_new
		"$PODWIRE_BIN/podwire-node" bgp-nodelay attach --cgroup "$BGP_CGROUP" >&2
	fi
	for i in $(seq 1 "$k"); do
		bgp_node_config "$i" "$k" >"$BGP_DIR/n$i/node.json"
		"$PODWIRE_BIN/podwire-node" bird-config --node-config "$BGP_DIR/n$i/node.json" \
			--output "$BGP_DIR/n$i/bird.conf"
		bgp_bird_start "$i"
	done
	for i in $(seq 1 "$k"); do
		bgp_wait_established "$i" $((2 * (k - 1)))
	done
}

# bgp_etcd_start: etcd 3.4 on free 127.0.0.1 ports and a unix socket (reachable
# from inside the node namespaces), its own data dir. Sets $BGP_ETCD (http)
# and $BGP_ETCD_UNIX (unix://...).
bgp_etcd_start() {
	local ports c s p
	ports=$(/usr/bin/python3 -c 'import socket
ss=[socket.socket() for _ in range(3)]
[s.bind(("127.0.0.1",0)) for s in ss]
print(*[s.getsockname()[1] for s in ss])')
	read -r c s p <<<"$ports"
	BGP_ETCD="http://127.0.0.1:$c"
	mkdir -p "$BGP_DIR/etcd-wd"
	BGP_ETCD_UNIX="unix://$BGP_DIR/etcd-wd/localhost:$s"
	(cd "$BGP_DIR/etcd-wd" && exec etcd --name "$BGP_ID" --data-dir "$BGP_DIR/etcd" \
		--listen-client-urls "$BGP_ETCD,unix://localhost:$s" \
		--advertise-client-urls "$BGP_ETCD" --listen-peer-urls "http://127.0.0.1:$p" \
		--initial-advertise-peer-urls "http://127.0.0.1:$p" \
		--initial-cluster "$BGP_ID=http://127.0.0.1:$p" >"$BGP_DIR/etcd.log" 2>&1) &
	echo "$!" >"$BGP_DIR/etcd.pid"
	echo "$!" >>"$BGP_DIR/pids"
	local t
	for t in $(seq 1 100); do
		ETCDCTL_API=3 etcdctl --endpoints "$BGP_ETCD" endpoint health >/dev/null 2>&1 && break
		sleep 0.1
	done
	export BGP_ETCD BGP_ETCD_UNIX
}

etcdctl_b() {
	ETCDCTL_API=3 etcdctl --endpoints "$BGP_ETCD" "$@"
}

# bgp_run_start I: `podwire-node run` for node I (log in n<i>/run.log).
bgp_run_start() {
	local i=$1
	"$PODWIRE_BIN/podwire-node" run --node-config "$BGP_DIR/n$i/node.json" \
		>"$BGP_DIR/n$i/run.log" 2>&1 &
	echo "$!" >"$BGP_DIR/n$i/run.pid"
	echo "$!" >>"$BGP_DIR/pids"
}

# bgp_teardown: stop every bird, daemon and etcd by PID; remove every netns and dir.
bgp_teardown() {
	local d pid ns
	[ -n "${BGP_DIR:-}" ] && [ -d "$BGP_DIR" ] || return 0
	for d in "$BGP_DIR"/n*/; do
		pid=$(cat "$d/run.pid" 2>/dev/null) && kill -TERM "$pid" 2>/dev/null
		pid=$(cat "$d/bird.pid" 2>/dev/null) && kill -KILL "$pid" 2>/dev/null
	done
	while read -r pid; do
		kill -KILL "$pid" 2>/dev/null || true
	done <"$BGP_DIR/pids"
	while read -r ns; do
		ip netns del "$ns" 2>/dev/null || true
	done <"$BGP_DIR/netns"
	bgp_cgroup_remove
	rm -rf "$BGP_DIR"
	return 0
}

# bgp_cgroup_remove: rmdir this run's cgroup once its processes are gone (5 s at most).
bgp_cgroup_remove() {
	local cg t
	cg=$(cat "$BGP_DIR/cgroup" 2>/dev/null) || return 0
	for t in $(seq 1 50); do
		rmdir "$cg" 2>/dev/null && return 0
		[ -d "$cg" ] || return 0
		sleep 0.1
	done
	echo "# cgroup $cg still busy: $(cat "$cg/cgroup.procs" 2>/dev/null | tr '\n' ' ')" >&2
}

# bgp_snap NAME / bgp_snap_same NAME: pw_snapshot without its own files.
bgp_snap() {
	pw_snapshot "$1"
	grep -v "$STATE/snap" "$STATE/snapshot.$1" >"$STATE/snap.$1"
}

bgp_snap_same() {
	bgp_snap after
	diff -u "$STATE/snap.$1" "$STATE/snap.after" >&2
}

# bgp_netconf I [EXTRA]: node I's conflist dir ($BGP_DIR/n<i>/net.d) for network "bgpnet".
bgp_netconf() {
	local i=$1 extra=${2:-} d="$BGP_DIR/n$1"
	mkdir -p "$d/net.d"
	cat >"$d/net.d/10-bgpnet.conflist" <<EOF2
{"cniVersion":"1.1.0","name":"bgpnet","plugins":[{"type":"bgp-route","mtu":1500,
 "birdSocket":"$d/bird.ctl"$extra,
 "ipam":{"type":"host-local","dataDir":"$d/ipam",
   "ranges":[[{"subnet":"10.244.$i.0/24"}],[{"subnet":"fd00:244:$i::/64"}]]}}]}
EOF2
}

# bgp_cni I CMD POD: cnitool CMD for pod netns POD, run inside node I.
bgp_cni() {
	local i=$1 cmd=$2 pod=$3 d="$BGP_DIR/n$1"
	ip netns exec "$(bgp_ns "$i")" env NETCONFPATH="$d/net.d" CNI_PATH="$PODWIRE_BIN" \
		"$PODWIRE_BIN/cnitool" --cache-dir "$d/cache" "$cmd" bgpnet "/var/run/netns/$pod"
}

# bgp_pod_add I J: pod J on node I; its addresses in $BGP_DIR/pods/<pod>.{4,6}.
bgp_pod_add() {
	local i=$1 j=$2 pod out
	pod="$BGP_ID-p$1-$2"
	bgp_netns_new "$pod"
	out=$(bgp_cni "$i" add "$pod") || {
		echo "# cnitool add $pod on node $i failed: $out" >&2
		return 1
	}
	mkdir -p "$BGP_DIR/pods"
	printf '%s' "$out" | jq -r '.ips[] | select(.address | contains(".")) | .address | sub("/.*"; "")' \
		>"$BGP_DIR/pods/$pod.4"
	printf '%s' "$out" | jq -r '.ips[] | select(.address | contains(":")) | .address | sub("/.*"; "")' \
		>"$BGP_DIR/pods/$pod.6"
	echo "$i" >"$BGP_DIR/pods/$pod.node"
}

bgp_pod_ip() {
	cat "$BGP_DIR/pods/$1.$2"
}

# bgp_wait_everywhere POD present|absent: POD's /32 and /128 on every other node.
bgp_wait_everywhere() {
	local pod=$1 want=$2 home k i
	home=$(cat "$BGP_DIR/pods/$pod.node")
	k=$(find "$BGP_DIR" -maxdepth 1 -name 'n*' -type d | wc -l)
	for i in $(seq 1 "$k"); do
		[ "$i" = "$home" ] && continue
		[ -S "$BGP_DIR/n$i/bird.ctl" ] || continue
		bgp_wait_route "$(bgp_ns "$i")" "$(bgp_pod_ip "$pod" 4)/32" "$want" || return 1
		bgp_wait_route "$(bgp_ns "$i")" "$(bgp_pod_ip "$pod" 6)/128" "$want" || return 1
	done
}

# bgp_netconf_ipam I IPAM_JSON: node I's conflist with the given ipam object.
bgp_netconf_ipam() {
	local i=$1 ipam=$2 d="$BGP_DIR/n$1"
	mkdir -p "$d/net.d"
	cat >"$d/net.d/10-bgpnet.conflist" <<EOF2
{"cniVersion":"1.1.0","name":"bgpnet","plugins":[{"type":"bgp-route","mtu":1500,
 "birdSocket":"$d/bird.ctl","ipam":$ipam}]}
EOF2
}
