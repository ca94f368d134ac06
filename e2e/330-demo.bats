#!/usr/bin/env bats
# `make demo-bridge`'s script end to end: it wires two pods, pings, and leaves no
# namespace, bridge or temporary directory behind, also when interrupted.

setup() {
	load helpers
	pw_need "$PODWIRE_BIN/cnitool" "$PODWIRE_BIN/bridge" "$PODWIRE_BIN/host-local"
}

# Only the demo's own names are checked: other tests may run at the same time.
assert_nothing_left() {
	local tag tmp
	tag=$(printf '%s\n' "$output" | sed -n 's/.*throwaway namespaces: host \(pwd[0-9]*\)h.*/\1/p')
	[ -n "$tag" ]
	[ -z "$(ip netns list | grep "^$tag")" ]
	tmp=$(printf '%s\n' "$output" | sed -n 's/^removed \(\/tmp\/podwire-demo\.[A-Za-z0-9]*\)$/\1/p')
	[ -n "$tmp" ]
	[ ! -e "$tmp" ]
}

@test "demo wires two pods, pings and cleans up" {
	run bash "$PODWIRE_SRC/scripts/demo-bridge.sh" "$PODWIRE_BUILD"
	echo "$output" | tail -20
	[ "$status" -eq 0 ]
	[[ "$output" == *"3 packets transmitted, 3 received"* ]]
	[[ "$output" == *"demo succeeded"* ]]
	[[ "$output" == *"cnitool del"*": ok"* ]]
	assert_nothing_left
}

@test "demo cleans up after a failure" {
	PODWIRE_DEMO_CNI_PATH=/nonexistent run bash "$PODWIRE_SRC/scripts/demo-bridge.sh" "$PODWIRE_BUILD"
	[ "$status" -ne 0 ]
	[[ "$output" == *'failed to find plugin "bridge"'* ]]
	assert_nothing_left
}

@test "demo cleans up when interrupted" {
	run timeout -s INT 1 bash "$PODWIRE_SRC/scripts/demo-bridge.sh" "$PODWIRE_BUILD"
	[ "$status" -ne 0 ]
	[[ "$output" != *"demo succeeded"* ]]
	[[ "$output" == *"cleaning up"* ]]
	assert_nothing_left
}
