#!/usr/bin/env bats
# macvlan: master a veth in the throwaway host netns (no dummy module here),
# every mode, L2 and L3, mtu/mac, default master, linkInContainer, bad
# input changing nothing, rollback, DEL with the netns gone, CHECK, and the
# same inputs through the reference macvlan.

setup() {
	load helpers
	load chained-helpers
	pw_setup
	master_veth m0
	PW_CNI_PATH="$PODWIRE_BIN:/usr/lib/cni"
}

teardown() {
	pw_teardown
}

# conf JSON-FRAGMENT: a macvlan config on master m0 with host-local in $STATE.
conf() {
	jq -c --arg dd "$STATE/ipam" \
		'{cniVersion:"1.0.0", name:"mvnet", type:"macvlan", master:"m0",
		  ipam:{type:"host-local", dataDir:$dd, ranges:[[{subnet:"10.66.0.0/24"}]]}} + .' \
		<<<"${1:-{\}}"
}

leases() {
	find "$STATE/ipam/mvnet" -maxdepth 1 -type f -name '10.*' 2>/dev/null | wc -l
}

@test "ADD: a bridge-mode macvlan of m0 in the pod with the IPAM address; DEL removes it" {
	run_plugin macvlan ADD net1 <<<"$(conf)"
	assert_json '.interfaces | length' 1
	assert_json '.interfaces[0].name' net1
	assert_json '.interfaces[0].sandbox' "/var/run/netns/$POD_NS"
	assert_json '.ips[0].interface' 0
	ip=$(jq -r '.ips[0].address' <<<"$output")
	mac=$(jq -r '.interfaces[0].mac' <<<"$output")
	l=$(link_json "$POD_NS" net1)
	[ "$(jq -r .linkinfo.info_kind <<<"$l")" = macvlan ]
	[ "$(jq -r .linkinfo.info_data.mode <<<"$l")" = bridge ]
	[ "$(jq -r .address <<<"$l")" = "$mac" ]
	[[ "$(jq -r '.flags | join(",")' <<<"$l")" == *UP* ]]
	in_ns "$POD_NS" ip -o addr show dev net1 | grep -qF "$ip"
	[ "$(leases)" -eq 1 ]
	run_plugin macvlan DEL net1 <<<"$(conf)"
	run ! ip -n "$POD_NS" link show net1
	[ "$(leases)" -eq 0 ]
	ip -n "$HOST_NS" link show m0 >/dev/null
	run_plugin macvlan DEL net1 <<<"$(conf)"
}

@test "two pods on one master in bridge mode reach each other" {
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	run_plugin macvlan ADD net1 <<<"$(conf)"
	ip1=$(jq -r '.ips[0].address' <<<"$output")
	POD_NS=$POD2 run_plugin macvlan ADD net1 "${PW_ID}d" <<<"$(conf)"
	in_ns "$POD2" ping -c1 -W2 "${ip1%/*}" >/dev/null
}

@test "dual stack: IPv4 and IPv6 addresses, IPv6 usable at once (no DAD wait)" {
	c=$(conf | jq -c '.ipam.ranges += [[{subnet: "fd66::/64"}]]')
	run_plugin macvlan ADD net1 <<<"$c"
	assert_json '[.ips[].address | test(":")] | sort | join(",")' "false,true"
	v6=$(jq -r '.ips[] | select(.address | test(":")) | .address' <<<"$output")
	in_ns "$POD_NS" ip -6 -o addr show dev net1 | grep -F "$v6" | grep -vq tentative
	run_plugin macvlan DEL net1 <<<"$c"
	[ -z "$(find "$STATE/ipam/mvnet" -maxdepth 1 -type f ! -name lock ! -name 'last_reserved_ip*')" ]
}

@test "every mode; L2 without IPAM: up, no address" {
	for mode in private vepa passthru bridge; do
		run_plugin macvlan ADD net1 <<<"$(conf "{\"mode\":\"$mode\",\"ipam\":{}}")"
		assert_json 'has("ips")' false
		l=$(link_json "$POD_NS" net1)
		[ "$(jq -r .linkinfo.info_data.mode <<<"$l")" = "$mode" ]
		[[ "$(jq -r '.flags | join(",")' <<<"$l")" == *UP* ]]
		[ -z "$(ip -n "$POD_NS" -4 -o addr show dev net1)" ]
		run_plugin macvlan DEL net1 <<<"$(conf '{"ipam":{}}')"
	done
}

