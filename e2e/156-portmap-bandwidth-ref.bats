#!/usr/bin/env bats
# Differential tests: podwire's portmap and bandwidth against the reference
# binaries in /usr/lib/cni (1.1.x: portmap's iptables backend) on the same
# inputs: results, failure on bad input, and what the kernel ends up doing
# (hostPort reachable, tc qdisc parameters, IFB name).

setup() {
	load helpers
	load portmap-helpers
	pw_need "$REF_BIN/portmap" "$REF_BIN/bandwidth" "$PODWIRE_BIN/portmap" "$PODWIRE_BIN/bandwidth"
	pw_setup
	outside_setup
	BR='{"cniVersion":"1.0.0","name":"refnet","type":"bridge","bridge":"br0","isGateway":true,
	     "ipam":{"type":"host-local","dataDir":"'"$STATE/ipam"'","ranges":[[{"subnet":"10.66.0.0/24"}]],
	     "routes":[{"dst":"0.0.0.0/0"}]}}'
	run_plugin bridge ADD <<<"$BR"
	PREV=$output
}

teardown() {
	stop_listeners
	pw_teardown
}

# norm: a result with Go's empty "dns": {} (the reference prints it) dropped.
NORM='if .dns == {} then del(.dns) else . end'

# chained PLUGIN_TYPE EXTRA: the second plugin's stdin with prevResult.
chained() {
	jq -nc --arg t "$1" --argjson pr "$PREV" --argjson x "$2" \
		'{cniVersion:"1.0.0",name:"refnet",type:$t,prevResult:$pr} + $x'
}

MAPS='{"runtimeConfig":{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"},
	{"hostPort":8081,"containerPort":81,"protocol":"udp"}]}}'

@test "portmap: same result, same reachability, DEL leaves no hostPort" {
	listen "$POD_NS" tcp 80 pong
	listen "$POD_NS" udp 81 upong
	local impl res=()
	for impl in "$REF_BIN/portmap" portmap; do
		run_plugin "$impl" ADD <<<"$(chained portmap "$MAPS")"
		res+=("$(printf '%s' "$output" | jq -S "$NORM")")
		[ "$(ask "$OUT" tcp 192.0.2.1 8080)" = pong ]
		[ "$(ask "$OUT" udp 192.0.2.1 8081)" = upong ] || { echo "# $impl: udp" >&2; false; }
		# the reference 1.1 CHECK fails without an IPv6 address (it checks the v6 chain)
		[ "$impl" = portmap ] && run_plugin "$impl" CHECK <<<"$(chained portmap "$MAPS")"
		run_plugin "$impl" DEL <<<"$(chained portmap "$MAPS")"
		[ -z "$(ask "$OUT" tcp 192.0.2.1 8080)" ]
	done
	diff <(echo "${res[0]}") <(echo "${res[1]}") >&2
}

@test "portmap: bad input fails in both (podwire: code 7; reference: its own code)" {
	local bad
	for bad in '[{"hostPort":0,"containerPort":80}]' '[{"hostPort":80,"containerPort":0}]'; do
		run_plugin -e 1 "$REF_BIN/portmap" ADD <<<"$(chained portmap "{\"runtimeConfig\":{\"portMappings\":$bad}}")"
		run_plugin -e 1 portmap ADD <<<"$(chained portmap "{\"runtimeConfig\":{\"portMappings\":$bad}}")"
		assert_json .code 7
	done
	# no portMappings: both pass prevResult through unchanged
	run_plugin "$REF_BIN/portmap" ADD <<<"$(chained portmap '{}')"
	local a
	a=$(printf '%s' "$output" | jq -S "$NORM")
	run_plugin portmap ADD <<<"$(chained portmap '{}')"
	diff <(echo "$a") <(printf '%s' "$output" | jq -S "$NORM") >&2
}

BW='{"ingressRate":10000000,"ingressBurst":80000,"egressRate":20000000,"egressBurst":160000}'

# tc_state: the qdiscs of the host veth and the ifb (refcounts and the veth
# name blanked) and the veth's ingress filter. The reference's filter carries a
# second mirred action that never runs (the first one steals the packet):
# cut at it.
tc_state() {
	{
		in_ns "$HOST_NS" tc qdisc show | grep -v noqueue
		in_ns "$HOST_NS" tc filter show dev "$VETH" ingress
	} | sed 's/refcnt [0-9]*//; s/dev veth[0-9a-f]*/dev VETH/; /action order 2/,$d' | grep -v '^$'
}

@test "bandwidth: same result (but the IFB MAC), same IFB name, same qdiscs; DEL removes the IFB" {
	VETH=$(printf '%s' "$PREV" | jq -r '.interfaces[] | select(.name | startswith("veth")) | .name')
	local impl res=() state=()
	for impl in "$REF_BIN/bandwidth" bandwidth; do
		run_plugin "$impl" ADD <<<"$(chained bandwidth "$BW")"
		res+=("$(printf '%s' "$output" | jq -S "$NORM"' | del(.interfaces[] | select(.name | startswith("bwp")) | .mac)')")
		state+=("$(tc_state)")
		run_plugin "$impl" CHECK <<<"$(chained bandwidth "$BW")"
		run_plugin "$impl" DEL <<<"$(chained bandwidth "$BW")"
		run ! grep -q ' bwp' <<<"$(in_ns "$HOST_NS" ip -o link show)"
		# the reference leaves the host veth's qdiscs; clean up for the next round
		in_ns "$HOST_NS" tc qdisc del dev "$VETH" root 2>/dev/null || true
		in_ns "$HOST_NS" tc qdisc del dev "$VETH" ingress 2>/dev/null || true
	done
	diff <(echo "${res[0]}") <(echo "${res[1]}") >&2
	diff <(echo "${state[0]}") <(echo "${state[1]}") >&2
}

@test "bandwidth: bad input fails in both (podwire: code 7)" {
	local bad
	for bad in '{"ingressRate":1000}' '{"egressBurst":1000}' '{"egressRate":1000,"egressBurst":34359738360}'; do
		run_plugin -e 1 "$REF_BIN/bandwidth" ADD <<<"$(chained bandwidth "$bad")"
		run_plugin -e 1 bandwidth ADD <<<"$(chained bandwidth "$bad")"
		assert_json .code 7
	done
}
