#!/usr/bin/env bats
# podwire's plugins driven through containerd's CRI, as the kubelet drives
# them: RunPodSandbox (ADD), StopPodSandbox (DEL with the pod's netns),
# RemovePodSandbox (containerd DELs again, the netns gone), each repeated as
# the kubelet may. Every CRI call is timed (RPC only) and bounded by
# CRI_DEL_BOUND_MS; afterwards nothing of the pod is left: host-local lease,
# veth, netns, go-cni and multinet caches, mounts, processes. multinet also
# with the apiserver stopped or frozen, and after ADDs that failed.

# A DEL through the CRI: containerd's own work plus the plugins' DELs, tens
# to hundreds of ms here. 5 s leaves room for a loaded machine and for
# multinet's 3 s apiserver budget of a DEL without cache; a DEL that waits
# out connect or TLS timeouts with retries exceeds it.
CRI_DEL_BOUND_MS=${CRI_DEL_BOUND_MS:-5000}

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	load cri-helpers
	load multinet-helpers
}

teardown() {
	cri_teardown
	# A frozen (SIGSTOPped) stand-in must run again to be stopped.
	[ -n "${MN_APISERVER_PID:-}" ] && kill -CONT "$MN_APISERVER_PID" 2>/dev/null
	if [ -n "${MN:-}" ]; then
		mn_teardown
	else
		pw_teardown
	fi
}

# cri_del_bounded stop|rm ID: the call succeeds within the bound.
cri_del_bounded() {
	cri_timed "$@"
	[ "$status" = 0 ] || {
		echo "# $1 $2 failed (exit $status): $output" >&2
		return 1
	}
	[ "$CRI_MS" -ge 0 ] && [ "$CRI_MS" -le "$CRI_DEL_BOUND_MS" ] || {
		echo "# $1 took $CRI_MS ms, bound $CRI_DEL_BOUND_MS ms" >&2
		return 1
	}
}

# The kubelet's teardown of a pod: StopPodSandbox (twice: it retries and
# stops eagerly), then RemovePodSandbox (twice: idempotent).
cri_kubelet_teardown() {
	cri_del_bounded stop "$1"
	cri_del_bounded stop "$1"
	cri_del_bounded rm "$1"
	cri_del_bounded rm "$1"
}

@test "bridge + host-local through the CRI: the pod gets its IP; Stop, Remove leave nothing" {
	pw_setup
	local ipam="$STATE/ipam"
	cat >"$STATE/10-crinet.conflist" <<JSON
{"cniVersion":"1.0.0","name":"crinet","plugins":[{"type":"bridge","bridge":"cri0",
 "isGateway":true,"ipam":{"type":"host-local","dataDir":"$ipam",
 "ranges":[[{"subnet":"10.66.0.0/24"}]]}}]}
JSON
	cri_start "$STATE/10-crinet.conflist"
	cri_run pod1 ns1 "uid-$PW_ID"
	local id=$CRI_ID ip
	cri_status "$id"
	ip=$CRI_IP
	[ "$(cri_call status "$id")" = "$ip" ]
	[[ "$ip" == 10.66.0.* ]]
	# The lease, the veth on the bridge, the address in the pod's netns.
	grep -q "^$id" "$ipam/crinet/$ip"
	[ "$(ip -n "$HOST_NS" -o link show master cri0 | grep -c veth)" = 1 ]
	[[ "$CRI_NETNS_PATH" == "$CRI/state/"* ]]
	nsenter --net="$CRI_NETNS" ip -o addr show dev eth0 | grep -q "inet $ip/24"
	# go-cni kept its result under $CRI (bound over /var/lib), never the host's.
	[ -f "$CRI/var-lib/cni/results/crinet-$id-eth0" ]
	[ ! -e "/var/lib/cni/results/crinet-$id-eth0" ]
	# No pull: $HOST_NS has no route out, and containerd logs a pull only
	# when it fails (RunPodSandbox then fails: "failed to pull image").
	[ -z "$(ip -n "$HOST_NS" route show default)" ]

	cri_kubelet_teardown "$id"

	cri_assert_clean
	[ -z "$(ls "$ipam/crinet" | grep -v -e '^last_reserved_ip' -e '^lock$')" ]
	[ "$(ip -n "$HOST_NS" -o link show | grep -c veth)" = 0 ]
	# The plugins' lock files went to $PODWIRE_LOCK_DIR, not /run/podwire.
	[ ! -e "$CRI/run/podwire" ]
}

