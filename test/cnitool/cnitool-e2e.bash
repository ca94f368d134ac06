# Helpers for the cnitool e2e tests (e2e/3xx-cnitool-*.bats), on top of
# e2e/helpers.bash. Everything cnitool reads or writes is under $STATE:
# NETCONFPATH=$STATE/net.d, --cache-dir $STATE/cache, IPAM data in $STATE/ipam.

CNITOOL="${PODWIRE_BIN}/cnitool"

cnitool_setup() {
	NETCONF="$STATE/net.d"
	CACHE="$STATE/cache"
	mkdir -p "$NETCONF" "$CACHE"
	export NETCONF CACHE
}

# run_cnitool [-e RC] ARGS...: cnitool inside $HOST_NS; stdout in $output,
# stderr in $CNITOOL_ERR (a file). CNI_PATH from $PW_CNI_PATH. Extra env:
# CNITOOL_ENV=(K=V ...).
run_cnitool() {
	local want_rc=0
	if [ "$1" = "-e" ]; then
		want_rc=$2
		shift 2
	fi
	CNITOOL_ERR="$STATE/cnitool.err"
	# bats' run merges stderr into $output: redirect inside the command.
	run ip netns exec "$HOST_NS" sh -c 'e=$1; shift; exec "$@" 2>"$e"' sh "$CNITOOL_ERR" \
		env NETCONFPATH="$NETCONF" CNI_PATH="${PW_CNI_PATH:-$PODWIRE_BIN:$PODWIRE_TEST_BIN}" \
		"${CNITOOL_ENV[@]}" timeout 120 "$CNITOOL" --cache-dir "$CACHE" "$@"
	if [ "$status" -ne "$want_rc" ]; then
		echo "# cnitool $*: exit $status, wanted $want_rc" >&2
		echo "# stdout: $output" >&2
		echo "# stderr: $(cat "$CNITOOL_ERR")" >&2
		return 1
	fi
}

# assert_stderr SUBSTRING: cnitool's stderr contains SUBSTRING.
assert_stderr() {
	grep -qF -- "$1" "$CNITOOL_ERR" || {
		echo "# stderr lacks '$1': $(cat "$CNITOOL_ERR")" >&2
		return 1
	}
}

# The container ID cnitool derives from an (absolute, clean) netns path.
cnitool_cid() {
	printf 'cnitool-%s' "$(printf '%s' "$1" | sha512sum | cut -c1-20)"
}

# records: the noop/fail record file as one JSON array in $output.
records() {
	output=$(jq -s . "$STATE/record" 2>/dev/null || echo '[]')
}
