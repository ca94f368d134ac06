#!/usr/bin/env bats
# bgp-route on one node: the wiring of one pod (host veth, pod addresses,
# gateways, neighbour, host routes with their protocol numbers), CHECK, DEL
# (route first, idempotent, netns gone), bad input. No BIRD here.

load helpers
load bgp-helpers

setup() {
	pw_setup
}

teardown() {
	pw_teardown
}

conf() {
	cat <<EOF2
{"cniVersion":"1.1.0","name":"bgpnet","type":"bgp-route"$1,
 "ipam":{"type":"host-local","dataDir":"$STATE/ipam",
   "ranges":[[{"subnet":"10.244.1.0/24"}],[{"subnet":"fd00:244:1::/64"}]]}}
EOF2
}

@test "ADD wires a routed veth: ee MAC, /32 and /128, gateways, neighbour, host routes" {
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	assert_json '.interfaces | length' 2
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	[[ "$host" =~ ^pwr[0-9a-f]{11}$ ]]
	assert_json '.interfaces[0].mac' ee:ee:ee:ee:ee:ee
	assert_json '.interfaces[1].name' eth0
	assert_json '.interfaces[1].sandbox' "/var/run/netns/$POD_NS"
	assert_json '[.ips[].interface] | unique | join(",")' 1
	ip4=$(printf '%s' "$output" | jq -r '.ips[] | select(.address | contains(".")) | .address')
	ip6=$(printf '%s' "$output" | jq -r '.ips[] | select(.address | contains(":")) | .address')
	[[ "$ip4" == 10.244.1.*/32 ]]
	[[ "$ip6" == fd00:244:1::*/128 ]]
	assert_json '[.ips[] | select(.gateway)] | length' 0
	assert_json '[.routes[] | select(.dst == "0.0.0.0/0") | .gw] | .[0]' 169.254.1.1
	assert_json '[.routes[] | select(.dst == "::/0") | .gw] | .[0]' fe80::ecee:eeff:feee:eeee
	# host side
	in_ns "$HOST_NS" ip -o link show "$host" | grep -q 'ee:ee:ee:ee:ee:ee'
	[ -z "$(ip -n "$HOST_NS" -o addr show dev "$host" scope global)" ]
	[ "$(in_ns "$HOST_NS" cat /proc/sys/net/ipv4/conf/$host/proxy_arp)" = 1 ]
	[ "$(in_ns "$HOST_NS" cat /proc/sys/net/ipv4/conf/$host/forwarding)" = 1 ]
	ip -n "$HOST_NS" route show "${ip4%/32}" | grep -q "dev $host proto 80 scope link"
	ip -n "$HOST_NS" -6 route show "${ip6%/128}" | grep -q "dev $host proto 80 metric 16"
	# pod side
	ip -n "$POD_NS" -o addr show dev eth0 | grep -q "inet $ip4"
	ip -n "$POD_NS" -o addr show dev eth0 | grep -q "inet6 $ip6"
	ip -n "$POD_NS" route show | grep -q '^default via 169.254.1.1 dev eth0'
	ip -n "$POD_NS" route show | grep -q '^169.254.1.1 dev eth0 scope link'
	ip -n "$POD_NS" neigh show 169.254.1.1 | grep -q 'lladdr ee:ee:ee:ee:ee:ee PERMANENT'
	ip -n "$POD_NS" -6 route show default | grep -q 'via fe80::ecee:eeff:feee:eeee dev eth0'
	# pod sysctls: IPv6 on, no DAD, addresses kept; no arp_notify / ndisc_notify (p2p)
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv6/conf/eth0/accept_dad)" = 0 ]
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv6/conf/eth0/keep_addr_on_down)" = 1 ]
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv4/conf/eth0/arp_notify)" = 0 ]
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv6/conf/eth0/ndisc_notify)" = 0 ]
	# a second pod on the node reaches the first over both families
	pw_netns_new "${PW_ID}q"
	PW_NETNS="/var/run/netns/${PW_ID}q" run_plugin bgp-route ADD eth0 c2 <<<"$(conf)"
	in_ns "${PW_ID}q" ping -c1 -W2 "${ip4%/32}" >/dev/null
	in_ns "${PW_ID}q" ping -6 -c1 -W2 "${ip6%/128}" >/dev/null
}

# host_settings NS DEV: DEV's routing settings and the node's forwarding, as /proc shows them.
host_settings() {
	local k out=""
	for k in ipv4/conf/$2/proxy_arp ipv4/conf/$2/forwarding ipv4/conf/$2/rp_filter \
		ipv4/neigh/$2/proxy_delay ipv6/conf/$2/disable_ipv6 ipv6/conf/$2/accept_dad \
		ipv6/conf/$2/addr_gen_mode ipv6/conf/$2/forwarding ipv4/ip_forward \
		ipv6/conf/all/forwarding; do
		out="$out $(in_ns "$1" cat "/proc/sys/net/$k")"
	done
	printf '%s\n' "${out# }"
}

