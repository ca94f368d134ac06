#!/usr/bin/env bats
# loopback: lo up in a fresh pod netns, the reference's result, chaining,
# CHECK, DEL (also with the netns gone), and the same inputs through the
# reference loopback.

setup() {
	load helpers
	load chained-helpers
	pw_setup
	lo_fresh_pod
	NETNS="/var/run/netns/$POD_NS"
	CONF='{"cniVersion":"1.0.0","name":"lo","type":"loopback"}'
}

teardown() {
	pw_teardown
}

lo_flags() {
	ip -n "$POD_NS" -j link show lo | jq -r '.[0].flags | join(",")'
}

@test "ADD sets lo up and reports 127.0.0.1/8 and ::1/128; CNI_IFNAME is ignored" {
	[[ "$(lo_flags)" != *UP* ]]
	run_plugin loopback ADD eth0 <<<"$CONF"
	[[ "$(lo_flags)" == *UP* ]]
	assert_json .cniVersion 1.0.0
	assert_json '.interfaces | length' 1
	assert_json '.interfaces[0].name' lo
	assert_json '.interfaces[0].mac' 00:00:00:00:00:00
	assert_json '.interfaces[0].sandbox' "$NETNS"
	assert_json '[.ips[].address] | join(" ")' "127.0.0.1/8 ::1/128"
	assert_json '[.ips[].interface] | join(" ")' "0 0"
	run ! ip -n "$POD_NS" link show eth0
}

@test "the addresses come from the kernel: no IPv6 in the pod, no ::1" {
	ip netns exec "$POD_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.lo.disable_ipv6=1
	run_plugin loopback ADD <<<"$CONF"
	assert_json '[.ips[].address] | join(" ")' "127.0.0.1/8"
}

@test "a non-loopback address on lo is refused, as the reference" {
	ip -n "$POD_NS" addr add 10.9.9.9/32 dev lo
	run_plugin -e 1 loopback ADD <<<"$CONF"
	assert_error 100 "non-loopback address '10.9.9.9'"
}

@test "chained: prevResult passes through unchanged" {
	prev='{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","mac":"02:00:00:00:00:01","sandbox":"x"}],"ips":[{"address":"10.1.0.5/24","gateway":"10.1.0.1","interface":0}],"routes":[{"dst":"0.0.0.0/0"}]}'
	run_plugin loopback ADD <<<"$(with_prev "$CONF" "$prev")"
	[ "$(norm <<<"$output")" = "$(norm <<<"$prev")" ]
	[[ "$(lo_flags)" == *UP* ]]
}

@test "CHECK passes when lo is up, fails with 105 when it is down" {
	run_plugin loopback ADD <<<"$CONF"
	prev=$(with_prev "$CONF")
	run_plugin loopback CHECK <<<"$prev"
	ip -n "$POD_NS" link set lo down
	run_plugin -e 1 loopback CHECK <<<"$prev"
	assert_error 105 "loopback interface is down"
}

@test "DEL sets lo down; again, with an empty CNI_NETNS or the netns gone: success" {
	run_plugin loopback ADD <<<"$CONF"
	run_plugin loopback DEL <<<"$CONF"
	[ -z "$output" ]
	[[ "$(lo_flags)" != *UP* ]]
	run_plugin loopback DEL <<<"$CONF"
	PW_NETNS="" run_plugin loopback DEL <<<"$CONF"
	PW_NETNS="/var/run/netns/${PW_ID}gone" run_plugin loopback DEL <<<"$CONF"
}

@test "DEL with CNI_NETNS naming the plugin's own netns leaves that lo up" {
	PW_NETNS="/var/run/netns/$HOST_NS" run_plugin loopback DEL <<<"$CONF"
	ip -n "$HOST_NS" -j link show lo | jq -e '.[0].flags | index("UP") != null'
	grep -q "own netns" "$PW_STDERR"
}

@test "ADD without a usable CNI_NETNS: code 4, nothing done" {
	PW_NETNS="/var/run/netns/${PW_ID}gone" run_plugin -e 1 loopback ADD <<<"$CONF"
	assert_error 4 "CNI_NETNS"
	PW_NETNS="" run_plugin -e 1 loopback ADD <<<"$CONF"
	assert_error 4 "CNI_NETNS"
}

@test "VERSION answers" {
	run_plugin loopback VERSION <<<"$CONF"
	assert_json '.supportedVersions | index("1.1.0") != null' true
}

# --- differential: the same inputs through the reference loopback ----------

ref_lo() {
	PW_CNI_PATH=$REF_BIN run_plugin "$@"
}

# The reference prints its 1.0 result under an older label, without the
# "version" of each IP that 0.3.x/0.4.0 define; podwire converts (README).
# Compared here without that field.
@test "differential: results of every version equal the reference's" {
	pw_need "$REF_BIN/loopback"
	for v in 0.3.0 0.3.1 0.4.0 1.0.0; do
		c=$(jq -c --arg v "$v" '.cniVersion = $v' <<<"$CONF")
		run_plugin loopback ADD <<<"$c"
		ours=$(jq -c 'del(.ips[]?.version)' <<<"$output" | norm)
		st_ours=$(ip -n "$POD_NS" -j addr show lo | jq -c '.[0] | [.flags, [.addr_info[] | .local + "/" + (.prefixlen|tostring)]]')
		run_plugin loopback DEL <<<"$c"
		ref_lo "$REF_BIN/loopback" ADD <<<"$c"
		theirs=$(jq -c 'del(.ips[]?.version)' <<<"$output" | norm)
		st_ref=$(ip -n "$POD_NS" -j addr show lo | jq -c '.[0] | [.flags, [.addr_info[] | .local + "/" + (.prefixlen|tostring)]]')
		ref_lo "$REF_BIN/loopback" DEL <<<"$c"
		if [ "$ours" != "$theirs" ]; then
			echo "# $v: podwire $ours" >&2
			echo "# $v: reference $theirs" >&2
			return 1
		fi
		[ "$st_ours" = "$st_ref" ]
	done
	run_plugin loopback ADD <<<"$(jq -c '.cniVersion = "0.4.0"' <<<"$CONF")"
	assert_json '[.ips[].version] | join(" ")' "4 6"
}

# The reference (1.1.1) labels a 1.0-shaped result "0.2.0"; podwire prints
# the 0.2.0 shape the spec defines (README, differences).
@test "0.2.0: the legacy shape (ip4/ip6), where the reference mislabels a 1.0 result" {
	run_plugin loopback ADD <<<"$(jq -c '.cniVersion = "0.2.0"' <<<"$CONF")"
	assert_json .ip4.ip 127.0.0.1/8
	assert_json .ip6.ip ::1/128
	assert_json 'has("interfaces")' false
}

@test "differential: chained result and DEL state equal the reference's" {
	pw_need "$REF_BIN/loopback"
	prev='{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"x"}],"ips":[{"address":"10.1.0.5/24","interface":0}]}'
	c=$(with_prev "$CONF" "$prev")
	run_plugin loopback ADD <<<"$c"
	ours=$(norm <<<"$output")
	ref_lo "$REF_BIN/loopback" ADD <<<"$c"
	[ "$ours" = "$(norm <<<"$output")" ]
	run_plugin loopback DEL <<<"$c"
	a=$(lo_flags)
	ip -n "$POD_NS" link set lo up
	ref_lo "$REF_BIN/loopback" DEL <<<"$c"
	[ "$a" = "$(lo_flags)" ]
}
