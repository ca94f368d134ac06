#!/usr/bin/env bats
# Drop-in check: Debian's reference bridge plugin delegates its IPAM to
# podwire's host-local binary (found first in CNI_PATH), and to podwire's
# static. The bridge and pod live in the test's throwaway namespaces.

setup() {
	load helpers
	require_ref_plugins
	pw_setup
	PW_CNI_PATH="$PODWIRE_BIN:$REF_BIN"
	BR="${PW_ID}b"
}

teardown() {
	pw_teardown
}

@test "reference bridge + podwire host-local: ADD, CHECK, DEL" {
	local conf='{"cniVersion":"1.0.0","name":"refbr","type":"bridge","bridge":"'"$BR"'","isGateway":true,
	 "ipam":{"type":"host-local","dataDir":"'"$STATE/ipam"'","ranges":[[{"subnet":"10.91.0.0/24"}]]}}'
	run_plugin "$REF_BIN/bridge" ADD eth0 pod1 <<<"$conf"
	assert_json '.ips[0].address' 10.91.0.2/24
	[ "$(cat "$STATE/ipam/refbr/10.91.0.2")" = "$(printf 'pod1\r\neth0')" ]
	[ -e "$STATE/ipam/refbr/.podwire/@pod1:eth0" ]
	ip -n "$POD_NS" -o addr show dev eth0 | grep -q '10.91.0.2/24'
	ip netns exec "$POD_NS" ping -c1 -W2 10.91.0.1 >/dev/null
	run_plugin "$REF_BIN/bridge" CHECK eth0 pod1 <<<"${conf%\}}, \"prevResult\": $output}"
	run_plugin "$REF_BIN/bridge" DEL eth0 pod1 <<<"$conf"
	[ ! -e "$STATE/ipam/refbr/10.91.0.2" ]
}

@test "reference bridge + podwire static" {
	local conf='{"cniVersion":"1.0.0","name":"refst","type":"bridge","bridge":"'"$BR"'",
	 "ipam":{"type":"static","addresses":[{"address":"10.92.0.9/24","gateway":"10.92.0.1"}]}}'
	run_plugin "$REF_BIN/bridge" ADD eth0 pod2 <<<"$conf"
	assert_json '.ips[0].address' 10.92.0.9/24
	ip -n "$POD_NS" -o addr show dev eth0 | grep -q '10.92.0.9/24'
	run_plugin "$REF_BIN/bridge" DEL eth0 pod2 <<<"$conf"
}
