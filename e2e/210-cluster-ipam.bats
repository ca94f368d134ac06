#!/usr/bin/env bats
# cluster-ipam against a real etcd: the client, allocation, dual stack in
# one txn, re-ADD, DEL, CHECK, requested IPs, pools that disagree,
# exhaustion and borrowing, block blackholes.

load cluster-ipam-helpers

setup() {
	ci_setup
}

teardown() {
	ci_teardown
}

@test "pwetcd: kv, txn (failed txn has no 'succeeded'), lease and watch over http and unix" {
	run "$PODWIRE_TEST_BIN/pwetcd-smoke" "$CI_HTTP" "$CI_PREFIX/h"
	[ "$status" -eq 0 ] || { echo "# $output" >&2; false; }
	run "$PODWIRE_TEST_BIN/pwetcd-smoke" "$CI_EP" "$CI_PREFIX/u"
	[ "$status" -eq 0 ] || { echo "# $output" >&2; false; }
	[ "${lines[3]}" = "watch ok" ]
}

@test "VERSION answers" {
	run_plugin cluster-ipam VERSION <<<'{"cniVersion":"1.1.0"}'
	assert_json '.supportedVersions | index("1.1.0") != null' true
}

@test "ADD: dual stack from the node's block, one txn; blackholes proto 81; re-ADD gives the same" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	assert_json '.ips | length' 2
	local v4 v6
	v4=$(jq -r '.ips[0].address' <<<"$output")
	v6=$(jq -r '.ips[1].address' <<<"$output")
	[[ "$v4" == 10.244.*/26 ]]
	[[ "$v6" == fd00:10:244:*/122 ]]
	# the handle holds both (one write)
	run ci_dump
	[[ "$output" == *"/ipam/handles/n1/c1/eth0"* ]]
	local h
	h=$(ETCDCTL_API=3 etcdctl --endpoints="$CI_HTTP" get --print-value-only "$CI_PREFIX/ipam/handles/n1/c1/eth0")
	[ "$(jq -r '.ips | join(" ")' <<<"$h")" = "$v4 $v6" ]
	# blackholes for both blocks
	local b4
	b4=$(/usr/bin/python3 -c "import ipaddress,sys; print(ipaddress.ip_interface(sys.argv[1]).network)" "$v4")
	run ip -n "$HOST_NS" route show proto 81 type blackhole
	[[ "$output" == *"blackhole $b4"* ]]
	run ip -n "$HOST_NS" -6 route show proto 81 type blackhole
	[[ "$output" == *"/122"* ]]
	# same attachment again: same addresses, nothing new
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	assert_json '.ips[0].address' "$v4"
	assert_json '.ips[1].address' "$v6"
	# next pod: next address of the same block
	run_plugin cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1)"
	local v4b
	v4b=$(jq -r '.ips[0].address' <<<"$output")
	[ "$v4b" != "$v4" ]
	[ "$(/usr/bin/python3 -c "import ipaddress,sys; print(ipaddress.ip_interface(sys.argv[1]).network)" "$v4b")" = "$b4" ]
	run_plugin cluster-ipam CHECK eth0 c1 <<<"$(ci_conf n1)"
	ci_check "$HOST_NS" n1
}

@test "DEL releases by handle and is idempotent; CHECK then fails with 105" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	local v4
	v4=$(jq -r '.ips[0].address' <<<"$output")
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1)"
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1)"
	run_plugin -e 1 cluster-ipam CHECK eth0 c1 <<<"$(ci_conf n1)"
	assert_error 105 "no addresses allocated"
	run ci_dump
	[[ "$output" != *"/ipam/handles/"* ]]
	# the block stays with the node (released by GC only)
	[[ "$output" == *"/ipam/affinity/n1/4/"* ]]
	ci_check "$HOST_NS" n1
	# a DEL that never had an ADD succeeds
	run_plugin cluster-ipam DEL eth0 never <<<"$(ci_conf n1)"
}

@test "DEL with CNI_NETNS empty works" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	PW_NETNS="" run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1)"
	run ci_dump
	[[ "$output" != *"/ipam/handles/"* ]]
}

@test "single-stack pools give one address" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 '.ipam.pools=[{"cidr":"10.250.0.0/24","blockSize":28}]')"
	assert_json '.ips | length' 1
	[[ "$(jq -r '.ips[0].address' <<<"$output")" == 10.250.0.*/28 ]]
}

