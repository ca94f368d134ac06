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

@test "an ADD failing after default-route puts the pod's default routes back" {
	# Another attachment's default route in the pod, which default-route removes.
	in_ns "$POD_NS" ip link add nb0 type veth peer name nb0p
	in_ns "$POD_NS" ip link set nb0p up
	in_ns "$POD_NS" ip link set nb0 up
	in_ns "$POD_NS" ip addr add 10.55.0.2/24 dev nb0
	in_ns "$POD_NS" ip route add default via 10.55.0.1 dev nb0 metric 500
	mn_pod pod1 '[{"name":"net-a","default-route":["10.98.1.1"]}]'
	mn_conf '{"logLevel":"debug"}'
	# The stand-in cannot write pod1 back: every PATCH of network-status fails.
	mkdir "$MN/fixtures/pods/ns1/pod1.json.tmp"
	mn_run -e 1 ADD
	# (The code is the HTTP client's: the stand-in drops the connection.)
	assert_json '.msg | startswith("network-status: apiserver")' true
	grep -q "default-route: IPv4 default via 10.98.1.1 dev net1" "$PW_STDERR"
	[ "$(defaults 4)" = "default via 10.55.0.1 dev nb0" ]
	grep -q "undo 'restore the IPv4 default routes' done" "$PW_STDERR"
	[ "$(mn_pod_links)" = "nb0 nb0p " ]
	[ ! -e "$MN/cache/$CID" ]
}
