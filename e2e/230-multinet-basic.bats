#!/usr/bin/env bats
# multinet on a real kernel: eth0 (podwire bridge) + net1 (macvlan on a veth;
# podwire's macvlan if built, else the reference one: see MN_MACVLAN) + net2
# (podwire bridge, static IPAM), from both annotation forms; the
# network-status it writes; DEL from the cache with the apiserver stopped.

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

@test "comma form: eth0 + net1 + net2, result is the cluster network's" {
	echo "# macvlan: $MN_MACVLAN" >&3
	mn_pod pod1 "net-a, ns1/net-b"
	mn_run ADD
	assert_json .cniVersion 1.0.0
	assert_json '.interfaces | map(select(.sandbox != null)) | .[0].name' eth0
	assert_json '[.ips[].address] | map(select(startswith("10.99.0."))) | length' 1
	[ "$(mn_pod_links)" = "eth0 net1 net2 " ]
	in_ns "$POD_NS" ip -o addr show dev net1 | grep -q 'inet 10.98.1.10/24'
	in_ns "$POD_NS" ip -o addr show dev net2 | grep -q 'inet 10.97.0.10/24'
	# libcni's own result cache, one entry per delegate, in cniDir/results.
	[ -f "$MN/cache/results/cluster-$CID-eth0" ]
	[ -f "$MN/cache/results/net-a-$CID-net1" ]
	[ -f "$MN/cache/results/net-b-$CID-net2" ]
	output=$(mn_cache_entry)
	assert_json .kind multinetCacheV1
	assert_json '[.delegates[] | .name + "=" + .ifname + ":" + .state] | join(",")' \
		"cluster=eth0:added,ns1/net-a=net1:added,ns1/net-b=net2:added"
	[ "$(stat -c %a "$MN/cache/$CID")" = 600 ]
	# A journal: the durable first line (every delegate pending), then one
	# appended update per delegate, in order.
	[ "$(wc -l <"$MN/cache/$CID")" = 4 ]
	[ "$(head -1 "$MN/cache/$CID" | jq -r '[.delegates[].state] | join(",")')" = \
		"pending,pending,pending" ]
	[ "$(tail -n +2 "$MN/cache/$CID" | jq -r '"\(.index):\(.value.state)"' | paste -sd,)" = \
		"0:added,1:added,2:added" ]
}

@test "network-status lists every attachment with the spec's keys" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	output=$(mn_status_annotation)
	assert_json 'length' 3
	assert_json '[.[].name] | join(",")' "cluster,ns1/net-a,ns1/net-b"
	assert_json '[.[].interface] | join(",")' "eth0,net1,net2"
	assert_json '[.[].default] | join(",")' "true,false,false"
	# Bare addresses, as the spec and Multus write them.
	assert_json '.[1].ips | join(",")' "10.98.1.10,fd98:1::10"
	assert_json '.[2].ips | join(",")' "10.97.0.10"
	assert_json '.[0].ips[0] | test("^10\\.99\\.0\\.[0-9]+$")' true
	assert_json '[.[] | has("dns")] | all' true
	local mac
	mac=$(in_ns "$POD_NS" cat /sys/class/net/net1/address)
	assert_json '.[1].mac' "$mac"
	# One pod GET, two NAD GETs, one PATCH, all on one kept connection.
	output=$(jq -s '.' "$MN/requests.log")
	assert_json '[.[].method] | join(",")' "GET,GET,GET,PATCH"
	assert_json '[.[].clientPort] | unique | length' 1
	assert_json '.[3].contentType' application/merge-patch+json
	# Through the status subresource, the only pod write the ClusterRole grants.
	assert_json '.[3].path' /api/v1/namespaces/ns1/pods/pod1/status
	assert_json '[.[].status] | unique | map(tostring) | join(",")' 200
	assert_json '.[0].path' /api/v1/namespaces/ns1/pods/pod1
	assert_json '.[1].path' /apis/k8s.cni.cncf.io/v1/namespaces/ns1/network-attachment-definitions/net-a
}

@test "JSON form: interface names, ips and the namespace are honoured" {
	mn_pod pod1 '[{"name":"net-b","namespace":"ns1","interface":"data0","ips":["10.97.0.20/24"]},
	 {"name":"net-a","interface":"rail1"}]'
	mn_run ADD
	[ "$(mn_pod_links)" = "data0 eth0 rail1 " ]
	in_ns "$POD_NS" ip -o addr show dev data0 | grep -q 'inet 10.97.0.20/24'
	output=$(mn_status_annotation)
	assert_json '[.[].interface] | join(",")' "eth0,data0,rail1"
	output=$(mn_cache_entry)
	assert_json '.delegates[1].capabilityArgs.ips[0]' 10.97.0.20/24
}

