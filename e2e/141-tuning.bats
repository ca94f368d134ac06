#!/usr/bin/env bats
# tuning: sysctls (IFNAME, both notations, allow list), mac/mtu/promisc/
# allmulti/txQLen set and restored, CHECK, bad input changes nothing, a
# kernel refusal rolls everything back, DEL with the pod gone.

setup() {
	load helpers
	load chained-helpers
	pw_setup
	pod_veth eth0
	DATA="$STATE/tuning"
	PREV=$(prev_iface eth0)
	ALLOW="$STATE/allowlist.conf"
	PW_ENV=(PODWIRE_TUNING_ALLOWLIST="$ALLOW")
}

teardown() {
	pw_teardown
}

# conf JSON-FRAGMENT: a tuning config with prevResult and dataDir in $STATE.
conf() {
	jq -c --arg dd "$DATA" --argjson pr "$PREV" \
		". + {cniVersion:\"1.0.0\", name:\"tn\", type:\"tuning\", dataDir:\$dd, prevResult:\$pr}" \
		<<<"${1:-{\}}"
}

ALL='{"mac":"c2:11:22:33:44:55","mtu":1400,"promisc":true,"allmulti":true,"txQLen":500}'

@test "every attribute set, saved, CHECKed and restored on DEL" {
	before=$(link_state "$POD_NS" eth0)
	c=$(conf "$ALL")
	run_plugin tuning ADD <<<"$c"
	assert_json '.interfaces[0].mac' c2:11:22:33:44:55
	[ "$(link_state "$POD_NS" eth0)" = "c2:11:22:33:44:55 mtu=1400 txqlen=500 promisc=1 flags=ALLMULTI,PROMISC" ]
	f="$DATA/${PW_ID}c_eth0.json"
	[ -f "$f" ]
	jq -e --arg m "$(cut -d' ' -f1 <<<"$before")" '.mac == $m and .mtu == 1500 and .promisc == false and .allmulti == false and .txQLen == 1000' "$f"
	run_plugin tuning CHECK <<<"$c"
	run_plugin tuning DEL <<<"$c"
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
	[ ! -e "$f" ]
	run_plugin tuning DEL <<<"$c"
}

@test "sysctls: IFNAME substituted, both notations, values set" {
	ip -n "$POD_NS" link add eth0.5 type veth peer name e5p
	c=$(conf '{"sysctl":{"net.core.somaxconn":"777","net.ipv4.conf.IFNAME.arp_filter":"1","net/ipv4/conf/IFNAME/arp_ignore":"2"}}')
	run_plugin tuning ADD eth0.5 <<<"$c"
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" = 777 ]
	[ "$(sysctl_in "$POD_NS" net/ipv4/conf/eth0.5/arp_filter)" = 1 ]
	[ "$(sysctl_in "$POD_NS" net/ipv4/conf/eth0.5/arp_ignore)" = 2 ]
	# the host netns is untouched
	[ "$(sysctl_in "$HOST_NS" net/core/somaxconn)" != 777 ]
	run_plugin tuning CHECK eth0.5 <<<"$c"
	in_ns "$POD_NS" sysctl -qw net.core.somaxconn=100
	run_plugin -e 1 tuning CHECK eth0.5 <<<"$c"
	assert_error 105 "net.core.somaxconn"
}

@test "precedence of mac: conf < CNI_ARGS < runtimeConfig < args.cni; args.cni over keys" {
	c=$(conf '{"mac":"02:00:00:00:00:01","runtimeConfig":{"mac":"02:00:00:00:00:03"},"mtu":1400,"args":{"cni":{"mtu":1300}}}')
	PW_CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAME=x;MAC=02:00:00:00:00:02" run_plugin tuning ADD <<<"$c"
	[[ "$(link_state "$POD_NS" eth0)" == "02:00:00:00:00:03 mtu=1300 "* ]]
	run_plugin tuning DEL <<<"$c"
	c=$(conf '{"mac":"02:00:00:00:00:01"}')
	PW_CNI_ARGS="MAC=02:00:00:00:00:02" run_plugin tuning ADD <<<"$c"
	[[ "$(link_state "$POD_NS" eth0)" == "02:00:00:00:00:02 "* ]]
	run_plugin tuning DEL <<<"$c"
	c=$(conf '{"runtimeConfig":{"mac":"02:00:00:00:00:03"},"args":{"cni":{"mac":"02:00:00:00:00:04"}}}')
	run_plugin tuning ADD <<<"$c"
	[[ "$(link_state "$POD_NS" eth0)" == "02:00:00:00:00:04 "* ]]
}

