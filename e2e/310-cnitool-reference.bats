#!/usr/bin/env bats
# cnitool driving Debian's reference plugins (/usr/lib/cni: bridge,
# host-local; v1.1.1, cniVersion up to 1.0.0): the runtime side is checked
# against a plugin set nobody here wrote. The bridge lives in $HOST_NS, the
# pods are throwaway namespaces, IPAM data and the cache are under $STATE.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	require_ref_plugins
	pw_setup
	cnitool_setup
	PW_CNI_PATH="$REF_BIN:$PODWIRE_TEST_BIN"
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
	BR="${PW_ID}br"
	cat >"$NETCONF/10-ref.conflist" <<JSON
{"cniVersion":"1.0.0","name":"ref","plugins":[
 {"type":"bridge","bridge":"$BR","isGateway":true,"ipMasq":false,
  "ipam":{"type":"host-local","dataDir":"$STATE/ipam",
          "ranges":[[{"subnet":"10.98.0.0/24"}]],"routes":[{"dst":"0.0.0.0/0"}]}},
 {"type":"noop","recordFile":"$STATE/record"}]}
JSON
}

teardown() {
	pw_teardown
}

@test "the reference plugins speak up to 1.0.0" {
	run env CNI_COMMAND=VERSION "$REF_BIN/bridge" </dev/null
	[ "$status" -eq 0 ]
	assert_json '.supportedVersions | index("1.0.0") != null' true
	assert_json '.supportedVersions | index("1.1.0") != null' false
}

@test "add, check, del through bridge + host-local, chained into a test double" {
	run_cnitool add ref "$NETNS"
	assert_json .cniVersion 1.0.0
	local ip
	ip=$(printf '%s' "$output" | jq -r '.ips[0].address')
	[[ "$ip" == 10.98.0.* ]]
	assert_json '.ips[0].gateway' 10.98.0.1
	# The pod really has it, and the lease file exists.
	in_ns "$POD_NS" ip -o addr show dev eth0 | grep -qF "$ip"
	[ -f "$STATE/ipam/ref/${ip%/*}" ]
	# The bridge's result reached the next plugin as prevResult.
	records
	assert_json '.[0].stdin.prevResult.ips[0].address' "$ip"
	assert_json '.[0].stdin.prevResult.cniVersion' 1.0.0
	[ -f "$CACHE/results/ref-$CID-eth0" ]

	run_cnitool check ref "$NETNS"
	run_cnitool del ref "$NETNS"
	run ! in_ns "$POD_NS" ip link show eth0
	[ ! -e "$STATE/ipam/ref/${ip%/*}" ]
	[ ! -e "$CACHE/results/ref-$CID-eth0" ]
	run_cnitool del ref "$NETNS"
}

@test "two pods on the reference bridge reach each other" {
	pw_netns_new "${PW_ID}q"
	local other="/var/run/netns/${PW_ID}q"
	run_cnitool add ref "$NETNS"
	local ip_a
	ip_a=$(printf '%s' "$output" | jq -r '.ips[0].address')
	run_cnitool add ref "$other"
	local ip_b
	ip_b=$(printf '%s' "$output" | jq -r '.ips[0].address')
	[ "$ip_a" != "$ip_b" ]
	in_ns "$POD_NS" ping -c 1 -W 2 "${ip_b%/*}"
	in_ns "${PW_ID}q" ping -c 1 -W 2 "${ip_a%/*}"
	run_cnitool del ref "$NETNS"
	run_cnitool del ref "$other"
}

@test "gc deletes every cached attachment; status of a 1.0.0 list runs nothing" {
	pw_netns_new "${PW_ID}q"
	run_cnitool add ref "$NETNS"
	run_cnitool add ref "/var/run/netns/${PW_ID}q"
	[ "$(ls "$STATE/ipam/ref" | grep -c '^10\.')" -eq 2 ]
	rm "$STATE/record"
	run_cnitool gc ref
	run ! in_ns "$POD_NS" ip link show eth0
	run ! in_ns "${PW_ID}q" ip link show eth0
	[ "$(ls "$STATE/ipam/ref" | grep -c '^10\.')" -eq 0 ]
	[ -z "$(ls "$CACHE/results")" ]
	# GC is a 1.1.0 verb: a 1.0.0 list only gets the DELs.
	records
	assert_json '[.[].command] | join(",")' DEL,DEL
	rm "$STATE/record"
	run_cnitool status ref
	[ ! -e "$STATE/record" ]
}

@test "an attachment cached by another runtime in libcni's format is deleted by ours" {
	# Wire the pod by running the reference bridge directly, then write the
	# cache file exactly as upstream libcni lays it out.
	local conf result
	conf=$(jq -c '.plugins[0] + {name: "ref", cniVersion: "1.0.0"}' "$NETCONF/10-ref.conflist")
	PW_CNI_PATH="$REF_BIN" run_plugin "$REF_BIN/bridge" ADD eth0 "$CID" <<<"$conf"
	result=$output
	mkdir -p "$CACHE/results"
	jq -n --arg cid "$CID" --arg netns "$NETNS" --argjson result "$result" \
		--arg config "$(base64 -w0 "$NETCONF/10-ref.conflist")" \
		'{kind: "cniCacheV1", containerId: $cid, config: $config, ifName: "eth0",
		  networkName: "ref", netns: $netns, result: $result}' \
		>"$CACHE/results/ref-$CID-eth0"
	in_ns "$POD_NS" ip link show eth0

	run_cnitool check ref "$NETNS"
	run_cnitool del ref "$NETNS"
	run ! in_ns "$POD_NS" ip link show eth0
	[ -z "$(ls "$STATE/ipam/ref" | grep '^10\.')" ]
	records
	assert_json '[.[].command] | join(",")' CHECK,DEL
	assert_json '.[1].stdin.prevResult.ips[0].address' \
		"$(printf '%s' "$result" | jq -r '.ips[0].address')"
}
