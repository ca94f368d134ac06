#!/usr/bin/env bats
# podwire-inspect on pods wired by bgp-route, multinet (eth0 + net1, inline
# delegates, no apiserver) and sriov-rdma (fake sysfs tree whose VF netdevs
# are veths; RDMA counters in a fake class/infiniband tree), all through
# cnitool with temp caches. Each test skips, saying why, when its plugin is
# not built in $PODWIRE_BIN.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	load inspect-helpers
	pw_need "$PODWIRE_BIN/cnitool"
	pw_setup
	cnitool_setup
	inspect_setup
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN"
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
	CNITOOL_ENV=(CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ml;K8S_POD_NAME=trainer-0")
}

teardown() {
	pw_teardown
}

need() {
	pw_need "$PODWIRE_BIN/$1"
}

att() { # att IFNAME: jq selector of our pod's attachment on IFNAME
	printf '.attachments[] | select(.containerId == "%s" and .ifname == "%s")' "$CID" "$1"
}

@test "inspect: bgp-route pod: routed host veth, host route checked" {
	need bgp-route
	cat >"$NETCONF/10-bgp.conflist" <<JSON
{"cniVersion":"1.1.0","name":"bgp","plugins":[{"type":"bgp-route",
 "ipam":{"type":"host-local","dataDir":"$STATE/ipam","ranges":[[{"subnet":"10.96.4.0/24"}]]}}]}
JSON
	run_cnitool add bgp "$NETNS"
	local ip
	ip=$(printf '%s' "$output" | jq -r '.ips[0].address')
	run_inspect --json
	assert_schema
	assert_json "$(att eth0) | .plugins | join(\",\")" bgp-route
	assert_json "$(att eth0) | .pod.name" trainer-0
	assert_json "$(att eth0) | .ips[0]" "$ip"
	assert_json "$(att eth0) | .host.bridge" null
	assert_json "$(att eth0) | .health.status" ok
	local veth
	veth=$(printf '%s' "$output" | jq -r "$(att eth0) | .host.ifname")
	[[ "$veth" == pwr??????????? ]]
	# the pod route taken away behind the plugin's back is a problem
	ip -n "$HOST_NS" route del "${ip%/*}" dev "$veth"
	run_inspect --json
	assert_json "$(att eth0) | .health.status" degraded
	printf '%s' "$output" | jq -e "$(att eth0) | .health.problems[] | select(contains(\"no host route\"))"
}

@test "inspect: multinet pod: eth0 and net1 from multinet's cache, each with its delegate chain" {
	need multinet
	need bridge
	local d1 d2
	d1='{"cniVersion":"1.0.0","name":"cluster","plugins":[{"type":"bridge","bridge":"'"${PW_ID}b0"'","ipam":{"type":"host-local","dataDir":"'"$STATE/ipam"'","ranges":[[{"subnet":"10.96.5.0/24"}]]}}]}'
	d2='{"cniVersion":"1.0.0","name":"storage","type":"bridge","bridge":"'"${PW_ID}b1"'","ipam":{"type":"host-local","dataDir":"'"$STATE/ipam"'","ranges":[[{"subnet":"10.96.6.0/24"}]]}}'
	cat >"$NETCONF/10-mn.conflist" <<JSON
{"cniVersion":"1.0.0","name":"mn","plugins":[{"type":"multinet","cniDir":"$STATE/multinet",
 "delegates":[$d1,$d2]}]}
JSON
	run_cnitool add mn "$NETNS"
	[ -f "$STATE/multinet/$CID" ]
	run_inspect --json
	assert_schema
	assert_json '.errors | length' 0
	assert_json "$(att eth0) | .network" cluster
	assert_json "$(att eth0) | .plugins | join(\",\")" multinet,bridge
	assert_json "$(att eth0) | .host.bridge" "${PW_ID}b0"
	assert_json "$(att net1) | .network" storage
	assert_json "$(att net1) | .plugins | join(\",\")" multinet,bridge
	assert_json "$(att net1) | .host.bridge" "${PW_ID}b1"
	assert_json "$(att net1) | .pod.namespace + \"/\" + .pod.name" ml/trainer-0
	assert_json "$(att net1) | .sources | index(\"multinet-cache\") != null" true
	assert_json "$(att net1) | .netnsState" present
	run_inspect --check --json
	assert_json "$(att eth0) | .health.check" ok
	assert_json "$(att net1) | .health.check" ok
	run_inspect leaks
	# the pod goes away without a DEL: multinet's cache entry is a GC candidate
	ip netns del "$POD_NS"
	run_inspect -e 1 leaks --json
	printf '%s' "$output" | jq -e ".leaks[] | select(.kind == \"multinet-cache\" and .object == \"$STATE/multinet/$CID\")"
}