@test "bad input: code 7 naming key and value, nothing changed" {
	in_ns "$POD_NS" sysctl -qw net.core.somaxconn=123
	pod_snapshot >"$STATE/before"
	before=$(link_state "$POD_NS" eth0)
	for frag in \
		'{"sysctl":{"net.core.somaxconn":"1","kernel.hostname":"x"}}' \
		'{"sysctl":{"net.core.somaxconn":"1","net/../kernel/hostname":"x"}}' \
		'{"mtu":1400,"mac":"c2:11:22:33:44"}' \
		'{"mtu":1400,"mac":"01:00:5e:00:00:01"}' \
		'{"mtu":"big"}' '{"txQLen":-1}' '{"promisc":"yes"}'; do
		run_plugin -e 1 tuning ADD <<<"$(conf "$frag")"
		assert_json .code 7
	done
	run_plugin -e 1 tuning ADD <<<"$(conf '{"sysctl":{"net.core.somaxconn":"1","kernel.hostname":"x"}}')"
	assert_error 7 "invalid net sysctl key 'kernel.hostname' (value 'x')"
	run_plugin -e 1 tuning ADD <<<"$(conf '{"mac":"c2:11:22:33:44"}')"
	assert_error 7 "mac: invalid MAC address 'c2:11:22:33:44'"
	PW_CNI_ARGS="MAC=zz" run_plugin -e 1 tuning ADD <<<"$(conf)"
	assert_error 7 "CNI_ARGS MAC: invalid MAC address 'zz'"
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" = 123 ]
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
	diff -u "$STATE/before" <(pod_snapshot) >&2
}

@test "no prevResult: code 7; unknown CNI_ARGS key without IgnoreUnknown: code 4" {
	run_plugin -e 1 tuning ADD <<<"$(conf | jq -c 'del(.prevResult)')"
	assert_error 7 "prevResult"
	PW_CNI_ARGS="FOO=1" run_plugin -e 1 tuning ADD <<<"$(conf)"
	assert_error 4 "FOO=1"
}

@test "a kernel refusal rolls back every sysctl and attribute already changed" {
	in_ns "$POD_NS" sysctl -qw net.core.somaxconn=123
	before=$(link_state "$POD_NS" eth0)
	# veth's MTU stops at 65535: the kernel refuses after sysctl and MAC are set.
	c=$(conf '{"sysctl":{"net.core.somaxconn":"999"},"mac":"c2:11:22:33:44:55","promisc":true,"mtu":70000}')
	run_plugin -e 1 tuning ADD <<<"$c"
	assert_error 7 "mtu: cannot set '70000'"
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" = 123 ]
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
	[ -z "$(ls -A "$DATA" 2>/dev/null)" ]
	# a sysctl the kernel refuses (not a number) rolls back the earlier ones
	c=$(conf '{"sysctl":{"net.core.somaxconn":"999","net.ipv4.ip_forward":"x"}}')
	run_plugin -e 1 tuning ADD <<<"$c"
	assert_json .code 7
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" = 123 ]
	c=$(conf '{"sysctl":{"net.ipv4.conf.IFNAME.nope":"1"}}')
	run_plugin -e 1 tuning ADD <<<"$c"
	assert_error 7 "no such sysctl"
}

@test "allow list: only matching keys pass, a missing file allows all" {
	c=$(conf '{"sysctl":{"net.core.somaxconn":"555","net.ipv4.conf.IFNAME.arp_filter":"1"}}')
	printf '^net\\.core\\.somaxconn$\n' >"$ALLOW"
	run_plugin -e 1 tuning ADD <<<"$c"
	assert_error 7 "'net.ipv4.conf.IFNAME.arp_filter' (value '1') is not allowed"
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" != 555 ]
	printf '  ^net\\.core\\.somaxconn$\n\n^net\\.ipv4\\.conf\\.IFNAME\\.[a-z_]+$\n' >"$ALLOW"
	run_plugin tuning ADD <<<"$c"
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" = 555 ]
	rm -f "$ALLOW"
	run_plugin tuning ADD <<<"$(conf '{"sysctl":{"net.core.somaxconn":"556"}}')"
	[ "$(sysctl_in "$POD_NS" net/core/somaxconn)" = 556 ]
}

