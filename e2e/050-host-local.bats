#!/usr/bin/env bats
# host-local through the binary: the ADD/CHECK/DEL matrix, the on-disk
# layout, errors, GC/STATUS, and sharing one data directory with Debian's
# reference host-local (/usr/lib/cni) in both directions. IPAM state lives
# under $STATE; the plugin runs inside the test's host netns.

setup() {
	load helpers
	pw_setup
	DATA="$STATE/ipam"
}

teardown() {
	pw_teardown
}

# conf VERSION RANGES [EXTRA_IPAM]
conf() {
	printf '{"cniVersion":"%s","name":"hlnet","type":"bridge","ipam":{"type":"host-local","dataDir":"%s","ranges":%s%s}}' \
		"$1" "$DATA" "$2" "${3:-}"
}

V4='[[{"subnet":"10.77.0.0/24"}]]'
DUAL='[[{"subnet":"10.77.0.0/24"}],[{"subnet":"fd00:77::/64"}]]'

@test "ADD, CHECK, DEL, DEL again; layout matches the reference" {
	run_plugin host-local ADD eth0 pod1 <<<"$(conf 1.0.0 "$DUAL" ',"routes":[{"dst":"0.0.0.0/0"}]')"
	assert_json '.ips[0].address' 10.77.0.2/24
	assert_json '.ips[0].gateway' 10.77.0.1
	assert_json '.ips[1].address' fd00:77::2/64
	assert_json '.routes[0].dst' 0.0.0.0/0
	[ "$(cat "$DATA/hlnet/10.77.0.2")" = "$(printf 'pod1\r\neth0')" ]
	[ "$(cat "$DATA/hlnet/fd00:77::2")" = "$(printf 'pod1\r\neth0')" ]
	[ "$(cat "$DATA/hlnet/last_reserved_ip.0")" = 10.77.0.2 ]
	[ "$(cat "$DATA/hlnet/last_reserved_ip.1")" = fd00:77::2 ]
	[ "$(stat -c %a "$DATA/hlnet")" = 700 ]
	[ "$(stat -c %a "$DATA/hlnet/10.77.0.2")" = 600 ]
	run_plugin host-local CHECK eth0 pod1 <<<"$(conf 1.0.0 "$DUAL")"
	PW_NETNS="" run_plugin host-local DEL eth0 pod1 <<<"$(conf 1.0.0 "$DUAL")"
	[ ! -e "$DATA/hlnet/10.77.0.2" ]
	[ ! -e "$DATA/hlnet/fd00:77::2" ]
	PW_NETNS="" run_plugin host-local DEL eth0 pod1 <<<"$(conf 1.0.0 "$DUAL")"
	run_plugin -e 1 host-local CHECK eth0 pod1 <<<"$(conf 1.0.0 "$DUAL")"
	assert_error 105 "Failed to find address added by container pod1"
}

@test "round robin: a released address is not reused at once" {
	run_plugin host-local ADD eth0 a <<<"$(conf 1.0.0 "$V4")"
	assert_json '.ips[0].address' 10.77.0.2/24
	run_plugin host-local DEL eth0 a <<<"$(conf 1.0.0 "$V4")"
	run_plugin host-local ADD eth0 b <<<"$(conf 1.0.0 "$V4")"
	assert_json '.ips[0].address' 10.77.0.3/24
}

@test "duplicate ADD is refused with 102; exhaustion is 101" {
	local small='[[{"subnet":"10.78.0.0/30"}]]'
	run_plugin host-local ADD eth0 a <<<"$(conf 1.0.0 "$small")"
	run_plugin -e 1 host-local ADD eth0 a <<<"$(conf 1.0.0 "$small")"
	assert_error 102 "duplicate allocation is not allowed"
	run_plugin -e 1 host-local ADD eth0 b <<<"$(conf 1.0.0 "$small")"
	assert_error 101 "no IP addresses available in range set: 10.78.0.1-10.78.0.2"
	[ ! -e "$DATA/hlnet/10.78.0.1" ]
}

