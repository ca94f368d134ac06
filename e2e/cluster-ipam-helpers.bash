# Helpers of the cluster-ipam e2e tests (210-219): a real etcd 3.4 started
# by the test on 127.0.0.1 with free ports and a unix socket, its data dir in
# a temp dir (on /dev/shm when present: etcd fsyncs every write), stopped by
# PID in teardown.

load helpers

CI_ETCD=${CI_ETCD:-/usr/bin/etcd}

ci_require() {
	pw_need "$CI_ETCD" "$PODWIRE_BIN/cluster-ipam"
}

# Three free TCP ports on 127.0.0.1.
ci_free_ports() {
	/usr/bin/python3 - <<'PY'
import socket
socks = []
for _ in range(3):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# ci_etcd_start: etcd on 127.0.0.1:$CI_PORT_CLIENT and unix socket $CI_SOCK.
# Keeps its ports and data dir across ci_etcd_stop/ci_etcd_start (restart).
ci_etcd_start() {
	if [ -z "${CI_ETCD_DIR:-}" ]; then
		local base=/dev/shm
		[ -d "$base" ] && [ -w "$base" ] || base=$STATE
		CI_ETCD_DIR=$(mktemp -d "$base/pw-etcd.XXXXXX")
		read -r CI_PORT_CLIENT CI_PORT_SOCK CI_PORT_PEER < <(ci_free_ports)
		CI_SOCK="$CI_ETCD_DIR/localhost:$CI_PORT_SOCK"
		CI_EP="unix://$CI_SOCK"
		CI_HTTP="http://127.0.0.1:$CI_PORT_CLIENT"
		export CI_ETCD_DIR CI_PORT_CLIENT CI_PORT_SOCK CI_PORT_PEER CI_SOCK CI_EP CI_HTTP
	fi
	rm -f "$CI_SOCK"
	(cd "$CI_ETCD_DIR" && exec "$CI_ETCD" --name ci --data-dir "$CI_ETCD_DIR/data" \
		--listen-client-urls "$CI_HTTP,unix://localhost:$CI_PORT_SOCK" \
		--advertise-client-urls "$CI_HTTP" \
		--listen-peer-urls "http://127.0.0.1:$CI_PORT_PEER" \
		--initial-advertise-peer-urls "http://127.0.0.1:$CI_PORT_PEER" \
		--initial-cluster "ci=http://127.0.0.1:$CI_PORT_PEER" \
		>>"$CI_ETCD_DIR/etcd.log" 2>&1) &
	CI_ETCD_PID=$!
	export CI_ETCD_PID
	local i
	for i in $(seq 1 100); do
		if curl -sf --max-time 1 --unix-socket "$CI_SOCK" http://localhost/version >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	echo "# etcd did not start: $(tail -5 "$CI_ETCD_DIR/etcd.log")" >&2
	return 1
}

ci_etcd_stop() {
	if [ -n "${CI_ETCD_PID:-}" ]; then
		kill -CONT "$CI_ETCD_PID" 2>/dev/null || true
		kill "$CI_ETCD_PID" 2>/dev/null || true
		wait "$CI_ETCD_PID" 2>/dev/null || true
		CI_ETCD_PID=
	fi
}

ci_setup() {
	pw_setup
	ci_require
	ci_etcd_start
	CI_PREFIX="/e2e-$PW_ID"
	export CI_PREFIX
}

ci_teardown() {
	ci_etcd_stop
	[ -n "${CI_ETCD_DIR:-}" ] && rm -rf "$CI_ETCD_DIR"
	CI_ETCD_DIR=
	pw_teardown
}

# ci_conf NODE [JQ-UPDATE]: a network config for node NODE (dual stack by default).
ci_conf() {
	local node=$1 upd=${2:-.}
	jq -c "$upd" <<EOF2
{"cniVersion":"1.1.0","name":"cinet","ipam":{"type":"cluster-ipam","nodeName":"$node",
 "etcd":{"endpoints":["$CI_EP"],"timeoutMs":2000},"etcdPrefix":"$CI_PREFIX",
 "dataDir":"$STATE/data-$node","blockReleaseGraceSeconds":0,
 "pools":[{"cidr":"10.244.0.0/16","blockSize":26},{"cidr":"fd00:10:244::/56","blockSize":122}]}}
EOF2
}

# The operator tool: podwire-node ipam.
ci_ipam_tool() {
	"$PODWIRE_BIN/podwire-node" ipam "$@"
}

# ci_in_ns NS ARGS...: the operator tool inside a netns (no function export needed).
ci_in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$PODWIRE_BIN/podwire-node" ipam "$@"
}

# ci_check NODE_NS NODE: `ipam check` in that node's netns (its blackholes).
ci_check() {
	run ci_in_ns "$1" check --etcd-endpoint "$CI_EP" --prefix "$CI_PREFIX" --node "$2"
	if [ "$status" -ne 0 ]; then
		echo "# ipam check: $output" >&2
		return 1
	fi
}

# Keys under the test's prefix (for "nothing changed" checks).
ci_dump() {
	ETCDCTL_API=3 etcdctl --endpoints="$CI_HTTP" get --prefix "$CI_PREFIX/" 2>/dev/null
}
