#!/usr/bin/env bats
# default-route: the pod's default route (IPv4 and IPv6) moves from eth0 to
# the network that asks for it, verified with a route dump; the cached
# results agree, so CHECK passes; ECMP requests are refused.

setup() {
	load helpers
	load multinet-helpers
	mn_setup
	mn_cluster_conf
	mn_std_nads
	mn_apiserver_start
	mn_conf
}

teardown() {
	mn_teardown
}

defaults() {
	in_ns "$POD_NS" ip "-$1" route show default | sed 's/ proto [a-z]*//; s/ metric [0-9]*//; s/ pref medium//; s/ *$//'
}

@test "without default-route eth0 keeps the default routes" {
	mn_pod pod1 "net-a"
	mn_run ADD
	[ "$(defaults 4)" = "default via 10.99.0.1 dev eth0" ]
	[ "$(defaults 6)" = "default via fd99::1 dev eth0" ]
	mn_run DEL
}

@test "default-route on net1 moves both families there; cache and CHECK agree" {
	mn_pod pod1 '[{"name":"net-a","default-route":["10.98.1.1","fd98:1::1"]},{"name":"net-b"}]'
	mn_run ADD
	[ "$(defaults 4)" = "default via 10.98.1.1 dev net1" ]
	[ "$(defaults 6)" = "default via fd98:1::1 dev net1" ]
	# The runtime's result (eth0's) and the caches no longer claim eth0's default.
	assert_json '[.routes[]? | select(.dst == "0.0.0.0/0" or .dst == "::/0")] | length' 0
	output=$(jq .result "$MN/cache/results/cluster-$CID-eth0")
	assert_json '[.routes[]? | select(.dst == "0.0.0.0/0" or .dst == "::/0")] | length' 0
	output=$(jq .result "$MN/cache/results/net-a-$CID-net1")
	assert_json '[.routes[] | select(.dst == "0.0.0.0/0") | .gw] | join(",")' 10.98.1.1
	assert_json '[.routes[] | select(.dst == "::/0") | .gw] | join(",")' fd98:1::1
	mn_run CHECK
	mn_run DEL
	[ "$(mn_pod_links)" = "" ]
}

@test "IPv4 only: the IPv6 default stays on eth0" {
	mn_pod pod1 '[{"name":"net-a","default-route":["10.98.1.1"]}]'
	mn_run ADD
	[ "$(defaults 4)" = "default via 10.98.1.1 dev net1" ]
	[ "$(defaults 6)" = "default via fd99::1 dev eth0" ]
	mn_run DEL
}

@test "two IPv4 gateways (ECMP) are refused before anything runs" {
	mn_nad ns1 net-c '{"cniVersion":"1.0.0","type":"noop"}'
	mn_pod pod1 '[{"name":"net-a","default-route":["10.98.1.1"]},{"name":"net-c","default-route":["10.1.1.1"]}]'
	mn_run -e 1 ADD
	assert_error 7 "ECMP"
	assert_error 7 "ns1/net-c"
	[ "$(mn_pod_links)" = "" ]
	[ ! -e "$MN/cache/$CID" ]
}

@test "an empty default-route list changes nothing" {
	mn_pod pod1 '[{"name":"net-a","default-route":[]}]'
	mn_run ADD
	[ "$(defaults 4)" = "default via 10.99.0.1 dev eth0" ]
	mn_run DEL
}
