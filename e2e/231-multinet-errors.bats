#!/usr/bin/env bats
# multinet's failures: a failing delegate rolls everything back; bad input
# (annotation, NAD, kubeconfig, certificate, ifname) is a clear CNI error that
# names the network or key and leaves nothing behind; namespaceIsolation;
# apiserver retries.

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

# Nothing of this attachment anywhere: pod links, host veths, caches, leases.
assert_nothing_left() {
	[ "$(mn_pod_links)" = "" ]
	run ! grep -q veth <<<"$(ip -n "$HOST_NS" -o link show)"
	[ ! -e "$MN/cache/$CID" ]
	[ -z "$(ls "$MN/cache/results" 2>/dev/null)" ]
	[ -z "$(ls "$MN/ipam/cluster" 2>/dev/null | grep -v -e '^lock$' -e '^last_reserved_ip')" ]
}

@test "a failing delegate: everything added before is DELeted in reverse, error names it" {
	mn_nad ns1 net-bad '{"cniVersion":"1.0.0","type":"fail","code":104,"msg":"boom",
	 "failOn":["ADD"]}'
	mn_pod pod1 "net-a,net-b,net-bad"
	mn_run -e 1 ADD
	assert_error 104 "network ns1/net-bad (net3)"
	assert_error 104 "boom"
	assert_nothing_left
	# The runtime's DEL afterwards is a clean no-op success.
	mn_run DEL
}

@test "a rollback whose DEL fails keeps the cache; the runtime's DEL finishes the job" {
	mn_nad ns1 net-bad '{"cniVersion":"1.0.0","type":"fail","code":104,"msg":"boom",
	 "failOn":["ADD","DEL"]}'
	mn_pod pod1 "net-a,net-bad"
	mn_run -e 1 ADD
	assert_error 104 "network ns1/net-bad (net2)"
	assert_error 104 "rollback incomplete"
	grep -q "rollback: network ns1/net-bad (net2): .*boom; the cache stays" "$PW_STDERR"
	# The others were DELeted; the cache names every delegate for the retry.
	[ "$(mn_pod_links)" = "" ]
	[ -f "$MN/cache/$CID" ]
	mn_cache_entry | jq '.delegates[2].config.plugins[0].failOn = []' >"$MN/c.tmp"
	mv "$MN/c.tmp" "$MN/cache/$CID"
	mn_run DEL
	assert_nothing_left
}

@test "a delegate DEL that fails keeps the cache; the retried DEL finishes the job" {
	mn_nad ns1 net-bad '{"cniVersion":"1.0.0","type":"fail","code":100,"msg":"del boom",
	 "failOn":["DEL"]}'
	mn_pod pod1 "net-a,net-bad"
	mn_run ADD
	mn_run -e 1 DEL
	assert_error 100 "network ns1/net-bad (net2)"
	# Every other delegate was still deleted; the cache stays.
	[ "$(mn_pod_links)" = "" ]
	[ -f "$MN/cache/$CID" ]
	# The delegate recovers (its cached config no longer fails): DEL again.
	jq '.delegates[2].config.plugins[0].failOn = []' "$MN/cache/$CID" >"$MN/c.tmp"
	mv "$MN/c.tmp" "$MN/cache/$CID"
	mn_run DEL
	assert_nothing_left
}

@test "a missing NAD: code 7 naming it, nothing run" {
	mn_pod pod1 "net-a,nope"
	pw_snapshot before
	mn_run -e 1 ADD
	assert_error 7 "network ns1/nope: NetworkAttachmentDefinition not found"
	mn_assert_snapshot_same before
}

@test "an unparsable annotation: code 7 naming the annotation" {
	mn_pod pod1 "net-a/b/c"
	mn_run -e 1 ADD
	assert_error 7 "k8s.v1.cni.cncf.io/networks"
	mn_pod pod1 '[{"name":"net-a","mac":"zz:zz"}]'
	mn_run -e 1 ADD
	assert_error 7 "mac"
	mn_pod pod1 '{"name":"net-a"}'
	mn_run -e 1 ADD
	assert_error 7 "must be a non-empty array"
	assert_nothing_left
}

@test "a NAD with invalid JSON config: code 7 naming the network" {
	mn_nad ns1 net-x '{"cniVersion":"1.0.0",'
	mn_pod pod1 "net-x"
	mn_run -e 1 ADD
	assert_error 7 "network ns1/net-x"
	assert_nothing_left
}

@test "a kubeconfig without a CA, and a server certificate from another CA" {
	mn_pod pod1 "net-a"
	sed -i '/certificate-authority/d' "$MN/kubeconfig"
	mn_run -e 1 ADD
	assert_error 7 "certificate-authority"
	mn_certs "$MN/other"
	mn_kubeconfig "$MN/other/ca.crt"
	mn_run -e 1 ADD
	assert_error 100 "apiserver https://127.0.0.1:$MN_PORT"
	assert_nothing_left
	# No request got past TLS.
	[ ! -s "$MN/requests.log" ]
}

@test "a kubeconfig whose CA file is missing: code 7 naming the key, the path and why" {
	mn_pod pod1 "net-a"
	mn_kubeconfig "$MN/nope/ca.crt"
	mn_run -e 1 ADD
	assert_error 7 "kubeconfig.certificate-authority: $MN/nope/ca.crt: No such file or directory"
	assert_nothing_left
	[ ! -s "$MN/requests.log" ]
}

