#!/usr/bin/env bats
# sriov-rdma DEL and GC when something is gone or wrong (README "DEL and
# GC"): the pod netns, the VF netdev, the RDMA device, the PF, the IPAM, the
# config. Every DEL must succeed within its bound, or fail with a reason and
# keep its record for a retry; a VF whose netdev never came back is "lost"
# until GC or an ADD restores it. On the fake sysfs tree of sriov-helpers
# (veth VFs: a veth dies with its netns, which is what a lost VF looks like).

load helpers
load sriov-helpers
load inspect-helpers

setup() {
	pw_setup
	sr_tree 8
	export CACHE="$STATE/cache" # run_inspect's --cache-dir
}

teardown() {
	pw_teardown
}

# ms_since T0: milliseconds since T0 (date +%s%N).
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# sr_lost_file i: the lost record of VF i.
sr_lost_file() {
	echo "$SR_STATE_DIR/lost/$(sr_vf_bdf "$1").json"
}

# sr_leases: host-local leases left in the test's pool (addresses only).
sr_leases() {
	local f
	for f in "$STATE"/ipam/rail-a/10.*; do
		[ -e "$f" ] && basename "$f"
	done
	return 0
}

@test "sriov-rdma DEL: the VF dies with the netns: lost after vfReturnTimeoutMs, DEL succeeds, GC restores it" {
	local conf t0 ms idx
	conf=$(sr_conf 3 '"vfReturnTimeoutMs":500')
	run_plugin sriov-rdma ADD net1 <<<"$conf"
	idx=$(jq -r .orig.ifindex "$SR_STATE_DIR/$(sr_vf_bdf 3).json")
	# A veth dies with its netns: the kernel never returns it.
	ip netns del "$POD_NS"
	t0=$(date +%s%N)
	run_plugin sriov-rdma DEL net1 <<<"$conf"
	ms=$(ms_since "$t0")
	echo "# DEL with vfReturnTimeoutMs 500 took $ms ms" >&3
	[ "$ms" -ge 500 ]
	[ "$ms" -lt 2500 ]
	grep -q "recorded as lost" "$PW_STDERR"
	[ ! -e "$SR_STATE_DIR/$(sr_vf_bdf 3).json" ]
	[ -z "$(sr_leases)" ]
	jq -e --arg cid "${PW_ID}c" '.containerID == $cid and .ifname == "net1" and
		.netdev == "pwvf3" and .mac == "02:00:00:00:06:03" and .mtu == 1500 and
		.deviceID == "0000:af:06.3" and .pf == "pwpf0" and .vf == 3 and
		(.reason | test("not back in the host \\(netns gone\\) within 500 ms"))' "$(sr_lost_file 3)"
	# podwire-inspect shows it, in the table and in --json.
	inspect_setup
	run_inspect --no-netlink
	echo "$output" | grep -q '^LOST-VF'
	echo "$output" | grep -E "^0000:af:06.3 +pwpf0 +3 +pwvf3 +02:00:00:00:06:03 1500 +${PW_ID}c/net1 "
	run_inspect --no-netlink --json
	assert_json '.lostVfs | length' 1
	assert_json '.lostVfs[0].netdev' pwvf3
	assert_json '.lostVfs[0].containerId' "${PW_ID}c"
	assert_json '.attachments | length' 0
	# DEL again: nothing to do, no wait (even with a long bound).
	t0=$(date +%s%N)
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 3 '"vfReturnTimeoutMs":5000')"
	ms=$(ms_since "$t0")
	echo "# the second DEL took $ms ms" >&3
	[ "$ms" -lt 2500 ]
	[ -e "$(sr_lost_file 3)" ]
	# GC while it is still away: kept.
	run_plugin sriov-rdma GC <<<"$conf"
	[ -e "$(sr_lost_file 3)" ]
	# The VF comes back (as the kernel returns one: its pod name and ifindex),
	# with another MAC and MTU; GC restores name, MAC and MTU, drops the record.
	ip -n "$HOST_NS" link add net1 index "$idx" type veth peer name pwvp3x
	ip -n "$HOST_NS" link set net1 address 02:aa:00:00:00:03 mtu 1400
	run_plugin sriov-rdma GC <<<"$conf"
	[ "$(sr_link "$HOST_NS" pwvf3 | cut -d' ' -f1-3)" = "pwvf3 02:00:00:00:06:03 1500" ]
	[ -z "$(sr_link "$HOST_NS" net1)" ]
	[ ! -e "$(sr_lost_file 3)" ]
	run_inspect --no-netlink --json
	assert_json '.lostVfs | length' 0
}

