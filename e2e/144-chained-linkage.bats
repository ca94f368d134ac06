#!/usr/bin/env bats
# loopback, tuning and macvlan run for every pod (or every secondary
# network): none of them may load a heavy library, and loopback loads none.

setup() {
	load helpers
}

needed() {
	readelf -d "$PODWIRE_BIN/$1" 2>/dev/null | awk '/NEEDED/ {gsub(/[][]/, "", $5); print $5}'
}

@test "no libyaml, libibverbs or libbpf in loopback, tuning, macvlan" {
	for p in loopback tuning macvlan; do
		pw_need "$PODWIRE_BIN/$p"
		if needed "$p" | grep -E 'yaml|ibverbs|bpf'; then
			echo "# $p links a heavy library" >&2
			return 1
		fi
	done
}

@test "tuning and macvlan need only libmnl and libc" {
	for p in tuning macvlan; do
		got=$(needed "$p" | grep -v -E '^(libmnl\.so|libc\.so|ld-linux|libasan|libubsan|libm\.so|libgcc_s|libstdc)' || true)
		[ -z "$got" ] || { echo "# $p needs: $got" >&2; return 1; }
	done
}

@test "loopback is static unless built with sanitizers" {
	if needed loopback | grep -q -E 'asan|ubsan' ||
		readelf -s "$PODWIRE_BIN/loopback" | grep -q __asan_init; then
		skip "sanitizer build"
	fi
	[ -z "$(needed loopback)" ]
}
