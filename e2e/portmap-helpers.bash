# Helpers for the portmap and bandwidth e2e tests (e2e/15x-*.bats), on top
# of e2e/helpers.bash and test/cnitool/cnitool-e2e.bash.

# The conflists users copy unchanged, with the test's own IPAM data dir.
# containerd's 10-containerd-net.conflist (bridge + portmap, dual stack).
containerd_conflist() {
	cat >"$NETCONF/10-containerd-net.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "containerd-net",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": true,
      "promiscMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$STATE/ipam",
        "ranges": [
          [{ "subnet": "10.88.0.0/16" }],
          [{ "subnet": "2001:4860:4860::/64" }]
        ],
        "routes": [
          { "dst": "0.0.0.0/0" },
          { "dst": "::/0" }
        ]
      }
    },
    {
      "type": "portmap",
      "capabilities": {"portMappings": true}
    }
  ]
}
JSON
}

# CRI-O's 11-crio-ipv4-bridge.conflist, with portmap appended as users do.
crio_conflist() {
	cat >"$NETCONF/11-crio-ipv4-bridge.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "crio",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$STATE/ipam",
        "routes": [
            { "dst": "0.0.0.0/0" }
        ],
        "ranges": [
            [{ "subnet": "10.85.0.0/16" }]
        ]
      }
    },
    {
      "type": "portmap",
      "capabilities": {"portMappings": true}
    }
  ]
}
JSON
}

# An "outside" netns behind the host: 192.0.2.1 / 2001:db8:2::1 on the host,
# .2 / ::2 outside, no route to the pod subnets (only DNAT replies return).
outside_setup() {
	OUT="${PW_ID}o"
	pw_netns_new "$OUT"
	ip -n "$HOST_NS" link add up0 type veth peer name dn0 netns "$OUT"
	ip -n "$HOST_NS" addr add 192.0.2.1/24 dev up0
	ip -n "$HOST_NS" addr add 2001:db8:2::1/64 dev up0 nodad
	in_ns "$HOST_NS" sysctl -qw net.ipv6.conf.up0.addr_gen_mode=1
	ip -n "$HOST_NS" link set up0 up
	ip -n "$OUT" addr add 192.0.2.2/24 dev dn0
	ip -n "$OUT" addr add 2001:db8:2::2/64 dev dn0 nodad
	ip -n "$OUT" link set dn0 up
	in_ns "$HOST_NS" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}

PW_PIDS=()

# listen NS PROTO PORT REPLY: a socat server in NS answering REPLY, by PID.
listen() {
	local ns=$1 proto=$2 port=$3 reply=$4 addr
	case $proto in
	tcp) addr="TCP6-LISTEN:$port,ipv6only=0,fork,reuseaddr" ;;
	udp) addr="UDP6-RECVFROM:$port,ipv6only=0,fork,reuseaddr" ;;
	esac
	ip netns exec "$ns" socat "$addr" SYSTEM:"echo $reply" </dev/null >/dev/null 2>&1 3>&- &
	PW_PIDS+=($!)
	local i
	for i in $(seq 50); do
		in_ns "$ns" ss -Hln"${proto:0:1}" | grep -q ":$port " && return 0
		sleep 0.05
	done
	echo "# listener on $proto/$port did not start" >&2
	return 1
}

stop_listeners() {
	local p c
	for p in "${PW_PIDS[@]}"; do
		# socat's forked children (one per connection) first, by PID
		for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do
			kill "$c" 2>/dev/null || true
		done
		kill "$p" 2>/dev/null || true
	done
	for p in "${PW_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	PW_PIDS=()
}

# ask NS PROTO HOST PORT: one request, the answer on stdout.
ask() {
	local ns=$1 proto=$2 host=$3 port=$4
	case $host in *:*) host="[$host]" ;; esac
	case $proto in
	tcp) in_ns "$ns" timeout 5 socat -T3 -u "TCP:$host:$port" - ;;
	udp) # datagrams may be lost, and socat's forking listener may be between
		# two sockets for a moment on a loaded machine: up to six tries
		local i got
		for i in 1 2 3 4 5 6; do
			got=$(echo hi | in_ns "$ns" timeout 4 socat -T2 - "UDP:$host:$port") || true
			[ -n "$got" ] && break
			echo "# udp $host:$port: no answer (try $i)" >&2
		done
		printf '%s\n' "$got" ;;
	esac
}

# Elements of the podwire portmap sets in the host netns that carry TAG.
portmap_elems() {
	in_ns "$HOST_NS" nft list table inet podwire 2>/dev/null | grep -oF "comment \"$1\"" | wc -l
}

# pm_snapshot NAME / pm_snapshot_same NAME: links, addresses, routes and the
# nftables ruleset of the host and pod netns, to prove a call changed nothing.
pm_snapshot() {
	local ns
	for ns in "$HOST_NS" "$POD_NS"; do
		ip -n "$ns" -o link show | sed 's/^[0-9]*: //' | awk '{print $1}' | sort
		# link-local addresses appear on their own schedule (DAD): not ours
		ip -n "$ns" -o addr show | awk '{print $2, $4}' | grep -v fe80 | sort
		ip -n "$ns" route show table all | grep -v fe80 | sort
		in_ns "$ns" nft list ruleset 2>/dev/null
		in_ns "$ns" tc qdisc show 2>/dev/null
	done >"$BATS_TEST_TMPDIR/pmsnap.$1"
}

pm_snapshot_same() {
	pm_snapshot after
	diff -u "$BATS_TEST_TMPDIR/pmsnap.$1" "$BATS_TEST_TMPDIR/pmsnap.after" >&2
}

# wait_no_tentative NS: until no IPv6 address in NS is in DAD (at most 5 s).
wait_no_tentative() {
	local i
	for i in $(seq 100); do
		[ -z "$(ip -n "$1" -6 addr show tentative)" ] && return 0
		sleep 0.05
	done
	return 1
}
