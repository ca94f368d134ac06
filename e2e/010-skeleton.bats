#!/usr/bin/env bats
# The skeleton through real binaries (the noop and fail test doubles):
# VERSION, bad environment and bad stdin answered exactly per the spec.

setup() {
	load helpers
	pw_setup
	NOOP="$PODWIRE_TEST_BIN/noop"
	FAIL="$PODWIRE_TEST_BIN/fail"
}

teardown() {
	pw_teardown
}

conf() {
	printf '{"cniVersion":"%s","name":"net1","type":"noop","recordFile":"%s"}' \
		"${1:-1.1.0}" "$STATE/record"
}

@test "VERSION echoes the requested version and lists all seven" {
	run_plugin "$NOOP" VERSION <<<'{"cniVersion":"0.3.1"}'
	assert_json .cniVersion 0.3.1
	assert_json '.supportedVersions | join(",")' "0.1.0,0.2.0,0.3.0,0.3.1,0.4.0,1.0.0,1.1.0"
}

@test "VERSION needs no other variable and no stdin" {
	run env -i CNI_COMMAND=VERSION "$NOOP" </dev/null
	[ "$status" -eq 0 ]
	assert_json .cniVersion 1.1.0
}

@test "VERSION typed at a terminal answers without waiting for input" {
	# script(1) gives the plugin a terminal as stdin; its own input, and so
	# the terminal's, does not end before the timeout.
	for p in "$NOOP" "$PODWIRE_BIN"/*; do
		case $(basename "$p") in cnitool | podwire-*) continue ;; esac
		run timeout 5 script -qec "env -i CNI_COMMAND=VERSION $p" /dev/null < <(sleep 10)
		[ "$status" -eq 0 ] || {
			echo "# $p: status $status: $output" >&2
			return 1
		}
		[[ $output == *'"supportedVersions"'* ]]
	done
}

@test "no CNI_COMMAND prints an about text on stderr, nothing on stdout" {
	out=$(env -i "$NOOP" </dev/null 2>/dev/null)
	[ -z "$out" ]
	err=$(env -i "$NOOP" </dev/null 2>&1 >/dev/null)
	[[ "$err" == *"CNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0"* ]]
}

@test "missing variables are all named in one code-4 error" {
	run env -i CNI_COMMAND=ADD "$NOOP" <<<"$(conf)"
	[ "$status" -eq 1 ]
	assert_error 4 "required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME] missing"
}

@test "unknown CNI_COMMAND is code 4" {
	run_plugin -e 1 "$NOOP" FROB <<<"$(conf)"
	assert_error 4 "unknown CNI_COMMAND: FROB"
}

@test "invalid container ID and ifname are code 4 naming the value" {
	run_plugin -e 1 "$NOOP" ADD eth0 "../etc" <<<"$(conf)"
	assert_error 4 "CNI_CONTAINERID: invalid characters in '../etc'"
	run_plugin -e 1 "$NOOP" ADD "a/b" <<<"$(conf)"
	assert_error 4 "CNI_IFNAME: invalid interface name 'a/b'"
	run_plugin -e 1 "$NOOP" ADD "0123456789abcdef" <<<"$(conf)"
	assert_error 4 "'0123456789abcdef'"
}

@test "CNI_NETNS that is missing, a file, or not a netns is code 4" {
	PW_NETNS=/nonexistent/ns run_plugin -e 1 "$NOOP" ADD <<<"$(conf)"
	assert_error 4 "CNI_NETNS: '/nonexistent/ns'"
	echo x >"$STATE/file"
	PW_NETNS="$STATE/file" run_plugin -e 1 "$NOOP" ADD <<<"$(conf)"
	assert_error 4 "is not a network namespace"
}

@test "stdin that is not JSON is code 6; missing name is code 7" {
	run_plugin -e 1 "$NOOP" ADD <<<'{"cniVersion": "1.0.0", '
	assert_error 6 "stdin: invalid JSON"
	run_plugin -e 1 "$NOOP" ADD <<<'{"cniVersion":"1.0.0","type":"noop"}'
	assert_error 7 "missing network name"
	run_plugin -e 1 "$NOOP" ADD <<<'{"cniVersion":"1.0.0","name":"a","name":"b"}'
	assert_error 6 "duplicate object key"
}

@test "oversized stdin is refused with code 5" {
	head -c 5000000 /dev/zero | tr '\0' ' ' >"$STATE/big"
	run ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID=c CNI_IFNAME=eth0 \
		CNI_NETNS="/var/run/netns/$POD_NS" "$NOOP" <"$STATE/big"
	[ "$status" -eq 1 ]
	assert_error 5 "stdin: larger than"
}

@test "unsupported cniVersion is code 1; CHECK < 0.4.0 and GC/STATUS < 1.1.0 too" {
	run_plugin -e 1 "$NOOP" ADD <<<"$(conf 9.9.9)"
	assert_error 1 "cniVersion '9.9.9' is not supported"
	run_plugin -e 1 "$NOOP" CHECK <<<"$(conf 0.3.1)"
	assert_error 1 "does not allow CHECK"
	run_plugin -e 1 "$NOOP" STATUS <<<"$(conf 1.0.0)"
	assert_error 1 "does not allow STATUS"
}

@test "stdout carries exactly one JSON document" {
	run_plugin "$NOOP" ADD <<<"$(conf 1.0.0)"
	[ "$(printf '%s' "$output" | jq -s length)" = 1 ]
	run_plugin -e 1 "$NOOP" ADD eth0 "bad/id" <<<"$(conf 1.0.0)"
	[ "$(printf '%s' "$output" | jq -s length)" = 1 ]
}

@test "fail returns its configured code, msg and details" {
	run_plugin -e 1 "$FAIL" ADD <<<'{"cniVersion":"1.0.0","name":"n","code":11,"msg":"busy","details":"try later"}'
	assert_error 11 busy
	assert_json .details "try later"
	run_plugin "$FAIL" DEL <<<'{"cniVersion":"1.0.0","name":"n","failOn":["ADD"]}'
}
