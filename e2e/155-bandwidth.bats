#!/usr/bin/env bats
# bandwidth chained after podwire's bridge through cnitool: shaped throughput
# both ways (5 MB at 10 Mbit/s takes >= 3 s), unshapedSubnets bypass, CHECK,
# DEL removing the IFB and the qdiscs, bad input changing nothing.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	load portmap-helpers
	pw_need "$PODWIRE_BIN/bandwidth"
	pw_setup
	cnitool_setup
	PW_CNI_PATH="$PODWIRE_BIN"
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
}

teardown() {
	stop_listeners
	pw_teardown
}

# bwlist EXTRA: bridge + bandwidth (EXTRA merged into the bandwidth entry).
bwlist() {
	jq -n --arg dd "$STATE/ipam" --argjson x "${1:-{\}}" '{cniVersion:"1.0.0",name:"bwnet",plugins:[
	  {type:"bridge",bridge:"br0",isGateway:true,
	   ipam:{type:"host-local",dataDir:$dd,ranges:[[{subnet:"10.77.0.0/24"}]],routes:[{dst:"0.0.0.0/0"}]}},
	  ({type:"bandwidth",capabilities:{bandwidth:true}} + $x)]}' >"$NETCONF/10-bw.conflist"
}

# sink NS PORT: a TCP listener in NS discarding what it receives.
sink() {
	ip netns exec "$1" socat -u "TCP-LISTEN:$2,reuseaddr,fork" OPEN:/dev/null </dev/null >/dev/null 2>&1 3>&- &
	PW_PIDS+=($!)
	local i
	for i in $(seq 50); do
		in_ns "$1" ss -Hltn | grep -q ":$2 " && return 0
		sleep 0.05
	done
	return 1
}

# send_secs NS ADDR PORT BYTES: seconds (1 decimal) to push BYTES to ADDR:PORT.
send_secs() {
	local t0 t1
	t0=$(date +%s%N)
	head -c "$4" /dev/zero | in_ns "$1" timeout 30 socat -u - "TCP:$2:$3"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 100000000))
}

CAPS='{"bandwidth":{"ingressRate":10000000,"ingressBurst":80000,"egressRate":10000000,"egressBurst":80000}}'