@test "bad config is code 7 naming key and value, and leaves no lease" {
	run_plugin -e 1 host-local ADD eth0 a <<<"$(conf 1.0.0 '[[{"subnet":"10.0.0.0/33"}]]')"
	assert_error 7 "ipam.ranges[0][0].subnet: not a CIDR: '10.0.0.0/33'"
	run_plugin -e 1 host-local ADD eth0 a <<<"$(conf 1.0.0 '[[{"subnet":"10.0.0.0/24","gateway":"10.0.0.255"}]]')"
	assert_error 7 "ipam.ranges[0][0].gateway: '10.0.0.255' is the broadcast address"
	run_plugin -e 1 host-local ADD eth0 a <<<'{"cniVersion":"1.0.0","name":"../evil","type":"x","ipam":{"type":"host-local","dataDir":"'"$DATA"'","subnet":"10.0.0.0/24"}}'
	assert_json .code 7
	[ -z "$(ls -A "$DATA/hlnet" 2>/dev/null | grep -v -e lock -e .podwire)" ]
	[ ! -e "$STATE/evil" ]
}

@test "requested address from CNI_ARGS and runtimeConfig.ips" {
	PW_CNI_ARGS="IgnoreUnknown=1;IP=10.77.0.40;K8S_POD_NAME=x" \
		run_plugin host-local ADD eth0 a <<<"$(conf 1.0.0 "$V4")"
	assert_json '.ips[0].address' 10.77.0.40/24
	run_plugin -e 1 host-local ADD eth0 b <<<'{"cniVersion":"1.0.0","name":"hlnet","type":"bridge","runtimeConfig":{"ips":["10.77.0.40/24"]},"ipam":{"type":"host-local","dataDir":"'"$DATA"'","ranges":'"$V4"'}}'
	assert_error 102 "requested IP address 10.77.0.40 is not available"
}

@test "GC releases what valid-attachments does not list; STATUS reports exhaustion" {
	local small='[[{"subnet":"10.79.0.0/29"}]]'
	for c in a b c d e; do
		run_plugin host-local ADD eth0 "$c" <<<"$(conf 1.1.0 "$small")"
	done
	run_plugin -e 1 host-local STATUS "" "" <<<"$(conf 1.1.0 "$small")"
	assert_error 50 "exhausted"
	run_plugin host-local GC "" "" <<<'{"cniVersion":"1.1.0","name":"hlnet","type":"bridge","cni.dev/valid-attachments":[{"containerID":"b","ifname":"eth0"},{"containerID":"d","ifname":"eth0"}],"ipam":{"type":"host-local","dataDir":"'"$DATA"'","ranges":'"$small"'}}'
	[ "$(grep -l . "$DATA"/hlnet/10.* | wc -l)" -eq 2 ]
	[ "$(cat "$DATA/hlnet/10.79.0.3")" = "$(printf 'b\r\neth0')" ]
	[ "$(cat "$DATA/hlnet/10.79.0.5")" = "$(printf 'd\r\neth0')" ]
	run_plugin host-local STATUS "" "" <<<"$(conf 1.1.0 "$small")"
	run_plugin host-local ADD eth0 f <<<"$(conf 1.1.0 "$small")"
	assert_json '.ips[0].address' 10.79.0.2/29
}

@test "STATUS is 50 when dataDir is not usable" {
	touch "$STATE/file"
	run_plugin -e 1 host-local STATUS "" "" <<<'{"cniVersion":"1.1.0","name":"hlnet","type":"bridge","ipam":{"type":"host-local","dataDir":"'"$STATE/file/sub"'","ranges":'"$V4"'}}'
	assert_error 50 "ipam.dataDir"
}

@test "reference ADD, podwire CHECK/duplicate/DEL" {
	require_ref_plugins
	run_plugin "$REF_BIN/host-local" ADD eth0 ref1 <<<"$(conf 1.0.0 "$DUAL")"
	assert_json '.ips[0].address' 10.77.0.2/24
	run_plugin host-local CHECK eth0 ref1 <<<"$(conf 1.0.0 "$DUAL")"
	run_plugin -e 1 host-local ADD eth0 ref1 <<<"$(conf 1.0.0 "$DUAL")"
	assert_error 102 "10.77.0.2 has been allocated to ref1"
	run_plugin host-local ADD eth0 pw1 <<<"$(conf 1.0.0 "$DUAL")"
	assert_json '.ips[0].address' 10.77.0.3/24
	run_plugin host-local DEL eth0 ref1 <<<"$(conf 1.0.0 "$DUAL")"
	[ ! -e "$DATA/hlnet/10.77.0.2" ]
	[ ! -e "$DATA/hlnet/fd00:77::2" ]
	[ -e "$DATA/hlnet/10.77.0.3" ]
}

