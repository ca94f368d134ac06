#!/usr/bin/env bats
# bgp-route with cluster-ipam (in-process) and exportMode "blocks": each node
# announces its blocks (blackhole proto 81) instead of every pod, and a
# borrowed address (proto 82) individually. K = PODWIRE_BGP_NODES (default 3).

load helpers
load bgp-helpers

K=$PODWIRE_BGP_NODES

setup_file() {
	bgp_setup_dirs
	bgp_etcd_start
	bgp_fabric_up "$K"
	local i
	for i in $(seq 1 "$K"); do
		bgp_node_config "$i" "$K" | jq -c '.exportMode = "blocks"' >"$BGP_DIR/n$i/node.json"
		"$PODWIRE_BIN/podwire-node" bird-config --node-config "$BGP_DIR/n$i/node.json" \
			--output "$BGP_DIR/n$i/bird.conf"
		bgp_bird_start "$i"
		# v4: a pool of two blocks: nodes 1 and 2 claim them, node K has to borrow
		bgp_netconf_ipam "$i" "$(jq -nc --arg n "node$i" --arg ep "$BGP_ETCD_UNIX" \
			--arg p "/pw-$BGP_ID" --arg d "$BGP_DIR/n$i/cipam" \
			'{type: "cluster-ipam", nodeName: $n, etcd: {endpoints: [$ep]}, etcdPrefix: $p,
			  dataDir: $d, pools: [{cidr: "10.244.0.0/24", blockSize: 25},
			  {cidr: "fd00:10:244::/56", blockSize: 122}]}')"
	done
	for i in $(seq 1 "$K"); do
		bgp_wait_established "$i" $((2 * (K - 1)))
	done
}

teardown_file() {
	bgp_teardown
}

block_of() { # addr len -> network
	/usr/bin/python3 -c 'import ipaddress,sys; print(ipaddress.ip_network(sys.argv[1] + "/" + sys.argv[2], strict=False))' "$1" "$2"
}

@test "blocks are announced instead of pods; pods reach each other" {
	local i b4
	for i in 1 2; do
		bgp_pod_add "$i" 1
		ip -n "$(bgp_ns "$i")" route show proto 81 type blackhole | grep -q .
		ip -n "$(bgp_ns "$i")" route show "$(bgp_pod_ip "$BGP_ID-p$i-1" 4)" | grep -q 'proto 80'
	done
	b4=$(ip -n "$(bgp_ns 1)" route show proto 81 type blackhole | awk '{print $2}' | head -1)
	# node 2 has node 1's block, not node 1's pod
	bgp_wait_route "$(bgp_ns 2)" "$b4" present
	ip -n "$(bgp_ns 2)" route show "$b4" | grep -q 'proto bird'
	[ -z "$(ip -n "$(bgp_ns 2)" route show "$(bgp_pod_ip "$BGP_ID-p1-1" 4)/32")" ]
	ip netns exec "$BGP_ID-p2-1" ping -c1 -W2 "$(bgp_pod_ip "$BGP_ID-p1-1" 4)" >/dev/null
	ip netns exec "$BGP_ID-p2-1" ping -6 -c1 -W2 "$(bgp_pod_ip "$BGP_ID-p1-1" 6)" >/dev/null
}

@test "a borrowed address gets proto 82 and is announced as a /32" {
	local pod="$BGP_ID-p$K-1" ip4
	bgp_pod_add "$K" 1
	ip4=$(bgp_pod_ip "$pod" 4)
	ip -n "$(bgp_ns "$K")" route show "$ip4" | grep -q 'proto 82'
	bgp_wait_route "$(bgp_ns 1)" "$ip4/32" present
	ip -n "$(bgp_ns 1)" route show "$ip4/32" | grep -q "via 10.98.0.$K"
	ip netns exec "$BGP_ID-p1-1" ping -c1 -W2 "$ip4" >/dev/null
	# its IPv6 address came from a block of its own: proto 80, covered by the block route
	ip -n "$(bgp_ns "$K")" -6 route show "$(bgp_pod_ip "$pod" 6)" | grep -q 'proto 80'
	ip netns exec "$BGP_ID-p1-1" ping -6 -c1 -W2 "$(bgp_pod_ip "$pod" 6)" >/dev/null
	bgp_cni "$K" del "$pod"
	bgp_wait_route "$(bgp_ns 1)" "$ip4/32" absent
}
