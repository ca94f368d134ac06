#!/usr/bin/env bats
# bridge + nftables: ipMasq seen from an "outside" netns, macspoofchk dropping
# a spoofed source MAC, CHECK of nftables elements, DEL and GC removing
# exactly what ADD added.

setup() {
	load helpers
	pw_setup
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN:/usr/lib/cni"
	export PW_CNI_PATH
}

teardown() {
	pw_teardown
}

conf() {
	local extra=${1:-}
	[ -n "$extra" ] || extra='{}'
	jq -nc --arg dd "$STATE/ipam" --argjson extra "$extra" \
		'{cniVersion:"1.0.0", name:"pwnet", type:"bridge", bridge:"br0", isDefaultGateway:true,
		  ipam:{type:"host-local", dataDir:$dd, ranges:[[{subnet:"10.1.2.0/24"}]]}} + $extra'
}

with_prev() {
	jq -c --argjson pr "$output" '. + {prevResult: $pr}' <<<"$1"
}

# An "outside" netns behind the host: host 192.0.2.1 <-> outside 192.0.2.2,
# with no route back to the pod subnet (only masqueraded traffic returns).
outside_setup() {
	OUT="${PW_ID}o"
	pw_netns_new "$OUT"
	ip -n "$HOST_NS" link add up0 type veth peer name dn0 netns "$OUT"
	ip -n "$HOST_NS" addr add 192.0.2.1/24 dev up0
	ip -n "$HOST_NS" link set up0 up
	ip -n "$OUT" addr add 192.0.2.2/24 dev dn0
	ip -n "$OUT" link set dn0 up
}

# record_sources NS: NS remembers the source address of every ICMP echo
# request it receives (a dynamic nftables set; no packet capture tools needed).
record_sources() {
	in_ns "$1" nft -f - <<-'NFT'
	table inet seen {
		set src { type ipv4_addr; flags dynamic; }
		chain input {
			type filter hook input priority 0;
			icmp type echo-request add @src { ip saddr }
		}
	}
	NFT
}

# sources NS: the recorded addresses, sorted, comma separated.
sources() {
	in_ns "$1" nft -j list set inet seen src |
		jq -r '[.nftables[].set.elem // empty | .[]] | sort | join(",")'
}

@test "ipMasq: the outside sees the host address; without it the pod address" {
	outside_setup
	record_sources "$OUT"
	run_plugin bridge ADD <<<"$(conf '{"ipMasq":true}')"
	# the reply finds its way back only because of the masquerade
	in_ns "$POD_NS" ping -c1 -W2 192.0.2.2
	[ "$(sources "$OUT")" = 192.0.2.1 ]
	# one element, tagged with container ID and ifname
	in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24 |
		grep -q "10.1.2.2 comment \"${PW_ID}c/eth0\""
	prev=$(with_prev "$(conf '{"ipMasq":true}')")
	run_plugin bridge CHECK <<<"$prev"
	run_plugin bridge DEL <<<"$prev"
	run ! grep -q 10.1.2.2 <<<"$(in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24)"
	# a pod without ipMasq arrives with its own address (and gets no reply)
	run_plugin bridge ADD <<<"$(conf)"
	run ! in_ns "$POD_NS" ping -c1 -W1 192.0.2.2
	[ "$(sources "$OUT")" = "10.1.2.3,192.0.2.1" ]
}

@test "ipMasq: traffic inside the pod subnet keeps the pod address" {
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	record_sources "$POD2"
	run_plugin bridge ADD <<<"$(conf '{"ipMasq":true}')"
	PW_NETNS="/var/run/netns/$POD2" run_plugin bridge ADD eth0 "${PW_ID}d" <<<"$(conf '{"ipMasq":true}')"
	in_ns "$POD_NS" ping -c1 -W2 10.1.2.3
	[ "$(sources "$POD2")" = 10.1.2.2 ]
}

