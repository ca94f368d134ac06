#!/usr/bin/env bats
# sriov-rdma under concurrency and crashes: 8 VFs ADDed and DELed in
# parallel; an ADD SIGKILLed half-way, followed by DEL or by GC.

load helpers
load sriov-helpers

setup() {
	pw_setup
	SR_PLAIN=1 sr_tree 8
	SR_PIDS=()
}

# sr_kill PID...: SIGKILL only processes still running one of our binaries
# (a finished PID may have been reused by someone else's process).
sr_kill() {
	local p cmd
	for p in "$@"; do
		cmd=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) || continue
		case $cmd in
		*"$PODWIRE_BIN/"* | *"$PODWIRE_TEST_BIN/"*) kill -9 "$p" 2>/dev/null || true ;;
		esac
	done
}

teardown() {
	sr_kill "${SR_PIDS[@]}"
	pw_teardown
}

# sr_bg VERB i NETNS CID CONF: run the plugin in the background (PID in SR_LAST_PID).
sr_bg() {
	ip netns exec "$HOST_NS" env CNI_COMMAND="$1" CNI_CONTAINERID="$4" \
		CNI_NETNS="/var/run/netns/$3" CNI_IFNAME=net1 \
		CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN" PODWIRE_SYSFS_ROOT="$SYS" \
		"$PODWIRE_BIN/sriov-rdma" <<<"$5" >"$STATE/out.$1.$2" 2>"$STATE/err.$1.$2" &
	SR_LAST_PID=$!
	SR_PIDS+=("$SR_LAST_PID")
}

@test "sriov-rdma: 8 VFs ADDed and DELed in parallel" {
	local i pids=() ns
	for i in $(seq 0 7); do
		pw_netns_new "${PW_ID}$i"
	done
	for i in $(seq 0 7); do
		sr_bg ADD "$i" "${PW_ID}$i" "c$i" "$(sr_conf "$i")"
		pids+=("$SR_LAST_PID")
	done
	for i in $(seq 0 7); do
		wait "${pids[$i]}" || { cat "$STATE/out.ADD.$i" >&2; return 1; }
	done
	# Eight distinct addresses, each VF in its own pod.
	[ "$(cat "$STATE"/out.ADD.* | jq -r '.ips[0].address' | sort -u | wc -l)" -eq 8 ]
	for i in $(seq 0 7); do
		ns="${PW_ID}$i"
		[ "$(sr_link "$ns" net1 | cut -d' ' -f2)" = "02:00:00:00:06:0$i" ]
	done
	pids=()
	for i in $(seq 0 7); do
		sr_bg DEL "$i" "${PW_ID}$i" "c$i" "$(sr_conf "$i")"
		pids+=("$SR_LAST_PID")
	done
	for i in $(seq 0 7); do
		wait "${pids[$i]}" || { cat "$STATE/out.DEL.$i" >&2; return 1; }
	done
	for i in $(seq 0 7); do
		sr_assert_home "$i"
	done
	[ -z "$(ls "$STATE/ipam/rail-a" | grep -v -e lock -e last_reserved)" ]
}

# sr_killed_add i: an ADD whose IPAM hangs after the VF moved; SIGKILL it there.
sr_killed_add() {
	local conf pid child c n=0
	conf=$(sr_conf_noipam "$1" "\"mtu\":9000,$(sr_ipam_fail '"hangSeconds":30')")
	sr_bg ADD "$1" "$POD_NS" "c$1" "$conf"
	pid=$SR_LAST_PID
	# Wait until the VF is in the pod and the IPAM delegate runs.
	until [ -n "$(sr_link "$POD_NS" net1)" ] && [ -n "$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)" ]; do
		n=$((n + 1))
		[ "$n" -lt 500 ] || return 1
		sleep 0.01
	done
	child=$(cat "/proc/$pid/task/$pid/children")
	for c in $child; do SR_PIDS+=("$c"); done
	sr_kill "$pid"
	wait "$pid" || true
	sr_kill $child
	jq -e '.complete | not' "$SR_STATE_DIR/$(sr_vf_bdf "$1").json"
}

@test "sriov-rdma: an ADD SIGKILLed half-way, then DEL restores the VF" {
	sr_killed_add 2
	run_plugin sriov-rdma DEL net1 c2 <<<"$(sr_conf_noipam 2 "\"mtu\":9000,$(sr_ipam_fail)")"
	sr_assert_home 2
	[ -z "$(sr_link "$POD_NS" net1)" ]
}

@test "sriov-rdma: an ADD SIGKILLed half-way, then GC restores the VF" {
	sr_killed_add 3
	run_plugin sriov-rdma GC <<<"$(sr_conf_noipam 3 '"cni.dev/valid-attachments":[]')"
	sr_assert_home 3
	# The VF is free again.
	run_plugin sriov-rdma ADD net1 c9 <<<"$(sr_conf_noipam 3)"
	run_plugin sriov-rdma DEL net1 c9 <<<"$(sr_conf_noipam 3)"
	sr_assert_home 3
}