@test "the host end's settings, set over netlink and /proc, read back through /proc" {
	want="1 1 1 0 0 0 0 1 1 1"
	# a node with forwarding off and defaults that all differ: every setting is changed
	in_ns "$HOST_NS" sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0 \
		net.ipv4.conf.default.rp_filter=0 net.ipv6.conf.default.accept_dad=2 \
		net.ipv6.conf.default.addr_gen_mode=1 net.ipv6.conf.default.disable_ipv6=1
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	[ "$(host_settings "$HOST_NS" "$host")" = "$want" ]
	[ "$(host_ll "$HOST_NS" "$host")" = fe80::ecee:eeff:feee:eeee/64 ]
	# forwarding now on (inherited by new links): the same settings again
	pw_netns_new "${PW_ID}q"
	PW_NETNS="/var/run/netns/${PW_ID}q" run_plugin bgp-route ADD eth0 c2 <<<"$(conf)"
	host2=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	[ "$(host_settings "$HOST_NS" "$host2")" = "$want" ]
	[ "$(host_ll "$HOST_NS" "$host2")" = fe80::ecee:eeff:feee:eeee/64 ]
	in_ns "${PW_ID}q" ping -6 -c1 -W2 fe80::ecee:eeff:feee:eeee%eth0 >/dev/null
}

# host_ll NS DEV: the link-local addresses of DEV (waits up to 1 s for the first).
host_ll() {
	local t ll
	for t in $(seq 1 50); do
		ll=$(ip -n "$1" -6 -o addr show dev "$2" scope link | awk '{print $4}')
		[ -n "$ll" ] && break
		sleep 0.02
	done
	printf '%s\n' "$ll"
}

@test "the pod's IPv6 gateway (computed, not read back) is the host end's kernel link-local" {
	# whatever the node's default (here: random, and a stable secret set), the
	# host end gets addr_gen_mode=0, so its link-local is the EUI-64 of ee:ee:...
	in_ns "$HOST_NS" sysctl -qw net.ipv6.conf.default.stable_secret=fd00:1:2:3:4:5:6:7 \
		net.ipv6.conf.default.addr_gen_mode=3
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	gw=$(printf '%s' "$output" | jq -r '.routes[] | select(.dst == "::/0") | .gw')
	[ "$gw" = fe80::ecee:eeff:feee:eeee ]
	[ "$(host_ll "$HOST_NS" "$host")" = "$gw/64" ]
	[ "$(in_ns "$HOST_NS" cat /proc/sys/net/ipv6/conf/$host/addr_gen_mode)" = 0 ]
	# not tentative: the host answers for it at once (accept_dad=0)
	run ! grep -q tentative <<<"$(ip -n "$HOST_NS" -6 -o addr show dev "$host" scope link)"
	ip -n "$POD_NS" -6 route show default | grep -q "via $gw dev eth0"
	# the pod reaches the gateway itself, and a pod on another host veth over IPv6
	in_ns "$POD_NS" ping -6 -c1 -W2 "$gw%eth0" >/dev/null
	pw_netns_new "${PW_ID}q"
	PW_NETNS="/var/run/netns/${PW_ID}q" run_plugin bgp-route ADD eth0 c2 <<<"$(conf)"
	host2=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	ip6=$(printf '%s' "$output" | jq -r '.ips[] | select(.address | contains(":")) | .address')
	[ "$(host_ll "$HOST_NS" "$host2")" = "$gw/64" ]
	in_ns "$POD_NS" ping -6 -c1 -W2 "${ip6%/128}" >/dev/null
	in_ns "${PW_ID}q" ping -6 -c1 -W2 "$gw%eth0" >/dev/null
}

@test "CHECK passes after ADD and names what differs when something is missing" {
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	res=$output
	host=$(printf '%s' "$res" | jq -r '.interfaces[0].name')
	ip4=$(printf '%s' "$res" | jq -r '.ips[0].address')
	with_prev=$(conf | jq -c --argjson r "$res" '. + {prevResult: $r}')
	run_plugin bgp-route CHECK eth0 <<<"$with_prev"
	[ -z "$output" ]
	ip -n "$POD_NS" neigh del 169.254.1.1 dev eth0
	run_plugin -e 1 bgp-route CHECK eth0 <<<"$with_prev"
	assert_error 105 "pod neighbour 169.254.1.1"
	ip -n "$POD_NS" neigh replace 169.254.1.1 lladdr ee:ee:ee:ee:ee:ee nud permanent dev eth0
	ip -n "$HOST_NS" route del "${ip4%/32}" dev "$host"
	run_plugin -e 1 bgp-route CHECK eth0 <<<"$with_prev"
	assert_error 105 "host route ${ip4%/32}/32 dev $host"
}

