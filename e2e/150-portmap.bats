#!/usr/bin/env bats
# portmap chained after podwire's bridge through cnitool, with the conflists
# users copy unchanged (containerd's, CRI-O's + portmap): TCP and UDP from
# an outside netns to hostIP:hostPort, hairpin from the pod, localhost from
# the host netns, IPv6, CHECK, DEL (also with an empty netns), GC, bad input.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	load portmap-helpers
	pw_need "$PODWIRE_BIN/portmap"
	pw_setup
	cnitool_setup
	PW_CNI_PATH="$PODWIRE_BIN"
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
	outside_setup
}

teardown() {
	stop_listeners
	pw_teardown
}

MAPS='{"portMappings":[
 {"hostPort":8080,"containerPort":80,"protocol":"tcp"},
 {"hostPort":8081,"containerPort":81,"protocol":"udp"},
 {"HostPort":9090,"ContainerPort":80,"Protocol":"tcp","HostIP":"192.0.2.1"},
 {"hostPort":9091,"containerPort":80,"protocol":"tcp","hostIP":"2001:db8:2::1"}]}'

@test "containerd conflist: TCP and UDP from outside, hostIP, localhost, IPv6" {
	containerd_conflist
	CNITOOL_ENV=(CAP_ARGS="$MAPS")
	run_cnitool add containerd-net "$NETNS"
	local ip4 ip6
	ip4=$(printf '%s' "$output" | jq -r '.ips[] | select(.address | test("\\.")) | .address | sub("/.*";"")')
	ip6=$(printf '%s' "$output" | jq -r '.ips[] | select(.address | test(":")) | .address | sub("/.*";"")')
	[ -n "$ip4" ]
	[ -n "$ip6" ]
	in_ns "$POD_NS" ip -6 addr show dev eth0 | grep -q "$ip6"
	wait_no_tentative "$POD_NS"
	wait_no_tentative "$HOST_NS"
	listen "$POD_NS" tcp 80 pong
	listen "$POD_NS" udp 81 upong
	[ "$(ask "$OUT" tcp 192.0.2.1 8080)" = pong ]
	[ "$(ask "$OUT" udp 192.0.2.1 8081)" = upong ]
	[ "$(ask "$OUT" tcp 192.0.2.1 9090)" = pong ]
	[ "$(ask "$OUT" tcp 2001:db8:2::1 8080)" = pong ]
	# hostIP 192.0.2.1 only: not on the host's IPv6 address
	[ -z "$(ask "$OUT" tcp 2001:db8:2::1 9090)" ]
	# and an IPv6 hostIP: only there
	[ "$(ask "$OUT" tcp 2001:db8:2::1 9091)" = pong ]
	[ -z "$(ask "$OUT" tcp 192.0.2.1 9091)" ]
	# localhost from the host netns (route_localnet on the bridge)
	[ "$(ask "$HOST_NS" tcp 127.0.0.1 8080)" = pong ]
	[ "$(in_ns "$HOST_NS" sysctl -n net.ipv4.conf.cni0.route_localnet)" = 1 ]
	local tag="containerd-net/$CID/eth0"
	# v4: 3 map + hairpin (80, 81) + localhost (80, 81); v6: 3 map + 2 hairpin
	[ "$(portmap_elems "$tag")" -eq 12 ]
	run_cnitool check containerd-net "$NETNS"
	run_cnitool del containerd-net "$NETNS"
	[ "$(portmap_elems "$tag")" -eq 0 ]
	[ -z "$(ask "$OUT" tcp 192.0.2.1 8080)" ]
}

@test "CRI-O conflist + portmap: TCP from outside, hairpin; CHECK notices a removed element" {
	crio_conflist
	CNITOOL_ENV=(CAP_ARGS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}]}')
	run_cnitool add crio "$NETNS"
	listen "$POD_NS" tcp 80 pong
	[ "$(ask "$OUT" tcp 192.0.2.1 8080)" = pong ]
	# hairpin: the pod reaches itself through the host's address
	[ "$(ask "$POD_NS" tcp 192.0.2.1 8080)" = pong ]
	in_ns "$HOST_NS" nft delete element inet podwire hostports-v4 '{ tcp . 8080 }'
	run_cnitool -e 1 check crio "$NETNS"
	assert_stderr "105"
	run_cnitool del crio "$NETNS"
	[ "$(portmap_elems "crio/$CID/eth0")" -eq 0 ]
}

@test "masqAll, snat false: the pod sees the bridge address; no hairpin or localhost elements" {
	crio_conflist
	jq '.plugins[1] += {snat:false, masqAll:true}' "$NETCONF/11-crio-ipv4-bridge.conflist" >"$STATE/l"
	mv "$STATE/l" "$NETCONF/11-crio-ipv4-bridge.conflist"
	CNITOOL_ENV=(CAP_ARGS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}]}')
	run_cnitool add crio "$NETNS"
	ip netns exec "$POD_NS" socat TCP-LISTEN:80,fork,reuseaddr SYSTEM:'echo $SOCAT_PEERADDR' \
		</dev/null >/dev/null 2>&1 3>&- &
	PW_PIDS+=($!)
	for i in $(seq 50); do in_ns "$POD_NS" ss -Hltn | grep -q ':80 ' && break; sleep 0.05; done
	[ "$(ask "$OUT" tcp 192.0.2.1 8080)" = 10.85.0.1 ]
	# map + masqAll only
	[ "$(portmap_elems "crio/$CID/eth0")" -eq 2 ]
	run_cnitool del crio "$NETNS"
	[ "$(portmap_elems "crio/$CID/eth0")" -eq 0 ]
}

