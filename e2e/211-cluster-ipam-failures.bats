#!/usr/bin/env bats
# cluster-ipam GC, STATUS and failures: etcd stopped, slow, answering 5xx or
# garbage -> ADD code 11 within timeoutMs and nothing half-done, DEL a
# success that leaves a pending release, replayed once etcd is back;
# restart resumes; a SIGKILLed ADD followed by GC leaves `ipam check` clean.

load cluster-ipam-helpers

setup() {
	ci_setup
}

teardown() {
	if [ -n "${CI_FAKE_PID:-}" ]; then
		kill "$CI_FAKE_PID" 2>/dev/null || true
		wait "$CI_FAKE_PID" 2>/dev/null || true
	fi
	ci_teardown
}

gc_conf() { # gc_conf NODE VALID-JSON-ARRAY [JQ]
	ci_conf "$1" ".\"cni.dev/valid-attachments\"=$2 | ${3:-.}"
}

@test "GC releases the handles not listed, then empty blocks and their blackholes" {
	local i
	for i in 1 2 3; do
		run_plugin cluster-ipam ADD eth0 c$i <<<"$(ci_conf n1)"
	done
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[{"containerID":"c1","ifname":"eth0"}]')"
	run ci_dump
	[[ "$output" == *"/handles/n1/c1/eth0"* ]]
	[[ "$output" != *"/handles/n1/c2/"* && "$output" != *"/handles/n1/c3/"* ]]
	run ip -n "$HOST_NS" route show proto 81 type blackhole
	[ -n "$output" ]
	ci_check "$HOST_NS" n1
	# an empty block younger than the grace time stays
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]' '.ipam.blockReleaseGraceSeconds=3600')"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	[[ "$output" == *"/affinity/n1/"* ]]
	run ip -n "$HOST_NS" route show proto 81 type blackhole
	[ -n "$output" ]
	# grace 0: released, blackholes gone
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]')"
	run ci_dump
	[[ "$output" != *"/affinity/"* && "$output" != *"/blocks/"* ]]
	run ip -n "$HOST_NS" route show table all proto 81
	[ -z "$output" ]
	ci_check "$HOST_NS" n1
	# GC without valid-attachments releases nothing
	run_plugin cluster-ipam ADD eth0 c4 <<<"$(ci_conf n1)"
	run_plugin cluster-ipam GC <<<"$(ci_conf n1)"
	run ci_dump
	[[ "$output" == *"/handles/n1/c4/eth0"* ]]
}

@test "GC puts back a missing blackhole and removes one for a block not held" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	local b4
	b4=$(ip -n "$HOST_NS" -4 route show proto 81 type blackhole | awk '{print $2}')
	ip -n "$HOST_NS" route del blackhole "$b4" proto 81
	ip -n "$HOST_NS" route add blackhole 10.244.254.0/26 proto 81
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[{"containerID":"c1","ifname":"eth0"}]')"
	run ip -n "$HOST_NS" -4 route show proto 81 type blackhole
	[ "$output" = "blackhole $b4 " ] || [ "$output" = "blackhole $b4" ]
	ci_check "$HOST_NS" n1
}

@test "STATUS: 0 when etcd answers, 50 when it does not" {
	run_plugin cluster-ipam STATUS <<<"$(ci_conf n1)"
	ci_etcd_stop
	run_plugin -e 1 cluster-ipam STATUS <<<"$(ci_conf n1 '.ipam.etcd.timeoutMs=300')"
	assert_error 50 "etcd unreachable"
}

# pending_file CID: the pending release of CID/eth0 on node n1.
pending_file() {
	echo "$STATE/data-n1/pending/$1:eth0"
}