@test "mtu and mac: conf mac < CNI_ARGS MAC < runtimeConfig.mac" {
	run_plugin macvlan ADD net1 <<<"$(conf '{"mtu":1400,"mac":"02:00:00:00:00:01"}')"
	assert_json '.interfaces[0].mac' 02:00:00:00:00:01
	[ "$(jq -r .mtu <<<"$(link_json "$POD_NS" net1)")" = 1400 ]
	run_plugin macvlan DEL net1 <<<"$(conf)"
	PW_CNI_ARGS="IgnoreUnknown=1;MAC=02:00:00:00:00:02" run_plugin macvlan ADD net1 <<<"$(conf '{"mac":"02:00:00:00:00:01"}')"
	assert_json '.interfaces[0].mac' 02:00:00:00:00:02
	run_plugin macvlan DEL net1 <<<"$(conf)"
	# host-local (in-process, as the reference's exec'd one) refuses unknown
	# CNI_ARGS too: MAC needs IgnoreUnknown with IPAM, as with the reference.
	PW_CNI_ARGS="IgnoreUnknown=1;MAC=02:00:00:00:00:02" run_plugin macvlan ADD net1 <<<"$(conf '{"runtimeConfig":{"mac":"02:00:00:00:00:03"}}')"
	assert_json '.interfaces[0].mac' 02:00:00:00:00:03
}

@test "bcqueuelen: the broadcast queue length of the macvlan" {
	run_plugin macvlan ADD net1 <<<"$(conf '{"bcqueuelen":100,"ipam":{}}')"
	[ "$(jq -r .linkinfo.info_data.bcqueuelen <<<"$(link_json "$POD_NS" net1)")" = 100 ]
	run_plugin -e 1 macvlan ADD net2 <<<"$(conf '{"bcqueuelen":-1}')"
	assert_error 7 "bcqueuelen"
}

@test "bad input: code 7 naming key and value, nothing changed" {
	pod_snapshot >"$STATE/before"
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf '{"master":"nosuch0"}')"
	assert_error 7 "master: interface 'nosuch0' not found in the host netns"
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf '{"mtu":9000}')"
	assert_error 7 "invalid MTU 9000, must be [0, master MTU(1500)]"
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf '{"mode":"l3"}')"
	assert_error 7 "unknown macvlan mode 'l3'"
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf '{"mac":"zz:00:00:00:00:01"}')"
	assert_error 7 "mac: invalid MAC address 'zz:00:00:00:00:01'"
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf '{"master":"a/b"}')"
	assert_error 7 "master: 'a/b' is not a valid interface name"
	diff -u "$STATE/before" <(pod_snapshot) >&2
}

@test "no master: the default route's interface; none at all: code 7" {
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf | jq -c 'del(.master)')"
	assert_error 7 "no default route in the host netns"
	ip -n "$HOST_NS" addr add 192.168.66.2/24 dev m0
	ip -n "$HOST_NS" route add default via 192.168.66.1
	run_plugin macvlan ADD net1 <<<"$(conf | jq -c 'del(.master)')"
	[ "$(jq -r .link_index <<<"$(link_json "$POD_NS" net1)")" = "$(jq -r .ifindex <<<"$(link_json "$HOST_NS" m0)")" ]
}

@test "linkInContainer: the master is in the pod, the macvlan is made there" {
	ip -n "$POD_NS" link add pm0 type veth peer name pm0p
	ip -n "$POD_NS" link set pm0 up
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf '{"master":"pm0"}')"
	assert_error 7 "'pm0' not found in the host netns"
	run_plugin macvlan ADD net1 <<<"$(conf '{"master":"pm0","linkInContainer":true}')"
	[ "$(jq -r .link <<<"$(link_json "$POD_NS" net1)")" = pm0 ]
	run_plugin macvlan DEL net1 <<<"$(conf '{"master":"pm0","linkInContainer":true}')"
	run ! ip -n "$POD_NS" link show net1
	ip -n "$POD_NS" link show pm0 >/dev/null
}

@test "CNI_IFNAME taken in the pod: code 103, the existing link untouched" {
	ip -n "$POD_NS" link add net1 type veth peer name x1
	run_plugin -e 1 macvlan ADD net1 <<<"$(conf)"
	assert_error 103 "'net1' already exists"
	[ "$(jq -r .linkinfo.info_kind <<<"$(link_json "$POD_NS" net1)")" = veth ]
	[ "$(leases)" -eq 0 ]
	# the runtime's DEL after the failed ADD leaves the veth alone too
	run_plugin macvlan DEL net1 <<<"$(conf)"
	[ "$(jq -r .linkinfo.info_kind <<<"$(link_json "$POD_NS" net1)")" = veth ]
}

@test "a failing IPAM rolls the macvlan back" {
	c=$(jq -c '.ipam = {type:"static", addresses:[{address:"not-an-ip"}]}' <<<"$(conf)")
	run_plugin -e 1 macvlan ADD net1 <<<"$c"
	run ! ip -n "$POD_NS" link show net1
}

