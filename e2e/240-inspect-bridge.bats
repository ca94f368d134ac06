#!/usr/bin/env bats
# podwire-inspect on pods wired by podwire's bridge through cnitool (its
# result cache in a temp dir): fields, counters after a ping, Prometheus
# output, a netns deleted behind the plugins' back, leaks.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	load inspect-helpers
	pw_need "$PODWIRE_BIN/bridge" "$PODWIRE_BIN/cnitool"
	pw_setup
	cnitool_setup
	inspect_setup
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN"
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
	cat >"$NETCONF/10-pw.conflist" <<JSON
{"cniVersion":"1.1.0","name":"pw","plugins":[
 {"type":"bridge","bridge":"${PW_ID}br","isGateway":true,"ipMasq":false,
  "ipam":{"type":"host-local","dataDir":"$STATE/ipam",
          "ranges":[[{"subnet":"10.98.0.0/24"}]]}}]}
JSON
}

teardown() {
	[ -n "${ADD_PID:-}" ] && kill -9 "$ADD_PID" 2>/dev/null
	pw_teardown
}

descendants() {
	local p
	for p in $(pgrep -P "$1"); do
		echo "$p"
		descendants "$p"
	done
}

add_pod() { # add_pod NETNS-NAME POD-NAME
	CNITOOL_ENV=(CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=team;K8S_POD_NAME=$2;K8S_POD_UID=uid-$2")
	run_cnitool add pw "/var/run/netns/$1"
	CNITOOL_ENV=()
}

@test "inspect: two bridge pods listed with pod, network, chain, IPs, MAC, host veth, bridge" {
	pw_netns_new "${PW_ID}q"
	add_pod "$POD_NS" web
	local ip_a mac_a
	ip_a=$(printf '%s' "$output" | jq -r '.ips[0].address')
	mac_a=$(printf '%s' "$output" | jq -r '.interfaces[] | select(.sandbox != null and .sandbox != "") | .mac')
	add_pod "${PW_ID}q" db
	run_inspect --json
	assert_schema
	assert_json .schema podwire-inspect/v1
	assert_json '.attachments | length' 2
	assert_json '.errors | length' 0
	local a=".attachments[] | select(.containerId == \"$CID\")"
	assert_json "$a | .pod.namespace + \"/\" + .pod.name" team/web
	assert_json "$a | .pod.uid" uid-web
	assert_json "$a | .network" pw
	assert_json "$a | .ifname" eth0
	assert_json "$a | .plugins | join(\",\")" bridge
	assert_json "$a | .ips[0]" "$ip_a"
	assert_json "$a | .mac" "$mac_a"
	assert_json "$a | .host.bridge" "${PW_ID}br"
	assert_json "$a | .netnsState" present
	assert_json "$a | .health.status" ok
	assert_json "$a | .sources | sort | join(\",\")" host-veth,result-cache
	local veth
	veth=$(printf '%s' "$output" | jq -r "$a | .host.ifname")
	[[ "$veth" == veth???????? ]]
	ip -n "$HOST_NS" link show "$veth" | grep -q "master ${PW_ID}br"
	# the table: one line per attachment plus the header
	run_inspect
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}${lines[2]}" == *team/web*pw*eth0* ]]
	run_inspect leaks
	[[ "$output" == "no leaks" ]]
}

@test "inspect: counters move after a ping between two pods; --watch gives rates" {
	pw_netns_new "${PW_ID}q"
	add_pod "$POD_NS" web
	add_pod "${PW_ID}q" db
	local ip_b
	ip_b=$(printf '%s' "$output" | jq -r '.ips[0].address')
	run_inspect --json
	local a=".attachments[] | select(.containerId == \"$CID\")"
	local rx0 tx0 hrx0
	rx0=$(printf '%s' "$output" | jq -r "$a | .counters.pod.rx_packets")
	tx0=$(printf '%s' "$output" | jq -r "$a | .counters.pod.tx_packets")
	hrx0=$(printf '%s' "$output" | jq -r "$a | .counters.host.rx_packets")
	in_ns "$POD_NS" ping -c 3 -i 0.2 -W 2 "${ip_b%/*}"
	run_inspect --json
	local rx1 tx1 hrx1
	rx1=$(printf '%s' "$output" | jq -r "$a | .counters.pod.rx_packets")
	tx1=$(printf '%s' "$output" | jq -r "$a | .counters.pod.tx_packets")
	hrx1=$(printf '%s' "$output" | jq -r "$a | .counters.host.rx_packets")
	[ "$tx1" -ge $((tx0 + 3)) ]
	[ "$rx1" -ge $((rx0 + 3)) ]
	[ "$hrx1" -ge $((hrx0 + 3)) ]
	# a ping running while --watch samples shows a non-zero rate
	in_ns "$POD_NS" ping -c 12 -i 0.2 -W 2 "${ip_b%/*}" >/dev/null &
	local ping=$!
	run_inspect --watch 1 --count 1 --json
	wait "$ping" || true
	assert_json .schema podwire-inspect/v1-rates
	local r
	r=$(printf '%s' "$output" | jq -r "$a | .rates.tx_packets")
	awk -v r="$r" 'BEGIN { exit !(r > 0) }'
	run_inspect -v
	[[ "$output" == *"pod  rx "* ]]
}