@test "etcd slow (stopped process): ADD code 11 within timeoutMs, DEL pending, nothing half-done" {
	# (an ADD's txn already sent may be applied late, whole: the retry answers it)
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	local before routes t0 t1
	before=$(ci_dump)
	routes=$(ip -n "$HOST_NS" route show table all)
	kill -STOP "$CI_ETCD_PID"
	t0=$(date +%s%N)
	run_plugin -e 1 cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1 '.ipam.etcd.timeoutMs=500')"
	t1=$(date +%s%N)
	assert_json .code 11
	# the budget bounds the whole call (slack for a loaded machine)
	[ $(((t1 - t0) / 1000000)) -lt 2500 ]
	# DEL succeeds within the bound and leaves its release pending
	t0=$(date +%s%N)
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 '.ipam.etcd.timeoutMs=500')"
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 2500 ]
	[ -f "$(pending_file c1)" ]
	grep -q "handle $CI_PREFIX/ipam/handles/n1/c1/eth0" "$(pending_file c1)"
	kill -CONT "$CI_ETCD_PID"
	# ADD's one txn (from the node cache) was already sent: etcd may still apply it
	# when it wakes up, whole (handle and ordinal together) or not at all, never a
	# part; DEL's first request only reads, so c1 is still there (pending)
	local ip
	sleep 0.5
	ci_check "$HOST_NS" n1
	run ci_dump
	[[ "$output" == *"/handles/n1/c1/eth0"* ]]
	if [ "$(ci_dump)" != "$before" ]; then
		run ci_dump
		[[ "$output" == *"/handles/n1/c2/eth0"* ]]
		ip=$(ci_dump | grep -A1 '/handles/n1/c2/eth0' | tail -1 | jq -r '.ips[0]')
		# the runtime's retry gets exactly that allocation; its DEL frees it
		run_plugin cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1)"
		assert_json '.ips[0].address' "$ip"
	fi
	# the next call that reaches etcd (this DEL) replays c1's release
	run_plugin cluster-ipam DEL eth0 c2 <<<"$(ci_conf n1)"
	run ci_dump
	[[ "$output" != *"/handles/n1/c2/"* && "$output" != *"/handles/n1/c1/"* ]]
	[ ! -e "$(pending_file c1)" ]
	ci_check "$HOST_NS" n1
	[ "$(ip -n "$HOST_NS" route show table all)" = "$routes" ]
}

@test "etcd down: ADD code 11 at once, DEL pending; restarted: ADD replays, resumes" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	ci_etcd_stop
	run_plugin -e 1 cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1)"
	assert_error 11 "etcd"
	local t0 t1
	t0=$(date +%s%N)
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 '.ipam.etcd.timeoutMs=500')"
	t1=$(date +%s%N)
	[ $(((t1 - t0) / 1000000)) -lt 2500 ]
	grep -q "release of n1/c1/eth0 is pending" "$STATE/stderr"
	[ -f "$(pending_file c1)" ]
	# the second DEL (containerd's RemovePodSandbox) too
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 '.ipam.etcd.timeoutMs=500')"
	[ -f "$(pending_file c1)" ]
	ci_etcd_start
	run ci_dump
	[[ "$output" == *"/handles/n1/c1/eth0"* ]]
	run_plugin cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1)"
	assert_json '.ips | length' 2
	run ci_dump
	[[ "$output" != *"/handles/n1/c1/"* && "$output" == *"/handles/n1/c2/eth0"* ]]
	[ ! -e "$(pending_file c1)" ]
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1)"
	ci_check "$HOST_NS" n1
}