@test "ipMasq: CHECK notices a missing element; DEL with an empty CNI_NETNS removes it" {
	run_plugin bridge ADD <<<"$(conf '{"ipMasq":true}')"
	prev=$(with_prev "$(conf '{"ipMasq":true}')")
	in_ns "$HOST_NS" nft delete element inet podwire pods-pwnet-10.1.2.0-24 '{ 10.1.2.2 }'
	run_plugin -e 1 bridge CHECK <<<"$prev"
	assert_error 105 "ipMasq: nftables elements of ${PW_ID}c/eth0 missing"
	in_ns "$HOST_NS" nft add element inet podwire pods-pwnet-10.1.2.0-24 \
		"{ 10.1.2.2 comment \"${PW_ID}c/eth0\" }"
	run_plugin bridge CHECK <<<"$prev"
	PW_NETNS="" run_plugin bridge DEL <<<"$prev"
	run ! grep -q 10.1.2.2 <<<"$(in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24)"
}

@test "ipMasqBackend iptables is served by nftables; no iptables rules appear" {
	run_plugin bridge ADD <<<"$(conf '{"ipMasq":true,"ipMasqBackend":"iptables"}')"
	in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24 | grep -q 10.1.2.2
	run ! grep -q 'ip nat' <<<"$(in_ns "$HOST_NS" nft list tables)"
}

@test "macspoofchk: a frame with a spoofed source MAC is dropped" {
	run_plugin bridge ADD <<<"$(conf '{"macspoofchk":true}')"
	hv=$(jq -r '.interfaces[1].name' <<<"$output")
	mac=$(jq -r '.interfaces[2].mac' <<<"$output")
	prev=$(with_prev "$(conf '{"macspoofchk":true}')")
	in_ns "$POD_NS" ping -c1 -W2 10.1.2.1
	in_ns "$HOST_NS" nft list set bridge podwire spoof-allowed-pwnet | grep -q "\"$hv\" . $mac"
	ip -n "$POD_NS" link set eth0 address 02:de:ad:be:ef:01
	ip -n "$HOST_NS" neigh flush dev br0
	run ! in_ns "$POD_NS" ping -c2 -W1 10.1.2.1
	ip -n "$POD_NS" link set eth0 address "$mac"
	ip -n "$POD_NS" neigh flush dev eth0
	in_ns "$POD_NS" ping -c1 -W2 10.1.2.1
	run_plugin bridge CHECK <<<"$prev"
	run_plugin bridge DEL <<<"$prev"
	run ! grep -q "$hv" <<<"$(in_ns "$HOST_NS" nft list set bridge podwire spoof-ports-pwnet)"
	run ! grep -q "$hv" <<<"$(in_ns "$HOST_NS" nft list set bridge podwire spoof-allowed-pwnet)"
	run_plugin bridge DEL <<<"$prev"
}

@test "GC removes nftables elements of attachments not in cni.dev/valid-attachments" {
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	c='{"cniVersion":"1.1.0","name":"pwnet","type":"bridge","bridge":"br0","macspoofchk":true,"ipam":{}}'
	run_plugin bridge ADD eth0 keep <<<"$c"
	PW_NETNS="/var/run/netns/$POD2" run_plugin bridge ADD eth0 stale <<<"$c"
	[ "$(in_ns "$HOST_NS" nft list set bridge podwire spoof-ports-pwnet | grep -c comment)" -eq 3 ]
	gc=$(jq -c '. + {"cni.dev/valid-attachments": [{"containerID": "keep", "ifname": "eth0"}]}' <<<"$c")
	run_plugin bridge GC <<<"$gc"
	in_ns "$HOST_NS" nft list set bridge podwire spoof-ports-pwnet | grep -q 'comment "keep/eth0"'
	run ! grep -q 'stale/eth0' <<<"$(in_ns "$HOST_NS" nft list set bridge podwire spoof-allowed-pwnet)"
	# an empty list removes the rest; a second GC finds nothing
	run_plugin bridge GC <<<"$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$c")"
	run ! grep -q 'keep/eth0' <<<"$(in_ns "$HOST_NS" nft list set bridge podwire spoof-ports-pwnet)"
	run_plugin bridge GC <<<"$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$c")"
}

