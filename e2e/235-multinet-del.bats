#!/usr/bin/env bats
# multinet's DEL and GC whatever is gone or wrong: one test per line of the
# "DEL and GC" table in plugins/meta/multinet/README.md. The cluster network ends
# in a recording noop, so a test sees whether a DEL ran any delegate; the
# stand-in's request log shows whether it asked the apiserver.

setup() {
	load helpers
	load multinet-helpers
	mn_setup
	mn_std_nads
	# eth0: podwire bridge + host-local, then a noop that records each call.
	cat >"$MN/conf/10-cluster.conflist" <<JSON
{"cniVersion":"1.0.0","name":"cluster","plugins":[{"type":"bridge","bridge":"mncl0",
 "isDefaultGateway":true,"ipam":{"type":"host-local","dataDir":"$MN/ipam",
 "ranges":[[{"subnet":"10.99.0.0/24"}]]}},{"type":"noop","recordFile":"$MN/rec"}]}
JSON
	mn_apiserver_start
	mn_conf
}

teardown() {
	# A frozen stand-in only dies once it runs again.
	[ -n "${MN_APISERVER_PID:-}" ] && kill -CONT "$MN_APISERVER_PID" 2>/dev/null
	mn_teardown
}

# Delegate DELs so far (the cluster network's recording noop).
dels() {
	grep -c '"command":"DEL"' "$MN/rec" 2>/dev/null || true
}

requests() {
	wc -l <"$MN/requests.log"
}

tombstone() {
	echo "$MN/cache/deleted/${1:-$CID}-eth0"
}

# host-local's lease files of the cluster network.
leases() {
	find "$MN/ipam/cluster" -maxdepth 1 -type f ! -name lock ! -name 'last_reserved_ip*' \
		2>/dev/null || true
}

# assert_clean [CID]: nothing of the pod left: links in the pod and host,
# caches, leases.
assert_clean() {
	local left
	left="$(mn_pod_links)$(ip -n "$HOST_NS" -o link show type veth | grep -v -e mvup -e mvpeer || true)"
	left+="$(ls "$MN/cache/${1:-$CID}" "$MN/cache/results/"* 2>/dev/null || true)"
	left+="$(leases)"
	if [ -n "$left" ]; then
		echo "# left behind: $left" >&2
		return 1
	fi
}

# refute CMD...: CMD fails (a failure of refute fails the test anywhere).
refute() {
	if "$@" 2>/dev/null; then
		echo "# succeeded: $*" >&2
		return 1
	fi
}

# elapsed_ms CMD...: run CMD, put its duration in $ms.
elapsed_ms() {
	local t0
	t0=$(date +%s%N)
	"$@"
	ms=$((($(date +%s%N) - t0) / 1000000))
}

@test "pod netns gone: DEL with its old path, then with CNI_NETNS empty" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	ip netns del "$POD_NS"
	mn_run DEL
	[ "$(dels)" = 1 ]
	PW_NETNS="" mn_run DEL
	[ "$(dels)" = 1 ]
	pw_netns_new "$POD_NS"
	assert_clean
}

@test "pod devices gone: every delegate's DEL still succeeds, nothing left" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	in_ns "$POD_NS" ip link del eth0
	in_ns "$POD_NS" ip link del net1
	in_ns "$POD_NS" ip link del net2
	mn_run DEL
	assert_clean
}

@test "apiserver stopped: StopPodSandbox's DEL from the cache, RemovePodSandbox's a no-op" {
	mn_conf '{"logLevel":"info"}'
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	mn_apiserver_stop
	mn_run DEL
	[ "$(dels)" = 1 ]
	[ -f "$(tombstone)" ]
	assert_clean
	# RemovePodSandbox: CNI_NETNS empty. No delegate, no apiserver.
	PW_NETNS="" mn_run DEL
	grep -q "$CID/eth0: already deleted" "$PW_STDERR"
	[ "$(grep -c apiserver "$PW_STDERR")" = 0 ]
	[ "$(dels)" = 1 ]
	# With the stand-in back, another DEL shows it is not even asked.
	mn_apiserver_start
	local before
	before=$(requests)
	PW_NETNS="" mn_run DEL
	[ "$(dels)" = 1 ]
	[ "$(requests)" = "$before" ]
}

