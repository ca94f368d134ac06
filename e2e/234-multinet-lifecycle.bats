#!/usr/bin/env bats
# multinet without the apiserver (delegates mode), clusterNetwork looked up
# by name in confDir, GC of stale attachments, STATUS and the readiness
# indicator file, and 10 pods in parallel (MN_PARALLEL_PODS for more).

setup() {
	load helpers
	load multinet-helpers
	mn_setup
	mn_cluster_conf
	mn_std_nads
}

teardown() {
	mn_teardown
}

@test "no kubeconfig: delegates run (first is eth0), no apiserver, no status" {
	jq -n --arg mn "$MN" --arg bin "$PODWIRE_BIN" --slurpfile cl "$MN/conf/10-cluster.conflist" \
		'{cniVersion:"1.0.0",name:"multinet",type:"multinet",cniDir:($mn+"/cache"),binDir:$bin,
		  delegates:[$cl[0], {cniVersion:"1.0.0",name:"extra",type:"noop"}]}' >"$MN/multinet.json"
	mn_run ADD
	assert_json '.interfaces | map(select(.sandbox != null)) | .[0].name' eth0
	output=$(mn_cache_entry)
	assert_json '[.delegates[] | .name + "=" + .ifname] | join(",")' "cluster=eth0,extra=net1"
	mn_run CHECK
	mn_run DEL
	[ "$(mn_pod_links)" = "" ]
}

@test "clusterNetwork by name from confDir; readiness indicator file" {
	mn_apiserver_start
	mn_pod pod1 ""
	mn_conf '{"cniVersion":"1.1.0","clusterNetwork":"cluster","readinessindicatorfile":"'"$MN"'/ready"}'
	PW_ENV=(PODWIRE_MULTINET_READINESS_MS=300)
	mn_run -e 1 ADD
	assert_error 50 "readinessindicatorfile"
	mn_run -e 1 STATUS
	assert_error 50 "readinessindicatorfile"
	touch "$MN/ready"
	mn_run ADD
	[ "$(mn_pod_links)" = "eth0 " ]
	mn_run STATUS
	mn_run DEL
}

@test "GC: attachments not in cni.dev/valid-attachments are deleted from the cache" {
	mn_apiserver_start
	mn_conf
	mn_pod pod1 "net-a"
	mn_run ADD keep1
	# A second pod in its own netns, then "forgotten" by the runtime.
	local ns2="${PW_ID}q"
	pw_netns_new "$ns2"
	mn_pod pod2 "net-b" ns1 u2
	PW_CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod2;K8S_POD_UID=u2" \
		PW_NETNS="/var/run/netns/$ns2" mn_run ADD stale1
	[ -f "$MN/cache/stale1" ]
	jq '. + {cniVersion:"1.1.0","cni.dev/valid-attachments":[{"containerID":"keep1","ifname":"eth0"}]}' \
		"$MN/multinet.json" >"$MN/gc.json"
	run_plugin multinet GC <"$MN/gc.json"
	[ ! -e "$MN/cache/stale1" ]
	[ -f "$MN/cache/keep1" ]
	[ "$(ip -n "$ns2" -o link show | grep -vc ' lo:')" = 0 ]
	[ -f "$MN/cache/results/cluster-keep1-eth0" ]
	[ ! -e "$MN/cache/results/cluster-stale1-eth0" ]
	[ "$(mn_pod_links)" = "eth0 net1 " ]
	mn_run DEL keep1
}

@test "10 pods in parallel: every ADD and DEL succeeds, nothing left" {
	mn_apiserver_start
	mn_conf
	local n=${MN_PARALLEL_PODS:-10} i
	# Every pod uses the cluster network and net-b with its own address.
	for i in $(seq "$n"); do
		pw_netns_new "${PW_ID}x$i"
		mn_pod "p$i" "[{\"name\":\"net-b\",\"ips\":[\"10.97.1.$i/16\"]}]"
	done
	par() {
		local cmd=$1 pids=() i
		for i in $(seq "$n"); do
			ip netns exec "$HOST_NS" env CNI_COMMAND="$cmd" CNI_CONTAINERID="c$i" \
				CNI_NETNS="/var/run/netns/${PW_ID}x$i" CNI_IFNAME=eth0 CNI_PATH="$PW_CNI_PATH" \
				CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=p$i;K8S_POD_UID=$POD_UID" \
				"$PODWIRE_BIN/multinet" <"$MN/multinet.json" >"$MN/out.$cmd.$i" 2>&1 &
			pids+=($!)
		done
		local rc=0
		for i in "${pids[@]}"; do wait "$i" || rc=1; done
		[ "$rc" = 0 ] || { cat "$MN"/out.$cmd.* >&2; return 1; }
	}
	par ADD
	for i in $(seq "$n"); do
		ip -n "${PW_ID}x$i" -o addr show dev net1 | grep -q "inet 10.97.1.$i/16"
		[ "$(jq -r '.metadata.annotations["k8s.v1.cni.cncf.io/network-status"]' \
			"$MN/fixtures/pods/ns1/p$i.json" | jq length)" = 2 ]
	done
	# Distinct cluster addresses.
	[ "$(cat "$MN"/out.ADD.* | jq -r '.ips[0].address' | sort -u | wc -l)" = "$n" ]
	par DEL
	[ -z "$(ls "$MN/cache" | grep -vx -e results -e tls -e deleted)" ]
	[ -z "$(ls "$MN/cache/results")" ]
	run ! grep -q veth <<<"$(ip -n "$HOST_NS" -o link show)"
}

@test "v1.multus-cni.io/default-network replaces the cluster network; two entries are refused" {
	mn_apiserver_start
	mn_conf
	mn_nad kube-system alt '{"cniVersion":"1.0.0","type":"noop","result":{"cniVersion":"1.0.0",
	 "ips":[{"address":"10.55.0.5/24"}]}}'
	mn_pod pod1 "net-b"
	jq '.metadata.annotations["v1.multus-cni.io/default-network"] = "alt"' \
		"$MN/fixtures/pods/ns1/pod1.json" >"$MN/p.tmp" && mv "$MN/p.tmp" "$MN/fixtures/pods/ns1/pod1.json"
	mn_run ADD
	assert_json '.ips[0].address' 10.55.0.5/24
	output=$(mn_cache_entry)
	assert_json '[.delegates[] | .name + "=" + .ifname] | join(",")' "kube-system/alt=eth0,ns1/net-b=net1"
	mn_run DEL
	jq '.metadata.annotations["v1.multus-cni.io/default-network"] = "alt,alt"' \
		"$MN/fixtures/pods/ns1/pod1.json" >"$MN/p.tmp" && mv "$MN/p.tmp" "$MN/fixtures/pods/ns1/pod1.json"
	mn_run -e 1 ADD
	assert_error 7 "exactly one network"
}

@test "STATUS is the cluster network's STATUS, its error code passed through" {
	jq -n --arg mn "$MN" '{cniVersion:"1.1.0",name:"multinet",type:"multinet",cniDir:($mn+"/cache"),
	  binDir:"/nonexistent",delegates:[{cniVersion:"1.1.0",name:"c",type:"fail",code:51,msg:"degraded",
	  failOn:["STATUS"]}]}' >"$MN/multinet.json"
	mn_run -e 1 STATUS
	assert_error 51 "degraded"
	jq '.delegates[0].failOn = ["DEL"]' "$MN/multinet.json" >"$MN/m.tmp" && mv "$MN/m.tmp" "$MN/multinet.json"
	mn_run STATUS
}
