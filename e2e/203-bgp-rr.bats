#!/usr/bin/env bats
# Route-reflector topology kept by `podwire-node run` from the etcd node
# registry: node K+1 is the reflector, nodes 1..K its clients. Clients peer
# only with the reflector, pods on every client reach each other, BIRD is
# reconfigured when membership changes and never for a pod.
# K = PODWIRE_BGP_NODES (default 3).

load helpers
load bgp-helpers

K=$PODWIRE_BGP_NODES
RR=$((K + 1))

rr_node_json() {
	local i=$1 extra=${2:-}
	cat <<EOF2
{"nodeName":"node$i","routerId":"10.98.0.$i","asNumber":$BGP_AS,
 "addresses":["10.98.0.$i","fd00:98::$i"],
 "birdSocket":"$BGP_DIR/n$i/bird.ctl","birdConfig":"$BGP_DIR/n$i/bird.conf",
 "etcd":{"endpoints":["$BGP_ETCD"]},"etcdPrefix":"/pw-$BGP_ID","leaseTtl":5$extra}
EOF2
}

reconfigs() {
	bgp_reconfigs "$1"
}

# start node I: run renders bird.conf, then bird starts on it
rr_node_start() {
	local i=$1 t
	bgp_run_start "$i"
	for t in $(seq 1 50); do
		[ -s "$BGP_DIR/n$i/bird.conf" ] && break
		sleep 0.1
	done
	bgp_bird_start "$i"
}

setup_file() {
	bgp_setup_dirs
	bgp_fabric_up "$RR"
	bgp_etcd_start
	rr_node_json "$RR" ',"routeReflector":{}' >"$BGP_DIR/n$RR/node.json"
	rr_node_start "$RR"
	local i
	for i in $(seq 1 "$K"); do
		rr_node_json "$i" >"$BGP_DIR/n$i/node.json"
		bgp_netconf "$i"
		rr_node_start "$i"
	done
	for i in $(seq 1 "$K"); do
		bgp_wait_established "$i" 2
	done
	bgp_wait_established "$RR" $((2 * K))
}

teardown_file() {
	bgp_teardown
}

@test "clients peer with the reflector only; the reflector has every client" {
	local i
	for i in $(seq 1 "$K"); do
		[ "$(grep -c '^protocol bgp' "$BGP_DIR/n$i/bird.conf")" -eq 2 ]
		grep -q "neighbor 10.98.0.$RR as" "$BGP_DIR/n$i/bird.conf"
	done
	[ "$(grep -c '^protocol bgp' "$BGP_DIR/n$RR/bird.conf")" -eq $((2 * K)) ]
	[ "$(grep -c 'rr client;' "$BGP_DIR/n$RR/bird.conf")" -eq $((2 * K)) ]
}

@test "pods on every client reach each other through reflected routes (v4 and v6)" {
	local i a b
	# membership settled first: what changes from here on, pods caused
	bgp_reconfigs_settled $(seq 1 "$RR")
	for i in $(seq 1 "$RR"); do
		reconfigs "$i" >"$BGP_DIR/n$i/reconfigs.before"
		bgp_last_reconfig "$i" >"$BGP_DIR/n$i/reconfig.before"
	done
	for i in $(seq 1 "$K"); do
		bgp_pod_add "$i" 1
	done
	for i in $(seq 1 "$K"); do
		bgp_wait_everywhere "$BGP_ID-p$i-1" present
	done
	# reflected: the next hop stays the originating client
	ip -n "$(bgp_ns 2)" route show "$(bgp_pod_ip "$BGP_ID-p1-1" 4)" | grep -q 'via 10.98.0.1 '
	for a in $(seq 1 "$K"); do
		for b in $(seq 1 "$K"); do
			[ "$a" = "$b" ] && continue
			ip netns exec "$BGP_ID-p$a-1" ping -c1 -W2 "$(bgp_pod_ip "$BGP_ID-p$b-1" 4)" >/dev/null
			ip netns exec "$BGP_ID-p$a-1" ping -6 -c1 -W2 "$(bgp_pod_ip "$BGP_ID-p$b-1" 6)" >/dev/null
		done
	done
	bgp_cni 1 del "$BGP_ID-p1-1"
	bgp_wait_everywhere "$BGP_ID-p1-1" absent
	# no reconfiguration for pods, on any node: none by podwire-node, none in BIRD
	for i in $(seq 1 "$RR"); do
		[ "$(reconfigs "$i")" = "$(cat "$BGP_DIR/n$i/reconfigs.before")" ]
		[ "$(bgp_last_reconfig "$i")" = "$(cat "$BGP_DIR/n$i/reconfig.before")" ]
	done
}

@test "a node joining reconfigures the reflector only; leaving (SIGTERM) removes it" {
	local new=$((RR + 1)) i before_rr
	bgp_reconfigs_settled $(seq 1 "$RR")
	before_rr=$(reconfigs "$RR")
	for i in $(seq 1 "$K"); do
		reconfigs "$i" >"$BGP_DIR/n$i/reconfigs.join"
	done
	# a new client node on the fabric
	bgp_fabric_node "$new"
	rr_node_json "$new" >"$BGP_DIR/n$new/node.json"
	rr_node_start "$new"
	bgp_wait_established "$new" 2
	bgp_wait_established "$RR" $((2 * (K + 1)))
	[ "$(reconfigs "$RR")" -gt "$before_rr" ]
	for i in $(seq 1 "$K"); do
		[ "$(reconfigs "$i")" = "$(cat "$BGP_DIR/n$i/reconfigs.join")" ]
	done
	# the new node's pod is reachable from client 2
	bgp_netconf "$new"
	bgp_pod_add "$new" 1
	bgp_wait_everywhere "$BGP_ID-p$new-1" present
	ip netns exec "$BGP_ID-p2-1" ping -c1 -W2 "$(bgp_pod_ip "$BGP_ID-p$new-1" 4)" >/dev/null
	# leaving: its run revokes the lease; the reflector drops the sessions
	kill -TERM "$(cat "$BGP_DIR/n$new/run.pid")"
	for i in $(seq 1 50); do
		[ "$(grep -c '^protocol bgp' "$BGP_DIR/n$RR/bird.conf")" -eq $((2 * K)) ] && break
		sleep 0.1
	done
	[ "$(grep -c '^protocol bgp' "$BGP_DIR/n$RR/bird.conf")" -eq $((2 * K)) ]
	run ! grep -q "peer4_10_98_0_$new " <<<"$(birdc_n "$RR" show protocols)"
}
