#!/usr/bin/env bats
# State directories are created with every missing parent, 0700 (a fresh
# node has no /var/lib/cni), and a path that cannot be created fails with
# the plugin's code and a message naming the key and the path. Each path
# lives in the test's temp dir; the parents that do not exist yet are
# "$STATE/fresh/var/lib/..." and the blocker is the regular file
# "$STATE/file".

load helpers

setup() {
	pw_setup
	FRESH="$STATE/fresh/var/lib"
	: >"$STATE/file"
	export FRESH
}

teardown() {
	if declare -F ci_etcd_stop >/dev/null; then
		ci_etcd_stop
		[ -n "${CI_ETCD_DIR:-}" ] && rm -rf "$CI_ETCD_DIR"
	fi
	if declare -F mn_apiserver_stop >/dev/null; then
		mn_apiserver_stop
	fi
	pw_teardown
}

# modes_0700 DIR...: each exists, is a directory, mode 0700.
modes_0700() {
	local d
	for d in "$@"; do
		if [ ! -d "$d" ] || [ "$(stat -c %a "$d")" != 700 ]; then
			echo "# $d: $(stat -c '%F %a' "$d" 2>&1)" >&2
			return 1
		fi
	done
}

@test "cluster-ipam: ipam.dataDir under missing parents is made 0700; under a file, code 5 naming it" {
	load cluster-ipam-helpers
	ci_require
	ci_etcd_start
	export CI_PREFIX="/e2e-$PW_ID"
	local dd="$FRESH/cni/cluster-ipam"
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 ".ipam.dataDir=\"$dd\"")"
	assert_json '.ips | length' 2
	modes_0700 "$STATE/fresh" "$FRESH" "$FRESH/cni" "$dd"
	[ -f "$dd/lock" ]
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 ".ipam.dataDir=\"$dd\"")"
	run_plugin -e 1 cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1 ".ipam.dataDir=\"$STATE/file/cni/cluster-ipam\"")"
	assert_error 5 "ipam.dataDir: cannot create '$STATE/file/cni/cluster-ipam': Not a directory"
}

@test "tuning: dataDir under missing parents is made 0700; under a file, code 5 naming it" {
	load chained-helpers
	pod_veth eth0
	local dd="$FRESH/tuning" prev
	prev=$(prev_iface eth0)
	conf() {
		jq -c --arg dd "$1" --argjson pr "$prev" \
			'{cniVersion:"1.0.0",name:"tn",type:"tuning",mtu:1400,dataDir:$dd,prevResult:$pr}' <<<'{}'
	}
	run_plugin tuning ADD <<<"$(conf "$dd")"
	modes_0700 "$STATE/fresh" "$FRESH" "$dd"
	[ -f "$dd/${PW_ID}c_eth0.json" ]
	run_plugin tuning DEL <<<"$(conf "$dd")"
	run_plugin -e 1 tuning ADD <<<"$(conf "$STATE/file/tuning")"
	assert_error 5 "dataDir: cannot save '$STATE/file/tuning': Not a directory"
	# nothing changed: the MTU is still the veth's
	[ "$(ip -n "$POD_NS" -j link show eth0 | jq '.[0].mtu')" = 1500 ]
}

@test "sriov-rdma: stateDir under missing parents is made 0700; under a file, the error names it" {
	load sriov-helpers
	sr_tree 1
	SR_STATE_DIR="$FRESH/cni/sriov-rdma"
	run_plugin sriov-rdma ADD net1 <<<"$(sr_conf_noipam 0)"
	modes_0700 "$STATE/fresh" "$FRESH" "$FRESH/cni" "$SR_STATE_DIR"
	[ -f "$SR_STATE_DIR/$(sr_vf_bdf 0).json" ]
	run_plugin sriov-rdma DEL net1 <<<"$(sr_conf_noipam 0)"
	SR_STATE_DIR="$STATE/file/sriov-rdma"
	run_plugin -e 1 sriov-rdma ADD net1 <<<"$(sr_conf_noipam 0)"
	assert_error 5 "stateDir: cannot create '$STATE/file/sriov-rdma': Not a directory"
	SR_STATE_DIR="$STATE/file/sriov-rdma"
	run_plugin -e 1 sriov-rdma STATUS net1 <<<"$(sr_conf_noipam 0)"
	assert_error 50 "stateDir: '$STATE/file/sriov-rdma' is not writable"
}

@test "multinet: cniDir under missing parents is made 0700; under a file, code 5 naming it" {
	load multinet-helpers
	pw_teardown
	mn_setup
	mn_cluster_conf
	mn_apiserver_start
	mn_pod pod1 ""
	local cd="$STATE/fresh/var/lib/cni/multinet"
	mn_conf "{\"cniDir\":\"$cd\"}"
	mn_run ADD
	modes_0700 "$STATE/fresh" "$STATE/fresh/var" "$STATE/fresh/var/lib" "$STATE/fresh/var/lib/cni" "$cd"
	[ -f "$cd/$CID" ]
	mn_run DEL
	: >"$STATE/file"
	mn_conf "{\"cniDir\":\"$STATE/file/multinet\"}"
	mn_run -e 1 ADD
	assert_error 5 "'$STATE/file/multinet"
	assert_error 5 "Not a directory"
}

@test "host-local: dataDir under missing parents is made (0755, as the reference); under a file, it fails naming it" {
	local dd="$FRESH/cni/networks"
	conf() {
		jq -nc --arg dd "$1" '{cniVersion:"1.1.0",name:"hl",type:"host-local",
			ipam:{type:"host-local",subnet:"10.79.0.0/24",dataDir:$dd}}'
	}
	run_plugin host-local ADD <<<"$(conf "$dd")"
	[ "$(stat -c %a "$FRESH/cni")" = 755 ]
	[ -d "$dd/hl" ]
	run_plugin host-local DEL <<<"$(conf "$dd")"
	run_plugin -e 1 host-local ADD <<<"$(conf "$STATE/file/networks")"
	assert_error 5 "'$STATE/file/networks/hl'"
}
