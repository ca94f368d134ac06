# Helpers for multinet's e2e tests (e2e/23x-multinet-*.bats), on top of
# e2e/helpers.bash. Everything lives under $MN (inside $STATE): the
# apiserver stand-in's fixtures, certificates and request log, the
# kubeconfig, confDir, cniDir, IPAM data, the device checkpoint and the
# device-info files. The stand-in listens on 127.0.0.1 of the test host netns
# ($HOST_NS, where the plugins run) on a free port and is
# stopped by PID in teardown.
#
# Delegates: eth0 = podwire bridge (host-local), net2 = podwire bridge with
# static IPAM, net1 = macvlan on a veth of the test's host netns: podwire's
# own macvlan when $PODWIRE_BIN/macvlan exists, else the reference plugin in
# /usr/lib/cni (MN_MACVLAN says which).

MN_APISERVER="$PODWIRE_SRC/test/apiserver/apiserver.py"
MN_TOKEN="podwire-test-token"

# multinet's cache entry of $CID as one document: the first line with the
# appended updates ({"index":i,"value":<delegate>}) folded in, as multinet
# reads it (plugins/meta/multinet/README.md, The cache).
mn_cache_entry() {
	jq -cs 'reduce .[1:][] as $u (.[0]; .delegates[$u.index] = $u.value)' "$MN/cache/$CID"
}

mn_setup() {
	pw_setup
	MN="$STATE/mn"
	mkdir -p "$MN"/{fixtures/pods,fixtures/nads,conf,cache,ipam,devinfo/dp,certs}
	: >"$MN/requests.log"
	if [ -x "$PODWIRE_BIN/macvlan" ]; then
		MN_MACVLAN=podwire
		PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN"
	else
		MN_MACVLAN=reference
		PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN:$REF_BIN"
	fi
	export MN MN_MACVLAN PW_CNI_PATH
	CID="${PW_ID}c"
	POD_UID="uid-$PW_ID"
	PW_CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod1;K8S_POD_UID=$POD_UID;K8S_POD_INFRA_CONTAINER_ID=$CID"
	# The macvlan master: one end of a veth pair in the test's host netns.
	ip -n "$HOST_NS" link add mvup type veth peer name mvpeer
	# No link-local addresses appearing later (they would upset snapshots).
	ip -n "$HOST_NS" link set mvup addrgenmode none
	ip -n "$HOST_NS" link set mvpeer addrgenmode none
	ip -n "$HOST_NS" link set mvup up
	ip -n "$HOST_NS" link set mvpeer up
}

mn_teardown() {
	mn_apiserver_stop
	pw_teardown
}

# mn_certs [DIR]: CA, server certificate for 127.0.0.1 (EC P-256).
mn_certs() {
	local d=${1:-$MN/certs}
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$d/ca.key" -out "$d/ca.crt" -days 2 -subj "/CN=podwire-test-ca" 2>/dev/null
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$d/server.key" -out "$d/server.csr" -subj "/CN=127.0.0.1" 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$d/ext"
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
		-CAcreateserial -out "$d/server.crt" -days 2 -extfile "$d/ext" 2>/dev/null
}