@test "pending releases: GC replays them; an ADD of the same handle gets a fresh allocation" {
	local i
	for i in 1 2 3; do
		run_plugin cluster-ipam ADD eth0 c$i <<<"$(ci_conf n1)"
	done
	ci_etcd_stop
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1)"
	run_plugin cluster-ipam DEL eth0 c2 <<<"$(ci_conf n1)"
	[ -f "$(pending_file c1)" ] && [ -f "$(pending_file c2)" ]
	# GC while etcd is down: a warning, success, the entries stay
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]' '.ipam.etcd.timeoutMs=500')"
	grep -q "the next GC releases the rest" "$STATE/stderr"
	[ -f "$(pending_file c1)" ] && [ -f "$(pending_file c2)" ]
	ci_etcd_start
	# GC listing every attachment still releases the pending ones (their DEL came)
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[{"containerID":"c3","ifname":"eth0"}]')"
	run ci_dump
	[[ "$output" != *"/handles/n1/c1/"* && "$output" != *"/handles/n1/c2/"* ]]
	[[ "$output" == *"/handles/n1/c3/eth0"* ]]
	[ ! -e "$(pending_file c1)" ] && [ ! -e "$(pending_file c2)" ]
	ci_check "$HOST_NS" n1
	# the same handle added again after its DEL went pending: the old
	# allocation is released first, the ADD gets its own, nothing is left pending
	ci_etcd_stop
	run_plugin cluster-ipam DEL eth0 c3 <<<"$(ci_conf n1)"
	[ -f "$(pending_file c3)" ]
	ci_etcd_start
	run_plugin cluster-ipam ADD eth0 c3 <<<"$(ci_conf n1)"
	assert_json '.ips | length' 2
	[ ! -e "$(pending_file c3)" ]
	run ci_dump
	[[ "$output" == *"/handles/n1/c3/eth0"* ]]
	ci_check "$HOST_NS" n1
	# ... and a later DEL frees it for good
	run_plugin cluster-ipam DEL eth0 c3 <<<"$(ci_conf n1)"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	ci_check "$HOST_NS" n1
}

@test "a dead endpoint first: the next one is used" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 ".ipam.etcd.endpoints=[\"unix://$STATE/nothing\",\"$CI_EP\"]")"
	assert_json '.ips | length' 2
}

# A fake gateway inside the host netns: 503, garbage, a truncated body, or silence.
start_fake() {
	local port
	read -r port _ _ < <(ci_free_ports)
	cat >"$STATE/fake.py" <<'PY'
import http.server, sys, time
mode = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if mode == "slow":
            time.sleep(30)
        body = {"503": b'{"error":"etcdserver: no leader","code":14}',
                "garbage": b'<html>proxy</html>',
                "wrong": b'{"header":{"revision":"x"},"responses":[{}]}'}.get(mode, b"{}")
        self.send_response(503 if mode == "503" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
	ip netns exec "$HOST_NS" /usr/bin/python3 "$STATE/fake.py" "$port" "$1" &
	CI_FAKE_PID=$!
	local i
	for i in $(seq 1 50); do
		ip netns exec "$HOST_NS" curl -s -o /dev/null --max-time 1 -X POST "http://127.0.0.1:$port/" && break
		[ "$1" = slow ] && break
		sleep 0.1
	done
	CI_FAKE_EP="http://127.0.0.1:$port"
}

stop_fake() {
	kill "$CI_FAKE_PID" 2>/dev/null || true
	wait "$CI_FAKE_PID" 2>/dev/null || true
	CI_FAKE_PID=
}

@test "etcd answering 5xx, garbage, malformed JSON or nothing: ADD code 11, DEL pending, nothing on the host" {
	touch "$STATE/snapshot.after"
	# the node lock file (dataDir/lock) is the one thing created on first use
	mkdir -p "$STATE/data-n1" && touch "$STATE/data-n1/lock"
	local mode
	for mode in 503 garbage wrong slow; do
		start_fake "$mode"
		pw_snapshot before
		run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1 ".ipam.etcd.endpoints=[\"$CI_FAKE_EP\"] | .ipam.etcd.timeoutMs=400")"
		assert_json .code 11
		run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 ".ipam.etcd.endpoints=[\"$CI_FAKE_EP\"] | .ipam.etcd.timeoutMs=400")"
		[ -f "$(pending_file c1)" ]
		rm -r "$STATE/data-n1/pending"
		assert_snapshot_same before
		stop_fake
	done
}

