#!/usr/bin/env bats
# bridge: ADD/CHECK/DEL/DEL for IPv4, IPv6 and dual stack; L2; pod<->pod and
# pod->gateway traffic; DEL with an empty or vanished CNI_NETNS. The plugin
# runs in a throwaway "host" netns; host-local keeps its leases under $STATE.

setup() {
	load helpers
	pw_setup
	# podwire's host-local when built, else the reference one.
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN:/usr/lib/cni"
	export PW_CNI_PATH
}

teardown() {
	pw_teardown
}

# conf [EXTRA_JSON] [RANGES_JSON] [VERSION]: a bridge config with host-local.
conf() {
	local extra=${1:-} ranges=${2:-}
	[ -n "$extra" ] || extra='{}'
	[ -n "$ranges" ] || ranges='[[{"subnet":"10.1.2.0/24"}]]'
	jq -nc --arg dd "$STATE/ipam" --argjson extra "$extra" \
		--argjson ranges "$ranges" --arg v "${3:-1.0.0}" \
		'{cniVersion:$v, name:"pwnet", type:"bridge", bridge:"br0", isDefaultGateway:true,
		  ipam:{type:"host-local", dataDir:$dd, ranges:$ranges}} + $extra'
}

# with_prev CONF: CONF plus prevResult = $output (the ADD result), as a runtime sends.
with_prev() {
	jq -c --argjson pr "$output" '. + {prevResult: $pr}' <<<"$1"
}

leases() {
	# lease files are named by address (podwire's host-local keeps an index in .podwire/)
	find "$STATE/ipam/pwnet" -maxdepth 1 -type f -name '[0-9a-f]*[.:]*' \
		! -name 'last_reserved_ip*' 2>/dev/null | wc -l
}

add_check_del() { # CONF: the full cycle with the reference's assertions
	local c=$1 prev
	run_plugin bridge ADD <<<"$c"
	assert_json '.interfaces | length' 3
	assert_json '.interfaces[0].name' br0
	assert_json '.interfaces[1].name | startswith("veth")' true
	assert_json '.interfaces[2].name' eth0
	assert_json '.interfaces[2].sandbox' "/var/run/netns/$POD_NS"
	assert_json '[.ips[].interface] | unique | join(",")' 2
	assert_json '.interfaces[0].mac' "$(ip -n "$HOST_NS" -j link show br0 | jq -r '.[0].address')"
	prev=$(with_prev "$c")
	hostveth=$(jq -r '.interfaces[1].name' <<<"$output")
	[ "$(ip -n "$HOST_NS" -j link show "$hostveth" | jq -r '.[0].master')" = br0 ]
	[ "$(ip -n "$POD_NS" -j link show eth0 | jq -r '.[0].operstate')" = UP ]
	run_plugin bridge CHECK <<<"$prev"
	[ -z "$output" ]
	run_plugin bridge DEL <<<"$prev"
	run_plugin bridge DEL <<<"$prev"
	run ! ip -n "$POD_NS" link show eth0
	run ! ip -n "$HOST_NS" link show "$hostveth"
	[ "$(leases)" -eq 0 ]
}

@test "IPv4: ADD/CHECK/DEL/DEL, gateway on the bridge, default route, ping gateway" {
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	assert_json '.ips[0].address' 10.1.2.2/24
	assert_json '.ips[0].gateway' 10.1.2.1
	assert_json '.routes[0].dst' 0.0.0.0/0
	assert_json '.routes[0].gw' 10.1.2.1
	ip -n "$HOST_NS" addr show br0 | grep -q 'inet 10.1.2.1/24'
	ip -n "$POD_NS" route show default | grep -q 'via 10.1.2.1 dev eth0'
	[ "$(in_ns "$HOST_NS" cat /proc/sys/net/ipv4/ip_forward)" = 1 ]
	in_ns "$POD_NS" ping -c1 -W2 10.1.2.1
	[ "$(leases)" -eq 1 ]
	run_plugin bridge DEL <<<"$c"
	add_check_del "$c"
}

@test "IPv6: ADD/CHECK/DEL/DEL, ping gateway without waiting for DAD" {
	c=$(conf '{}' '[[{"subnet":"fd00:1::/64"}]]')
	run_plugin bridge ADD <<<"$c"
	assert_json '.ips[0].address' fd00:1::2/64
	assert_json '.routes[0].dst' ::/0
	ip -n "$HOST_NS" addr show br0 | grep -q 'inet6 fd00:1::1/64'
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv6/conf/eth0/accept_dad)" = 0 ]
	run ! grep -q tentative <<<"$(ip -n "$POD_NS" addr show eth0)"
	in_ns "$POD_NS" ping -6 -c1 -W2 fd00:1::1
	run_plugin bridge DEL <<<"$c"
	add_check_del "$c"
}