@test "sriov-rdma DEL: default vfReturnTimeoutMs is 2000 ms; a bad value on DEL is the default" {
	local t0 ms
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf_noipam 2)"
	ip netns del "$POD_NS"
	t0=$(date +%s%N)
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf_noipam 2 '"vfReturnTimeoutMs":-1')"
	ms=$(ms_since "$t0")
	echo "# DEL with the default bound took $ms ms" >&3
	grep -q 'vfReturnTimeoutMs: expected an integer from 0 to 60000, got -1, ignoring' "$PW_STDERR"
	[ "$ms" -ge 2000 ]
	[ "$ms" -lt 5000 ]
	jq -e '.reason | test("within 2000 ms")' "$(sr_lost_file 2)"
}

@test "sriov-rdma DEL: vfReturnTimeoutMs is validated on ADD and CHECK (code 7 naming key and value)" {
	local v
	sr_snapshot before
	for v in -1 60001 '"500"' 1.5 true; do
		run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf 0 "\"vfReturnTimeoutMs\":$v")"
		assert_error 7 "vfReturnTimeoutMs: expected an integer from 0 to 60000, got $v"
	done
	run_plugin -e 1 sriov-rdma CHECK net1 <<<"$(sr_conf 0 '"vfReturnTimeoutMs":99999')"
	assert_error 7 "vfReturnTimeoutMs"
	assert_error 7 "99999"
	sr_assert_snapshot before
}

@test "sriov-rdma DEL: a lost VF is restored by the next ADD that takes it (refused while away)" {
	local conf idx
	conf=$(sr_conf_noipam 4 '"vfReturnTimeoutMs":0')
	run_plugin sriov-rdma ADD net1 pod-a <<<"$conf"
	idx=$(jq -r .orig.ifindex "$SR_STATE_DIR/$(sr_vf_bdf 4).json")
	ip netns del "$POD_NS"
	run_plugin sriov-rdma DEL net1 pod-a <<<"$conf"
	[ -e "$(sr_lost_file 4)" ]
	pw_netns_new "$POD_NS"
	run_plugin -e 1 sriov-rdma ADD net1 pod-b <<<"$conf"
	assert_error 100 "VF 0000:af:06.4 is lost: its netdev 'pwvf4' has not come back to the host since the DEL of pod-a/net1"
	[ -e "$(sr_lost_file 4)" ]
	[ ! -e "$SR_STATE_DIR/$(sr_vf_bdf 4).json" ]
	# Back as dev<ifindex> with another MAC: ADD restores it, then takes it.
	ip -n "$HOST_NS" link add "dev$idx" type veth peer name pwvp4x
	ip -n "$HOST_NS" link set "dev$idx" address 02:bb:00:00:00:04 mtu 1300
	run_plugin sriov-rdma ADD net1 pod-b <<<"$conf"
	[ ! -e "$(sr_lost_file 4)" ]
	[ "$(sr_link "$POD_NS" net1 | cut -d' ' -f1-3)" = "net1 02:00:00:00:06:04 1500" ]
	run_plugin sriov-rdma DEL net1 pod-b <<<"$conf"
	sr_assert_home 4
}

@test "sriov-rdma DEL: the VF netdev vanished while the netns exists: lost, DEL succeeds" {
	local conf
	conf=$(sr_conf 5 '"vfReturnTimeoutMs":200')
	run_plugin sriov-rdma ADD net1 <<<"$conf"
	# A VF reset or removed under the pod.
	ip -n "$POD_NS" link del net1
	run_plugin sriov-rdma DEL net1 <<<"$conf"
	[ ! -e "$SR_STATE_DIR/$(sr_vf_bdf 5).json" ]
	jq -e '.reason | test("found neither in the pod nor in the host within 200 ms")' "$(sr_lost_file 5)"
	[ -z "$(sr_leases)" ]
	run_plugin sriov-rdma DEL net1 <<<"$conf"
}

@test "sriov-rdma DEL: the VF netdev renamed inside the pod is found by its ifindex" {
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 1 '"mtu":9000')"
	ip -n "$POD_NS" link set net1 down
	ip -n "$POD_NS" link set net1 name eth9
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 1 '"mtu":9000')"
	sr_assert_home 1
	[ ! -e "$(sr_lost_file 1)" ]
}

