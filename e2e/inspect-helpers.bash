# Helpers for podwire-inspect's e2e tests (e2e/24x-inspect-*.bats), on top of
# e2e/helpers.bash and test/cnitool/cnitool-e2e.bash. Every directory the
# tool reads is under $STATE: the cnitool cache ($CACHE), multinet's cniDir
# ($STATE/multinet), sriov-rdma's stateDir ($STATE/sriov), leases
# ($STATE/ipam), a fake sysfs tree ($STATE/sys).

INSPECT="${PODWIRE_BIN}/podwire-inspect"

inspect_setup() {
	pw_need "$INSPECT"
	mkdir -p "$STATE/multinet" "$STATE/sriov" "$STATE/ipam" "$STATE/sys"
}

# run_inspect [-e RC] ARGS...: podwire-inspect inside $HOST_NS with every
# directory pointed into $STATE; stdout in $output, stderr in $INSPECT_ERR.
run_inspect() {
	local want_rc=0
	if [ "$1" = "-e" ]; then
		want_rc=$2
		shift 2
	fi
	INSPECT_ERR="$STATE/inspect.err"
	run ip netns exec "$HOST_NS" sh -c 'e=$1; shift; exec "$@" 2>"$e"' sh "$INSPECT_ERR" \
		env CNI_PATH="${PW_CNI_PATH:-$PODWIRE_BIN:$PODWIRE_TEST_BIN}" timeout 60 "$INSPECT" \
		--cache-dir "$CACHE" --multinet-dir "$STATE/multinet" --state-dir "$STATE/sriov" \
		--lease-dir "$STATE/ipam" --sysfs-root "$STATE/sys" "$@"
	if [ "$status" -ne "$want_rc" ]; then
		echo "# podwire-inspect $*: exit $status, wanted $want_rc" >&2
		echo "# stdout: $output" >&2
		echo "# stderr: $(cat "$INSPECT_ERR")" >&2
		return 1
	fi
}

# assert_prometheus: $output parses as the text exposition format (our
# parser of the spec, and promtool when it is installed).
assert_prometheus() {
	printf '%s\n' "$output" >"$STATE/metrics.prom"
	/usr/bin/python3 "$PODWIRE_SRC/test/podwire-inspect/promparse.py" "$STATE/metrics.prom" >&2 ||
		return 1
	if command -v promtool >/dev/null; then
		promtool check metrics <"$STATE/metrics.prom" >&2 || return 1
	fi
}

# prom_value METRIC LABEL-SUBSTRING: the value of the first sample matching both.
prom_value() {
	printf '%s\n' "$output" | grep "^$1{" | grep -F -- "$2" | head -1 | awk '{print $NF}'
}

# assert_schema: $output is valid against tools/podwire-inspect/schema.json.
assert_schema() {
	printf '%s\n' "$output" >"$STATE/inspect.json"
	/usr/bin/python3 "$PODWIRE_SRC/test/podwire-inspect/schemacheck.py" \
		"$PODWIRE_SRC/tools/podwire-inspect/schema.json" "$STATE/inspect.json" >&2
}
