#!/usr/bin/env bats
# sriov-rdma on a fake sysfs tree (PODWIRE_SYSFS_ROOT) whose VF netdevs are
# real veths in a throwaway host netns: the move/rename/MAC/MTU/IPAM/restore
# paths run for real; PF-side IFLA_VF_* requests get EOPNOTSUPP from a veth.

load helpers
load sriov-helpers

setup() {
	pw_setup
	sr_tree 8
}

teardown() {
	pw_teardown
}

@test "sriov-rdma: ADD, CHECK, DEL, DEL" {
	local conf
	conf=$(sr_conf 0 '"mtu":9000,"runtimeConfig":{"CNIDeviceInfoFile":"'"$STATE"'/devinfo.json"}')
	run_plugin sriov-rdma ADD net1 <<<"$conf"
	[ "$(cat "$STATE/devinfo.json")" = '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:af:06.0"}}' ]
	assert_json '.interfaces[0].name' net1
	assert_json '.interfaces[0].pciID' 0000:af:06.0
	assert_json '.interfaces[0].mac' 02:00:00:00:06:00
	assert_json '.interfaces[0].mtu' 9000
	assert_json '.interfaces[0].sandbox' "/var/run/netns/$POD_NS"
	assert_json '.ips[0].address' 10.77.0.2/24
	assert_json '.ips[0].interface' 0
	local result=$output
	# The VF netdev is in the pod as net1, up, with the address and route; gone from the host.
	[ "$(sr_link "$POD_NS" net1 | cut -d' ' -f1-3)" = "net1 02:00:00:00:06:00 9000" ]
	ip -n "$POD_NS" -o addr show dev net1 | grep -q '10.77.0.2/24'
	ip -n "$POD_NS" route show | grep -q '10.78.0.0/16 via 10.77.0.1 dev net1'
	[ -z "$(sr_link "$HOST_NS" pwvf0)" ]
	jq -e '.complete and .containerID == "'"${PW_ID}c"'" and .netns == "/var/run/netns/'"$POD_NS"'"' \
		"$SR_STATE_DIR/0000:af:06.0.json"
	run_plugin sriov-rdma CHECK net1 <<<"$(jq --argjson r "$result" '. + {prevResult: $r}' <<<"$conf")"
	run_plugin sriov-rdma DEL net1 <<<"$conf"
	sr_assert_home 0
	[ -z "$(sr_link "$POD_NS" net1)" ]
	# The address went back to the pool.
	[ -z "$(ls "$STATE/ipam/rail-a" | grep -v -e lock -e last_reserved)" ]
	run_plugin sriov-rdma DEL net1 <<<"$conf"
}

@test "sriov-rdma: MAC, MTU and up state restored after the pod changed them" {
	ip -n "$HOST_NS" link set pwvf1 up
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 1 '"mtu":4000')"
	# What a tuning plugin (or the workload) might do inside the pod.
	ip -n "$POD_NS" link set net1 address 02:aa:bb:cc:dd:ee mtu 1400
	run_plugin -e 1 sriov-rdma CHECK net1 <<<"$(sr_conf 1 '"mtu":4000')"
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 1 '"mtu":4000')"
	sr_assert_home 1
	ip -n "$HOST_NS" -o link show pwvf1 | grep -q '<.*UP.*>'
}

@test "sriov-rdma: an altname equal to the host name (udev) does not block the way back" {
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf_noipam 5)"
	ip -n "$POD_NS" link property add dev net1 altname pwvf5
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf_noipam 5)"
	sr_assert_home 5
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf_noipam 5)"
	ip -n "$POD_NS" link set net1 netns "$HOST_NS"
	ip -n "$HOST_NS" link property add dev net1 altname pwvf5
	ip netns del "$POD_NS"
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf_noipam 5)"
	sr_assert_home 5
}

@test "sriov-rdma: DEL with the netns gone restores the VF the kernel returned" {
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 2 '"mtu":9000')"
	# What the kernel does with a physical VF when the pod netns dies: back to
	# the host under its pod name, addresses flushed (a veth would be deleted).
	ip -n "$POD_NS" link set net1 netns "$HOST_NS"
	ip netns del "$POD_NS"
	[ -n "$(sr_link "$HOST_NS" net1)" ]
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 2 '"mtu":9000')"
	sr_assert_home 2
	[ -z "$(sr_link "$HOST_NS" net1)" ]
	[ -z "$(ls "$STATE/ipam/rail-a" | grep -v -e lock -e last_reserved)" ]
}

@test "sriov-rdma: DEL with an empty CNI_NETNS uses the recorded netns" {
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 4)"
	PW_NETNS="" run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 4)"
	sr_assert_home 4
}

