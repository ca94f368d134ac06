#!/usr/bin/env bats
# resourceName -> deviceID: the kubelet checkpoint (NUMA-map and plain-array
# forms) gives each NAD of the pod one device of its resource, injected as
# deviceID/pciBusID into every plugin of the NAD's conflist (a recording
# test double here), with the device plugin's device-info file handed over
# and surfaced in network-status. Then the GPU pod shape: eth0 bridge + net1
# sriov-rdma over a fake sysfs tree (runs only when sriov-rdma is built).

setup() {
	load helpers
	load multinet-helpers
	mn_setup
	mn_cluster_conf
	mn_apiserver_start
	mn_conf
	NETNS="/var/run/netns/$POD_NS"
}

teardown() {
	mn_teardown
}

# rail NAD: two noop plugins, the first declaring deviceID/CNIDeviceInfoFile.
rail_nad() {
	mn_nad ns1 "$1" "{\"cniVersion\":\"1.0.0\",\"name\":\"$1\",\"plugins\":[
	 {\"type\":\"noop\",\"recordFile\":\"$MN/record\",
	  \"capabilities\":{\"deviceID\":true,\"CNIDeviceInfoFile\":true},
	  \"result\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"x\",\"sandbox\":\"$NETNS\"}],
	   \"ips\":[{\"address\":\"192.168.${3:-210}.11/24\",\"interface\":0}]}},
	 {\"type\":\"noop\",\"recordFile\":\"$MN/record\"}]}" "$2"
}

checkpoint_numa() {
	cat >"$MN/checkpoint" <<JSON
{"Data":{"PodDeviceEntries":[
 {"PodUID":"other-pod","ContainerName":"c","ResourceName":"example.com/rail_a","DeviceIDs":{"0":["0000:3b:00.9"]}},
 {"PodUID":"$POD_UID","ContainerName":"worker","ResourceName":"example.com/rail_a",
  "DeviceIDs":{"1":["0000:3b:00.3"],"0":["0000:3b:00.2"]},"AllocResp":"AA=="},
 {"PodUID":"$POD_UID","ContainerName":"worker","ResourceName":"example.com/rail_b",
  "DeviceIDs":{"-1":["0000:5e:00.2"]}}],
 "RegisteredDevices":{"example.com/rail_a":["0000:3b:00.2","0000:3b:00.3"]}},"Checksum":1}
JSON
}

records() {
	output=$(jq -s . "$MN/record")
}

@test "NUMA-map checkpoint: each NAD gets the next device, every plugin gets it" {
	checkpoint_numa
	rail_nad rail-a example.com/rail_a
	rail_nad rail-b example.com/rail_b 220
	mn_pod pod1 "rail-a@rdma0,rail-b@rdma1,rail-a@rdma2"
	echo '{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:3b:00.2","rdma-device":"mlx5_3"}}' \
		>"$MN/devinfo/dp/example.com-rail_a-0000:3b:00.2-device.json"
	mn_run ADD
	records
	# Six ADDs (three NADs x two plugins); NUMA nodes in ascending order.
	assert_json '[.[] | .ifname + "=" + .stdin.deviceID] | join(",")' \
		"rdma0=0000:3b:00.2,rdma0=0000:3b:00.2,rdma1=0000:5e:00.2,rdma1=0000:5e:00.2,rdma2=0000:3b:00.3,rdma2=0000:3b:00.3"
	assert_json '[.[].stdin.pciBusID] | unique | length' 3
	local di="$MN/devinfo/cni/ns1-rail-a-${CID}_rdma0"
	assert_json '.[0].stdin.runtimeConfig.deviceID' 0000:3b:00.2
	assert_json '.[0].stdin.runtimeConfig.CNIDeviceInfoFile' "$di"
	assert_json '.[1].stdin | has("runtimeConfig")' false
	assert_json '.[0].args' "IgnoreUnknown=true;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod1;K8S_POD_INFRA_CONTAINER_ID=$CID;K8S_POD_UID=$POD_UID"
	[ "$(stat -c %a "$di")" = 444 ]
	output=$(mn_status_annotation)
	assert_json '.[1]["device-info"].pci["rdma-device"]' mlx5_3
	assert_json '.[1].ips[0]' 192.168.210.11
	assert_json '.[2] | has("device-info")' false
	output=$(mn_cache_entry)
	assert_json '[.delegates[] | .resourceName // "-"] | join(",")' \
		"-,example.com/rail_a,example.com/rail_b,example.com/rail_a"
	rm "$MN/record"
	mn_run DEL
	records
	# DEL in reverse, with the same deviceIDs, from the cache.
	assert_json '[.[] | .command + ":" + .ifname + "=" + .stdin.deviceID] | join(",")' \
		"DEL:rdma2=0000:3b:00.3,DEL:rdma2=0000:3b:00.3,DEL:rdma1=0000:5e:00.2,DEL:rdma1=0000:5e:00.2,DEL:rdma0=0000:3b:00.2,DEL:rdma0=0000:3b:00.2"
	[ ! -e "$di" ]
}

@test "plain-array checkpoint (kubelet < 1.20) and a resource with no device left" {
	cat >"$MN/checkpoint" <<JSON
{"Data":{"PodDeviceEntries":[{"PodUID":"$POD_UID","ContainerName":"w",
 "ResourceName":"example.com/rail_a","DeviceIDs":["0000:3b:00.4"]}]},"Checksum":1}
JSON
	rail_nad rail-a example.com/rail_a
	mn_pod pod1 "rail-a"
	mn_run ADD
	records
	assert_json '.[0].stdin.deviceID' 0000:3b:00.4
	mn_run DEL
	mn_pod pod1 "rail-a,rail-a"
	mn_run -e 1 ADD
	assert_error 7 "network ns1/rail-a: resource 'example.com/rail_a' has no device left"
	[ ! -e "$MN/cache/$CID" ]
}

@test "a malformed checkpoint is a clear error" {
	echo '{"Data":{"PodDeviceEntries":[{"PodUID":"'"$POD_UID"'","ResourceName":"example.com/rail_a","DeviceIDs":"x"}]}}' \
		>"$MN/checkpoint"
	rail_nad rail-a example.com/rail_a
	mn_pod pod1 "rail-a"
	mn_run -e 1 ADD
	assert_error 7 "device checkpoint"
	rm "$MN/checkpoint"
	mn_run -e 1 ADD
	assert_error 5 "deviceCheckpoint"
}

# The GPU pod shape: eth0 bridge + net1 sriov-rdma, over a fake sysfs tree
# (the layout of PODWIRE_SYSFS_ROOT in plugins/main/sriov-rdma/README.md: the VF
# netdev is a real veth in the host netns).
fake_sysfs() {
	local root=$MN/sys pf=0000:3b:00.0 vf=0000:3b:00.2
	mkdir -p "$root/bus/pci/drivers/mlx5_core" "$root/bus/pci/devices/$pf/net/pf0" \
		"$root/bus/pci/devices/$vf/net/vf0" "$root/class/net"
	echo 1 >"$root/bus/pci/devices/$pf/sriov_numvfs"
	echo 8 >"$root/bus/pci/devices/$pf/sriov_totalvfs"
	ln -s "../$vf" "$root/bus/pci/devices/$pf/virtfn0"
	ln -s "../$pf" "$root/bus/pci/devices/$vf/physfn"
	ln -s "$root/bus/pci/drivers/mlx5_core" "$root/bus/pci/devices/$vf/driver"
	ln -s "../../bus/pci/devices/$pf/net/pf0" "$root/class/net/pf0"
	ln -s "../../bus/pci/devices/$vf/net/vf0" "$root/class/net/vf0"
	ip -n "$HOST_NS" link add pf0 type veth peer name pf0p
	ip -n "$HOST_NS" link add vf0 type veth peer name vf0p
}

@test "GPU pod shape: eth0 bridge + net1 sriov-rdma with the checkpoint's VF" {
	pw_need "$PODWIRE_BIN/sriov-rdma"
	fake_sysfs
	cat >"$MN/checkpoint" <<JSON
{"Data":{"PodDeviceEntries":[{"PodUID":"$POD_UID","ContainerName":"w",
 "ResourceName":"example.com/rdma_rail_a","DeviceIDs":{"0":["0000:3b:00.2"]}}]},"Checksum":1}
JSON
	mn_nad ns1 rdma-rail-a '{"cniVersion":"1.0.0","name":"rdma-rail-a","plugins":[
	 {"type":"sriov-rdma","stateDir":"'"$MN"'/sriov-state",
	  "ipam":{"type":"static","addresses":[{"address":"192.168.210.11/24"}]}}]}' \
		example.com/rdma_rail_a
	mn_pod pod1 "rdma-rail-a"
	PW_ENV=(PODWIRE_SYSFS_ROOT="$MN/sys")
	mn_run ADD
	[ "$(mn_pod_links)" = "eth0 net1 " ]
	in_ns "$POD_NS" ip -o addr show dev net1 | grep -q 'inet 192.168.210.11/24'
	output=$(mn_status_annotation)
	assert_json '.[1].name' ns1/rdma-rail-a
	assert_json '.[1].interface' net1
	mn_run DEL
	[ "$(mn_pod_links)" = "" ]
	ip -n "$HOST_NS" link show vf0 >/dev/null
}

@test "resourceName on the cluster network's NAD (clusterNetwork by NAD name)" {
	checkpoint_numa
	mn_nad kube-system cl-rail '{"cniVersion":"1.0.0","plugins":[{"type":"noop","recordFile":"'"$MN"'/record",
	 "result":{"cniVersion":"1.0.0","ips":[{"address":"10.56.0.2/24"}]}}]}' example.com/rail_b
	mn_conf '{"clusterNetwork":"cl-rail"}'
	mn_pod pod1 ""
	mn_run ADD
	records
	assert_json '.[0].stdin.deviceID' 0000:5e:00.2
	assert_json '.[0].stdin.name' cl-rail
	mn_run DEL
}
