# Shared helpers for podwire's bats e2e tests.
#
# Every test gets: a throwaway "host" netns ($HOST_NS) and "pod" netns
# ($POD_NS) with unique names, a temporary state directory ($STATE) for IPAM
# data, caches and logs, and cleanup in teardown even when the test fails.
# Plugins run inside $HOST_NS (`run_plugin`), so nothing touches the real
# host's interfaces, routes, /etc/cni, /opt/cni or /var/lib/cni.

: "${PODWIRE_SRC:=$(cd "$(dirname "${BATS_TEST_FILENAME}")/.." && pwd)}"
: "${PODWIRE_BUILD:=${PODWIRE_SRC}/build}"
: "${PODWIRE_BIN:=${PODWIRE_BUILD}/bin}"
: "${PODWIRE_TEST_BIN:=${PODWIRE_BUILD}/test-bin}"
REF_BIN=/usr/lib/cni
# Negative checks are `run ! cmd` (bats 1.5): a bare `! cmd` fails a test
# only as its last command (ShellCheck SC2314/SC2315, ctest lint-shellcheck).
bats_require_minimum_version 1.5.0

# Unique prefix per test: short enough for 15-char interface names elsewhere.
pw_uid() {
	printf 'pw%04x%04x' "$$" "$((RANDOM))"
}

# pw_netns_new NAME: create a named netns with lo up.
pw_netns_new() {
	ip netns add "$1" && ip -n "$1" link set lo up
	PW_NETNS_CREATED+=("$1")
}

# pw_need BINARY...: fail the test (never skip it) when a binary it needs is
# missing, naming it: a component left out of the build, a reference plugin
# or a tool scripts/bootstrap.sh installs. Skips are only for what the kernel
# lacks, said with the reason.
pw_need() {
	local b rc=0
	for b in "$@"; do
		command -v "$b" >/dev/null && continue
		echo "# missing: $b (build every component, run scripts/bootstrap.sh)" >&2
		rc=1
	done
	return "$rc"
}

pw_setup() {
	PW_ID=$(pw_uid)
	PW_NETNS_CREATED=()
	HOST_NS="${PW_ID}h"
	POD_NS="${PW_ID}p"
	pw_netns_new "$HOST_NS"
	pw_netns_new "$POD_NS"
	STATE=$(mktemp -d "${BATS_TMPDIR:-/tmp}/podwire-e2e.XXXXXX")
	# Lock files of shared resources (a bridge): beside STATE, so snapshots
	# of STATE do not see them, and never in the host's /run/podwire.
	PODWIRE_LOCK_DIR="$STATE.locks"
	export STATE HOST_NS POD_NS PW_ID PODWIRE_LOCK_DIR
}

pw_teardown() {
	local ns
	for ns in "${PW_NETNS_CREATED[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	[ -n "${STATE:-}" ] && rm -rf "$STATE" "$STATE.locks"
	return 0
}

# run_plugin [-e RC] PLUGIN COMMAND [IFNAME] [CONTAINERID] <<< CONFIG
# Runs $PODWIRE_BIN/PLUGIN (or an absolute path) inside $HOST_NS with the
# CNI_* environment; stdout lands in $output, stderr in $PW_STDERR (a file).
# CNI_NETNS defaults to /var/run/netns/$POD_NS; set PW_NETNS to override
# (PW_NETNS="" sends an empty one). Extra environment: PW_ENV=(K=V ...).
run_plugin() {
	local want_rc=0
	if [ "$1" = "-e" ]; then
		want_rc=$2
		shift 2
	fi
	local plugin=$1 cmd=$2 ifname=${3:-eth0} cid=${4:-${PW_ID}c}
	local bin=$plugin
	[ "${plugin#/}" = "$plugin" ] && bin="$PODWIRE_BIN/$plugin"
	local netns="/var/run/netns/$POD_NS"
	[ "${PW_NETNS+set}" = set ] && netns=$PW_NETNS
	PW_STDERR="$STATE/stderr"
	# The redirect must happen inside the command: bats' run merges the
	# stderr of what it runs into $output.
	run ip netns exec "$HOST_NS" env CNI_COMMAND="$cmd" CNI_CONTAINERID="$cid" \
		CNI_NETNS="$netns" CNI_IFNAME="$ifname" \
		CNI_PATH="${PW_CNI_PATH:-$PODWIRE_BIN:$PODWIRE_TEST_BIN}" \
		CNI_ARGS="${PW_CNI_ARGS:-}" "${PW_ENV[@]}" \
		sh -c 'exec timeout 60 "$@" 2>"$0"' "$PW_STDERR" "$bin"
	if [ "$status" -ne "$want_rc" ]; then
		echo "# $plugin $cmd: exit $status, wanted $want_rc" >&2
		echo "# stdout: $output" >&2
		echo "# stderr: $(cat "$PW_STDERR")" >&2
		return 1
	fi
}

# assert_json FILTER EXPECTED: jq FILTER over $output equals EXPECTED.
assert_json() {
	local got
	got=$(printf '%s' "$output" | jq -r "$1") || {
		echo "# not JSON: $output" >&2
		return 1
	}
	if [ "$got" != "$2" ]; then
		echo "# jq '$1': got '$got', want '$2'" >&2
		echo "# output: $output" >&2
		return 1
	fi
}

# assert_error CODE SUBSTRING: $output is a CNI error with that code and a
# msg (or details) containing SUBSTRING.
assert_error() {
	assert_json .code "$1" || return 1
	local text
	text=$(printf '%s' "$output" | jq -r '(.msg // "") + " " + (.details // "")')
	case "$text" in
	*"$2"*) ;;
	*)
		echo "# error text '$text' lacks '$2'" >&2
		return 1
		;;
	esac
}

# Snapshots of what a test may change, to prove a failing call changed nothing.
pw_snapshot() {
	{
		ip -n "$HOST_NS" -o link show | sed 's/^[0-9]*: //' | awk '{print $1}' | sort
		ip -n "$HOST_NS" -o addr show | awk '{print $2, $4}' | sort
		ip -n "$HOST_NS" route show table all | sort
		ip -n "$POD_NS" -o link show | sed 's/^[0-9]*: //' | awk '{print $1}' | sort
		ip -n "$POD_NS" -o addr show | awk '{print $2, $4}' | sort
		ip netns exec "$HOST_NS" nft list ruleset 2>/dev/null
		# not the snapshots themselves (the "after" one would always differ)
		find "$STATE" \( -path "$STATE/stderr" -o -name 'snapshot.*' \) -prune -o -print \
			2>/dev/null | sort
	} >"$STATE/snapshot.$1"
}

assert_snapshot_same() {
	pw_snapshot after
	diff -u "$STATE/snapshot.$1" "$STATE/snapshot.after" >&2
}

# in_ns NS CMD...: run a command inside a test netns.
in_ns() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

require_ref_plugins() {
	pw_need "$REF_BIN/bridge" "$REF_BIN/host-local"
}
