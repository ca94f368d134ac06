#!/usr/bin/env bats
# A BGP-routed cluster on one machine: K node namespaces on a fabric bridge,
# each with its own BIRD (podwire-node bird-config, static full mesh), pods
# wired by bgp-route through cnitool. K = PODWIRE_BGP_NODES (default 3).

load helpers
load bgp-helpers

setup_file() {
	bgp_setup_dirs
	bgp_cluster_up "$PODWIRE_BGP_NODES"
	local i
	for i in $(seq 1 "$PODWIRE_BGP_NODES"); do
		bgp_netconf "$i"
		bgp_last_reconfig "$i" >"$BGP_DIR/n$i/reconfig.before"
	done
}

teardown_file() {
	bgp_teardown
}

K=$PODWIRE_BGP_NODES

@test "every pod reaches every pod on the other nodes, IPv4 and IPv6" {
	local i j a b
	for i in $(seq 1 "$K"); do
		for j in 1 2; do
			bgp_pod_add "$i" "$j"
		done
	done
	for a in "$BGP_DIR"/pods/*.node; do
		a=$(basename "$a" .node)
		bgp_wait_everywhere "$a" present
	done
	for a in "$BGP_DIR"/pods/*.node; do
		a=$(basename "$a" .node)
		for b in "$BGP_DIR"/pods/*.node; do
			b=$(basename "$b" .node)
			[ "$(cat "$BGP_DIR/pods/$a.node")" = "$(cat "$BGP_DIR/pods/$b.node")" ] && continue
			ip netns exec "$a" ping -c1 -W2 "$(bgp_pod_ip "$b" 4)" >/dev/null || {
				echo "# $a -> $b (v4) failed" >&2
				return 1
			}
			ip netns exec "$a" ping -6 -c1 -W2 "$(bgp_pod_ip "$b" 6)" >/dev/null || {
				echo "# $a -> $b (v6) failed" >&2
				return 1
			}
		done
	done
}

@test "a new pod's routes are on every peer after ADD and gone after DEL" {
	local pod="$BGP_ID-p1-9"
	bgp_pod_add 1 9
	bgp_wait_everywhere "$pod" present
	# peers install BGP routes (proto bird) via node 1's fabric address
	ip -n "$(bgp_ns 2)" route show "$(bgp_pod_ip "$pod" 4)" | grep -q 'via 10.98.0.1 dev fab0 proto bird'
	bgp_cni 1 del "$pod"
	bgp_wait_everywhere "$pod" absent
	[ -z "$(ip -n "$(bgp_ns 1)" route show "$(bgp_pod_ip "$pod" 4)")" ]
}

@test "only podwire-protocol routes are exported" {
	local ns1 pod="$BGP_ID-p1-8"
	ns1=$(bgp_ns 1)
	ip -n "$ns1" route add blackhole 10.250.0.1/32 proto static
	ip -n "$ns1" route add blackhole 10.250.0.2/32 proto boot
	ip -n "$ns1" route add blackhole 10.250.0.3/32 proto 81 # a block: not in "pods" mode
	ip -n "$ns1" -6 route add blackhole fd00:250::1/128 proto static
	# a pod route after them is the barrier: once it is there, they would be too
	bgp_pod_add 1 8
	bgp_wait_everywhere "$pod" present
	local i
	for i in $(seq 2 "$K"); do
		[ -z "$(ip -n "$(bgp_ns "$i")" route show 10.250.0.0/24)" ]
		[ -z "$(ip -n "$(bgp_ns "$i")" -6 route show fd00:250::/64)" ]
	done
	bgp_cni 1 del "$pod"
}

@test "STATUS with birdSocket: ready with Established sessions" {
	local d="$BGP_DIR/n1"
	run ip netns exec "$(bgp_ns 1)" env NETCONFPATH="$d/net.d" CNI_PATH="$PODWIRE_BIN" \
		"$PODWIRE_BIN/cnitool" --cache-dir "$d/cache" status bgpnet
	[ "$status" -eq 0 ]
}

@test "GC removes an attachment whose DEL never came, and its routes on every peer" {
	local pod="$BGP_ID-p2-7" d="$BGP_DIR/n2" conf valid
	bgp_pod_add 2 7
	bgp_wait_everywhere "$pod" present
	# valid: every cached attachment of node 2 except the victim's
	valid=$(for f in "$d"/cache/results/bgpnet-*; do
		jq -c --arg ns "/var/run/netns/$pod" \
			'select(.netns != $ns) | {containerID: .containerId, ifname: .ifName}' "$f"
	done | jq -sc .)
	[ "$(printf '%s' "$valid" | jq length)" -ge 1 ]
	conf=$(jq -c --argjson v "$valid" '.plugins[0] + {cniVersion: "1.1.0", name: "bgpnet",
		"cni.dev/valid-attachments": $v}' "$d/net.d/10-bgpnet.conflist")
	run ip netns exec "$(bgp_ns 2)" env CNI_COMMAND=GC CNI_PATH="$PODWIRE_BIN" \
		"$PODWIRE_BIN/bgp-route" <<<"$conf"
	echo "$output"
	[ "$status" -eq 0 ]
	bgp_wait_everywhere "$pod" absent
	[ -z "$(ip -n "$(bgp_ns 2)" route show "$(bgp_pod_ip "$pod" 4)")" ]
	[ "$(ip -n "$(bgp_ns 2)" -o link show | grep -c pwr)" -eq 2 ]
	# the valid pods of node 2 still answer
	ip netns exec "$BGP_ID-p1-1" ping -c1 -W2 "$(bgp_pod_ip "$BGP_ID-p2-1" 4)" >/dev/null
}

@test "BIRD killed with SIGKILL and restarted: traffic keeps flowing (graceful restart)" {
	local a="$BGP_ID-p1-1" b="$BGP_ID-p2-1" d="$BGP_DIR/n2"
	# a continuous ping across the outage and the restart: nothing may be lost
	ip netns exec "$a" ping -c 50 -i 0.1 -W 2 "$(bgp_pod_ip "$b" 4)" >"$BGP_DIR/gr-ping" 2>&1 &
	local ping=$!
	echo "$ping" >>"$BGP_DIR/pids"
	sleep 0.5
	bgp_bird_stop 2 KILL
	# node 2's kernel keeps its learned routes, node 1 keeps node 2's (GR)
	sleep 1
	ip netns exec "$b" ping -6 -c1 -W2 "$(bgp_pod_ip "$a" 6)" >/dev/null
	# STATUS: not ready while BIRD is down (code 50)
	run ip netns exec "$(bgp_ns 2)" env NETCONFPATH="$d/net.d" CNI_PATH="$PODWIRE_BIN" \
		"$PODWIRE_BIN/cnitool" --cache-dir "$d/cache" status bgpnet
	[ "$status" -ne 0 ]
	[[ "$output" == *"BIRD is not running"* ]]
	[[ "$output" == *50* ]]
	bgp_bird_start 2 -R
	bgp_wait_established 2 $((2 * (K - 1)))
	wait "$ping" || true
	grep -q ' 0% packet loss' "$BGP_DIR/gr-ping" || {
		cat "$BGP_DIR/gr-ping" >&2
		return 1
	}
	ip netns exec "$b" ping -6 -c1 -W2 "$(bgp_pod_ip "$a" 6)" >/dev/null
	# and new routes flow again both ways
	bgp_pod_add 2 6
	bgp_wait_everywhere "$BGP_ID-p2-6" present
}

@test "pods caused no BIRD reconfiguration on any node" {
	local i
	for i in $(seq 1 "$K"); do
		[ "$i" = 2 ] && continue # restarted by the previous test
		[ "$(bgp_last_reconfig "$i")" = "$(cat "$BGP_DIR/n$i/reconfig.before")" ]
	done
}
