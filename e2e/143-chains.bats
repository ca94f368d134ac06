#!/usr/bin/env bats
# Chains through cnitool: a NAD-style macvlan + tuning list (as Multus runs
# one), loopback as containerd runs it, bridge + tuning + loopback, and
# mixed chains of podwire and reference plugins.

setup() {
	load helpers
	load chained-helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	pw_setup
	cnitool_setup
	master_veth m0
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
	PW_CNI_PATH="$PODWIRE_BIN"
}

teardown() {
	pw_teardown
}

# nad_list FILE: the conflist a NetworkAttachmentDefinition of macvlan +
# tuning carries (mac through the "mac" capability, as Multus passes it).
nad_list() {
	cat >"$NETCONF/20-nad.conflist" <<JSON
{"cniVersion":"1.0.0","name":"macvlan-tuned","plugins":[
 {"type":"macvlan","master":"m0","mode":"bridge",
  "ipam":{"type":"host-local","dataDir":"$STATE/ipam","ranges":[[{"subnet":"10.68.0.0/24"}]]}},
 {"type":"tuning","capabilities":{"mac":true},"dataDir":"$STATE/tuning","mtu":1400,
  "promisc":true,"txQLen":300,
  "sysctl":{"net.ipv4.conf.IFNAME.arp_notify":"1","net.ipv6.conf.IFNAME.accept_ra":"0"}}]}
JSON
}

@test "NAD-style macvlan + tuning: tuned on ADD, CHECKed, restored and removed on DEL" {
	nad_list
	CNITOOL_ENV=(CAP_ARGS='{"mac":"02:aa:bb:cc:dd:01"}')
	run_cnitool -i net1 add macvlan-tuned "$NETNS"
	assert_json '.interfaces[0].name' net1
	assert_json '.interfaces[0].mac' 02:aa:bb:cc:dd:01
	ip=$(jq -r '.ips[0].address' <<<"$output")
	[[ "$ip" == 10.68.0.* ]]
	[ "$(link_state "$POD_NS" net1)" = "02:aa:bb:cc:dd:01 mtu=1400 txqlen=300 promisc=1 flags=PROMISC" ]
	[ "$(sysctl_in "$POD_NS" net/ipv4/conf/net1/arp_notify)" = 1 ]
	[ "$(sysctl_in "$POD_NS" net/ipv6/conf/net1/accept_ra)" = 0 ]
	[ "$(jq -r '.linkinfo.info_kind' <<<"$(link_json "$POD_NS" net1)")" = macvlan ]
	[ -f "$STATE/tuning/${CID}_net1.json" ]
	run_cnitool -i net1 check macvlan-tuned "$NETNS"
	run_cnitool -i net1 del macvlan-tuned "$NETNS"
	run ! ip -n "$POD_NS" link show net1
	[ ! -e "$STATE/tuning/${CID}_net1.json" ]
	[ -z "$(find "$STATE/ipam/macvlan-tuned" -name '10.*')" ]
	run_cnitool -i net1 del macvlan-tuned "$NETNS"
}

@test "NAD-style chain, tuning refuses its input: code 7; the runtime's DEL removes macvlan and lease" {
	nad_list
	jq '.plugins[1].sysctl["kernel.hostname"] = "x"' "$NETCONF/20-nad.conflist" >"$STATE/x" &&
		mv "$STATE/x" "$NETCONF/20-nad.conflist"
	run_cnitool -e 1 -i net1 add macvlan-tuned "$NETNS"
	assert_stderr "kernel.hostname"
	assert_stderr "code 7"
	# the runtime's DEL after a failed ADD cleans the macvlan and the lease
	run_cnitool -i net1 del macvlan-tuned "$NETNS"
	run ! ip -n "$POD_NS" link show net1
	[ -z "$(find "$STATE/ipam/macvlan-tuned" -name '10.*' 2>/dev/null)" ]
}

@test "loopback as containerd runs it (a legacy .conf): lo up, then down on DEL" {
	lo_fresh_pod
	NETNS="/var/run/netns/$POD_NS"
	echo '{"cniVersion":"0.3.1","name":"cni-loopback","type":"loopback"}' >"$NETCONF/99-loopback.conf"
	run_cnitool -i lo add cni-loopback "$NETNS"
	assert_json '.interfaces[0].name' lo
	ip -n "$POD_NS" -j link show lo | jq -e '.[0].flags | index("UP") != null'
	run_cnitool -i lo del cni-loopback "$NETNS"
	ip -n "$POD_NS" -j link show lo | jq -e '.[0].flags | index("UP") == null'
}

@test "bridge + tuning + loopback: one result, tuned veth, lo up" {
	lo_fresh_pod
	NETNS="/var/run/netns/$POD_NS"
	cat >"$NETCONF/10-br.conflist" <<JSON
{"cniVersion":"1.0.0","name":"brt","plugins":[
 {"type":"bridge","bridge":"${PW_ID}b","isGateway":true,
  "ipam":{"type":"host-local","dataDir":"$STATE/ipam","ranges":[[{"subnet":"10.69.0.0/24"}]]}},
 {"type":"tuning","dataDir":"$STATE/tuning","mac":"02:00:00:00:69:01","allmulti":true},
 {"type":"loopback"}]}
JSON
	run_cnitool add brt "$NETNS"
	assert_json '[.interfaces[] | select(.name == "eth0") | .mac][0]' 02:00:00:00:69:01
	[ "$(link_state "$POD_NS" eth0 | cut -d' ' -f1)" = 02:00:00:00:69:01 ]
	[[ "$(link_state "$POD_NS" eth0)" == *ALLMULTI* ]]
	ip -n "$POD_NS" -j link show lo | jq -e '.[0].flags | index("UP") != null'
	run_cnitool check brt "$NETNS"
	run_cnitool del brt "$NETNS"
	run ! ip -n "$POD_NS" link show eth0
	[ -z "$(ls -A "$STATE/tuning" 2>/dev/null)" ]
}

# mixbin NAME=DIR...: a CNI_PATH directory where each plugin comes from DIR.
mixbin() {
	local d="$STATE/mix$RANDOM" kv
	mkdir -p "$d"
	for kv in "$@"; do
		ln -s "${kv#*=}/${kv%%=*}" "$d/${kv%%=*}"
	done
	echo "$d"
}

@test "mixed chains: reference macvlan + podwire tuning, podwire macvlan + reference tuning" {
	pw_need "$REF_BIN/macvlan" "$REF_BIN/tuning"
	nad_list
	for mix in "macvlan=$REF_BIN tuning=$PODWIRE_BIN host-local=$REF_BIN" \
		"macvlan=$PODWIRE_BIN tuning=$REF_BIN host-local=$PODWIRE_BIN"; do
		# shellcheck disable=SC2086
		PW_CNI_PATH=$(mixbin $mix)
		CNITOOL_ENV=(CAP_ARGS='{"mac":"02:aa:bb:cc:dd:02"}')
		# the reference tuning (1.1.1) predates txQLen
		want=300
		[[ "$mix" == *"tuning=$REF_BIN"* ]] && want=1000
		run_cnitool -i net1 add macvlan-tuned "$NETNS"
		[ "$(link_state "$POD_NS" net1)" = "02:aa:bb:cc:dd:02 mtu=1400 txqlen=$want promisc=1 flags=PROMISC" ] ||
			{ echo "# $mix: $(link_state "$POD_NS" net1)" >&2; return 1; }
		run_cnitool -i net1 del macvlan-tuned "$NETNS"
		run ! ip -n "$POD_NS" link show net1
	done
}