@test "requested IPs (args.cni.ips, runtimeConfig.ips); a taken one is 102, outside the pools 7" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 '.args={"cni":{"ips":["10.244.200.7"]}}')"
	assert_json '.ips | length' 1
	assert_json '.ips[0].address' "10.244.200.7/26"
	run_plugin cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1 '.runtimeConfig={"ips":["10.244.200.8/24","fd00:10:244::99"]}')"
	assert_json '.ips[0].address' "10.244.200.8/26"
	assert_json '.ips[1].address' "fd00:10:244::99/122"
	# taken elsewhere in the cluster: node n2 asks for it
	run_plugin -e 1 cluster-ipam ADD eth0 c3 <<<"$(ci_conf n2 '.args={"cni":{"ips":["10.244.200.7"]}}')"
	assert_error 102 "10.244.200.7 is already allocated (to n1/c1/eth0)"
	run_plugin -e 1 cluster-ipam ADD eth0 c4 <<<"$(ci_conf n1 '.args={"cni":{"ips":["192.168.1.1"]}}')"
	assert_error 7 "args.cni.ips[0]: 192.168.1.1 is in none of ipam.pools"
	ci_check "$HOST_NS" n1
}

@test "a config whose pool disagrees with etcd is code 7 naming the pool" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	run_plugin -e 1 cluster-ipam ADD eth0 c2 <<<"$(ci_conf n2 '.ipam.pools[0].blockSize=24')"
	assert_error 7 "ipam.pools[0]: pool 10.244.0.0/16/blockSize 24 disagrees with pool 10.244.0.0/16/blockSize 26"
	run_plugin -e 1 cluster-ipam ADD eth0 c2 <<<"$(ci_conf n2 '.ipam.pools[0].cidr="10.244.0.0/17"')"
	assert_error 7 "ipam.pools[0]"
}

@test "bad configs are code 7 naming the key, and touch nothing" {
	touch "$STATE/snapshot.after"
	pw_snapshot before
	local bad
	for bad in '.ipam.etcd.endpoints=["ftp://x"]' '.ipam.pools[0].cidr="10.244.0.1/16"' \
		'.ipam.pools[0].blockSize=33' '.ipam.pools=[]' '.ipam.etcd.timeoutMs=-1' \
		'.ipam.nodeName="a/b"' '.ipam.etcdPrefix="x"' \
		'.ipam.pools=[{"cidr":"10.0.0.0/8"},{"cidr":"10.1.0.0/16"}]' \
		'.ipam.etcd.certFile="/c.pem"' '.ipam.blockRouteProtocol=2'; do
		run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 "$bad")"
		assert_json .code 7
	done
	run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 '.ipam.pools[0].blockSize=33')"
	assert_error 7 "ipam.pools[0].blockSize"
	run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 '.ipam.etcd.endpoints=["ftp://x"]')"
	assert_error 7 "ipam.etcd.endpoints[0]"
	assert_snapshot_same before
	run ci_dump
	[ -z "$output" ]
}