@test "dual stack: one address per family, two default routes" {
	c=$(conf '{}' '[[{"subnet":"10.1.2.0/24"}],[{"subnet":"fd00:1::/64"}]]')
	run_plugin bridge ADD <<<"$c"
	assert_json '.ips | length' 2
	assert_json '[.routes[].dst] | sort | join(",")' "0.0.0.0/0,::/0"
	ip -n "$POD_NS" -6 route show default | grep -q 'via fd00:1::1'
	in_ns "$POD_NS" ping -c1 -W2 10.1.2.1
	in_ns "$POD_NS" ping -6 -c1 -W2 fd00:1::1
	run_plugin bridge DEL <<<"$c"
	add_check_del "$c"
}

@test "two pods on one bridge reach each other" {
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	PW_NETNS="/var/run/netns/$POD2" run_plugin bridge ADD eth0 "${PW_ID}d" <<<"$c"
	assert_json '.ips[0].address' 10.1.2.3/24
	in_ns "$POD_NS" ping -c1 -W2 10.1.2.3
	in_ns "$POD2" ping -c1 -W2 10.1.2.2
	[ "$(ip -n "$HOST_NS" -o link show master br0 | wc -l)" -eq 2 ]
}

@test "L2 only (ipam {}): interfaces, no addresses; CHECK passes (reference fails it)" {
	c='{"cniVersion":"1.0.0","name":"pwnet","type":"bridge","bridge":"br0","ipam":{}}'
	run_plugin bridge ADD <<<"$c"
	assert_json '.interfaces | length' 3
	assert_json '.ips' null
	[ "$(ip -n "$POD_NS" -j link show eth0 | jq -r '.[0].operstate')" = UP ]
	prev=$(with_prev "$c")
	run ! grep -q inet <<<"$(ip -n "$POD_NS" -4 addr show eth0)"
	run_plugin bridge CHECK <<<"$prev"
	run_plugin bridge DEL <<<"$prev"
	run ! ip -n "$POD_NS" link show eth0
}

@test "DEL with an empty CNI_NETNS releases the lease and the host veth" {
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	hostveth=$(jq -r '.interfaces[1].name' <<<"$output")
	prev=$(with_prev "$c")
	[ "$(leases)" -eq 1 ]
	PW_NETNS="" run_plugin bridge DEL <<<"$prev"
	[ "$(leases)" -eq 0 ]
	run ! ip -n "$HOST_NS" link show "$hostveth"
	PW_NETNS="" run_plugin bridge DEL <<<"$prev"
}

@test "DEL after the pod netns vanished, and without prevResult, still cleans up" {
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	hostveth=$(jq -r '.interfaces[1].name' <<<"$output")
	ip netns del "$POD_NS"
	run_plugin bridge DEL <<<"$c"
	[ "$(leases)" -eq 0 ]
	run ! ip -n "$HOST_NS" link show "$hostveth"
}

@test "DEL and GC with the exec'd IPAM binary gone: a warning, the host side still cleaned" {
	c=$(conf)
	PW_ENV=(PODWIRE_IPAM_EXEC=1)
	run_plugin bridge ADD <<<"$c"
	hostveth=$(jq -r '.interfaces[1].name' <<<"$output")
	prev=$(with_prev "$c")
	# The IPAM binary removed between ADD and DEL: CNI_PATH without it.
	mkdir "$STATE/noipam"
	PW_CNI_PATH="$STATE/noipam" run_plugin bridge DEL <<<"$prev"
	grep -q "going on without the IPAM's DEL" "$PW_STDERR"
	run ! ip -n "$HOST_NS" link show "$hostveth"
	run ! ip -n "$POD_NS" link show eth0
	gc=$(jq -c '.cniVersion = "1.1.0" | . + {"cni.dev/valid-attachments": []}' <<<"$c")
	PW_CNI_PATH="$STATE/noipam" run_plugin bridge GC <<<"$gc"
	grep -q "going on without the IPAM's GC" "$PW_STDERR"
	# ADD still needs it: code 104.
	PW_CNI_PATH="$STATE/noipam" run_plugin -e 1 bridge ADD eth1 <<<"$c"
	assert_json '.code' 104
}