@test "podwire ADD, reference CHECK/round robin/DEL" {
	require_ref_plugins
	run_plugin host-local ADD eth0 pw1 <<<"$(conf 1.0.0 "$DUAL")"
	run_plugin "$REF_BIN/host-local" CHECK eth0 pw1 <<<"$(conf 1.0.0 "$DUAL")"
	run_plugin "$REF_BIN/host-local" ADD eth0 ref1 <<<"$(conf 1.0.0 "$DUAL")"
	assert_json '.ips[0].address' 10.77.0.3/24
	run_plugin "$REF_BIN/host-local" DEL eth0 pw1 <<<"$(conf 1.0.0 "$DUAL")"
	[ ! -e "$DATA/hlnet/10.77.0.2" ]
	[ ! -e "$DATA/hlnet/fd00:77::2" ]
	# podwire notices the reference's changes and still finds and frees ref1.
	run_plugin -e 1 host-local CHECK eth0 pw1 <<<"$(conf 1.0.0 "$DUAL")"
	run_plugin host-local ADD eth0 pw2 <<<"$(conf 1.0.0 "$DUAL")"
	assert_json '.ips[0].address' 10.77.0.4/24
	run_plugin host-local DEL eth0 ref1 <<<"$(conf 1.0.0 "$DUAL")"
	[ ! -e "$DATA/hlnet/10.77.0.3" ]
}

# par_run PLUGIN CMD CID: one invocation in the background, output to $STATE/out.CID.CMD
par_run() {
	ip netns exec "$HOST_NS" env CNI_COMMAND="$2" CNI_CONTAINERID="$3" \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 CNI_PATH=/nonexistent \
		"$1" <"$STATE/conf" >"$STATE/out.$3.$2" 2>/dev/null
	echo $? >"$STATE/rc.$3.$2"
}

@test "50 parallel ADDs and DELs (podwire and reference mixed) never share or lose a lease" {
	local bins=("$PODWIRE_BIN/host-local" "$REF_BIN/host-local") i
	pw_need "${bins[@]}"
	conf 1.0.0 '[[{"subnet":"10.80.0.0/24"}]]' >"$STATE/conf"
	for i in $(seq 1 25); do par_run "$PODWIRE_BIN/host-local" ADD "old$i"; done
	for i in $(seq 1 50); do
		if [ $((i % 2)) -eq 0 ]; then
			par_run "$PODWIRE_BIN/host-local" DEL "old$((i / 2))" &
		fi
		par_run "${bins[$((i % ${#bins[@]}))]}" ADD "new$i" &
	done
	wait
	for i in $(seq 1 50); do
		[ "$(cat "$STATE/rc.new$i.ADD")" = 0 ] || { cat "$STATE/out.new$i.ADD" >&2; false; }
	done
	# Every new pod got a distinct address, and holds exactly the file naming it.
	[ "$(jq -r '.ips[0].address' "$STATE"/out.new*.ADD | sort -u | wc -l)" -eq 50 ]
	for i in $(seq 1 50); do
		ip=$(jq -r '.ips[0].address' "$STATE/out.new$i.ADD")
		[ "$(cat "$DATA/hlnet/${ip%/*}")" = "$(printf 'new%s\r\neth0' "$i")" ]
	done
	# The 25 DELs left nothing of old*, and nothing else is on disk.
	run grep -l '^old' "$DATA"/hlnet/10.*
	[ "$status" -eq 1 ]
	[ "$(ls "$DATA"/hlnet/10.* | wc -l)" -eq 50 ]
	# podwire's index agrees with the files: each new pod is found and released.
	for i in $(seq 1 50); do par_run "$PODWIRE_BIN/host-local" DEL "new$i" & done
	wait
	[ -z "$(ls "$DATA"/hlnet/10.* 2>/dev/null)" ]
}
