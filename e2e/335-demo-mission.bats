#!/usr/bin/env bats
# `make demo`'s script (scripts/demo.sh) end to end: every step passes and it
# leaves nothing behind (its namespaces, its processes, its temp dir); the
# same after a SIGINT to its process group mid-way (what Ctrl-C sends), when
# a step fails (exit 1, the rest skipped), and with podwire-inspect not built
# (that step skipped, saying so). Four demo runs: about 30 s measured on the
# shared 2-core VM (other helpers' tests running at the same time).

setup() {
	load helpers
	local t
	for t in cnitool bgp-route cluster-ipam podwire-node sriov-rdma multinet; do
		pw_need "$PODWIRE_BIN/$t"
	done
	for t in bird birdc etcd etcdctl openssl; do
		pw_need "$t"
	done
	DEMO_OUT=$(mktemp "${BATS_TMPDIR:-/tmp}/pw-demo-out.XXXXXX")
	FAKE_BUILD=""
}

teardown() {
	rm -f "$DEMO_OUT"
	[ -z "$FAKE_BUILD" ] || rm -rf "$FAKE_BUILD"
}

# demo [BUILD]: run the demo, output in $DEMO_OUT, exit status in $status.
demo() {
	status=0
	bash "$PODWIRE_SRC/scripts/demo.sh" "${1:-$PODWIRE_BUILD}" >"$DEMO_OUT" 2>&1 || status=$?
	output=$(cat "$DEMO_OUT")
}

# The demo's own names only: other tests may run at the same time.
assert_nothing_left() {
	local tag tmp pid comm
	tag=$(sed -n 's/^podwire demo: tag \(pwm[0-9]*\), temp dir .*/\1/p' "$DEMO_OUT")
	tmp=$(sed -n 's/^podwire demo: tag pwm[0-9]*, temp dir \(\/tmp\/podwire-demo\.[A-Za-z0-9]*\)$/\1/p' "$DEMO_OUT")
	[ -n "$tag" ]
	[ -n "$tmp" ]
	grep -qx "removed $tmp" "$DEMO_OUT"
	[ ! -e "$tmp" ]
	if ip netns list | grep "^$tag-"; then
		echo "# namespaces of $tag left" >&2
		return 1
	fi
	# no etcd, bird or apiserver of its temp dir still running (zombies are
	# gone, only not reaped yet by this container's init)
	if pgrep -r R,S,D,T -af -- "$tmp/"; then
		echo "# processes of $tmp left" >&2
		return 1
	fi
	# every process it stopped is gone (a PID since reused is another program)
	while read -r comm pid; do
		if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ] &&
			[ "$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)" != Z ]; then
			echo "# $comm $pid still running" >&2
			return 1
		fi
	done < <(sed -n 's/^stopped \([a-z0-9]*\) (pid \([0-9]*\))$/\1 \2/p' "$DEMO_OUT")
}

# summary_rows RESULT: how many summary rows have that result.
summary_rows() {
	sed -n '/^=== Summary ===/,/^demo: /p' "$DEMO_OUT" | grep -cE "^[0-9]+ +.* $1 +[0-9.]+ s$|^[0-9]+ +.* $1 +-$"
}

@test "demo: every step passes, then nothing is left" {
	demo
	# the whole output when a step failed (its reason is printed before the summary)
	if [ "$status" -ne 0 ]; then cat "$DEMO_OUT"; else tail -40 "$DEMO_OUT"; fi
	[ "$status" -eq 0 ]
	grep -q '^demo: every step passed' "$DEMO_OUT"
	[ "$(summary_rows FAIL)" -eq 0 ]
	pw_need "$PODWIRE_BIN/podwire-inspect"
	[ "$(summary_rows PASS)" -eq 13 ]
	grep -q '^12 of 12 pings answered$' "$DEMO_OUT"
	grep -q '^FAKE SR-IOV: this machine has no SR-IOV NIC' "$DEMO_OUT"
	grep -q '"name": "ml/rdma-rail-a"' "$DEMO_OUT"
	grep -q '^cnitool del: ok$' "$DEMO_OUT"
	grep -q "^stopped etcd (pid" "$DEMO_OUT"
	[ "$(grep -c '^stopped bird (pid' "$DEMO_OUT")" -eq 3 ]
	assert_nothing_left
}

@test "demo: SIGINT to its process group mid-way (Ctrl-C) still removes everything" {
	local pid t bg rc=0
	# A background job of a non-interactive shell starts with SIGINT ignored
	# (and a shell cannot trap what it inherited ignored): restore the default,
	# give it a process group of its own, then exec the demo (same PID).
	/usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' bash "$PODWIRE_SRC/scripts/demo.sh" "$PODWIRE_BUILD" \
		>"$DEMO_OUT" 2>&1 &
	bg=$!
	for t in $(seq 1 600); do
		grep -q '^=== GPU pod ADD' "$DEMO_OUT" && break
		sleep 0.1
	done
	pid=$bg
	grep -q '^=== GPU pod ADD' "$DEMO_OUT"
	kill -INT -- "-$pid"
	for t in $(seq 1 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	run ! kill -0 "$pid"
	wait "$bg" || rc=$?
	tail -25 "$DEMO_OUT"
	[ "$rc" -eq 130 ]
	run ! grep -q '^demo: every step passed' "$DEMO_OUT"
	grep -q '^=== Cleaning up ===' "$DEMO_OUT"
	assert_nothing_left
}

# fake_build: a build dir whose bin/ links every binary but podwire-inspect,
# and whose sriov-rdma fails when BROKEN=1.
fake_build() {
	FAKE_BUILD=$(mktemp -d "${BATS_TMPDIR:-/tmp}/pw-demo-build.XXXXXX")
	mkdir "$FAKE_BUILD/bin"
	local f
	for f in "$PODWIRE_BIN"/*; do
		[ "$(basename "$f")" = podwire-inspect ] || ln -s "$f" "$FAKE_BUILD/bin/"
	done
	if [ "${1:-}" = broken ]; then
		rm "$FAKE_BUILD/bin/sriov-rdma"
		printf '#!/bin/sh\necho %s\nexit 1\n' \
			"'{\"cniVersion\":\"1.0.0\",\"code\":100,\"msg\":\"sriov-rdma broken on purpose (e2e 335)\"}'" \
			>"$FAKE_BUILD/bin/sriov-rdma"
		chmod +x "$FAKE_BUILD/bin/sriov-rdma"
	fi
}

@test "demo: a failing step fails the demo (exit 1), the rest is skipped, nothing is left" {
	fake_build broken
	demo "$FAKE_BUILD"
	sed -n '/^=== GPU pod ADD/,/^FAILED/p' "$DEMO_OUT"
	[ "$status" -eq 1 ]
	grep -q 'sriov-rdma broken on purpose' "$DEMO_OUT"
	grep -q '^demo: FAILED: 1 of 13 steps failed' "$DEMO_OUT"
	[ "$(summary_rows FAIL)" -eq 1 ]
	[ "$(summary_rows SKIPPED)" -eq 4 ]
	assert_nothing_left
}

@test "demo: without podwire-inspect that step is skipped, saying so; the demo passes" {
	fake_build
	demo "$FAKE_BUILD"
	[ "$status" -eq 0 ] || { cat "$DEMO_OUT"; false; }
	grep -q '^podwire-inspect not built, skipped$' "$DEMO_OUT"
	[ "$(summary_rows SKIPPED)" -eq 1 ]
	[ "$(summary_rows PASS)" -eq 12 ]
	assert_nothing_left
}
