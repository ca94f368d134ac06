#!/usr/bin/env bats
# Address sources merged the way Multus sends a static-IP request: the same
# address as runtimeConfig.ips (capability "ips") and as CNI_ARGS IP=, or
# two different ones, IPv4 and IPv6. podwire's static and host-local run
# against Debian's reference plugins (/usr/lib/cni) with the same input; the
# addresses in the results must agree, except where the README of each
# plugin names a difference (checked explicitly below).

setup() {
	load helpers
	pw_setup
}

teardown() {
	pw_teardown
}

require_ref() {
	pw_need "$REF_BIN/$1"
}

# ips PLUGIN CNI_ARGS CONF: the sorted address list of an ADD, or "error <code>".
ips() {
	local bin=$1
	[ "${bin#/}" = "$bin" ] && bin="$PODWIRE_BIN/$bin"
	ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID="${PW_ID}c" \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_BIN" \
		CNI_ARGS="$2" "$bin" <<<"$3" 2>/dev/null |
		jq -c 'if .code then "error \(.code)" else [.ips[] | .address] end'
}

static_conf() { # TOP-LEVEL-EXTRA IPAM-EXTRA
	printf '{"cniVersion":"1.0.0","name":"ms","type":"macvlan"%s,"ipam":{"type":"static"%s}}' "$1" "$2"
}

hl_conf() { # TOP-LEVEL-EXTRA
	printf '{"cniVersion":"1.0.0","name":"mh","type":"macvlan"%s,"ipam":{"type":"host-local","dataDir":"%s","ranges":[[{"subnet":"10.5.0.0/24"}],[{"subnet":"fd05::/64"}]]}}' \
		"$1" "$STATE/ipam-$2"
}

# same_as_ref PLUGIN CNI_ARGS CONF: podwire and the reference agree.
same_as_ref() {
	local pw ref
	pw=$(ips "$1" "$2" "$3")
	ref=$(ips "$REF_BIN/$1" "$2" "$3")
	if [ "$pw" != "$ref" ]; then
		echo "# $1 CNI_ARGS=$2: podwire $pw, reference $ref" >&2
		echo "# conf: $3" >&2
		return 1
	fi
}

@test "static: runtimeConfig.ips and CNI_ARGS IP with the same address give it once (v4, v6), as the reference" {
	require_ref static
	local rc=',"runtimeConfig":{"ips":["10.5.0.7/24","fd05::7/64"]}'
	run ips static "IgnoreUnknown=1;IP=10.5.0.7/24" "$(static_conf "$rc" "")"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	same_as_ref static "IgnoreUnknown=1;IP=10.5.0.7/24" "$(static_conf "$rc" "")"
	same_as_ref static "IgnoreUnknown=1;IP=fd05::7/64" "$(static_conf "$rc" "")"
	same_as_ref static "IgnoreUnknown=1;IP=10.5.0.7/24,fd05::7/64" "$(static_conf "$rc" "")"
	# args.cni.ips is as specific as runtimeConfig.ips
	same_as_ref static "IgnoreUnknown=1;IP=10.5.0.7/24" \
		"$(static_conf ',"args":{"cni":{"ips":["10.5.0.7/24"]}}' "")"
}

@test "static: a different CNI_ARGS IP is replaced by runtimeConfig.ips / args.cni.ips (v4, v6), as the reference" {
	require_ref static
	local rc=',"runtimeConfig":{"ips":["10.5.0.7/24","fd05::7/64"]}'
	run ips static "IgnoreUnknown=1;IP=10.5.0.8/24" "$(static_conf "$rc" "")"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	same_as_ref static "IgnoreUnknown=1;IP=10.5.0.8/24" "$(static_conf "$rc" "")"
	same_as_ref static "IgnoreUnknown=1;IP=fd05::8/64" "$(static_conf "$rc" "")"
	same_as_ref static "IgnoreUnknown=1;IP=fd05::8/64" \
		"$(static_conf ',"runtimeConfig":{"ips":["10.5.0.7/24"]}' "")"
	same_as_ref static "IgnoreUnknown=1;IP=10.5.0.8/24" \
		"$(static_conf ',"args":{"cni":{"ips":["fd05::7/64"]}}' "")"
	# without a more specific source CNI_ARGS IP is appended to ipam.addresses
	same_as_ref static "IgnoreUnknown=1;IP=10.5.0.8/24,fd05::8/64" \
		"$(static_conf "" ',"addresses":[{"address":"10.5.0.7/24"}]')"
	# the replaced CNI_ARGS IP is still checked, as the reference does
	run ips static "IgnoreUnknown=1;IP=nope" "$(static_conf "$rc" "")"
	[ "$output" = '"error 4"' ]
}