@test "GC drops a network's sets and chains once no attachment is left, never another network's" {
	local a b
	a=$(jq -c '.cniVersion = "1.1.0" | .macspoofchk = true' <<<"$(conf '{"ipMasq":true}')")
	b=$(jq -c '.name = "other" | .bridge = "br1" | .ipam.ranges = [[{"subnet":"10.1.3.0/24"}]]' <<<"$a")
	run_plugin bridge ADD eth0 one <<<"$a"
	PW_NETNS="/var/run/netns/$POD_NS" run_plugin bridge ADD eth1 two <<<"$b"
	in_ns "$HOST_NS" nft list chain inet podwire masq-pwnet-10.1.2.0-24 >/dev/null
	in_ns "$HOST_NS" nft list chain bridge podwire spoof-pwnet >/dev/null
	# one attachment still valid: the network's state stays
	run_plugin bridge GC <<<"$(jq -c '. + {"cni.dev/valid-attachments": [{"containerID": "one", "ifname": "eth0"}]}' <<<"$a")"
	in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24 | grep -q 'one/eth0'
	# none left: sets and chains of pwnet go, "other" keeps everything
	run_plugin bridge GC <<<"$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$a")"
	run ! in_ns "$HOST_NS" nft list chain inet podwire masq-pwnet-10.1.2.0-24
	run ! in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24
	run ! in_ns "$HOST_NS" nft list chain bridge podwire spoof-pwnet
	run ! in_ns "$HOST_NS" nft list set bridge podwire spoof-ports-pwnet
	in_ns "$HOST_NS" nft list set inet podwire pods-other-10.1.3.0-24 | grep -q 'two/eth1'
	in_ns "$HOST_NS" nft list chain bridge podwire spoof-other >/dev/null
	# a new ADD builds them again
	PW_NETNS="/var/run/netns/$POD_NS" run_plugin bridge ADD eth2 three <<<"$a"
	in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24 | grep -q 'three/eth2'
}

@test "GC of an L3 network: masquerade elements and leases of stale attachments go" {
	pw_need "$PODWIRE_BIN/host-local" # the reference one has no GC
	POD2="${PW_ID}q"
	pw_netns_new "$POD2"
	c=$(jq -c '.cniVersion = "1.1.0"' <<<"$(conf '{"ipMasq":true}')")
	run_plugin bridge ADD eth0 keep <<<"$c"
	PW_NETNS="/var/run/netns/$POD2" run_plugin bridge ADD eth0 stale <<<"$c"
	[ -f "$STATE/ipam/pwnet/10.1.2.3" ]
	run_plugin bridge GC <<<"$(jq -c '. + {"cni.dev/valid-attachments": [{"containerID": "keep", "ifname": "eth0"}]}' <<<"$c")"
	in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24 | grep -q 'comment "keep/eth0"'
	run ! grep -q 'stale/eth0' <<<"$(in_ns "$HOST_NS" nft list set inet podwire pods-pwnet-10.1.2.0-24)"
	[ -f "$STATE/ipam/pwnet/10.1.2.2" ]
	[ ! -f "$STATE/ipam/pwnet/10.1.2.3" ]
}

@test "STATUS succeeds for L2 and asks the IPAM plugin for L3" {
	run_plugin bridge STATUS <<<'{"cniVersion":"1.1.0","name":"pwnet","type":"bridge","ipam":{}}'
	c='{"cniVersion":"1.1.0","name":"pwnet","type":"bridge","ipam":{"type":"fail"},"code":50,"msg":"ipam unavailable","failOn":["STATUS"],"logLevel":"error"}'
	run_plugin -e 1 bridge STATUS <<<"$c"
	assert_error 50 "ipam unavailable"
}