@test "SIGKILLed ADDs (after the commit, and at random points) then GC: ipam check clean" {
	# killed after the txn committed, before the blackhole
	PW_ENV=(PODWIRE_CIPAM_TEST_STALL_MS=10000)
	ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID=k0 CNI_NETNS="/var/run/netns/$POD_NS" \
		CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_BIN" PODWIRE_CIPAM_TEST_STALL_MS=10000 \
		"$PODWIRE_BIN/cluster-ipam" <<<"$(ci_conf n1)" >/dev/null 2>&1 &
	local pid=$! i
	for i in $(seq 1 100); do
		ci_dump | grep -q '/handles/n1/k0/' && break
		sleep 0.05
	done
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	run ci_dump
	[[ "$output" == *"/handles/n1/k0/eth0"* ]]
	# the block is held but has no blackhole yet: check says so
	run ! ci_check "$HOST_NS" n1
	# killed at random moments
	for i in 1 2 3 4 5 6; do
		ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID=r$i CNI_NETNS="/var/run/netns/$POD_NS" \
			CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_BIN" "$PODWIRE_BIN/cluster-ipam" <<<"$(ci_conf n1)" >/dev/null 2>&1 &
		pid=$!
		sleep "0.00$((RANDOM % 10))"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]')"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	ci_check "$HOST_NS" n1
	run ip -n "$HOST_NS" route show table all proto 81
	[ -z "$output" ]
}

# A broken gateway (testdata/cluster-ipam/fake-etcd.py MODE) on 127.0.0.1 in
# the host netns; CI_BROKEN_EP is its endpoint.
start_broken() {
	local port
	read -r port _ _ < <(ci_free_ports)
	ip netns exec "$HOST_NS" /usr/bin/python3 -u "$PODWIRE_SRC/e2e/testdata/cluster-ipam/fake-etcd.py" \
		"$1" "$port" >"$STATE/broken.out" 2>&1 &
	CI_FAKE_PID=$!
	local i
	for i in $(seq 1 100); do
		grep -q ready "$STATE/broken.out" && break
		sleep 0.05
	done
	CI_BROKEN_EP="http://127.0.0.1:$port"
}

# calls_within BOUND_MS CONF-FILE CMD:ID...: start the calls at once (each
# timed from its own exec, in the host netns); every one must end within
# BOUND_MS, an ADD with code 11, a DEL with success (its release pending).
# CI_PLUGIN: the plugin (default cluster-ipam).
calls_within() {
	local bound=$1 conf=$2 line cmd cid rc ms code bad=0
	shift 2
	# CI_RESOLV=FILE: the calls see FILE as /etc/resolv.conf (a bind mount in
	# the mount namespace `ip netns exec` makes for them alone)
	run ip netns exec "$HOST_NS" sh -c '[ -z "$CI_RESOLV" ] || mount --bind "$CI_RESOLV" /etc/resolv.conf &&
		exec /usr/bin/python3 "$@"' sh "$PODWIRE_SRC/e2e/testdata/cluster-ipam/call-many.py" \
		"$PODWIRE_BIN/${CI_PLUGIN:-cluster-ipam}" "$conf" "/var/run/netns/$POD_NS" "$@"
	if [ "$status" -ne 0 ] || [ "${#lines[@]}" -ne "$#" ]; then
		echo "# call-many: exit $status: $output" >&2
		return 1
	fi
	for line in "${lines[@]}"; do
		read -r cmd cid rc ms code <<<"$line"
		echo "# $cmd $cid: exit $rc, code $code, $ms ms" >&3
		if [ "$cmd" = DEL ] && { [ "$rc" -ne 0 ] || [ "$ms" -ge "$bound" ]; }; then
			echo "# DEL over the bound or failed: $line" >&2
			bad=1
		elif [ "$cmd" != DEL ] && { [ "$rc" -ne 1 ] || [ "$code" != 11 ] || [ "$ms" -ge "$bound" ]; }; then
			echo "# over the bound or not code 11: $line" >&2
			bad=1
		fi
	done
	return "$bad"
}

