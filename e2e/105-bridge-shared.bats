#!/usr/bin/env bats
# Shared host state under concurrent and mistaken calls: a failed ADD never
# deletes a bridge another pod joined; forceAddress ends with the gateway on
# the bridge; DEL with CNI_NETNS naming the plugin's own netns deletes no
# host link.

setup() {
	load helpers
	pw_setup
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN"
	export PW_CNI_PATH
}

teardown() {
	pw_teardown
}

# conf BRIDGE [FAIL_JSON]: bridge + host-local; with FAIL_JSON the "fail" test
# double is the IPAM, and reads FAIL_JSON's keys (failOn, hangSeconds) from
# the top level of the config it is given.
conf() {
	local ipam
	ipam=$(jq -nc --arg dd "$STATE/ipam" \
		'{type:"host-local", dataDir:$dd, ranges:[[{subnet:"10.77.0.0/24"}]]}')
	jq -nc --arg br "$1" --argjson ipam "$ipam" --argjson fail "${2:-null}" \
		'{cniVersion:"1.0.0", name:"shared", type:"bridge", bridge:$br, isGateway:true,
		  ipam:$ipam} + (if $fail then {ipam:{type:"fail"}} + $fail else {} end)'
}

# add_bg OUT CID IFNAME CONF: one ADD in the background, its JSON in OUT.
add_bg() {
	ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID="$2" \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME="$3" CNI_PATH="$PW_CNI_PATH" \
		PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" "$PODWIRE_BIN/bridge" <<<"$4" >"$1" 2>/dev/null &
}

# assert_wired OUT BRIDGE: the ADD result in OUT has its port on BRIDGE, which
# has its gateway, and the pod reaches it.
assert_wired() {
	local hv
	hv=$(jq -r '.interfaces[1].name' "$1")
	[ "$(ip -n "$HOST_NS" -j link show "$hv" | jq -r '.[0].master')" = "$2" ] || {
		echo "# $hv not on $2: $(cat "$1") / $(ip -n "$HOST_NS" -br link)" >&2
		return 1
	}
	ip -n "$HOST_NS" -4 addr show dev "$2" | grep -q '10.77.0.1/24'
	ip netns exec "$POD_NS" ping -c1 -W2 10.77.0.1 >/dev/null
}

@test "the creator of a bridge fails after another ADD joined it: the bridge stays" {
	local i slow
	# The creator hangs 1 s in IPAM, then fails; the joiner comes meanwhile.
	slow='{"failOn":["ADD"],"hangSeconds":1}'
	add_bg "$STATE/bad" bad b0 "$(conf brslow "$slow")"
	for i in $(seq 1 100); do
		ip -n "$HOST_NS" link show brslow >/dev/null 2>&1 && break
		sleep 0.01
	done
	add_bg "$STATE/good" good g0 "$(conf brslow)"
	wait
	jq -e '.code == 100' "$STATE/bad" >/dev/null
	assert_wired "$STATE/good" brslow
}

@test "a failed ADD never deletes a bridge another ADD joined at the same time" {
	local i fail br
	fail='{"failOn":["ADD"]}'
	for i in $(seq 1 12); do
		br="brs$i"
		add_bg "$STATE/good.$i" "good$i" "g$i" "$(conf "$br")"
		add_bg "$STATE/bad.$i" "bad$i" "b$i" "$(conf "$br" "$fail")"
		wait
		jq -e '.code == 100' "$STATE/bad.$i" >/dev/null
		assert_wired "$STATE/good.$i" "$br"
	done
}

@test "a failing first ADD alone still removes the bridge it created" {
	run_plugin -e 1 bridge ADD eth0 lone <<<"$(conf brlone '{"failOn":["ADD"]}')"
	assert_error 100 "injected failure"
	run ! ip -n "$HOST_NS" link show brlone
}

