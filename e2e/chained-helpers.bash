# Helpers for the loopback, tuning and macvlan e2e tests (e2e/14x-*.bats),
# on top of helpers.bash.

# lo_fresh_pod: replace $POD_NS by a netns whose lo is still down (as a
# runtime hands it to loopback); registered for teardown.
lo_fresh_pod() {
	POD_NS="${PW_ID}l"
	ip netns add "$POD_NS"
	PW_NETNS_CREATED+=("$POD_NS")
	export POD_NS
}

# pod_veth NAME: a veth NAME in $POD_NS (its peer NAME-p too), as a main
# plugin would leave it for tuning.
pod_veth() {
	ip -n "$POD_NS" link add "$1" type veth peer name "${1}p"
}

# master_veth NAME: a veth NAME in $HOST_NS, up, to be a macvlan master
# (the kernel here has no dummy module); its peer stays in $HOST_NS too.
master_veth() {
	ip -n "$HOST_NS" link add "$1" type veth peer name "${1}p"
	ip -n "$HOST_NS" link set "$1" up
	ip -n "$HOST_NS" link set "${1}p" up
}

# link_json NS IFNAME: `ip -d -j link show` of one link (first element).
link_json() {
	ip -n "$1" -d -j link show "$2" | jq -c '.[0]'
}

# link_state NS IFNAME: the attributes tuning changes, one line.
link_state() {
	ip -n "$1" -d -j link show "$2" |
		jq -r '.[0] | "\(.address) mtu=\(.mtu) txqlen=\(.txqlen) promisc=\(.promiscuity) flags=\([.flags[] | select(. == "PROMISC" or . == "ALLMULTI")] | join(","))"'
}

# sysctl_in NS PATH: a sysctl of that netns (PATH under /proc/sys).
sysctl_in() {
	ip netns exec "$1" cat "/proc/sys/$2"
}

# with_prev CONF [RESULT]: CONF with prevResult = RESULT (default $output).
with_prev() {
	jq -c --argjson pr "${2:-$output}" '. + {prevResult: $pr}' <<<"$1"
}

# prev_iface NAME: a minimal 1.0.0 result naming NAME in $POD_NS.
prev_iface() {
	jq -nc --arg n "$1" --arg s "/var/run/netns/$POD_NS" \
		'{cniVersion:"1.0.0", interfaces:[{name:$n, sandbox:$s}], ips:[]}'
}

# norm: a result with keys sorted, "dns": {} and empty lists dropped (the
# reference prints an empty DNS object; podwire omits it).
norm() {
	jq -S 'del(.dns | select(. == {} or . == null)) | with_entries(select(.value != []))'
}

# pod_snapshot: what a tuning or macvlan call may change, on stdout (links
# with their attributes, addresses, routes of both test namespaces, the pod's
# net.core and net.ipv4 sysctls of eth0, files under $STATE but snapshots).
pod_snapshot() {
	local ns
	for ns in "$HOST_NS" "$POD_NS"; do
		# stable attributes only: operstate and carrier settle asynchronously
		ip -n "$ns" -d -j link show | jq -c '.[] | {ifname, mtu, address, txqlen, promiscuity,
			kind: .linkinfo.info_kind, mode: .linkinfo.info_data.mode,
			up: (.flags | index("UP") != null)}' | sort
		# IPv6 link-local addresses and routes appear on their own once DAD ends
		ip -n "$ns" -o addr show | awk '{print $2, $4}' | grep -v ' fe80:' | sort
		ip -n "$ns" route show table all | grep -v '^local fe80:' | sort
	done
	ip netns exec "$POD_NS" sh -c 'cat /proc/sys/net/core/somaxconn; cat /proc/sys/net/ipv4/conf/*/arp_filter' 2>/dev/null
	find "$STATE" -path "$STATE/stderr" -prune -o ! -name 'before*' -print 2>/dev/null | sort
}