# The node has addresses (so DEL has a handle to release), then etcd is
# replaced by a broken server (MODE), after the endpoints BEFORE... (which
# refuse connections): ADDs and DELs at once with timeoutMs 1000, then one
# at a time; every call ends within 1600 ms (lock wait, queue, requests,
# retries and endpoints together).
bounded_against() {
	local mode=$1 i eps=() calls=()
	shift
	for i in 1 2 3; do
		run_plugin cluster-ipam ADD eth0 d$i <<<"$(ci_conf n1)"
	done
	start_broken "$mode"
	eps=("$@" "$CI_BROKEN_EP")
	ci_conf n1 ".ipam.etcd.endpoints=$(printf '%s\n' "${eps[@]}" | jq -R . | jq -cs .) |
		.ipam.etcd.timeoutMs=1000" >"$STATE/broken.json"
	for i in 1 2 3; do
		calls+=("ADD:a$i" "DEL:d$i")
	done
	calls_within 1600 "$STATE/broken.json" "${calls[@]}"
	calls_within 1600 "$STATE/broken.json" DEL:d1
	calls_within 1600 "$STATE/broken.json" ADD:a1
	stop_fake
	for i in 1 2 3; do
		[ -f "$(pending_file d$i)" ]
	done
	# etcd is back: the next call replays the three releases
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[{"containerID":"d1","ifname":"eth0"}]')"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	[ ! -e "$(pending_file d1)" ]
	ci_check "$HOST_NS" n1
}

@test "timeoutMs bounds the whole call: a server that accepts and never answers" {
	bounded_against silent
}

@test "timeoutMs bounds the whole call: a refusing endpoint, then a silent one" {
	local port
	read -r port _ _ < <(ci_free_ports)
	bounded_against silent "http://127.0.0.1:$port"
}

@test "timeoutMs bounds the whole call: a server that answers one byte every 50 ms" {
	bounded_against trickle
}

@test "timeoutMs bounds the whole call: a server that resets every connection" {
	bounded_against reset
}

@test "timeoutMs bounds the whole call: bgp-route with cluster-ipam in-process" {
	[ -x "$PODWIRE_BIN/bgp-route" ] || skip "bgp-route not built"
	local conf
	conf=$(ci_conf n1)
	jq -c '.type="bgp-route" | .cniVersion="1.0.0" | del(.ipam.blockReleaseGraceSeconds)' \
		<<<"$conf" >"$STATE/bgp.json"
	run_plugin bgp-route ADD eth0 d1 <"$STATE/bgp.json"
	start_broken silent
	jq -c ".ipam.etcd.endpoints=[\"$CI_BROKEN_EP\"] | .ipam.etcd.timeoutMs=1000" \
		"$STATE/bgp.json" >"$STATE/broken.json"
	CI_PLUGIN=bgp-route calls_within 1600 "$STATE/broken.json" ADD:a1 DEL:d1 ADD:a2
	CI_PLUGIN=bgp-route calls_within 1600 "$STATE/broken.json" DEL:d1
	stop_fake
	[ -f "$(pending_file d1)" ]
	run_plugin bgp-route DEL eth0 a9 <"$STATE/bgp.json"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	[ ! -e "$(pending_file d1)" ]
}

