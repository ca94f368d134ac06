#!/usr/bin/env bats
# podwire-node: bird-config (checked by bird -p, atomic --output, clear
# errors), run without etcd, run with etcd (registry, lease, watch,
# SIGTERM), and the ipam dispatch. BIRD is not started here (see 201, 203).

load helpers
load bgp-helpers

setup() {
	bgp_setup_dirs
	PWN="$PODWIRE_BIN/podwire-node"
}

teardown() {
	bgp_teardown
}

node_json() {
	cat <<EOF2
{"nodeName":"node1","routerId":"10.98.0.1","asNumber":64512,
 "addresses":["10.98.0.1","fd00:98::1"],
 "peers":[{"address":"10.98.0.2"},{"address":"fd00:98::2"}],
 "birdSocket":"$BGP_DIR/bird.ctl","birdConfig":"$BGP_DIR/bird.conf"$1}
EOF2
}

@test "--help, --version, unknown command" {
	run "$PWN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"bird-config --node-config FILE"* ]]
	run "$PWN" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "podwire-node "* ]]
	run "$PWN" frobnicate
	[ "$status" -eq 2 ]
	run "$PWN" bird-config
	[ "$status" -eq 2 ]
	[[ "$output" == *"--node-config FILE is required"* ]]
	run "$PWN" bird-config --help
	[ "$status" -eq 0 ]
}

@test "bird-config prints a config bird -p accepts; --output replaces the file atomically" {
	node_json >"$BGP_DIR/node.json"
	"$PWN" bird-config --node-config "$BGP_DIR/node.json" >"$BGP_DIR/printed.conf"
	bird -p -c "$BGP_DIR/printed.conf"
	grep -q 'netlink rx buffer 8388608;' "$BGP_DIR/printed.conf"
	grep -q 'connect delay time 1;' "$BGP_DIR/printed.conf"
	grep -q 'define PODWIRE_ORIGINATE = \[ 80, 82 \];' "$BGP_DIR/printed.conf"
	echo old >"$BGP_DIR/out.conf"
	"$PWN" bird-config --node-config "$BGP_DIR/node.json" --output "$BGP_DIR/out.conf"
	cmp "$BGP_DIR/out.conf" "$BGP_DIR/printed.conf"
	[ "$(stat -c %a "$BGP_DIR/out.conf")" = 644 ]
	[ -z "$(ls -A "$BGP_DIR" | grep '^\.bird')" ]
}

@test "bad node configs: exit 1 naming the key, the output file untouched" {
	echo old >"$BGP_DIR/out.conf"
	echo '{"nodeName":' >"$BGP_DIR/bad.json"
	run "$PWN" bird-config --node-config "$BGP_DIR/bad.json" --output "$BGP_DIR/out.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad.json"* ]]
	node_json ',"peers":[{"address":"10.98.0.1"}]' >"$BGP_DIR/dup.json"
	run "$PWN" bird-config --node-config "$BGP_DIR/dup.json" --output "$BGP_DIR/out.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"duplicate"* ]] || [[ "$output" == *"duplicate key"* ]]
	node_json ',"exportMode":"all"' >"$BGP_DIR/mode.json"
	run "$PWN" bird-config --node-config "$BGP_DIR/mode.json" --output "$BGP_DIR/out.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *'exportMode: expected "pods" or "blocks", got "all"'* ]]
	run "$PWN" bird-config --node-config "$BGP_DIR/missing.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--node-config $BGP_DIR/missing.json: cannot open"* ]]
	[ "$(cat "$BGP_DIR/out.conf")" = old ]
	node_json ',"asNumbr":1' >"$BGP_DIR/typo.json"
	run "$PWN" bird-config --node-config "$BGP_DIR/typo.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"unknown key 'asNumbr' ignored (did you mean 'asNumber'?)"* ]]
	# a known key but for letter case was meant: an error naming both
	node_json ',"asnumber":1' >"$BGP_DIR/case.json"
	run "$PWN" bird-config --node-config "$BGP_DIR/case.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"'asnumber': unknown key (did you mean 'asNumber'?)"* ]]
}