@test "static: ipam.addresses and CNI_ARGS IP with the same address give it once (the reference returns it twice)" {
	local conf
	conf=$(static_conf "" ',"addresses":[{"address":"10.5.0.7/24","gateway":"10.5.0.1"},{"address":"fd05::7/64"}]')
	run ips static "IgnoreUnknown=1;IP=10.5.0.7/24,fd05::7/64" "$conf"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	# the same IP with another prefix is another address
	run ips static "IgnoreUnknown=1;IP=10.5.0.7/16" "$conf"
	[ "$output" = '["10.5.0.7/24","fd05::7/64","10.5.0.7/16"]' ]
}

@test "host-local: runtimeConfig.ips and CNI_ARGS IP with the same address give it once (v4, v6), as the reference" {
	require_ref host-local
	local rc=',"runtimeConfig":{"ips":["10.5.0.7/24","fd05::7/64"]}' n=0
	for a in 10.5.0.7/24 fd05::7/64 10.5.0.7 10.5.0.7/24,fd05::7/64; do
		n=$((n + 1))
		run ips host-local "IgnoreUnknown=1;IP=$a" "$(hl_conf "$rc" pw$n)"
		[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
		run ips "$REF_BIN/host-local" "IgnoreUnknown=1;IP=$a" "$(hl_conf "$rc" ref$n)"
		# the reference's own CNI_ARGS IP parser takes one address only
		[ "$a" = 10.5.0.7/24,fd05::7/64 ] || [ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	done
	# an address in both args.cni.ips and runtimeConfig.ips is one request
	rc=',"args":{"cni":{"ips":["10.5.0.7"]}},"runtimeConfig":{"ips":["10.5.0.7/24","fd05::7/64"]}'
	run ips host-local "IgnoreUnknown=1;IP=10.5.0.7/24" "$(hl_conf "$rc" pw-both)"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	run ips "$REF_BIN/host-local" "IgnoreUnknown=1;IP=10.5.0.7/24" "$(hl_conf "$rc" ref-both)"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	# the same address twice in one list, too
	rc=',"runtimeConfig":{"ips":["fd05::7/64","fd05::7"]}'
	run ips host-local "" "$(hl_conf "$rc" pw-twice)"
	[ "$output" = '["10.5.0.2/24","fd05::7/64"]' ]
}

@test "host-local: a different CNI_ARGS IP is ignored when runtimeConfig.ips is given (the reference fails the ADD)" {
	require_ref host-local
	local rc=',"runtimeConfig":{"ips":["10.5.0.7/24","fd05::7/64"]}'
	run ips host-local "IgnoreUnknown=1;IP=10.5.0.8/24" "$(hl_conf "$rc" pw1)"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	run ips host-local "IgnoreUnknown=1;IP=fd05::8/64" "$(hl_conf "$rc" pw2)"
	[ "$output" = '["10.5.0.7/24","fd05::7/64"]' ]
	run ips "$REF_BIN/host-local" "IgnoreUnknown=1;IP=10.5.0.8/24" "$(hl_conf "$rc" ref1)"
	[ "$output" = '"error 999"' ]
	# without runtimeConfig.ips both honour CNI_ARGS IP
	run ips host-local "IgnoreUnknown=1;IP=fd05::8/64" "$(hl_conf "" pw3)"
	[ "$output" = '["10.5.0.2/24","fd05::8/64"]' ]
	run ips "$REF_BIN/host-local" "IgnoreUnknown=1;IP=fd05::8/64" "$(hl_conf "" ref3)"
	[ "$output" = '["10.5.0.2/24","fd05::8/64"]' ]
}
