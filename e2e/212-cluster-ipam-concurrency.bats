#!/usr/bin/env bats
# N simulated nodes (netns + own node name) x P parallel ADDs against one
# etcd: 0 duplicate IPs across all results and `ipam check` clean.
# Default 4 x 4; bigger: PODWIRE_CIPAM_E2E_NODES / PODWIRE_CIPAM_E2E_PODS
# (test-only).

load cluster-ipam-helpers

NODES=${PODWIRE_CIPAM_E2E_NODES:-4}
PODS=${PODWIRE_CIPAM_E2E_PODS:-4}

setup() {
	ci_setup
	local n
	for n in $(seq 1 "$NODES"); do
		pw_netns_new "${PW_ID}n$n"
	done
}

teardown() {
	ci_teardown
}

# run_all CMD CONF-JQ: CMD for every pod of every node, all at once; results in $STATE/out.
run_all() {
	local cmd=$1 upd=$2 n p pids=()
	mkdir -p "$STATE/out"
	for n in $(seq 1 "$NODES"); do
		for p in $(seq 1 "$PODS"); do
			ip netns exec "${PW_ID}n$n" env CNI_COMMAND="$cmd" CNI_CONTAINERID="n${n}p$p" \
				CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_BIN" \
				"$PODWIRE_BIN/cluster-ipam" <<<"$(ci_conf "n$n" "$upd")" \
				>"$STATE/out/n${n}p$p" 2>"$STATE/out/n${n}p$p.err" &
			pids+=($!)
		done
	done
	local rc=0 pid
	for pid in "${pids[@]}"; do
		wait "$pid" || rc=1
	done
	if [ "$rc" -ne 0 ]; then
		grep -l . "$STATE"/out/*.err | head -3 | xargs -r cat >&2
		grep -h code "$STATE"/out/n* | head -3 >&2
	fi
	return "$rc"
}

assert_no_duplicates() {
	local want=$1 all uniq
	all=$(cat "$STATE"/out/n*[0-9] | jq -r '.ips[].address' | sed 's|/.*||' | sort)
	uniq=$(sort -u <<<"$all")
	[ "$(wc -l <<<"$all")" -eq "$want" ] || {
		echo "# got $(wc -l <<<"$all") addresses, want $want" >&2
		return 1
	}
	[ "$all" = "$uniq" ] || {
		echo "# duplicates: $(uniq -d <<<"$all")" >&2
		return 1
	}
}

check_all_nodes() {
	local n
	for n in $(seq 1 "$NODES"); do
		ci_check "${PW_ID}n$n" "n$n"
	done
}

@test "N nodes x P parallel dual-stack ADDs: no duplicate, check clean; parallel DEL and GC leave nothing" {
	run_all ADD .
	assert_no_duplicates $((NODES * PODS * 2))
	check_all_nodes
	run_all DEL .
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	local n
	for n in $(seq 1 "$NODES"); do
		HOST_NS="${PW_ID}n$n" run_plugin cluster-ipam GC <<<"$(ci_conf "n$n" '."cni.dev/valid-attachments"=[]')"
	done
	run ci_dump
	[[ "$output" != *"/blocks/"* ]]
	check_all_nodes
}

@test "few blocks for many nodes: claims race, losers move on or borrow; no duplicate" {
	# 4 blocks of 16 for NODES x PODS pods: nodes race for the same free blocks
	local small='.ipam.pools=[{"cidr":"10.8.0.0/26","blockSize":28}]'
	if [ $((NODES * PODS)) -gt 64 ]; then
		small='.ipam.pools=[{"cidr":"10.8.0.0/20","blockSize":28}]'
	fi
	run_all ADD "$small"
	assert_no_duplicates $((NODES * PODS))
	check_all_nodes
}