@test "an existing bridge is reused; its MAC survives an ADD/DEL cycle and differs from the port's" {
	ip -n "$HOST_NS" link add br0 type bridge
	ip -n "$HOST_NS" link set br0 up
	idx=$(ip -n "$HOST_NS" -j link show br0 | jq '.[0].ifindex')
	mac=$(ip -n "$HOST_NS" -j link show br0 | jq -r '.[0].address')
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	[ "$(ip -n "$HOST_NS" -j link show br0 | jq '.[0].ifindex')" = "$idx" ]
	assert_json '.interfaces[0].mac' "$mac"
	hostveth_mac=$(jq -r '.interfaces[1].mac' <<<"$output")
	[ "$hostveth_mac" != "$mac" ]
	run_plugin bridge DEL <<<"$(with_prev "$c")"
	[ "$(ip -n "$HOST_NS" -j link show br0 | jq -r '.[0].address')" = "$mac" ]
}

@test "a new bridge keeps its own MAC (pinned before the first port joined)" {
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	[ "$(jq -r '.interfaces[0].mac' <<<"$output")" != "$(jq -r '.interfaces[1].mac' <<<"$output")" ]
}

@test "DEL of an attachment never added succeeds" {
	run_plugin bridge DEL eth0 never-added <<<"$(conf)"
	run ! ip -n "$HOST_NS" link show br0
}

@test "CHECK detects a removed address and a removed route" {
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	prev=$(with_prev "$c")
	ip -n "$POD_NS" route del default
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "route to 0.0.0.0/0 missing"
	ip -n "$POD_NS" route add default via 10.1.2.1
	run_plugin bridge CHECK <<<"$prev"
	ip -n "$POD_NS" addr del 10.1.2.2/24 dev eth0
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "address 10.1.2.2/24 missing on 'eth0'"
}

@test "CHECK detects a host veth detached from the bridge and a changed MAC" {
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	prev=$(with_prev "$c")
	hostveth=$(jq -r '.interfaces[1].name' <<<"$output")
	ip -n "$HOST_NS" link set "$hostveth" nomaster
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "CNI veth created for bridge br0 was not found"
	ip -n "$HOST_NS" link set "$hostveth" master br0
	run_plugin bridge CHECK <<<"$prev"
	ip -n "$POD_NS" link set eth0 address 02:00:00:00:aa:bb
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "interface 'eth0' MAC differs"
}

@test "CHECK detects lost connectivity: gateway flushed, host veth down, hairpin off" {
	c=$(conf '{"hairpinMode":true}')
	run_plugin bridge ADD <<<"$c"
	prev=$(with_prev "$c")
	hostveth=$(jq -r '.interfaces[1].name' <<<"$output")
	ip -n "$HOST_NS" addr flush dev br0
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "gateway 10.1.2.1/24 missing on 'br0'"
	ip -n "$HOST_NS" addr add 10.1.2.1/24 dev br0
	run_plugin bridge CHECK <<<"$prev"
	ip -n "$HOST_NS" link set "$hostveth" down
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "host veth '$hostveth' is down"
	ip -n "$HOST_NS" link set "$hostveth" up
	for i in $(seq 1 100); do
		[ "$(ip -n "$HOST_NS" -j link show "$hostveth" | jq -r '.[0].operstate')" = UP ] && break
		sleep 0.02
	done
	run_plugin bridge CHECK <<<"$prev"
	ip -n "$HOST_NS" link set "$hostveth" type bridge_slave hairpin off
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "hairpin mode on port '$hostveth' is off, hairpinMode is true"
}

@test "results in every version: 0.4.0 keeps ips[].version, 0.2.0 uses ip4" {
	run_plugin bridge ADD <<<"$(conf '{}' '[[{"subnet":"10.1.2.0/24"}]]' 0.4.0)"
	assert_json '.ips[0].version' 4
	assert_json '.interfaces | length' 3
	run_plugin bridge DEL <<<"$(conf '{}' '[[{"subnet":"10.1.2.0/24"}]]' 0.4.0)"
	run_plugin bridge ADD <<<"$(conf '{}' '[[{"subnet":"10.1.2.0/24"}]]' 0.2.0)"
	assert_json '.ip4.ip | test("^10\\.1\\.2\\.[0-9]+/24$")' true
	assert_json '.interfaces' null
}