# mn_cri_start ANNOTATION: multinet (cluster network: bridge + host-local;
# NADs net-a macvlan, net-b bridge/static) with the apiserver stand-in, pod
# ns1/pod1 with ANNOTATION, as containerd's only CNI config.
mn_cri_start() {
	mn_setup
	mn_cluster_conf
	mn_std_nads
	mn_apiserver_start
	mn_pod pod1 "$1"
	mn_conf
	cp "$MN/multinet.json" "$STATE/00-multinet.conf"
	cri_start "$STATE/00-multinet.conf"
}

# mn_cri_pod: run pod1 (net-a, net-b); check its interfaces and status.
mn_cri_pod() {
	cri_run pod1 ns1 "$POD_UID"
	cri_status "$CRI_ID"
	[[ "$CRI_IP" == 10.99.0.* ]]
	[ "$(nsenter --net="$CRI_NETNS" ip -o link show | sed 's/^[0-9]*: //; s/[@:].*//' |
		grep -v '^lo$' | sort | tr '\n' ' ')" = "eth0 net1 net2 " ]
	[ "$(mn_status_annotation | jq length)" = 3 ]
	[ -f "$MN/cache/$CRI_ID" ]
}

# mn_assert_clean: nothing of pod1 in containerd, multinet or the delegates.
mn_assert_clean() {
	cri_assert_clean
	# multinet's cache entries (tombstones in deleted/ are allowed), the
	# delegates' results, the cluster network's leases, the veths.
	[ -z "$(ls "$MN/cache" | grep -vx -e results -e tls -e deleted)" ]
	[ -z "$(ls "$MN/cache/results" 2>/dev/null)" ]
	[ -z "$(ls "$MN/ipam/cluster" 2>/dev/null | grep -v -e '^last_reserved_ip' -e '^lock$')" ]
	[ "$(ip -n "$HOST_NS" -o link show | grep -c veth)" = 0 ]
	[ ! -e "$CRI/run/podwire" ]
}

@test "multinet through the CRI: Stop and Remove succeed with the apiserver stopped" {
	mn_cri_start "net-a,net-b"
	mn_cri_pod
	mn_apiserver_stop
	cri_kubelet_teardown "$CRI_ID"
	mn_assert_clean
}

@test "multinet through the CRI: Stop and Remove succeed in bound with the apiserver frozen" {
	mn_cri_start "net-a,net-b"
	mn_cri_pod
	# Accepts connections (the kernel's backlog), never answers.
	kill -STOP "$MN_APISERVER_PID"
	cri_kubelet_teardown "$CRI_ID"
	mn_assert_clean
}

# mn_cri_failed_run NEEDLE: RunPodSandbox of pod1 fails naming NEEDLE;
# containerd's own DEL of the failed ADD succeeded; nothing is left.
mn_cri_failed_run() {
	local log_from
	log_from=$(($(stat -c %s "$CRI/containerd.log") + 1))
	run cri_call run --name pod1 --namespace ns1 --uid "$POD_UID"
	[ "$status" = 1 ] && [[ "$output" == *"$1"* ]] || {
		echo "# RunPodSandbox: exit $status, wanted 1 naming '$1': $output" >&2
		return 1
	}
	run ! grep 'Failed to destroy network' < <(tail -c "+$log_from" "$CRI/containerd.log")
	mn_assert_clean
}

@test "multinet through the CRI: ADDs failing on a missing NAD or plugin leave nothing" {
	mn_cri_start "net-b,net-none"
	mn_cri_failed_run "ns1/net-none"
	# The kubelet's next attempt, the pod's annotation corrected to a network
	# whose plugin binary is missing: net-b's delegate runs, then rolls back.
	mn_nad ns1 net-x '{"cniVersion":"1.0.0","type":"podwire-absent-plugin"}'
	mn_pod pod1 "net-b,net-x"
	mn_cri_failed_run "podwire-absent-plugin"
}