@test "exhaustion: claim every block, then borrow from another node's block, then 101" {
	# 10.9.0.0/29 in /30 blocks: two blocks of 4 addresses
	local small='.ipam.pools=[{"cidr":"10.9.0.0/29","blockSize":30}]'
	local i
	for i in 1 2 3 4; do
		run_plugin cluster-ipam ADD eth0 a$i <<<"$(ci_conf n1 "$small | .ipam.maxBlocksPerNode=1")"
	done
	# n1 holds one block (its cap) and it is full
	run_plugin -e 1 cluster-ipam ADD eth0 a5 <<<"$(ci_conf n1 "$small | .ipam.maxBlocksPerNode=1")"
	assert_error 101 "maxBlocksPerNode"
	# n2 (its own host netns) claims the other block
	local n2="${PW_ID}n2"
	pw_netns_new "$n2"
	for i in 1 2 3; do
		HOST_NS=$n2 run_plugin cluster-ipam ADD eth0 b$i <<<"$(ci_conf n2 "$small")"
	done
	# n1 (no cap now): no free block left, borrows the last address of n2's block
	run_plugin cluster-ipam ADD eth0 a5 <<<"$(ci_conf n1 "$small")"
	local borrowed
	borrowed=$(jq -r '.ips[0].address' <<<"$output")
	run ci_ipam_tool show --json --etcd-endpoint "$CI_EP" --prefix "$CI_PREFIX"
	[ "$(jq -r --arg ip "${borrowed%/*}" '.allocations[] | select(.ip==$ip) | "\(.node) \(.borrowed)"' <<<"$output")" = "n1 true" ]
	# the borrowed address is not covered by a blackhole of n1 (what bgp-route looks at)
	run ip -n "$HOST_NS" route show proto 81 type blackhole
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	# strict affinity would not borrow
	run_plugin -e 1 cluster-ipam ADD eth0 a6 <<<"$(ci_conf n1 "$small | .ipam.strictAffinity=true")"
	assert_error 101 "strictAffinity"
	# the pool is full
	run_plugin -e 1 cluster-ipam ADD eth0 a6 <<<"$(ci_conf n1 "$small")"
	assert_error 101 "every block of the pools is full"
	run_plugin -e 1 cluster-ipam STATUS <<<"$(ci_conf n1 "$small")"
	assert_error 51 "no free IPv4 address"
	# freeing the borrowed one and STATUS is fine again
	run_plugin cluster-ipam DEL eth0 a5 <<<"$(ci_conf n1 "$small")"
	run_plugin cluster-ipam STATUS <<<"$(ci_conf n1 "$small")"
	ci_check "$HOST_NS" n1
	ci_check "$n2" n2
}

@test "podwire-node ipam show lists pools, blocks and allocations; --help" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	run ci_ipam_tool show --etcd-endpoint "$CI_EP" --prefix "$CI_PREFIX"
	[ "$status" -eq 0 ]
	[[ "$output" == *"10.244.0.0/16"*"26"* ]]
	[[ "$output" == *"n1/c1/eth0"* ]]
	echo "{\"nodeName\":\"n1\",\"routerId\":\"10.98.0.1\",\"asNumber\":64512,\"etcd\":{\"endpoints\":[\"$CI_EP\"]},\"etcdPrefix\":\"$CI_PREFIX\"}" >"$STATE/node.json"
	run ci_ipam_tool show --json --node-config "$STATE/node.json"
	[ "$(jq -r '.blocks | length' <<<"$output")" = 2 ]
	[ "$(jq -r '.allocations[0].handle' <<<"$output")" = "n1/c1/eth0" ]
	# the node config is read by podwire-node's own parser: all of it must be valid
	echo "{\"nodeName\":\"n1\",\"etcd\":{\"endpoints\":[\"$CI_EP\"]}}" >"$STATE/bad.json"
	run ci_ipam_tool show --node-config "$STATE/bad.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"podwire-node ipam: $STATE/bad.json: routerId: required"* ]]
	run ci_ipam_tool --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: podwire-node ipam"* ]]
	run ci_ipam_tool bogus
	[ "$status" -eq 2 ]
}

@test "ipam check names every kind of inconsistency" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	local ip4 key
	ip4=$(jq -r '.ips[0].address' <<<"$output")
	export ETCDCTL_API=3
	# a second handle claiming the same IP, a handle pointing at a free ordinal,
	# an affinity without block, a block without affinity, a stray blackhole
	etcdctl --endpoints="$CI_HTTP" put "$CI_PREFIX/ipam/handles/n9/x/eth0" \
		"{\"id\":\"n9/x/eth0\",\"node\":\"n9\",\"containerID\":\"x\",\"ifname\":\"eth0\",\"ips\":[\"$ip4\"]}" >/dev/null
	etcdctl --endpoints="$CI_HTTP" put "$CI_PREFIX/ipam/affinity/n7/4/0a090000-26" '{}' >/dev/null
	etcdctl --endpoints="$CI_HTTP" put "$CI_PREFIX/ipam/blocks/4/0af4ff00-26" \
		'{"cidr":"10.244.255.0/26","node":"n8","used":{}}' >/dev/null
	ip -n "$HOST_NS" route add blackhole 10.244.254.0/26 proto 81
	run ci_in_ns "$HOST_NS" check --etcd-endpoint "$CI_EP" --prefix "$CI_PREFIX" --node n1
	[ "$status" -eq 1 ]
	[[ "$output" == *"IP ${ip4%/*} is in two handles: n1/c1/eth0 and n9/x/eth0"* ]]
	[[ "$output" == *"handle n9/x/eth0:"*"is held by n1/c1/eth0"* ]]
	[[ "$output" == *"affinity without block: n7 -> 10.9.0.0/26"* ]]
	[[ "$output" == *"block 10.244.255.0/26 without affinity (node n8)"* ]]
	[[ "$output" == *"blackhole route 10.244.254.0/26 proto 81 on node n1 for a block it does not hold"* ]]
	# a handle pointing at a free ordinal
	etcdctl --endpoints="$CI_HTTP" put "$CI_PREFIX/ipam/handles/n1/y/eth0" \
		'{"id":"n1/y/eth0","node":"n1","containerID":"y","ifname":"eth0","ips":["10.244.255.9/26"]}' >/dev/null
	run ci_in_ns "$HOST_NS" check --json --etcd-endpoint "$CI_EP" --prefix "$CI_PREFIX" --node n1
	[ "$status" -eq 1 ]
	[ "$(jq -r .consistent <<<"$output")" = false ]
	[[ "$output" == *"handle n1/y/eth0 points at a free ordinal: 10.244.255.9 of block 10.244.255.0/26"* ]]
}