@test "DEL with the pod netns or the interface gone removes the backup; a retried ADD keeps the originals" {
	before=$(link_state "$POD_NS" eth0)
	c=$(conf '{"mtu":1400}')
	run_plugin tuning ADD <<<"$c"
	run_plugin tuning ADD <<<"$(conf '{"mtu":1300}')"
	run_plugin tuning DEL <<<"$c"
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
	run_plugin tuning ADD <<<"$c"
	f="$DATA/${PW_ID}c_eth0.json"
	[ -f "$f" ]
	ip -n "$POD_NS" link del eth0
	run_plugin tuning DEL <<<"$c"
	[ ! -e "$f" ]
	pod_veth eth0
	run_plugin tuning ADD <<<"$c"
	PW_NETNS="/var/run/netns/${PW_ID}gone" run_plugin tuning DEL <<<"$c"
	[ ! -e "$f" ]
	# CNI_NETNS naming the plugin's own netns: no host link is "restored"
	ip -n "$HOST_NS" link add eth0 mtu 1450 type veth peer name h0p
	run_plugin tuning ADD <<<"$c"
	hs=$(link_state "$HOST_NS" eth0)
	PW_NETNS="/var/run/netns/$HOST_NS" run_plugin tuning DEL <<<"$c"
	[ "$(link_state "$HOST_NS" eth0)" = "$hs" ]
	[ ! -e "$f" ]
}

# --- interop and differential with the reference tuning ---------------------

# ref_tuning [-e RC] COMMAND [IFNAME]: the reference tuning, as run_plugin.
ref_tuning() {
	local rc=()
	if [ "$1" = "-e" ]; then
		rc=(-e "$2")
		shift 2
	fi
	PW_CNI_PATH=$REF_BIN run_plugin "${rc[@]}" "$REF_BIN/tuning" "$@"
}

@test "differential: same values set, same result, same restore as the reference" {
	pw_need "$REF_BIN/tuning"
	pod_veth eth1
	ip -n "$POD_NS" link set eth1 address "$(ip -n "$POD_NS" -j link show eth0 | jq -r '.[0].address')"
	frag='{"mac":"c2:11:22:33:44:55","mtu":1400,"promisc":true,"allmulti":true,"sysctl":{"net.ipv4.conf.IFNAME.arp_filter":"1"}}'
	PREV=$(prev_iface eth0)
	run_plugin tuning ADD eth0 <<<"$(conf "$frag")"
	ours=$(norm <<<"$output" | jq -c '.interfaces[0].name = "X"')
	PREV=$(prev_iface eth1)
	ref_tuning ADD eth1 <<<"$(conf "$frag")"
	[ "$ours" = "$(norm <<<"$output" | jq -c '.interfaces[0].name = "X"')" ]
	[ "$(link_state "$POD_NS" eth0)" = "$(link_state "$POD_NS" eth1)" ]
	[ "$(sysctl_in "$POD_NS" net/ipv4/conf/eth0/arp_filter)" = "$(sysctl_in "$POD_NS" net/ipv4/conf/eth1/arp_filter)" ]
	PREV=$(prev_iface eth0)
	run_plugin tuning DEL eth0 <<<"$(conf "$frag")"
	PREV=$(prev_iface eth1)
	ref_tuning DEL eth1 <<<"$(conf "$frag")"
	[ "$(link_state "$POD_NS" eth0)" = "$(link_state "$POD_NS" eth1)" ]
}

@test "differential: the same bad inputs fail on both, and change nothing" {
	pw_need "$REF_BIN/tuning"
	before=$(link_state "$POD_NS" eth0)
	# The reference answers its generic 999 for each; podwire code 7 (README).
	for frag in '{"sysctl":{"kernel.hostname":"x"}}' '{"mac":"c2:11:22:33:44"}'; do
		run_plugin -e 1 tuning ADD <<<"$(conf "$frag")"
		assert_json .code 7
		ref_tuning -e 1 ADD <<<"$(conf "$frag")"
		assert_json .code 999
	done
	run_plugin -e 1 tuning ADD <<<"$(conf | jq -c 'del(.prevResult)')"
	assert_error 7 "prevResult"
	ref_tuning -e 1 ADD <<<"$(conf | jq -c 'del(.prevResult)')"
	assert_error 999 "Required prevResult missing"
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
}

@test "interop: a backup written by the reference is restored by podwire, and back" {
	pw_need "$REF_BIN/tuning"
	before=$(link_state "$POD_NS" eth0)
	c=$(conf '{"mac":"c2:11:22:33:44:55","mtu":1400,"promisc":true,"allmulti":true}')
	ref_tuning ADD <<<"$c"
	run_plugin tuning DEL <<<"$c"
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
	run_plugin tuning ADD <<<"$c"
	ref_tuning DEL <<<"$c"
	[ "$(link_state "$POD_NS" eth0)" = "$before" ]
}