@test "DEL works from the cache with the apiserver stopped, and only once needed" {
	mn_pod pod1 "net-a,net-b"
	pw_snapshot before
	mn_run ADD
	mn_apiserver_stop
	local before
	before=$(wc -l <"$MN/requests.log")
	mn_run DEL
	[ "$(wc -l <"$MN/requests.log")" = "$before" ]
	[ "$(mn_pod_links)" = "" ]
	[ ! -e "$MN/cache/$CID" ]
	[ -z "$(ls "$MN/cache/results")" ]
	run ! grep -q veth <<<"$(ip -n "$HOST_NS" -o link show)"
	# A second DEL finds the first one's tombstone: nothing to do, no warning.
	mn_run DEL
	[ ! -s "$PW_STDERR" ]
}

@test "the TLS session is kept in cniDir/tls and the next call resumes it" {
	mn_pod pod1 "net-a"
	mn_run ADD
	mn_run DEL
	[ "$(stat -c %a "$MN/cache/tls")" = 700 ]
	[ "$(stat -c %a "$MN/cache/tls/apiserver")" = 600 ]
	mn_run ADD
	output=$(jq -s '.' "$MN/requests.log")
	# GET pod, GET NAD, PATCH: a full handshake, then the same three resumed.
	assert_json '[.[].tlsResumed | tostring] | join(",")' "false,false,false,true,true,true"
	# Another CA file (the same CA in a bundle with the server's certificate:
	# other bytes): not resumed.
	cat "$MN/certs/ca.crt" "$MN/certs/server.crt" >"$MN/ca2.crt"
	mn_kubeconfig "$MN/ca2.crt"
	mn_run DEL
	mn_run ADD
	output=$(jq -s '.[6:] | [.[].tlsResumed | tostring] | join(",")' -r "$MN/requests.log")
	[ "$output" = "false,false,false" ]
	# A garbage file is a full handshake, as without one.
	head -c 64 /dev/urandom >"$MN/cache/tls/apiserver"
	mn_run DEL
	mn_run ADD
	output=$(jq -s '.[9:] | [.[].tlsResumed | tostring] | join(",")' -r "$MN/requests.log")
	[ "$output" = "false,false,false" ]
}

@test "DEL with the netns gone and CNI_NETNS empty still releases everything" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	ip netns del "$POD_NS"
	PW_NETNS="" mn_run DEL
	[ ! -e "$MN/cache/$CID" ]
	# No lease left: only the lock and last_reserved_ip files remain.
	[ -z "$(ls "$MN/ipam/cluster" | grep -v -e '^lock$' -e '^last_reserved_ip')" ]
}

@test "CHECK runs every delegate and detects a removed interface" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	mn_run CHECK
	[ -z "$output" ]
	in_ns "$POD_NS" ip link del net2
	mn_run -e 1 CHECK
	assert_error 105 "ns1/net-b"
	mn_run DEL
}

@test "DEL without a cache, pod still known: delegates rebuilt from the apiserver" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	rm "$MN/cache/$CID"
	mn_run DEL
	grep -q "no cache for $CID" "$PW_STDERR"
	[ "$(mn_pod_links)" = "" ]
	[ -z "$(ls "$MN/cache/results")" ]
	run ! grep -q veth <<<"$(ip -n "$HOST_NS" -o link show)"
}

@test "DEL with a corrupt cache falls back the same way and says so" {
	mn_pod pod1 "net-a"
	mn_run ADD
	echo '{"kind":"multinetCacheV1",' >"$MN/cache/$CID"
	mn_run DEL
	grep -q "cache for $CID unusable" "$PW_STDERR"
	[ ! -e "$MN/cache/$CID" ]
	[ "$(mn_pod_links)" = "" ]
}

# The stand-in holds exactly the shipped ClusterRole, so the tests above
# prove multinet needs no more than it grants.
mn_curl_patch() {
	ip netns exec "$HOST_NS" curl -sS --noproxy '*' -o /dev/null -w '%{http_code}' \
		--cacert "$MN/certs/ca.crt" -H "Authorization: Bearer $MN_TOKEN" \
		-H 'Content-Type: application/merge-patch+json' -X PATCH \
		--data '{"metadata":{"annotations":{"x":"y"}}}' \
		"https://127.0.0.1:$MN_PORT/api/v1/namespaces/ns1/pods/pod1$1"
}

@test "the shipped ClusterRole: PATCH of pods/status granted, of the pod itself 403" {
	mn_pod pod1 "net-a"
	[ "$(mn_curl_patch)" = 403 ]
	[ "$(jq -r '.metadata.annotations.x // "unset"' "$MN/fixtures/pods/ns1/pod1.json")" = unset ]
	[ "$(mn_curl_patch /status)" = 200 ]
	[ "$(jq -r '.metadata.annotations.x' "$MN/fixtures/pods/ns1/pod1.json")" = y ]
}