@test "timeoutMs bounds the whole call: an endpoint host name the DNS never answers for" {
	run_plugin cluster-ipam ADD eth0 d1 <<<"$(ci_conf n1)"
	# a name server on 127.0.0.1:53 of the host netns that reads and never answers
	ip netns exec "$HOST_NS" /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
open(sys.argv[1], "w").close()
while True:
    s.recv(4096)' "$STATE/dns-ready" &
	CI_FAKE_PID=$!
	for _ in $(seq 1 50); do
		[ -e "$STATE/dns-ready" ] && break
		sleep 0.1
	done
	[ -e "$STATE/dns-ready" ]
	# without a bound, each lookup takes 2 tries of 5 s
	printf 'nameserver 127.0.0.1\noptions timeout:5 attempts:2\n' >"$STATE/resolv.conf"
	ci_conf n1 '.ipam.etcd.endpoints=["http://etcd.podwire-e2e.test:2379"] |
		.ipam.etcd.timeoutMs=1000' >"$STATE/dns.json"
	CI_RESOLV="$STATE/resolv.conf" calls_within 1600 "$STATE/dns.json" ADD:a1 DEL:d1
	[ -f "$(pending_file d1)" ]
	# the configured etcd replays the release
	run_plugin cluster-ipam DEL eth0 d9 <<<"$(ci_conf n1)"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	[ ! -e "$(pending_file d1)" ]
}

@test "DEL and GC with a config that names no usable etcd: warn, succeed, release nothing" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	local before bad
	before=$(ci_dump)
	for bad in '.ipam.etcd.endpoints=["ftp://x"]' 'del(.ipam.etcd)' '.ipam.etcdPrefix="nope"' \
		'.ipam.nodeName="a b"' '.ipam.dataDir="relative"'; do
		run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 "$bad")"
		[ -z "$output" ]
		grep -q "DEL releases nothing" "$PW_STDERR"
		run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]' "$bad")"
		grep -q "GC releases nothing" "$PW_STDERR"
	done
	[ "$(ci_dump)" = "$before" ]
	# ADD refuses the same config
	run_plugin -e 1 cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1 '.ipam.etcd.endpoints=["ftp://x"]')"
	assert_error 7 "ipam.etcd.endpoints"
	# a GC with a valid config releases what the DELs left
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]')"
	run ci_dump
	[[ "$output" != *"/handles/"* ]]
	ci_check "$HOST_NS" n1
	# bad pools: DEL never needs them, it releases as usual
	run_plugin cluster-ipam ADD eth0 c3 <<<"$(ci_conf n1)"
	run_plugin cluster-ipam DEL eth0 c3 <<<"$(ci_conf n1 '.ipam.pools="x"')"
	grep -q "ipam.pools" "$PW_STDERR"
	run ci_dump
	[[ "$output" != *"/handles/n1/c3/"* ]]
}

@test "DEL with dataDir gone recreates it; one that cannot be created releases without the node lock" {
	run_plugin cluster-ipam ADD eth0 c0 <<<"$(ci_conf n1)"
	rm -rf "$STATE/data-n1"
	run_plugin cluster-ipam DEL eth0 c0 <<<"$(ci_conf n1)"
	[ -f "$STATE/data-n1/lock" ]
	run ci_dump
	[[ "$output" != *"/handles/n1/c0/"* ]]
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(ci_conf n1)"
	: >"$STATE/file"
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 ".ipam.dataDir=\"$STATE/file/d\"")"
	grep -q "ipam.dataDir: cannot create '$STATE/file/d': Not a directory; releasing without the node lock" "$PW_STDERR"
	run ci_dump
	[[ "$output" != *"/handles/n1/c1/"* ]]
	# again: idempotent
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(ci_conf n1 ".ipam.dataDir=\"$STATE/file/d\"")"
	# GC cannot sync blackholes without the lock: it warns and releases nothing
	run_plugin cluster-ipam ADD eth0 c2 <<<"$(ci_conf n1)"
	run_plugin cluster-ipam GC <<<"$(gc_conf n1 '[]' ".ipam.dataDir=\"$STATE/file/d\"")"
	grep -q "GC releases nothing" "$PW_STDERR"
	run ci_dump
	[[ "$output" == *"/handles/n1/c2/eth0"* ]]
	ci_check "$HOST_NS" n1
}
