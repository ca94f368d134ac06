#!/usr/bin/env bats
# podwire-node bgp-nodelay: the sock_ops program that sets TCP_NODELAY on the
# BGP connections of a cgroup. Every test uses a cgroup of its own (removed
# by bgp_teardown) and, for traffic, a throwaway netns on its loopback.

load helpers
load bgp-helpers

setup() {
	bgp_setup_dirs
	PWN="$PODWIRE_BIN/podwire-node"
	bgp_cgroup_new
}

teardown() {
	bgp_teardown
}

# probe PORT [in|out]: one loopback connection to PORT in a netns of this
# test, made from inside the cgroup (in) or outside it (out); prints
# "<client nodelay> <server nodelay>" as 0/1.
probe() {
	local port=$1 where=${2:-in} ns="$BGP_ID-probe"
	[ -e "/var/run/netns/$ns" ] || bgp_netns_new "$ns"
	cat >"$BGP_DIR/probe.py" <<'EOF'
import socket, sys
port = int(sys.argv[1])
l = socket.socket()
l.bind(("127.0.0.1", port))
l.listen(1)
c = socket.create_connection(("127.0.0.1", port))
s, _ = l.accept()
get = lambda k: int(k.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0)
print(get(c), get(s))
EOF
	if [ "$where" = in ]; then
		bgp_in_cgroup ip netns exec "$ns" python3 "$BGP_DIR/probe.py" "$port"
	else
		ip netns exec "$ns" python3 "$BGP_DIR/probe.py" "$port"
	fi
}

@test "attach is idempotent; status sees it here and in a child cgroup; detach removes it" {
	run "$PWN" bgp-nodelay status --cgroup "$BGP_CGROUP"
	[ "$status" -eq 1 ]
	[[ "$output" == "bgp-nodelay: not in effect on $BGP_CGROUP" ]]
	run "$PWN" bgp-nodelay attach --cgroup "$BGP_CGROUP"
	[ "$status" -eq 0 ]
	[[ "$output" == "bgp-nodelay: attached to $BGP_CGROUP (program "[0-9]*")" ]]
	local id=${output##*program }
	run "$PWN" bgp-nodelay attach --cgroup "$BGP_CGROUP"
	[ "$status" -eq 0 ]
	[[ "$output" == "bgp-nodelay: already in effect on $BGP_CGROUP (program $id" ]]
	run "$PWN" bgp-nodelay status --cgroup "$BGP_CGROUP"
	[ "$status" -eq 0 ]
	[[ "$output" == "bgp-nodelay: attached to $BGP_CGROUP (program $id" ]]
	mkdir "$BGP_CGROUP/child"
	run "$PWN" bgp-nodelay status --cgroup "$BGP_CGROUP/child"
	[ "$status" -eq 0 ]
	[[ "$output" == *"in effect on $BGP_CGROUP/child, inherited (program $id" ]]
	# attach in the child finds the inherited one and adds nothing
	run "$PWN" bgp-nodelay attach --cgroup "$BGP_CGROUP/child"
	[[ "$output" == *"already in effect"* ]]
	rmdir "$BGP_CGROUP/child"
	run "$PWN" bgp-nodelay detach --cgroup "$BGP_CGROUP"
	[ "$status" -eq 0 ]
	[[ "$output" == "bgp-nodelay: detached from $BGP_CGROUP" ]]
	run "$PWN" bgp-nodelay status --cgroup "$BGP_CGROUP"
	[ "$status" -eq 1 ]
	run "$PWN" bgp-nodelay detach --cgroup "$BGP_CGROUP"
	[ "$status" -eq 0 ]
	[[ "$output" == "bgp-nodelay: was not attached to $BGP_CGROUP" ]]
}

@test "connections to or from port 179 in the cgroup get TCP_NODELAY; others do not" {
	[ "$(probe 179)" = "0 0" ]
	"$PWN" bgp-nodelay attach --cgroup "$BGP_CGROUP"
	[ "$(probe 179)" = "1 1" ]
	[ "$(probe 180)" = "0 0" ]
	[ "$(probe 179 out)" = "0 0" ]
	"$PWN" bgp-nodelay detach --cgroup "$BGP_CGROUP"
	[ "$(probe 179)" = "0 0" ]
}

@test "without --cgroup: the cgroup of the calling process" {
	run bgp_in_cgroup "$PWN" bgp-nodelay attach
	[ "$status" -eq 0 ]
	[[ "$output" == "bgp-nodelay: attached to $BGP_CGROUP (program "* ]]
	[ "$(probe 179)" = "1 1" ]
}

@test "bad input: exit 2 for usage, 1 naming the path; nothing attached" {
	run "$PWN" bgp-nodelay
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected one of attach, detach, status"* ]]
	run "$PWN" bgp-nodelay enable --cgroup "$BGP_CGROUP"
	[ "$status" -eq 2 ]
	[[ "$output" == *"got 'enable'"* ]]
	run "$PWN" bgp-nodelay attach status --cgroup "$BGP_CGROUP"
	[ "$status" -eq 2 ]
	run "$PWN" bgp-nodelay attach --port 180
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown or incomplete option '--port'"* ]]
	run "$PWN" bgp-nodelay attach --cgroup "$BGP_CGROUP/missing"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--cgroup '$BGP_CGROUP/missing': No such file or directory"* ]]
	run "$PWN" bgp-nodelay attach --cgroup "$BGP_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--cgroup '$BGP_DIR' is not a cgroup v2 directory"* ]]
	run "$PWN" bgp-nodelay status --cgroup "$BGP_CGROUP"
	[ "$status" -eq 1 ]
	[ "$(probe 179)" = "0 0" ]
}

@test "BIRD in the cgroup: sessions come up and routes spread with the program attached" {
	BGP_NODELAY=1 bgp_cluster_up 2
	local i pid
	for i in 1 2; do
		pid=$(bgp_bird_pid "$i")
		grep -qx "$pid" "$BGP_CGROUP/cgroup.procs"
	done
	"$PWN" bgp-nodelay status --cgroup "$BGP_CGROUP"
	ip -n "$(bgp_ns 1)" route add 10.244.1.7/32 dev lo proto 80
	bgp_wait_route "$(bgp_ns 2)" 10.244.1.7/32 present
	ip -n "$(bgp_ns 1)" route del 10.244.1.7/32 dev lo proto 80
	bgp_wait_route "$(bgp_ns 2)" 10.244.1.7/32 absent
}