@test "apiserver stopped, no cache, no prevResult: the cluster network from config, fast" {
	mn_conf '{"logLevel":"info"}'
	mn_pod pod1 "net-a"
	mn_run ADD
	rm "$MN/cache/$CID"
	mn_apiserver_stop
	elapsed_ms mn_run DEL
	echo "# DEL took $ms ms" >&3
	[ "$ms" -lt 1500 ]
	# One refused connect, not retried.
	[ "$(grep -c retrying "$PW_STDERR")" = 0 ]
	grep -q "Connection refused" "$PW_STDERR"
	grep -q "only the cluster and default networks are deleted" "$PW_STDERR"
	[ "$(dels)" = 1 ]
	in_ns "$POD_NS" ip link show net1
	refute in_ns "$POD_NS" ip link show eth0
	[ -z "$(leases)" ]
	# The second DEL: the tombstone, nothing run.
	PW_NETNS="" mn_run DEL
	[ "$(dels)" = 1 ]
}

@test "apiserver frozen (accepts, never answers): DEL bounded by its 3 s budget" {
	mn_pod pod1 "net-a"
	mn_run ADD
	rm "$MN/cache/$CID"
	kill -STOP "$MN_APISERVER_PID"
	elapsed_ms mn_run DEL
	kill -CONT "$MN_APISERVER_PID"
	echo "# DEL took $ms ms" >&3
	[ "$ms" -ge 2900 ]
	[ "$ms" -lt 4500 ]
	grep -q "only the cluster and default networks are deleted" "$PW_STDERR"
	[ "$(dels)" = 1 ]
	refute in_ns "$POD_NS" ip link show eth0
}

@test "apiserver stopped, no cache, a prevResult: success, a warning names what is left" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	local prev=$output
	rm "$MN/cache/$CID"
	mn_apiserver_stop
	jq --argjson p "$prev" '. + {prevResult: $p}' "$MN/multinet.json" >"$MN/m.tmp"
	mv "$MN/m.tmp" "$MN/multinet.json"
	mn_run DEL
	grep -q "an ADD finished (prevResult) and the apiserver could not be reached" "$PW_STDERR"
	# What needs no apiserver is gone; the pod's own networks are left.
	[ "$(dels)" = 1 ]
	refute in_ns "$POD_NS" ip link show eth0
	[ -f "$(tombstone)" ]
	# The second DEL asks nothing and succeeds.
	mn_apiserver_start
	local before
	before=$(requests)
	PW_NETNS="" mn_run DEL
	[ "$(requests)" = "$before" ]
}

@test "NAD missing: not needed with a cache; after a failed ADD a warning, no cache" {
	mn_pod pod1 "net-a,net-b"
	mn_run ADD
	rm "$MN/fixtures/nads/ns1/net-b.json"
	mn_run DEL
	assert_clean
	# A new sandbox of the pod, whose NAD is missing.
	local cid2="${CID}2" before
	mn_pod pod1 "net-a,nope"
	mn_run -e 1 ADD "$cid2"
	assert_error 7 "ns1/nope"
	[ ! -e "$MN/cache/$cid2" ]
	mn_run DEL "$cid2"
	grep -q "ns1/nope: NetworkAttachmentDefinition not found: that network is not deleted" "$PW_STDERR"
	assert_clean "$cid2"
	# The second DEL asks nothing.
	before=$(requests)
	PW_NETNS="" mn_run DEL "$cid2"
	[ "$(requests)" = "$before" ]
}

@test "NAD deleted and the cache lost: the other networks keep ADD's interface names" {
	mn_pod pod1 "net-b,net-a"
	mn_run ADD
	[ "$(mn_pod_links)" = "eth0 net1 net2 " ]
	rm "$MN/cache/$CID" "$MN/fixtures/nads/ns1/net-b.json"
	mn_run DEL
	grep -q "ns1/net-b: NetworkAttachmentDefinition not found" "$PW_STDERR"
	# net-a was deleted as net2; net-b's net1 is what the warning names.
	[ "$(mn_pod_links)" = "net1 " ]
}

@test "namespaceIsolation refused: ADD fails, the DEL after it succeeds with a warning" {
	mn_nad other net-o '{"cniVersion":"1.0.0","type":"noop"}'
	mn_conf '{"namespaceIsolation":true}'
	mn_pod pod1 "net-a,other/net-o"
	mn_run -e 1 ADD
	assert_error 7 "namespaceIsolation"
	mn_run DEL
	grep -q "namespaceIsolation.*that network is not deleted" "$PW_STDERR"
	assert_clean
}

@test "delegate binary missing on ADD: rolled back, no cache; DEL succeeds" {
	mn_nad ns1 net-x '{"cniVersion":"1.0.0","type":"no-such-plugin"}'
	mn_pod pod1 "net-a,net-x"
	mn_run -e 1 ADD
	assert_error 104 "no-such-plugin"
	[ ! -e "$MN/cache/$CID" ]
	assert_clean
	mn_run DEL
	grep -q 'network ns1/net-x (net2): DEL can never succeed' "$PW_STDERR"
	assert_clean
}

