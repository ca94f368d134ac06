#!/usr/bin/env bats
# Drop-in: attachments made by the reference Go bridge are checked and
# deleted by podwire's and the other way round (same keys, same lease
# files); concurrent ADDs on one new bridge and one IPAM range.

setup() {
	load helpers
	pw_setup
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN:/usr/lib/cni"
	export PW_CNI_PATH
}

teardown() {
	pw_teardown
}

conf() {
	jq -nc --arg dd "$STATE/ipam" \
		'{cniVersion:"1.0.0", name:"pwnet", type:"bridge", bridge:"br0", isDefaultGateway:true,
		  ipMasq:false, hairpinMode:true,
		  ipam:{type:"host-local", dataDir:$dd, ranges:[[{subnet:"10.1.2.0/24"}]]}}'
}

with_prev() {
	jq -c --argjson pr "$output" '. + {prevResult: $pr}' <<<"$1"
}

leases() {
	find "$STATE/ipam/pwnet" -maxdepth 1 -type f -name '10.*' 2>/dev/null | wc -l
}

@test "an attachment made by the reference bridge: podwire CHECKs and DELs it" {
	require_ref_plugins
	c=$(conf)
	PW_CNI_PATH=$REF_BIN run_plugin "$REF_BIN/bridge" ADD <<<"$c"
	prev=$(with_prev "$c")
	hv=$(jq -r '.interfaces[1].name' <<<"$output")
	run_plugin bridge CHECK <<<"$prev"
	run_plugin bridge DEL <<<"$prev"
	run ! ip -n "$POD_NS" link show eth0
	run ! ip -n "$HOST_NS" link show "$hv"
	[ "$(leases)" -eq 0 ]
}

@test "an attachment made by podwire: the reference bridge CHECKs and DELs it" {
	require_ref_plugins
	c=$(conf)
	run_plugin bridge ADD <<<"$c"
	prev=$(with_prev "$c")
	PW_CNI_PATH=$REF_BIN run_plugin "$REF_BIN/bridge" CHECK <<<"$prev"
	PW_CNI_PATH=$REF_BIN run_plugin "$REF_BIN/bridge" DEL <<<"$prev"
	run ! ip -n "$POD_NS" link show eth0
	[ "$(leases)" -eq 0 ]
}

@test "pods of both implementations share one bridge and reach each other" {
	require_ref_plugins
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	c=$(conf)
	PW_CNI_PATH=$REF_BIN run_plugin "$REF_BIN/bridge" ADD <<<"$c"
	ref_ip=$(jq -r '.ips[0].address | split("/")[0]' <<<"$output")
	PW_NETNS="/var/run/netns/$POD2" run_plugin bridge ADD eth0 "${PW_ID}d" <<<"$c"
	pw_ip=$(jq -r '.ips[0].address | split("/")[0]' <<<"$output")
	[ "$ref_ip" != "$pw_ip" ]
	in_ns "$POD_NS" ping -c1 -W2 "$pw_ip"
	in_ns "$POD2" ping -c1 -W2 "$ref_ip"
}

@test "8 concurrent ADDs on a new bridge: all succeed with distinct addresses, then all DEL" {
	c=$(conf)
	for i in $(seq 8); do
		pw_netns_new "${PW_ID}n$i"
	done
	for i in $(seq 8); do
		ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID="par$i" \
			CNI_NETNS="/var/run/netns/${PW_ID}n$i" CNI_IFNAME=eth0 CNI_PATH="$PW_CNI_PATH" \
			timeout 60 "$PODWIRE_BIN/bridge" <<<"$c" >"$STATE/par$i.json" 2>"$STATE/par$i.err" &
	done
	wait
	for i in $(seq 8); do
		jq -e '.ips[0].address' "$STATE/par$i.json" >/dev/null || {
			cat "$STATE/par$i.json" "$STATE/par$i.err" >&2
			false
		}
	done
	[ "$(cat "$STATE"/par*.json | jq -r '.ips[0].address' | sort -u | wc -l)" -eq 8 ]
	[ "$(ip -n "$HOST_NS" -o link show master br0 | wc -l)" -eq 8 ]
	for i in $(seq 8); do
		ip netns exec "$HOST_NS" env CNI_COMMAND=DEL CNI_CONTAINERID="par$i" \
			CNI_NETNS="/var/run/netns/${PW_ID}n$i" CNI_IFNAME=eth0 CNI_PATH="$PW_CNI_PATH" \
			timeout 60 "$PODWIRE_BIN/bridge" <<<"$c" &
	done
	wait
	[ "$(leases)" -eq 0 ]
	[ "$(ip -n "$HOST_NS" -o link show master br0 | wc -l)" -eq 0 ]
}