@test "sriov-rdma: a second pod on the same VF is refused, the first untouched" {
	local other="${PW_ID}q"
	pw_netns_new "$other"
	run_plugin sriov-rdma ADD net1 pod-a <<<"$(sr_conf 5)"
	PW_NETNS=/var/run/netns/$other run_plugin -e 1 sriov-rdma ADD net1 pod-b <<<"$(sr_conf 5)"
	assert_error 103 "VF 0000:af:06.5 is in use by pod-a"
	[ -n "$(sr_link "$POD_NS" net1)" ]
	[ -z "$(sr_link "$other" net1)" ]
	jq -e '.containerID == "pod-a"' "$SR_STATE_DIR/0000:af:06.5.json"
	# A late DEL of pod-b leaves pod-a's VF alone.
	PW_NETNS=/var/run/netns/$other run_plugin sriov-rdma DEL net1 pod-b <<<"$(sr_conf 5)"
	[ -n "$(sr_link "$POD_NS" net1)" ]
	run_plugin sriov-rdma DEL net1 pod-a <<<"$(sr_conf 5)"
	sr_assert_home 5
}

@test "sriov-rdma: a stale owner (netns gone) is restored and taken over" {
	run_plugin sriov-rdma ADD net1 pod-a <<<"$(sr_conf_noipam 0)"
	ip -n "$POD_NS" link set net1 netns "$HOST_NS"
	ip netns del "$POD_NS"
	local other="${PW_ID}q"
	pw_netns_new "$other"
	PW_NETNS=/var/run/netns/$other run_plugin sriov-rdma ADD net1 pod-b <<<"$(sr_conf_noipam 0)"
	jq -e '.containerID == "pod-b"' "$SR_STATE_DIR/0000:af:06.0.json"
	[ "$(sr_link "$other" net1 | cut -d' ' -f1-2)" = "net1 02:00:00:00:06:00" ]
	PW_NETNS=/var/run/netns/$other run_plugin sriov-rdma DEL net1 pod-b <<<"$(sr_conf_noipam 0)"
	sr_assert_home 0
}

@test "sriov-rdma: PF-side keys the PF refuses: error naming the key, complete rollback" {
	local kv key
	sr_snapshot before
	for kv in '"vlan":100' '"vlan":100,"vlanProto":"802.1ad"' '"mac":"02:11:22:33:44:55"' \
		'"spoofchk":"off"' '"trust":"on"' '"link_state":"enable"' '"max_tx_rate":100'; do
		run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf 0 "\"mtu\":9000,$kv")"
		key=${kv%%\"*:*}
		key=$(jq -rn "{$kv} | keys_unsorted[0]")
		case $key in max_tx_rate) key=min_tx_rate/max_tx_rate ;; esac
		assert_error 100 "$key: PF 'pwpf0' refused"
		assert_error 100 "Operation not supported"
		sr_assert_home 0
	done
	sr_assert_snapshot before
}

@test "sriov-rdma: a failure after the move (IPAM) rolls everything back" {
	sr_snapshot before
	run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf_noipam 1 "\"mtu\":9000,$(sr_ipam_fail)")"
	assert_error 100 "injected failure"
	sr_assert_home 1
	[ -z "$(sr_link "$POD_NS" net1)" ]
	sr_assert_snapshot before
}

@test "sriov-rdma: rdma on without an RDMA device, or with one on a kernel without RDMA" {
	sr_snapshot before
	run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf 0 '"rdma":"on"')"
	assert_error 7 'rdma: "on" but VF 0000:af:06.0 has no RDMA device'
	# VF 7 has infiniband/mlx5_7 in sysfs; this kernel has no RDMA netlink.
	run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf 7)"
	assert_error 100 "rdma: VF 0000:af:06.7 has RDMA device 'mlx5_7' but RDMA netlink"
	sr_assert_home 7
	sr_assert_snapshot before
	# rdma off: the netdev moves, the RDMA device is left alone.
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 7 '"rdma":"off"')"
	jq -e '.rdmaDevice == "mlx5_7" and (.rdmaMove | not)' "$SR_STATE_DIR/0000:af:06.7.json"
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 7 '"rdma":"off"')"
	sr_assert_home 7
}

@test "sriov-rdma: DPDK VF (vfio-pci): no netdev moved, IPs returned, mode recorded" {
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf 6)"
	assert_json '.interfaces[0].pciID' 0000:af:06.6
	assert_json '.interfaces[0].sandbox' "/var/run/netns/$POD_NS"
	assert_json '.ips[0].address' 10.77.0.2/24
	[ -z "$(sr_link "$POD_NS" net1)" ]
	jq -e '.dpdk and .driver == "vfio-pci" and .netdev == ""' "$SR_STATE_DIR/0000:af:06.6.json"
	run_plugin sriov-rdma CHECK net1 <<<"$(sr_conf 6)"
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf 6)"
	[ ! -e "$SR_STATE_DIR/0000:af:06.6.json" ]
	run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf 6 '"mtu":9000')"
	assert_error 7 "mtu: 9000 on DPDK VF"
}

