#!/usr/bin/env bats
# Length limits are checked before anything is done (libcni's skeleton): a
# container ID over CNI_CONTAINER_ID_MAX (128 bytes) is code 4, a network
# name over CNI_NETWORK_NAME_MAX (128 bytes) code 7, both naming the limit,
# and nothing changes. ADD never accepts such an attachment, so its DEL (and
# GC of such a network) succeeds doing nothing: the runtime's teardown ends.
# The limits themselves work end to end through bridge + host-local + ipMasq.

setup() {
	load helpers
	load reliability-helpers
	pw_setup
	mkdir -p "$STATE/work"
}

teardown() {
	pw_teardown
}

long() { # N: N bytes of [a-z0-9]
	head -c "$1" /dev/zero | tr '\0' a
}

@test "a container ID over 128 bytes: ADD code 4 naming the limit, nothing changes; DEL succeeds" {
	local cid conf
	cid=$(long 129)
	conf=$(rel_conf bridge)
	rel_snapshot before
	run_plugin -e 1 bridge ADD eth0 "$cid" <<<"$conf"
	assert_error 4 "CNI_CONTAINERID"
	assert_error 4 "129 bytes, longer than the limit of 128 bytes"
	rel_assert_same before
	run_plugin bridge DEL eth0 "$cid" <<<"$conf"
	[ -z "$output" ]
	grep -q "longer than the limit of 128" "$PW_STDERR"
	PW_NETNS="" run_plugin bridge DEL eth0 "$cid" <<<"$conf"
	run_plugin -e 1 host-local ADD eth0 "$cid" <<<"$(rel_conf host-local)"
	assert_error 4 "longer than the limit of 128 bytes"
	run_plugin -e 1 static CHECK eth0 "$cid" <<<"$(rel_conf static)"
	assert_error 4 "longer than the limit of 128 bytes"
	rel_assert_same before
}

@test "a network name over 128 bytes: ADD code 7 naming the limit, nothing changes; DEL and GC succeed" {
	local name conf
	name=$(long 129)
	conf=$(rel_conf bridge ".name = \"$name\"")
	rel_snapshot before
	run_plugin -e 1 bridge ADD eth0 <<<"$conf"
	assert_error 7 "name: '"
	assert_error 7 "129 bytes, longer than the limit of 128 bytes"
	rel_assert_same before
	run_plugin bridge DEL eth0 <<<"$conf"
	[ -z "$output" ]
	run_plugin host-local DEL eth0 <<<"$(rel_conf host-local ".name = \"$name\"")"
	run_plugin host-local GC eth0 <<<"$(rel_conf host-local ".name = \"$name\" | .[\"cni.dev/valid-attachments\"] = []")"
	rel_assert_same before
}

@test "at the limits (128-byte container ID and network name) bridge + host-local + ipMasq work: ADD, CHECK, DEL" {
	local cid name conf
	cid=$(long 128)
	name=$(long 128)
	conf=$(rel_conf bridge ".name = \"$name\"")
	run_plugin bridge ADD eth0 "$cid" <<<"$conf"
	assert_json '.ips[0].address' 10.77.0.2/24
	run_plugin bridge CHECK eth0 "$cid" <<<"$(jq -c --argjson pr "$output" '. + {prevResult: $pr}' <<<"$conf")"
	run_plugin bridge DEL eth0 "$cid" <<<"$conf"
	[ -z "$(ls "$STATE/ipam/$name" | grep -v '^last_reserved_ip\|^lock$')" ]
	run_plugin bridge DEL eth0 "$cid" <<<"$conf"
}