@test "DEL removes routes, veth and lease; twice and with the netns gone" {
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	run_plugin bgp-route DEL eth0 <<<"$(conf)"
	run ! ip -n "$HOST_NS" link show "$host"
	[ -z "$(ip -n "$HOST_NS" route show proto 80)" ]
	[ -z "$(ip -n "$HOST_NS" -6 route show proto 80)" ]
	[ -z "$(ls "$STATE/ipam/bgpnet" | grep -v lock | grep -v last_reserved)" ]
	run_plugin bgp-route DEL eth0 <<<"$(conf)"
	# netns gone: IPAM still released
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	ip netns del "$POD_NS"
	PW_NETNS="" run_plugin bgp-route DEL eth0 <<<"$(conf)"
	[ -z "$(ls "$STATE/ipam/bgpnet" | grep -v lock | grep -v last_reserved)" ]
	[ -z "$(ip -n "$HOST_NS" route show proto 80)" ]
}

# del_route_first HOST [no-netns]: DEL (with CNI_NETNS empty) under a
# monitor; the IPv4 host route must be deleted explicitly (the kernel drops
# a dying link's IPv4 routes without an event) and before the link.
del_route_first() {
	local host=$1 mon first_route first_link
	ip -n "$HOST_NS" monitor route link >"$STATE/monitor" 2>&1 &
	mon=$!
	sleep 0.3
	if [ "${2:-}" = no-netns ]; then
		PW_NETNS="" run_plugin bgp-route DEL eth0 <<<"$(conf)"
	else
		run_plugin bgp-route DEL eth0 <<<"$(conf)"
	fi
	sleep 0.3
	kill "$mon"
	wait "$mon" 2>/dev/null || true
	first_route=$(grep -n '^Deleted 10\.244\..* proto 80' "$STATE/monitor" | head -1 | cut -d: -f1)
	first_link=$(grep -n "^Deleted .*$host" "$STATE/monitor" | grep -v proto | head -1 | cut -d: -f1)
	[ -n "$first_route" ]
	[ -n "$first_link" ]
	[ "$first_route" -lt "$first_link" ]
}

@test "DEL deletes the host routes first without the pod's addresses: CNI_NETNS empty, addresses gone" {
	# CNI_NETNS empty while the pod netns lives: the host end and its routes go
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	del_route_first "$host" no-netns
	run ! ip -n "$HOST_NS" link show "$host"
	[ -z "$(ip -n "$HOST_NS" -6 route show proto 80)" ]
	# the pod's addresses removed behind the plugin's back: still route-first
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	ip -n "$POD_NS" addr flush dev eth0 scope global
	del_route_first "$host"
	[ -z "$(ip -n "$HOST_NS" -6 route show proto 80)" ]
	run ! ip -n "$POD_NS" link show eth0
	[ -z "$(ls "$STATE/ipam/bgpnet" | grep -v lock | grep -v last_reserved)" ]
}

@test "a local blackhole proto 81 block: inside it proto 80, outside proto 82 (borrowed)" {
	ip -n "$HOST_NS" route add blackhole 10.244.1.0/26 proto 81
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	ip4=$(printf '%s' "$output" | jq -r '.ips[0].address')
	ip -n "$HOST_NS" route show "${ip4%/32}" | grep -q 'proto 80'
	# IPv6 has no block of its own here: not borrowed
	ip -n "$HOST_NS" -6 route show proto 80 | grep -q fd00:244:1::
	ip -n "$HOST_NS" route del blackhole 10.244.1.0/26 proto 81
	ip -n "$HOST_NS" route add blackhole 10.244.1.192/26 proto 81
	pw_netns_new "${PW_ID}q"
	PW_NETNS="/var/run/netns/${PW_ID}q" run_plugin bgp-route ADD eth0 c2 <<<"$(conf)"
	ip2=$(printf '%s' "$output" | jq -r '.ips[0].address')
	ip -n "$HOST_NS" route show "${ip2%/32}" | grep -q 'proto 82'
}

@test "bad config: code 7 naming the key, nothing changed" {
	bgp_snap before
	run_plugin -e 1 bgp-route ADD eth0 <<<"$(conf ',"mtu":"big"')"
	assert_error 7 "mtu"
	run_plugin -e 1 bgp-route ADD eth0 <<<"$(conf ',"hostIfPrefix":"waytoolong"')"
	assert_error 7 "hostIfPrefix: 'waytoolong'"
	run_plugin -e 1 bgp-route ADD eth0 <<<"$(conf ',"routeProtocols":{"pod":82}')"
	assert_error 7 "routeProtocols: pod, block and borrowed must differ"
	run_plugin -e 1 bgp-route ADD eth0 <<<'{"cniVersion":"1.0.0","name":"n","type":"bgp-route"}'
	assert_error 7 "ipam: required"
	bgp_snap_same before
}