@test "a config key known but for letter case: code 7 on ADD and CHECK, a warning on DEL" {
	mn_pod pod1 "net-a"
	jq '.kubeConfig = .kubeconfig | del(.kubeconfig)' "$MN/multinet.json" >"$MN/case.json"
	mv "$MN/case.json" "$MN/multinet.json"
	mn_run -e 1 ADD
	assert_error 7 "'kubeConfig': unknown key (did you mean 'kubeconfig'?)"
	mn_run -e 1 CHECK
	assert_error 7 "'kubeConfig'"
	assert_nothing_left
	mn_run DEL
	grep -q "'kubeConfig': unknown key (did you mean 'kubeconfig'?), ignoring" "$PW_STDERR"
}

@test "an ifname that collides: with another network, or with a link in the pod" {
	mn_pod pod1 "net-a@net2,net-b"
	mn_run -e 1 ADD
	assert_error 7 "interface 'net2' is already used by network ns1/net-a"
	mn_pod pod1 "net-a"
	in_ns "$POD_NS" ip link add net1 type veth peer name x1
	mn_run -e 1 ADD
	assert_error 103 "network ns1/net-a: interface 'net1' already exists in the pod"
	in_ns "$POD_NS" ip link del net1
	assert_nothing_left
}

@test "namespaceIsolation: other namespaces refused, globalNamespaces allowed" {
	mn_nad other net-o '{"cniVersion":"1.0.0","type":"noop"}'
	mn_nad default net-d '{"cniVersion":"1.0.0","type":"noop"}'
	mn_conf '{"namespaceIsolation":true}'
	mn_pod pod1 "other/net-o"
	mn_run -e 1 ADD
	assert_error 7 "namespaceIsolation"
	assert_error 7 "other"
	mn_pod pod1 "default/net-d"
	mn_run ADD
	mn_run DEL
	mn_conf '{"namespaceIsolation":true,"globalNamespaces":"other, extra"}'
	mn_run -e 1 ADD
	assert_error 7 "namespaceIsolation"
	mn_pod pod1 "other/net-o"
	mn_run ADD
	mn_run DEL
	mn_conf
	mn_pod pod1 "other/net-o,default/net-d"
	mn_run ADD
	mn_run DEL
}

@test "the apiserver failing twice with 503 is retried; a lasting 500 is code 11" {
	mn_pod pod1 "net-a"
	echo "2 503" >"$MN/fixtures/fail"
	mn_run ADD
	output=$(jq -s '[.[].status] | map(tostring) | join(",")' -r "$MN/requests.log")
	[ "$output" = "503,503,200,200,200" ]
	mn_run DEL
	echo "100 500" >"$MN/fixtures/fail"
	mn_run -e 1 ADD
	assert_error 11 "HTTP 500"
	assert_nothing_left
}

@test "a system namespace pod gets no network-status (compared by namespace)" {
	mn_pod kube-system "net-a" kube-system
	mn_nad kube-system net-a '{"cniVersion":"1.0.0","type":"noop"}'
	PW_CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=kube-system;K8S_POD_NAME=kube-system;K8S_POD_UID=$POD_UID"
	mn_run ADD
	[ -z "$(mn_status_annotation kube-system kube-system)" ]
	run ! grep -q PATCH "$MN/requests.log"
	mn_run DEL
}

@test "a client certificate instead of a token (kubeconfig with -data fields), also sent late" {
	mn_apiserver_stop
	local d=$MN/certs
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$d/client.key" \
		-out "$d/client.csr" -subj "/CN=system:multinet" 2>/dev/null
	openssl x509 -req -in "$d/client.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
		-out "$d/client.crt" -days 2 2>/dev/null
	MN_CLIENT_CA="$d/ca.crt" mn_apiserver_start
	cert_kubeconfig() {
		cat >"$MN/kubeconfig" <<YAML
current-context: test
clusters: [{name: s, cluster: {server: "https://127.0.0.1:$MN_PORT", certificate-authority-data: $(base64 -w0 "$d/ca.crt")}}]
users: [{name: u, user: {client-certificate-data: $(base64 -w0 "$d/client.crt"), client-key-data: $(base64 -w0 "$d/client.key")}}]
contexts: [{name: test, context: {cluster: s, user: u}}]
YAML
	}
	cert_kubeconfig
	mn_pod pod1 "net-a"
	mn_run ADD
	[ "$(mn_pod_links)" = "eth0 net1 " ]
	mn_run DEL
	# A restarted apiserver (other ticket keys) refuses the saved session:
	# the client certificate, not parsed while that session was saved, goes
	# out when the server asks for it (no token: without it, HTTP 401).
	[ -s "$MN/cache/tls/apiserver" ]
	mn_apiserver_stop
	MN_CLIENT_CA="$d/ca.crt" mn_apiserver_start
	cert_kubeconfig
	: >"$MN/requests.log"
	mn_run ADD
	[ "$(jq -rs '[.[].tlsResumed | tostring] | unique | join(",")' "$MN/requests.log")" = false ]
	[ "$(mn_pod_links)" = "eth0 net1 " ]
	mn_run DEL
	# Neither certificate nor token: 401, a clear error.
	sed -i 's/users: .*/users: [{name: u, user: {}}]/' "$MN/kubeconfig"
	mn_run -e 1 ADD
	assert_error 100 "HTTP 401"
}