@test "bird rejecting the config is an error with bird's message; no bird: a warning" {
	node_json >"$BGP_DIR/node.json"
	echo old >"$BGP_DIR/out.conf"
	printf '#!/bin/sh\necho "bird: $3:7:1 syntax error"\nexit 1\n' >"$BGP_DIR/fakebird"
	chmod +x "$BGP_DIR/fakebird"
	PODWIRE_BIRD="$BGP_DIR/fakebird" run "$PWN" bird-config --node-config "$BGP_DIR/node.json" \
		--output "$BGP_DIR/out.conf"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bird -p rejected the rendered config"* ]]
	[[ "$output" == *"syntax error"* ]]
	[ "$(cat "$BGP_DIR/out.conf")" = old ]
	[ -z "$(ls -A "$BGP_DIR" | grep '^\.bird')" ]
	PODWIRE_BIRD=/nonexistent/bird run "$PWN" bird-config --node-config "$BGP_DIR/node.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"bird not installed, config not checked"* ]]
}

@test "run without etcd: renders once into birdConfig and exits" {
	node_json >"$BGP_DIR/node.json"
	run "$PWN" run --node-config "$BGP_DIR/node.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"BIRD is not running (no $BGP_DIR/bird.ctl)"* ]]
	bird -p -c "$BGP_DIR/bird.conf"
	run "$PWN" run --node-config "$BGP_DIR/node.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"is current"* ]]
}

@test "run with etcd: registry with a lease, re-render on membership change, SIGTERM revokes" {
	bgp_etcd_start
	local i
	for i in 1 2 3; do
		mkdir -p "$BGP_DIR/n$i"
		cat >"$BGP_DIR/n$i/node.json" <<EOF2
{"nodeName":"node$i","routerId":"10.98.0.$i","asNumber":64512,"addresses":["10.98.0.$i","fd00:98::$i"],
 "birdSocket":"$BGP_DIR/n$i/bird.ctl","birdConfig":"$BGP_DIR/n$i/bird.conf",
 "etcd":{"endpoints":["$BGP_ETCD"]},"etcdPrefix":"/pw-$BGP_ID","leaseTtl":3}
EOF2
		bgp_run_start "$i"
	done
	for i in $(seq 1 50); do
		[ "$(cat "$BGP_DIR"/n*/bird.conf 2>/dev/null | grep -c '^protocol bgp')" -eq 12 ] && break
		sleep 0.1
	done
	[ "$(grep -c '^protocol bgp' "$BGP_DIR/n1/bird.conf")" -eq 4 ]
	grep -q 'neighbor fd00:98::3 as 64512;' "$BGP_DIR/n1/bird.conf"
	[ "$(etcdctl_b get --prefix "/pw-$BGP_ID/nodes/" --keys-only | grep -c node)" -eq 3 ]
	etcdctl_b get "/pw-$BGP_ID/nodes/node2" --print-value-only | jq -e '.routerId == "10.98.0.2"'
	# a node with a router id already registered is refused
	sed 's/"node3"/"node4"/; s/"n3/"n4/g' "$BGP_DIR/n3/node.json" >"$BGP_DIR/dup.json"
	run "$PWN" run --node-config "$BGP_DIR/dup.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"routerId: 10.98.0.3 is already registered by node node3 (duplicate router id)"* ]]
	# SIGTERM: node3 revokes its lease, the others drop it
	kill -TERM "$(cat "$BGP_DIR/n3/run.pid")"
	for i in $(seq 1 50); do
		[ "$(grep -c '^protocol bgp' "$BGP_DIR/n1/bird.conf")" -eq 2 ] && break
		sleep 0.1
	done
	[ "$(grep -c '^protocol bgp' "$BGP_DIR/n1/bird.conf")" -eq 2 ]
	[ "$(grep -c '^protocol bgp' "$BGP_DIR/n2/bird.conf")" -eq 2 ]
	grep -q 'lease .* revoked' "$BGP_DIR/n3/run.log"
	[ -z "$(etcdctl_b get "/pw-$BGP_ID/nodes/node3")" ]
	# SIGKILL: the lease expires after its TTL (3 s) and the record goes
	kill -KILL "$(cat "$BGP_DIR/n2/run.pid")"
	for i in $(seq 1 80); do
		[ -z "$(etcdctl_b get "/pw-$BGP_ID/nodes/node2")" ] && break
		sleep 0.1
	done
	[ -z "$(etcdctl_b get "/pw-$BGP_ID/nodes/node2")" ]
}

@test "ipam is handed to cluster-ipam" {
	run "$PWN" ipam show
	[[ "$output" != *"built without cluster-ipam"* ]]
}