@test "DEL with the pod netns gone or CNI_NETNS empty releases the lease" {
	run_plugin macvlan ADD net1 <<<"$(conf)"
	[ "$(leases)" -eq 1 ]
	PW_NETNS="" run_plugin macvlan DEL net1 <<<"$(conf)"
	[ "$(leases)" -eq 0 ]
	run_plugin macvlan ADD net2 "${PW_ID}e" <<<"$(conf)"
	PW_NETNS="/var/run/netns/${PW_ID}gone" run_plugin macvlan DEL net2 "${PW_ID}e" <<<"$(conf)"
	[ "$(leases)" -eq 0 ]
}

@test "GC reaches IPAM: leases of attachments not in cni.dev/valid-attachments go; STATUS" {
	c=$(conf | jq -c '.cniVersion = "1.1.0"')
	run_plugin macvlan ADD net1 live1 <<<"$c"
	live=$(jq -r '.ips[0].address' <<<"$output")
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	POD_NS=$POD2 run_plugin macvlan ADD net1 stale1 <<<"$c"
	stale=$(jq -r '.ips[0].address' <<<"$output")
	gc=$(jq -c '. + {"cni.dev/valid-attachments": [{containerID: "live1", ifname: "net1"}]}' <<<"$c")
	run_plugin macvlan GC <<<"$gc"
	[ ! -e "$STATE/ipam/mvnet/${stale%/*}" ]
	[ -f "$STATE/ipam/mvnet/${live%/*}" ]
	run_plugin macvlan STATUS <<<"$c"
}

@test "CHECK: passes on what ADD made, 105 when the address or the link is gone" {
	run_plugin macvlan ADD net1 <<<"$(conf)"
	prev=$(with_prev "$(conf)")
	ip=$(jq -r '.ips[0].address' <<<"$output")
	run_plugin macvlan CHECK net1 <<<"$prev"
	ip -n "$POD_NS" addr del "$ip" dev net1
	run_plugin -e 1 macvlan CHECK net1 <<<"$prev"
	assert_json .code 105
	ip -n "$POD_NS" link del net1
	run_plugin -e 1 macvlan CHECK net1 <<<"$prev"
	assert_json .code 105
}

# --- differential with the reference macvlan -----------------------------------

ref_mv() {
	local rc=()
	if [ "$1" = "-e" ]; then
		rc=(-e "$2")
		shift 2
	fi
	PW_CNI_PATH=/usr/lib/cni run_plugin "${rc[@]}" "$REF_BIN/macvlan" "$@"
}

# shape NS IFNAME: the kernel attributes both implementations must agree on.
shape() {
	link_json "$1" "$2" | jq -c '{kind: .linkinfo.info_kind, mode: .linkinfo.info_data.mode, mtu, link, up: (.flags | index("UP") != null)}'
}

@test "differential: same result shape and kernel state as the reference" {
	pw_need "$REF_BIN/macvlan"
	for frag in '{}' '{"mode":"vepa","mtu":1400}' '{"mode":"private","ipam":{}}'; do
		run_plugin macvlan ADD net1 <<<"$(conf "$frag")"
		ours=$(norm <<<"$output" | jq -c 'del(.interfaces[0].mac, .ips[]?.address)')
		s_ours=$(shape "$POD_NS" net1)
		run_plugin macvlan DEL net1 <<<"$(conf "$frag")"
		ref_mv ADD net1 <<<"$(conf "$frag")"
		theirs=$(norm <<<"$output" | jq -c 'del(.interfaces[0].mac, .ips[]?.address)')
		s_ref=$(shape "$POD_NS" net1)
		ref_mv DEL net1 <<<"$(conf "$frag")"
		[ "$ours" = "$theirs" ] || { echo "# $frag: $ours vs $theirs" >&2; return 1; }
		[ "$s_ours" = "$s_ref" ] || { echo "# $frag: $s_ours vs $s_ref" >&2; return 1; }
	done
	[ "$(leases)" -eq 0 ]
}

@test "differential: bad inputs fail on both and leave nothing" {
	pw_need "$REF_BIN/macvlan"
	pod_snapshot >"$STATE/before"
	# The reference answers its generic 999 for each; podwire code 7 (README).
	for frag in '{"master":"nosuch0"}' '{"mtu":9000}' '{"mode":"l3"}'; do
		run_plugin -e 1 macvlan ADD net1 <<<"$(conf "$frag")"
		assert_json .code 7
		ref_mv -e 1 ADD net1 <<<"$(conf "$frag")"
		assert_json .code 999
	done
	diff -u "$STATE/before" <(pod_snapshot) >&2
}

@test "interop: an attachment of the reference is CHECKed and DELeted by podwire" {
	pw_need "$REF_BIN/macvlan"
	ref_mv ADD net1 <<<"$(conf)"
	prev=$(with_prev "$(conf)")
	run_plugin macvlan CHECK net1 <<<"$prev"
	run_plugin macvlan DEL net1 <<<"$prev"
	run ! ip -n "$POD_NS" link show net1
	[ "$(leases)" -eq 0 ]
}