prev4() {
	jq -nc --arg ns "$NETNS" '{cniVersion:"1.0.0",
	  interfaces:[{name:"cni0"},{name:"vethx"},{name:"eth0",sandbox:$ns}],
	  ips:[{address:"10.99.0.5/24",interface:2}]}'
}

# pmconf MAPPINGS [EXTRA]: a chained portmap config with prevResult.
pmconf() {
	jq -nc --argjson pm "$1" --argjson pr "$(prev4)" --argjson x "${2:-{\}}" \
		'{cniVersion:"1.0.0",name:"pmnet",type:"portmap",
		  runtimeConfig:{portMappings:$pm},prevResult:$pr} + $x'
}

@test "direct: DEL with an empty CNI_NETNS removes the elements; a second DEL is fine" {
	run_plugin portmap ADD <<<"$(pmconf '[{"hostPort":7000,"containerPort":70}]')"
	assert_json '.ips[0].address' 10.99.0.5/24
	# map, hairpin, localhost
	[ "$(portmap_elems "pmnet/${PW_ID}c/eth0")" -eq 3 ]
	PW_NETNS="" run_plugin portmap DEL <<<"$(pmconf '[{"hostPort":7000,"containerPort":70}]')"
	[ "$(portmap_elems "pmnet/${PW_ID}c/eth0")" -eq 0 ]
	PW_NETNS="" run_plugin portmap DEL <<<"$(pmconf '[{"hostPort":7000,"containerPort":70}]')"
}

@test "direct: DEL without prevResult scans for the attachment's tag" {
	run_plugin portmap ADD <<<"$(pmconf '[{"hostPort":7001,"containerPort":70}]')"
	run_plugin portmap DEL <<<"$(pmconf '[{"hostPort":7001,"containerPort":70}]' | jq -c 'del(.prevResult)')"
	[ "$(portmap_elems "pmnet/${PW_ID}c/eth0")" -eq 0 ]
}

@test "direct: a host port taken by another attachment is code 103, nothing changed" {
	run_plugin portmap ADD <<<"$(pmconf '[{"hostPort":7002,"containerPort":70}]')"
	pm_snapshot before
	run_plugin -e 1 portmap ADD eth0 other <<<"$(pmconf '[{"hostPort":7003,"containerPort":71},{"hostPort":7002,"containerPort":70}]')"
	assert_error 103 "pmnet/${PW_ID}c/eth0"
	assert_error 103 "portMappings[1]"
	pm_snapshot_same before
	# the same attachment again is fine (a repeated ADD)
	run_plugin portmap ADD <<<"$(pmconf '[{"hostPort":7002,"containerPort":70}]')"
}

@test "direct: GC removes the elements of attachments not in valid-attachments" {
	run_plugin portmap ADD eth0 keep1 <<<"$(pmconf '[{"hostPort":7010,"containerPort":70}]')"
	run_plugin portmap ADD eth0 gone1 <<<"$(pmconf '[{"hostPort":7011,"containerPort":70}]' |
		jq -c '.prevResult.ips[0].address="10.99.0.6/24"')"
	run_plugin portmap GC <<<'{"cniVersion":"1.1.0","name":"pmnet","type":"portmap",
		"cni.dev/valid-attachments":[{"containerID":"keep1","ifname":"eth0"}]}'
	[ "$(portmap_elems "pmnet/keep1/eth0")" -eq 3 ]
	[ "$(portmap_elems "pmnet/gone1/eth0")" -eq 0 ]
}

@test "bad input: code 7 naming key and value, nothing changed" {
	pm_snapshot before
	local bad
	for bad in '[{"hostPort":0,"containerPort":80}]|hostPort: must be a port number 1-65535, got 0' \
		'[{"hostPort":70000,"containerPort":80}]|hostPort: must be a port number 1-65535, got 70000' \
		'[{"hostPort":80,"containerPort":65536}]|containerPort: must be a port number 1-65535, got 65536' \
		'[{"hostPort":80,"containerPort":80,"protocol":"icmp"}]|protocol: must be' \
		'[{"hostPort":80,"containerPort":80,"hostIP":"1.2.3"}]|hostIP: must be' \
		'[{"hostPort":80,"containerPort":80},{"hostPort":80,"containerPort":81,"hostIP":"10.0.0.1"}]|portMappings[1]: tcp host port 80 overlaps runtimeConfig.portMappings[0]'; do
		run_plugin -e 1 portmap ADD <<<"$(pmconf "${bad%%|*}")"
		assert_error 7 "${bad#*|}"
	done
	run_plugin -e 1 portmap ADD <<<"$(pmconf '[]' '{"markMasqBit":32}')"
	assert_error 7 markMasqBit
	run_plugin -e 1 portmap ADD <<<"$(pmconf '[]' '{"markMasqBit":3,"externalSetMarkChain":"KUBE-MARK-MASQ"}')"
	assert_error 7 "mutually exclusive"
	run_plugin -e 1 portmap ADD <<<"$(pmconf '[]' '{"backend":"ebpf"}')"
	assert_error 7 "backend"
	run_plugin -e 1 portmap ADD <<<"$(pmconf '[{"hostPort":80,"containerPort":80}]' | jq -c 'del(.prevResult)')"
	assert_error 7 "chained"
	pm_snapshot_same before
}