@test "sriov-rdma: bad input is code 7 naming key and value, nothing changed" {
	local base='"cniVersion":"1.1.0","name":"rail-a","type":"sriov-rdma","stateDir":"'$SR_STATE_DIR'"'
	local vf='"deviceID":"0000:af:06.0"'
	sr_snapshot before
	check_bad() {
		run_plugin -e 1 sriov-rdma ADD net1 <<<"{$base,$1}"
		assert_error 7 "$2"
	}
	check_bad '"vlan":1' 'deviceID: missing'
	check_bad '"deviceID":"af:06.0"' 'deviceID: "af:06.0" is not a PCI address'
	check_bad '"deviceID":"0000:af:06.8"' 'is not a PCI address'
	check_bad '"deviceID":"0000:af:09.0"' 'deviceID: no PCI device "0000:af:09.0"'
	check_bad '"deviceID":"0000:05:00.0"' 'deviceID: "0000:05:00.0" is not an SR-IOV VF'
	check_bad '"deviceID":"0000:af:00.0"' 'deviceID: "0000:af:00.0" is an SR-IOV PF'
	check_bad "$vf"',"master":"pwpf1"' "belongs to PF 'pwpf0', not to master 'pwpf1'"
	check_bad "$vf"',"vlan":4095' 'vlan'
	check_bad "$vf"',"vlan":4095' '4095'
	check_bad "$vf"',"vlan":-1' 'vlan'
	check_bad "$vf"',"vlan":10,"vlanQoS":8' 'vlanQoS'
	check_bad "$vf"',"vlanQoS":1' 'vlanQoS: set without vlan'
	check_bad "$vf"',"vlan":0,"vlanQoS":3' 'vlanQoS: 3 needs a non-zero vlan'
	check_bad "$vf"',"vlan":10,"vlanProto":"802.1x"' 'vlanProto: "802.1x"'
	check_bad "$vf"',"vlan":0,"vlanProto":"802.1ad"' 'vlanProto: "802.1ad" needs a non-zero vlan'
	check_bad "$vf"',"min_tx_rate":200,"max_tx_rate":100' 'min_tx_rate: 200 is above max_tx_rate 100'
	check_bad "$vf"',"mtu":67' 'mtu'
	check_bad "$vf"',"mtu":65536' '65536'
	check_bad "$vf"',"spoofchk":"yes"' 'spoofchk: "yes"'
	check_bad "$vf"',"trust":true' 'trust'
	check_bad "$vf"',"link_state":"up"' 'link_state: "up"'
	check_bad "$vf"',"rdma":"maybe"' 'rdma: "maybe"'
	check_bad "$vf"',"mac":"01:00:5e:00:00:01"' 'mac: "01:00:5e:00:00:01" is not a unicast'
	base='"cniVersion":"1.1.0","name":"rail-a","type":"sriov-rdma"'
	check_bad "$vf"',"stateDir":"relative/dir"' 'stateDir: "relative/dir"'
	check_bad '"runtimeConfig":{"deviceID":"nonsense"},'"$vf" 'runtimeConfig.deviceID: "nonsense"'
	# a known key but for letter case: the VF would land on the native VLAN
	check_bad "$vf"',"vLan":10' "'vLan': unknown key (did you mean 'vlan'?)"
	sr_assert_snapshot before
}

@test "sriov-rdma: GC restores what cni.dev/valid-attachments does not list; STATUS" {
	run_plugin sriov-rdma ADD net1 keep <<<"$(sr_conf 0)"
	run_plugin sriov-rdma ADD net2 drop <<<"$(sr_conf 1)"
	run_plugin sriov-rdma GC <<<"$(sr_conf 0 '"cni.dev/valid-attachments":[{"containerID":"keep","ifname":"net1"}]')"
	sr_assert_home 1
	[ -n "$(sr_link "$POD_NS" net1)" ]
	[ -z "$(sr_link "$POD_NS" net2)" ]
	run_plugin sriov-rdma STATUS <<<"$(sr_conf 0)"
	# STATUS and GC are about the network: no deviceID needed.
	run_plugin sriov-rdma STATUS <<<"$(sr_conf 0 | jq -c 'del(.deviceID)')"
	run_plugin -e 1 sriov-rdma STATUS <<<"$(sr_conf 0 | jq -c 'del(.deviceID) | .stateDir = "/proc/nope"')"
	assert_error 50 "stateDir: '/proc/nope' is not writable"
	run_plugin -e 1 sriov-rdma STATUS <<<"$(sr_conf 0 '"rdma":"on"')"
	assert_error 50 'rdma: "on" but RDMA netlink is unavailable'
	run_plugin sriov-rdma DEL net1 keep <<<"$(sr_conf 0)"
	sr_assert_home 0
}