@test "the same container ID added twice at once: one succeeds, one is 103, the pod is wired" {
	local a b
	add_bg "$STATE/a" same eth0 "$(conf brsame)"
	add_bg "$STATE/b" same eth0 "$(conf brsame)"
	wait
	a=$(jq -r '.code // "ok"' "$STATE/a")
	b=$(jq -r '.code // "ok"' "$STATE/b")
	echo "# results: $a $b" >&2
	[ "$a $b" = "ok 103" ] || [ "$a $b" = "103 ok" ]
	ip netns exec "$POD_NS" ping -c1 -W2 10.77.0.1 >/dev/null
}

@test "forceAddress replaces a conflicting bridge address and keeps the gateway" {
	ip -n "$HOST_NS" link add cni0 type bridge
	ip -n "$HOST_NS" addr add 10.99.0.254/24 dev cni0
	# The kernel default: removing a primary address removes its secondaries.
	ip netns exec "$HOST_NS" sysctl -qw net.ipv4.conf.cni0.promote_secondaries=0
	c=$(jq -nc --arg dd "$STATE/ipam" '{cniVersion:"1.0.0", name:"force", type:"bridge",
		bridge:"cni0", isGateway:true, forceAddress:true,
		ipam:{type:"host-local", dataDir:$dd, subnet:"10.99.0.0/24"}}')
	run_plugin bridge ADD <<<"$c"
	addrs=$(ip -n "$HOST_NS" -4 -o addr show dev cni0 | awk '{print $4}')
	[ "$addrs" = "10.99.0.1/24" ] || { echo "# cni0 has: $addrs" >&2; false; }
	# and the pod reaches its gateway
	ip netns exec "$POD_NS" ping -c1 -W2 10.99.0.1 >/dev/null
}

@test "DEL with CNI_NETNS naming the plugin's own netns deletes no host link" {
	ip -n "$HOST_NS" link add eth9 type bridge
	PW_NETNS="/var/run/netns/$HOST_NS" run_plugin bridge DEL eth9 <<<"$(conf brown)"
	ip -n "$HOST_NS" link show eth9 >/dev/null
	grep -q "plugin's own netns" "$PW_STDERR"
}

@test "GC removes the host veths of this network's lost attachments, never another network's" {
	local pod2="${PW_ID}q" pod3="${PW_ID}r" a b keep stale other
	pw_netns_new "$pod2"
	pw_netns_new "$pod3"
	a='{"cniVersion":"1.1.0","name":"neta","type":"bridge","bridge":"brgc","ipam":{}}'
	b='{"cniVersion":"1.1.0","name":"netb","type":"bridge","bridge":"brgc","ipam":{}}'
	run_plugin bridge ADD eth0 keep <<<"$a"
	keep=$(jq -r '.interfaces[1].name' <<<"$output")
	PW_NETNS="/var/run/netns/$pod2" run_plugin bridge ADD eth0 stale <<<"$a"
	stale=$(jq -r '.interfaces[1].name' <<<"$output")
	# the same container ID and ifname on another network sharing the bridge
	PW_NETNS="/var/run/netns/$pod3" run_plugin bridge ADD eth0 stale <<<"$b"
	other=$(jq -r '.interfaces[1].name' <<<"$output")
	[ "$(ip -n "$HOST_NS" -j link show "$stale" | jq -r '.[0].ifalias')" = "podwire:neta/stale/eth0" ]
	run_plugin bridge GC <<<"$(jq -c '. + {"cni.dev/valid-attachments": [{"containerID": "keep", "ifname": "eth0"}]}' <<<"$a")"
	run ! ip -n "$HOST_NS" link show "$stale"
	run ! ip -n "$pod2" link show eth0
	ip -n "$HOST_NS" link show "$keep" >/dev/null
	ip -n "$HOST_NS" link show "$other" >/dev/null
	# without cni.dev/valid-attachments nothing is compared, nothing removed
	run_plugin bridge GC <<<"$a"
	ip -n "$HOST_NS" link show "$keep" >/dev/null
}
