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
	if [ -n "${BLOCKER:-}" ]; then
		kill "$BLOCKER" 2>/dev/null || true
		wait "$BLOCKER" 2>/dev/null || true
	fi
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

# Node n1's lock held by a stand-in until released (ADDs queue behind it meanwhile).
hold_lock() {
	local d="$STATE/data-n1"
	mkdir -p "$d"
	(
		exec 9>>"$d/lock"
		flock -x 9
		touch "$STATE/held"
		exec sleep 30
	) &
	BLOCKER=$!
	local i
	for i in $(seq 1 100); do
		[ -e "$STATE/held" ] && return 0
		sleep 0.05
	done
	return 1
}

release_lock() {
	kill "$BLOCKER"
	wait "$BLOCKER" 2>/dev/null || true
	rm -f "$STATE/held"
}

queued() { # number of requests waiting in n1's queue
	find "$STATE/data-n1/queue" -maxdepth 1 -name '*.req' 2>/dev/null | wc -l
}

wait_until() { # wait_until 'SHELL CONDITION': up to 5 s
	local i
	for i in $(seq 1 100); do
		eval "$1" && return 0
		sleep 0.05
	done
	return 1
}

start_add() { # start_add CID [ENV...]: background ADD on n1, output in $STATE/out/CID
	local cid=$1
	shift
	mkdir -p "$STATE/out"
	ip netns exec "${PW_ID}n1" env CNI_COMMAND=ADD CNI_CONTAINERID="$cid" \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_BIN" "$@" \
		"$PODWIRE_BIN/cluster-ipam" <<<"$(ci_conf n1)" >"$STATE/out/$cid" 2>&1 &
	ADD_PID=$!
}

handles_of() { # handles_of PATTERN: how many handle keys of n1 match
	ci_dump | grep -c "/handles/n1/$1" || true
}

@test "ADDs queued behind the node lock share one txn; leader SIGKILLed after it: the others still answer, GC then check clean" {
	local i pids=() holder ino rc
	hold_lock
	for i in 1 2 3 4 5; do
		start_add q$i PODWIRE_CIPAM_TEST_STALL_MS=3000
		pids+=("$ADD_PID")
	done
	wait_until '[ "$(queued)" -eq 5 ]'
	release_lock
	# the next lock holder takes every request: five handles in one txn, then it stalls
	wait_until '[ "$(handles_of q)" -eq 5 ]'
	ino=$(stat -c %i "$STATE/data-n1/lock")
	holder=$(awk -v i=":$ino\$" '$2 == "FLOCK" && $6 ~ i {print $5}' /proc/locks)
	[ -n "$holder" ]
	kill -KILL "$holder"
	for i in "${pids[@]}"; do
		rc=0
		wait "$i" || rc=$?
		if [ "$i" = "$holder" ]; then
			continue
		fi
		[ "$rc" -eq 0 ] || {
			echo "# ADD $i: $(cat "$STATE"/out/q*)" >&2
			return 1
		}
	done
	# four answers, each the address its handle holds, none twice
	local all valid='[]' cid
	all=$(for cid in q1 q2 q3 q4 q5; do
		[ -s "$STATE/out/$cid" ] && jq -r '.ips[].address' "$STATE/out/$cid"
	done | sed 's|/.*||' | sort)
	[ "$(wc -l <<<"$all")" -eq 8 ]
	[ "$(sort -u <<<"$all" | wc -l)" -eq 8 ]
	for cid in q1 q2 q3 q4 q5; do
		if [ -s "$STATE/out/$cid" ]; then
			valid=$(jq -c --arg c "$cid" '. + [{containerID: $c, ifname: "eth0"}]' <<<"$valid")
		fi
	done
	[ "$(jq length <<<"$valid")" -eq 4 ]
	HOST_NS="${PW_ID}n1" run_plugin cluster-ipam GC <<<"$(ci_conf n1 ".\"cni.dev/valid-attachments\"=$valid")"
	[ "$(handles_of q)" -eq 4 ]
	ci_check "${PW_ID}n1" n1
}

@test "queued ADDs SIGKILLed before a leader took them: not served, their files removed, check clean" {
	local i pids=() rc
	hold_lock
	for i in 1 2 3 4 5 6; do
		start_add k$i
		pids+=("$ADD_PID")
	done
	wait_until '[ "$(queued)" -eq 6 ]'
	for i in 0 2 4; do
		kill -KILL "${pids[$i]}"
		wait "${pids[$i]}" 2>/dev/null || true
	done
	release_lock
	for i in 1 3 5; do
		rc=0
		wait "${pids[$i]}" || rc=$?
		[ "$rc" -eq 0 ] || {
			echo "# $(cat "$STATE/out/k$((i + 1))")" >&2
			return 1
		}
	done
	[ "$(handles_of k)" -eq 3 ]
	[ "$(handles_of k2/)" -eq 1 ]
	[ "$(handles_of k4/)" -eq 1 ]
	[ "$(handles_of k6/)" -eq 1 ]
	[ "$(queued)" -eq 0 ]
	[ -z "$(ls -A "$STATE/data-n1/queue")" ]
	ci_check "${PW_ID}n1" n1
}

@test "a stale, foreign or broken node cache costs a round trip, never an address" {
	local d="$STATE/data-n1" i ips=() conf
	conf=$(ci_conf n1 '.ipam.pools=[.ipam.pools[0]]')
	add_ip() { # add_ip CID: ADD on n1, the address appended to ips
		HOST_NS="${PW_ID}n1" run_plugin cluster-ipam ADD eth0 "$1" <<<"$conf"
		ips+=("$(jq -r '.ips[0].address' <<<"$output")")
	}
	add_ip c1
	add_ip c2
	grep -q '^b ' "$d/blocks" # values and revisions are cached
	cp "$d/blocks" "$STATE/blocks.old"
	add_ip c3
	# stale: the cache says c3's address is free
	cp "$STATE/blocks.old" "$d/blocks"
	add_ip c4
	# DEL keeps the cache current (the next ADD needs no read); then a stale one again
	HOST_NS="${PW_ID}n1" run_plugin cluster-ipam DEL eth0 c1 <<<"$conf"
	grep -q '^b ' "$d/blocks"
	run ! grep -q '"n1/c1/eth0"' "$d/blocks"
	cp "$STATE/blocks.old" "$d/blocks"
	add_ip c5
	# another node's value, and garbage
	sed -i 's/"node":"n1"/"node":"n2"/' "$d/blocks"
	add_ip c6
	printf 'b 4/0af40000-26 9 {not json\nzz\n' >"$d/blocks"
	add_ip c7
	# a re-ADD answers the handle's address again
	HOST_NS="${PW_ID}n1" run_plugin cluster-ipam ADD eth0 c7 <<<"$conf"
	[ "$(jq -r '.ips[0].address' <<<"$output")" = "${ips[6]}" ]
	# c1 was deleted: its address may be reused; the six live ones are distinct
	[ "$(printf '%s\n' "${ips[@]:1}" | sort -u | wc -l)" -eq 6 ] || {
		echo "# addresses: ${ips[*]}" >&2
		return 1
	}
	ci_check "${PW_ID}n1" n1
}