@test "delegate binary gone after ADD: DEL deletes the others, warns, drops the cache" {
	mkdir "$MN/bin"
	cp "$PODWIRE_TEST_BIN/noop" "$MN/bin/goner"
	mn_nad ns1 net-g "{\"cniVersion\":\"1.0.0\",\"type\":\"goner\",\"recordFile\":\"$MN/rec-g\"}"
	mn_pod pod1 "net-a,net-g"
	PW_CNI_PATH="$PW_CNI_PATH:$MN/bin" mn_run ADD
	[ -f "$MN/cache/results/net-g-$CID-net2" ]
	rm "$MN/bin/goner"
	PW_CNI_PATH="$PW_CNI_PATH:$MN/bin" mn_run DEL
	grep -q 'network ns1/net-g (net2): DEL can never succeed.*failed to find plugin "goner"' "$PW_STDERR"
	[ "$(dels)" = 1 ]
	assert_clean
}

@test "a delegate refusing its config on DEL (code 7): a warning, the others deleted" {
	mn_nad ns1 net-f '{"cniVersion":"1.0.0","type":"fail","code":7,"msg":"bad key","failOn":["DEL"]}'
	mn_pod pod1 "net-a,net-f"
	mn_run ADD
	mn_run DEL
	grep -q 'network ns1/net-f (net2): DEL can never succeed (.*bad key.*code 7)' "$PW_STDERR"
	[ "$(dels)" = 1 ]
	assert_clean
}

@test "config wrong on DEL: warnings, the cache is used; without one, config needs no apiserver" {
	mn_pod pod1 "net-a"
	mn_run ADD
	jq '. + {namespaceIsolation:"yes", delegates:5, kubeconfig:"/nonexistent",
		clusterNetwork:"/nonexistent/cluster.conflist"}' "$MN/multinet.json" >"$MN/bad.json"
	run_plugin multinet DEL <"$MN/bad.json"
	grep -q "namespaceIsolation: must be a boolean" "$PW_STDERR"
	assert_clean
	# Another container, never added, the same broken config: nothing to
	# delete, every problem a warning.
	run_plugin multinet DEL eth0 "${CID}2" <"$MN/bad.json"
	grep -q "/nonexistent" "$PW_STDERR"
	[ -f "$(tombstone "${CID}2")" ]
}

@test "GC removes tombstones not in cni.dev/valid-attachments; an ADD removes its own" {
	mn_pod pod1 ""
	mn_run ADD
	mn_run DEL
	[ -f "$(tombstone)" ]
	mn_run ADD
	[ ! -e "$(tombstone)" ]
	mn_run DEL
	PW_NETNS="" mn_run DEL other1
	[ -f "$(tombstone)" ]
	[ -f "$(tombstone other1)" ]
	jq '. + {cniVersion:"1.1.0","cni.dev/valid-attachments":[{"containerID":"other1","ifname":"eth0"}]}' \
		"$MN/multinet.json" >"$MN/gc.json"
	run_plugin multinet GC <"$MN/gc.json"
	[ ! -e "$(tombstone)" ]
	[ -f "$(tombstone other1)" ]
	jq '."cni.dev/valid-attachments" = []' "$MN/gc.json" >"$MN/gc2.json"
	run_plugin multinet GC <"$MN/gc2.json"
	[ -z "$(ls -A "$MN/cache/deleted")" ]
	assert_clean
}

@test "an ADD that fails puts back the tombstone it removed: the DEL after it is a no-op" {
	mn_pod pod1 ""
	mn_run ADD
	mn_run DEL
	[ -f "$(tombstone)" ]
	mn_nad ns1 net-bad '{"cniVersion":"1.0.0","type":"fail","code":104,"msg":"boom","failOn":["ADD"]}'
	mn_pod pod1 "net-bad"
	mn_run -e 1 ADD
	assert_error 104 "boom"
	[ -f "$(tombstone)" ]
	assert_clean
	local before n
	before=$(requests)
	n=$(dels)
	mn_run DEL
	[ "$(requests)" = "$before" ]
	[ "$(dels)" = "$n" ]
}

@test "GC with the apiserver frozen: bounded, the cluster network found in confDir" {
	mn_conf '{"cniVersion":"1.1.0","clusterNetwork":"cluster"}'
	mn_pod pod1 ""
	mn_run ADD
	mn_run DEL
	[ -f "$(tombstone)" ]
	jq '. + {"cni.dev/valid-attachments":[]}' "$MN/multinet.json" >"$MN/gc.json"
	kill -STOP "$MN_APISERVER_PID"
	elapsed_ms run_plugin multinet GC <"$MN/gc.json"
	kill -CONT "$MN_APISERVER_PID"
	echo "# GC took $ms ms" >&3
	[ "$ms" -lt 4500 ]
	[ ! -e "$(tombstone)" ]
}