# mn_apiserver_start: start the stand-in. The CA and server certificate are
# made once per bats file (in $BATS_FILE_TMPDIR) and copied into each test.
# The client holds exactly the shipped ClusterRole (conf/kubernetes/
# multinet-rbac.yaml): a request it does not grant gets 403.
mn_apiserver_start() {
	if [ ! -f "$MN/certs/server.crt" ]; then
		local shared=${BATS_FILE_TMPDIR:-$STATE}/mn-certs
		[ -f "$shared/server.crt" ] || mn_certs "$shared"
		cp "$shared"/* "$MN/certs/"
	fi
	rm -f "$MN/port"
	ip netns exec "$HOST_NS" /usr/bin/python3 "$MN_APISERVER" --dir "$MN/fixtures" --cert "$MN/certs/server.crt" \
		--key "$MN/certs/server.key" --token "$MN_TOKEN" --log "$MN/requests.log" \
		--port "${MN_PORT:-0}" --port-file "$MN/port" ${MN_CLIENT_CA:+--client-ca "$MN_CLIENT_CA"} \
		--rbac "$PODWIRE_SRC/conf/kubernetes/multinet-rbac.yaml" \
		2>"$MN/apiserver.err" &
	MN_APISERVER_PID=$!
	local i
	for i in $(seq 100); do
		[ -s "$MN/port" ] && break
		sleep 0.05
	done
	[ -s "$MN/port" ] || {
		cat "$MN/apiserver.err" >&2
		return 1
	}
	MN_PORT=$(cat "$MN/port")
	export MN_PORT MN_APISERVER_PID
	mn_kubeconfig
}

mn_apiserver_stop() {
	if [ -n "${MN_APISERVER_PID:-}" ]; then
		kill "$MN_APISERVER_PID" 2>/dev/null || true
		wait "$MN_APISERVER_PID" 2>/dev/null || true
		MN_APISERVER_PID=
	fi
}

# mn_kubeconfig [CA-FILE]: kubeconfig for the stand-in with a bearer token.
mn_kubeconfig() {
	cat >"$MN/kubeconfig" <<YAML
apiVersion: v1
kind: Config
current-context: test
clusters:
- name: standin
  cluster:
    server: https://127.0.0.1:${MN_PORT}
    certificate-authority: ${1:-$MN/certs/ca.crt}
users:
- name: multinet
  user:
    token: ${MN_TOKEN}
contexts:
- name: test
  context:
    cluster: standin
    user: multinet
YAML
}

# mn_pod NAME ANNOTATION [NAMESPACE] [UID]: a pod fixture.
mn_pod() {
	local ns=${3:-ns1}
	mkdir -p "$MN/fixtures/pods/$ns"
	jq -n --arg n "$1" --arg ns "$ns" --arg a "$2" --arg uid "${4:-$POD_UID}" \
		'{apiVersion:"v1",kind:"Pod",metadata:{name:$n,namespace:$ns,uid:$uid,
		  annotations:(if $a == "" then {} else {"k8s.v1.cni.cncf.io/networks":$a} end)}}' \
		>"$MN/fixtures/pods/$ns/$1.json"
}

# mn_nad NAMESPACE NAME CONFIG [RESOURCE]: a NAD fixture (CONFIG is JSON text).
mn_nad() {
	mkdir -p "$MN/fixtures/nads/$1"
	jq -n --arg ns "$1" --arg n "$2" --arg c "$3" --arg r "${4:-}" \
		'{apiVersion:"k8s.cni.cncf.io/v1",kind:"NetworkAttachmentDefinition",
		  metadata:{name:$n,namespace:$ns,
		    annotations:(if $r == "" then {} else {"k8s.v1.cni.cncf.io/resourceName":$r} end)},
		  spec:{config:$c}}' >"$MN/fixtures/nads/$1/$2.json"
}

# The cluster network: podwire bridge + host-local, default gateway (v4 + v6).
mn_cluster_conf() {
	cat >"$MN/conf/10-cluster.conflist" <<JSON
{"cniVersion":"1.0.0","name":"cluster","plugins":[{"type":"bridge","bridge":"mncl0",
 "isDefaultGateway":true,"ipam":{"type":"host-local","dataDir":"$MN/ipam",
 "ranges":[[{"subnet":"10.99.0.0/24"}],[{"subnet":"fd99::/64"}]]}}]}
JSON
}

# Standard NADs in ns1: macvlan (net-a) and bridge with static IPAM (net-b).
mn_std_nads() {
	mn_nad ns1 net-a '{"cniVersion":"1.0.0","type":"macvlan","master":"mvup","mode":"bridge",
	 "ipam":{"type":"static","addresses":[{"address":"10.98.1.10/24","gateway":"10.98.1.1"},
	 {"address":"fd98:1::10/64","gateway":"fd98:1::1"}]}}'
	mn_nad ns1 net-b '{"cniVersion":"1.0.0","plugins":[{"type":"bridge","bridge":"mnbr2",
	 "capabilities":{"ips":true},
	 "ipam":{"type":"static","addresses":[{"address":"10.97.0.10/24"}]}}]}'
}

# mn_conf [EXTRA-JSON]: multinet's own config on stdin of the next mn_run.
mn_conf() {
	local extra='{}'
	[ -n "${1:-}" ] && extra=$1
	jq -n --arg mn "$MN" --arg bin "$PODWIRE_BIN" --argjson extra "$extra" \
		'{cniVersion:"1.0.0",name:"multinet",type:"multinet",
		  kubeconfig:($mn+"/kubeconfig"),clusterNetwork:($mn+"/conf/10-cluster.conflist"),
		  confDir:($mn+"/conf"),cniDir:($mn+"/cache"),binDir:$bin,
		  deviceCheckpoint:($mn+"/checkpoint"),deviceInfoDir:($mn+"/devinfo/dp")} + $extra' \
		>"$MN/multinet.json"
}

# mn_run [-e RC] COMMAND [CID]: multinet with $MN/multinet.json.
mn_run() {
	local rc=()
	if [ "$1" = "-e" ]; then
		rc=(-e "$2")
		shift 2
	fi
	run_plugin "${rc[@]}" multinet "$1" eth0 "${2:-$CID}" <"$MN/multinet.json"
}

# Pod state for assertions.
mn_pod_links() {
	ip -n "$POD_NS" -o link show | sed 's/^[0-9]*: //; s/[@:].*//' | grep -v '^lo$' | sort | tr '\n' ' '
}

mn_status_annotation() {
	jq -r '.metadata.annotations["k8s.v1.cni.cncf.io/network-status"] // empty' \
		"$MN/fixtures/pods/${2:-ns1}/${1:-pod1}.json"
}

# mn_assert_snapshot_same NAME: as assert_snapshot_same, without the snapshot
# files themselves (each one lists the ones written before it), nor the
# kept TLS session (cniDir/tls: a client cache, written by any call that
# talked to the apiserver, not state of an attachment).
mn_assert_snapshot_same() {
	pw_snapshot after
	diff -u <(grep -v -e "$STATE/snapshot\." -e "$MN/cache/tls" "$STATE/snapshot.$1") \
		<(grep -v -e "$STATE/snapshot\." -e "$MN/cache/tls" "$STATE/snapshot.after") >&2
}