# The sriov-rdma fake tree (e2e/sriov-helpers.bash) plus RDMA counters of mlx5_7.
rdma_tree() {
	load sriov-helpers
	sr_tree 8
	local p="$SYS/class/infiniband/mlx5_7/ports/1"
	mkdir -p "$p/counters" "$p/hw_counters"
	echo "4: ACTIVE" >"$p/state"
	echo "Ethernet" >"$p/link_layer"
	echo 1000 >"$p/counters/port_xmit_data"
	echo 7 >"$p/counters/port_rcv_errors"
	echo 14 >"$p/hw_counters/out_of_sequence"
	echo 3 >"$p/hw_counters/np_cnp_sent"
	echo 10 >"$p/hw_counters/lifespan"
}

@test "inspect: sriov-rdma pod: VF, PF, RDMA device and its counters; a changed counter shows" {
	need sriov-rdma
	rdma_tree
	cat >"$NETCONF/10-rail.conflist" <<JSON
{"cniVersion":"1.1.0","name":"rail-a","plugins":[{"type":"sriov-rdma","deviceID":"$(sr_vf_bdf 7)",
 "rdma":"off","stateDir":"$SR_STATE_DIR",
 "ipam":{"type":"host-local","dataDir":"$STATE/ipam","ranges":[[{"subnet":"10.77.0.0/24"}]]}}]}
JSON
	CNITOOL_ENV+=(PODWIRE_SYSFS_ROOT="$SYS")
	run_cnitool -i net1 add rail-a "$NETNS"
	run_inspect --json
	assert_schema
	local ifname
	ifname=$(printf '%s' "$output" | jq -r ".attachments[] | select(.containerId == \"$CID\") | .ifname")
	assert_json "$(att "$ifname") | .host.vfPci" "$(sr_vf_bdf 7)"
	assert_json "$(att "$ifname") | .host.pf" pwpf0
	assert_json "$(att "$ifname") | .host.rdmaDevice" mlx5_7
	assert_json "$(att "$ifname") | .sources | sort | join(\",\")" result-cache,sriov-state
	assert_json "$(att "$ifname") | .rdma.ports[0].state" "4: ACTIVE"
	assert_json "$(att "$ifname") | .rdma.ports[0].hwCounters.out_of_sequence" 14
	assert_json "$(att "$ifname") | .rdma.ports[0].hwCounters.lifespan" null
	assert_json "$(att "$ifname") | .rdma.ports[0].counters.port_xmit_data" 1000
	assert_json "$(att "$ifname") | .counters.pod != null" true
	echo 15 >"$SYS/class/infiniband/mlx5_7/ports/1/hw_counters/out_of_sequence"
	run_inspect --json
	assert_json "$(att "$ifname") | .rdma.ports[0].hwCounters.out_of_sequence" 15
	run_inspect --prometheus
	assert_prometheus
	[ "$(prom_value podwire_attachment_rdma_hw_total 'counter="out_of_sequence"')" = 15 ]
	prom_value podwire_attachment_rdma_hw_total 'counter="out_of_sequence"' >&2
	printf '%s\n' "$output" | grep -F 'rdma_device="mlx5_7",port="1",counter="out_of_sequence"'
	# the state record outliving its cache entry is orphaned state
	rm -f "$CACHE"/results/rail-a-*
	run_inspect -e 1 leaks --json
	assert_json '.leaks[0].kind' sriov-state
	assert_json '.leaks[0].object' "$SR_STATE_DIR/$(sr_vf_bdf 7).json"
}