@test "inspect: --prometheus parses and carries the attachment's counters" {
	add_pod "$POD_NS" web
	run_inspect --prometheus
	assert_prometheus
	[ "$(prom_value podwire_attachment_info 'pod="team/web"')" = 1 ]
	[ "$(prom_value podwire_attachment_healthy 'ifname="eth0"')" = 1 ]
	local v
	v=$(prom_value podwire_attachment_rx_bytes_total 'end="pod"')
	[ -n "$v" ]
	printf '%s\n' "$output" | grep -q '^podwire_attachment_tx_packets_total{pod="team/web",network="pw",ifname="eth0",device="veth'
}

@test "inspect: --check runs the chain's CHECK; a broken pod fails it" {
	add_pod "$POD_NS" web
	run_inspect --check --json
	assert_json '.attachments[0].health.check' ok
	in_ns "$POD_NS" ip addr flush dev eth0
	run_inspect -e 1 --check --json
	assert_json '.attachments[0].health.check' failed
	assert_json '.attachments[0].health.status' degraded
}

@test "inspect: a netns deleted behind the plugins' back is reported, and its cache is a leak" {
	pw_netns_new "${PW_ID}q"
	add_pod "$POD_NS" web
	add_pod "${PW_ID}q" db
	ip netns del "${PW_ID}q"
	local gone_cid
	gone_cid=$(cnitool_cid "/var/run/netns/${PW_ID}q")
	run_inspect --json
	assert_json ".attachments[] | select(.containerId == \"$gone_cid\") | .netnsState" gone
	assert_json ".attachments[] | select(.containerId == \"$gone_cid\") | .health.status" degraded
	assert_json ".attachments[] | select(.containerId == \"$CID\") | .netnsState" present
	run_inspect -e 1 leaks --json
	assert_schema
	assert_json "[.leaks[] | select(.containerId == \"$gone_cid\") | .kind] | sort | join(\",\")" \
		result-cache
	run_inspect -e 1 leaks
	[[ "$output" == *result-cache*"netns gone"* ]]
}

@test "inspect: leaks finds the host veth left by a SIGKILLed ADD" {
	cat >"$NETCONF/20-hang.conflist" <<JSON
{"cniVersion":"1.1.0","name":"hang","plugins":[
 {"type":"bridge","bridge":"${PW_ID}br","hangSeconds":30,"ipam":{"type":"fail"}}]}
JSON
	ip netns exec "$HOST_NS" env NETCONFPATH="$NETCONF" CNI_PATH="$PW_CNI_PATH" \
		"$CNITOOL" --cache-dir "$CACHE" add hang "$NETNS" >/dev/null 2>&1 &
	ADD_PID=$!
	local i veth=""
	for i in $(seq 1 100); do
		veth=$(ip -n "$HOST_NS" -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | head -1)
		[ -n "$veth" ] && break
		sleep 0.1
	done
	[ -n "$veth" ]
	# SIGKILL cnitool and the bridge it runs (its child), as a node crash would
	# and the hanging IPAM under it: every descendant, by PID
	local kids
	kids=$(descendants "$ADD_PID")
	kill -9 "$ADD_PID" $kids 2>/dev/null || true
	wait "$ADD_PID" 2>/dev/null || true
	ADD_PID=
	ip -n "$HOST_NS" link show "$veth"
	run_inspect -e 1 leaks --json
	assert_schema
	assert_json '[.leaks[] | select(.kind == "host-veth") | .object] | join(",")' "$veth"
	assert_json '.leaks[] | select(.kind == "host-veth") | .network' hang
	assert_json ".leaks[] | select(.kind == \"host-veth\") | .containerId" "$CID"
	run_inspect -e 1 --prometheus leaks
	[ "$(prom_value podwire_inspect_leaked_objects 'kind="host-veth"')" = 1 ]
}

@test "inspect: nftables elements joined to their attachment; leaks lists every object of a lost attachment" {
	cat >"$NETCONF/10-pw.conflist" <<JSON
{"cniVersion":"1.1.0","name":"pw","plugins":[
 {"type":"bridge","bridge":"${PW_ID}br","isGateway":true,"ipMasq":true,
  "ipam":{"type":"host-local","dataDir":"$STATE/ipam",
          "ranges":[[{"subnet":"10.98.0.0/24"}]]}}]}
JSON
	add_pod "$POD_NS" web
	local ip
	ip=$(printf '%s' "$output" | jq -r '.ips[0].address')
	run_inspect --json
	assert_schema
	assert_json '.attachments[0].nftElements' 1
	run_inspect --prometheus
	assert_prometheus
	[ "$(prom_value podwire_attachment_nft_elements 'pod="team/web"')" = 1 ]
	# the runtime lost its cache entry (a reinstalled node, a wiped /var/lib/cni)
	rm "$CACHE/results/pw-$CID-eth0"
	run_inspect -e 1 leaks --json
	assert_schema
	assert_json '[.leaks[].kind] | sort | join(",")' host-veth,lease,nft-element
	assert_json '.leaks[] | select(.kind == "nft-element") | .object' \
		"inet podwire pods-pw-10.98.0.0-24 { ${ip%/*} }"
	assert_json '.leaks[] | select(.kind == "nft-element") | .containerId' "$CID"
	assert_json '.leaks[] | select(.kind == "lease") | .object' "$STATE/ipam/pw/${ip%/*}"
}