@test "a failed ADD leaves nothing behind (host route taken)" {
	ip -n "$HOST_NS" link add keep0 type veth peer name keep1
	ip -n "$HOST_NS" link set keep0 up
	ip -n "$HOST_NS" route add 10.244.1.2/32 dev keep0
	bgp_snap before
	run_plugin -e 1 bgp-route ADD eth0 <<<"$(conf)"
	assert_error 103 "host route 10.244.1.2/32: already exists"
	[ -z "$(ls "$STATE/ipam/bgpnet" 2>/dev/null | grep -v lock | grep -v last_reserved)" ]
	run ! ip -n "$POD_NS" link show eth0
}

@test "DEL deletes the host routes before the veth (netlink event order)" {
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	ip -n "$HOST_NS" monitor route link >"$STATE/monitor" 2>&1 &
	mon=$!
	sleep 0.3
	run_plugin bgp-route DEL eth0 <<<"$(conf)"
	sleep 0.3
	kill "$mon"
	wait "$mon" 2>/dev/null || true
	first_route=$(grep -n '^Deleted .* proto 80' "$STATE/monitor" | head -1 | cut -d: -f1)
	first_link=$(grep -n "^Deleted .*$host" "$STATE/monitor" | grep -v proto | head -1 | cut -d: -f1)
	[ -n "$first_route" ] && [ -n "$first_link" ]
	[ "$first_route" -lt "$first_link" ]
}

@test "ADD twice for the same attachment replaces, not duplicates; an IPAM refusal keeps the first" {
	local st='{"cniVersion":"1.0.0","name":"bgpnet","type":"bgp-route",
		"ipam":{"type":"static","addresses":[{"address":"10.244.7.7/24"}]}}'
	run_plugin bgp-route ADD eth0 <<<"$st"
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	run_plugin bgp-route ADD eth0 <<<"$st"
	assert_json '.interfaces[0].name' "$host"
	[ "$(ip -n "$HOST_NS" -o link show | grep -c pwr)" -eq 1 ]
	[ "$(ip -n "$HOST_NS" route show proto 80 | wc -l)" -eq 1 ]
	run_plugin bgp-route DEL eth0 <<<"$st"
	# host-local refuses a second allocation for the same attachment
	run_plugin bgp-route ADD eth0 <<<"$(conf)"
	ip4=$(printf '%s' "$output" | jq -r '.ips[0].address')
	run_plugin -e 1 bgp-route ADD eth0 <<<"$(conf)"
	assert_json .code 102
	ip -n "$HOST_NS" route show "${ip4%/32}" | grep -q 'proto 80'
	ip -n "$POD_NS" -o addr show dev eth0 | grep -q "inet $ip4"
}

@test "mtu, static IPAM in-process, and IPAM exec'd through CNI_PATH" {
	run_plugin bgp-route ADD eth0 <<<'{"cniVersion":"1.0.0","name":"bgpnet","type":"bgp-route","mtu":1400,
		"ipam":{"type":"static","addresses":[{"address":"10.244.7.7/24"}]}}'
	assert_json '.ips[0].address' 10.244.7.7/32
	host=$(printf '%s' "$output" | jq -r '.interfaces[0].name')
	ip -n "$HOST_NS" -o link show "$host" | grep -q 'mtu 1400'
	ip -n "$POD_NS" -o link show eth0 | grep -q 'mtu 1400'
	ip -n "$HOST_NS" route show 10.244.7.7 | grep -q "dev $host proto 80 scope link"
	[ -z "$(ip -n "$HOST_NS" -6 route show proto 80)" ]
	run_plugin bgp-route DEL eth0 <<<'{"cniVersion":"1.0.0","name":"bgpnet","type":"bgp-route",
		"ipam":{"type":"static","addresses":[{"address":"10.244.7.7/24"}]}}'
	PW_ENV=(PODWIRE_IPAM_EXEC=1) run_plugin bgp-route ADD eth0 <<<"$(conf)"
	assert_json '.ips | length' 2
	PW_ENV=(PODWIRE_IPAM_EXEC=1) run_plugin bgp-route DEL eth0 <<<"$(conf)"
	[ -z "$(ls "$STATE/ipam/bgpnet" | grep -v lock | grep -v last_reserved)" ]
}

@test "VERSION" {
	run_plugin bgp-route VERSION <<<'{"cniVersion":"1.1.0"}'
	assert_json '.supportedVersions | index("1.1.0") != null' true
}