@test "sriov-rdma DEL: the RDMA device is gone (no RDMA netlink): waited for within the bound, then left" {
	local conf f t0 ms
	conf=$(sr_conf 7 '"rdma":"off","vfReturnTimeoutMs":300')
	run_plugin sriov-rdma ADD net1 <<<"$conf"
	# The record of an ADD that moved mlx5_7; this kernel has no RDMA netlink.
	f="$SR_STATE_DIR/$(sr_vf_bdf 7).json"
	jq -c '.rdmaMove = true' "$f" >"$f.new" && mv "$f.new" "$f"
	t0=$(date +%s%N)
	run_plugin sriov-rdma DEL net1 <<<"$conf"
	ms=$(ms_since "$t0")
	echo "# DEL without the RDMA device took $ms ms" >&3
	[ "$ms" -lt 2000 ]
	grep -q "rdma: 'mlx5_7' of VF 0000:af:06.7 is neither in netns" "$PW_STDERR"
	sr_assert_home 7
	[ ! -e "$(sr_lost_file 7)" ]
}

@test "sriov-rdma DEL: the PF is gone: its keys cannot be restored, the rest is, DEL succeeds" {
	local conf f
	conf=$(sr_conf 0)
	run_plugin sriov-rdma ADD net1 <<<"$conf"
	# The record of an ADD that set a VLAN on the PF (a veth PF refuses it at ADD).
	f="$SR_STATE_DIR/$(sr_vf_bdf 0).json"
	jq -c '.applied = ["vlan"] | .want.vlan = 100' "$f" >"$f.new" && mv "$f.new" "$f"
	ip -n "$HOST_NS" link del pwpf0
	run_plugin sriov-rdma DEL net1 <<<"$conf"
	grep -q "the PF is gone" "$PW_STDERR"
	sr_assert_home 0
	[ -z "$(sr_leases)" ]
}

@test "sriov-rdma DEL: the PF refuses a restore while the VF is there: code 100, record kept" {
	local conf f
	conf=$(sr_conf 0)
	run_plugin sriov-rdma ADD net1 <<<"$conf"
	f="$SR_STATE_DIR/$(sr_vf_bdf 0).json"
	jq -c '.applied = ["vlan"] | .want.vlan = 100' "$f" >"$f.new" && mv "$f.new" "$f"
	run_plugin -e 1 sriov-rdma DEL net1 <<<"$conf"
	assert_error 100 "vlan: restore vlan 0 qos 0 proto 802.1Q on VF 0 of PF 'pwpf0'"
	[ -e "$f" ]
	# The rest was restored anyway; with the PF fixed (here: the record) DEL finishes.
	[ -n "$(sr_link "$HOST_NS" pwvf0)" ]
	jq -c '.applied = []' "$f" >"$f.new" && mv "$f.new" "$f"
	run_plugin sriov-rdma DEL net1 <<<"$conf"
	sr_assert_home 0
}

@test "sriov-rdma DEL: IPAM fails: its error, nothing restored, record kept; a missing IPAM binary is a warning" {
	local f
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 2)"
	f="$SR_STATE_DIR/$(sr_vf_bdf 2).json"
	run_plugin -e 1 sriov-rdma DEL net1 <<<"$(sr_conf_noipam 2 '"failOn":["DEL"],"ipam":{"type":"fail"}')"
	assert_error 100 "injected failure"
	[ -e "$f" ]
	[ -n "$(sr_link "$POD_NS" net1)" ]
	# An IPAM type whose plugin is not installed: logged, the VF is restored.
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf_noipam 2 '"ipam":{"type":"no-such-ipam"}')"
	grep -q "going on without the IPAM's DEL" "$PW_STDERR"
	sr_assert_home 2
	# (its lease is left to host-local's GC)
	[ -n "$(sr_leases)" ]
	run_plugin sriov-rdma GC <<<"$(sr_conf 2 '"cni.dev/valid-attachments":[]')"
	[ -z "$(sr_leases)" ]
}

@test "sriov-rdma DEL: wrong config values are warnings; the record is found by attachment" {
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 5)"
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 5 '"vlan":9999,"mtu":1,"rdma":"maybe"' |
		jq -c '.deviceID = "junk"')"
	grep -q 'vlan: expected an integer from 0 to 4094, got 9999, ignoring' "$PW_STDERR"
	grep -q 'rdma: "maybe" is not "auto", "on" or "off", ignoring' "$PW_STDERR"
	sr_assert_home 5
	[ -z "$(sr_leases)" ]
}