@test "shaped both ways: 5 MB at 10 Mbit/s takes >= 3 s; CHECK; DEL removes ifb and qdiscs" {
	bwlist
	CNITOOL_ENV=(CAP_ARGS="$CAPS")
	run_cnitool add bwnet "$NETNS"
	local ifb pod
	ifb=$(printf '%s' "$output" | jq -r '.interfaces[] | select(.name | startswith("bwp")) | .name')
	pod=$(printf '%s' "$output" | jq -r '.ips[0].address | sub("/.*";"")')
	[[ "$ifb" == bwp* ]]
	[ ${#ifb} -eq 15 ]
	in_ns "$HOST_NS" ip -d link show "$ifb" | grep -q ifb
	in_ns "$HOST_NS" tc qdisc show | grep -q 'qdisc tbf 1: dev veth'
	in_ns "$HOST_NS" tc qdisc show dev "$ifb" | grep -q 'qdisc tbf 1: root'
	run_cnitool check bwnet "$NETNS"
	sink "$HOST_NS" 5001
	sink "$POD_NS" 5002
	# egress: pod -> host (through the ifb)
	[ "$(send_secs "$POD_NS" 10.77.0.1 5001 5000000)" -ge 30 ]
	# ingress: host -> pod (tbf on the host veth)
	[ "$(send_secs "$HOST_NS" "$pod" 5002 5000000)" -ge 30 ]
	run_cnitool del bwnet "$NETNS"
	run ! in_ns "$HOST_NS" ip link show "$ifb"
}

@test "unshapedSubnets: traffic to an unshaped subnet bypasses the limit" {
	bwlist '{"unshapedSubnets":["10.77.0.1/32"]}'
	CNITOOL_ENV=(CAP_ARGS="$CAPS")
	run_cnitool add bwnet "$NETNS"
	in_ns "$HOST_NS" tc qdisc show | grep -q 'qdisc htb 1:'
	run_cnitool check bwnet "$NETNS"
	sink "$HOST_NS" 5001
	# 5 MB unshaped: well under the 4 s a 10 Mbit/s limit would take
	[ "$(send_secs "$POD_NS" 10.77.0.1 5001 5000000)" -lt 25 ]
	run_cnitool del bwnet "$NETNS"
}

@test "CHECK notices a removed qdisc (code 105)" {
	bwlist '{"ingressRate":8000000,"ingressBurst":80000}'
	run_cnitool add bwnet "$NETNS"
	local veth
	veth=$(printf '%s' "$output" | jq -r '.interfaces[] | select(.name | startswith("veth")) | .name')
	in_ns "$HOST_NS" tc qdisc del dev "$veth" root
	run_cnitool -e 1 check bwnet "$NETNS"
	assert_stderr 105
	run_cnitool del bwnet "$NETNS"
}

@test "GC deletes the IFB of a container not in valid-attachments, keeps the others" {
	bwlist '{"egressRate":8000000,"egressBurst":80000}'
	run_cnitool add bwnet "$NETNS"
	local keep gone pod2="${PW_ID}q"
	keep=$(printf '%s' "$output" | jq -r '.interfaces[] | select(.name | startswith("bwp")) | .name')
	pw_netns_new "$pod2"
	run_cnitool add bwnet "/var/run/netns/$pod2"
	gone=$(printf '%s' "$output" | jq -r '.interfaces[] | select(.name | startswith("bwp")) | .name')
	in_ns "$HOST_NS" ip -d link show "$gone" | grep -q "alias podwire-bandwidth:bwnet/"
	PW_NETNS="" run_plugin bandwidth GC "" "" <<<"{\"cniVersion\":\"1.1.0\",\"name\":\"bwnet\",
		\"type\":\"bandwidth\",\"cni.dev/valid-attachments\":[{\"containerID\":\"$CID\",\"ifname\":\"eth0\"}]}"
	in_ns "$HOST_NS" ip link show "$keep" >/dev/null
	run ! in_ns "$HOST_NS" ip link show "$gone"
	# another network's GC touches neither
	PW_NETNS="" run_plugin bandwidth GC "" "" <<<'{"cniVersion":"1.1.0","name":"other","type":"bandwidth","cni.dev/valid-attachments":[]}'
	in_ns "$HOST_NS" ip link show "$keep" >/dev/null
	run_cnitool del bwnet "$NETNS"
	run_cnitool del bwnet "/var/run/netns/$pod2"
}

@test "bad input: code 7 naming key and value, nothing changed" {
	bwlist
	CNITOOL_ENV=(CAP_ARGS='{"bandwidth":{}}')
	run_cnitool add bwnet "$NETNS"
	local prev
	prev=$(printf '%s' "$output")
	pm_snapshot before
	local bad
	for bad in '{"ingressRate":1000}|ingressBurst: if ingressRate is set, ingressBurst must also be set' \
		'{"egressBurst":1000}|egressRate: if egressBurst is set' \
		'{"egressRate":1000,"egressBurst":34359738360}|egressBurst: cannot be more than 4GB' \
		'{"ingressRate":-5,"ingressBurst":10}|ingressRate: expected a non-negative integer, got -5' \
		'{"unshapedSubnets":["10.0.0.0/8"],"shapedSubnets":["10.1.0.0/16"]}|cannot both be set' \
		'{"unshapedSubnets":["nope"]}|unshapedSubnets[0]: must be a CIDR'; do
		local conf
		conf=$(jq -nc --argjson pr "$prev" --argjson x "${bad%%|*}" \
			'{cniVersion:"1.0.0",name:"bwnet",type:"bandwidth",prevResult:$pr} + $x')
		run_plugin -e 1 bandwidth ADD <<<"$conf"
		assert_error 7 "${bad#*|}"
	done
	run_plugin -e 1 bandwidth ADD <<<'{"cniVersion":"1.0.0","name":"bwnet","type":"bandwidth","ingressRate":8,"ingressBurst":8}'
	assert_error 7 chained
	pm_snapshot_same before
	run_cnitool del bwnet "$NETNS"
}
