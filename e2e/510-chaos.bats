#!/usr/bin/env bats
# Chaos: bridge ADD (host-local IPAM, ipMasq, macspoofchk) SIGKILLed at a
# random moment, then DEL twice and a final GC; nothing may leak (links,
# leases, index entries, nftables elements, routes). The logic lives in
# scripts/chaos.sh so it also runs by hand; the e2e suite runs a light 40
# trials with ipMasq and 20 without, CHAOS_TRIALS=200 the full one (each).
# CHAOS_SEED repeats a run.

setup() {
	load helpers
	load reliability-helpers
}

@test "SIGKILLed bridge ADDs leave nothing behind after DEL and GC" {
	require_binaries bridge host-local
	run env CHAOS_TRIALS="${CHAOS_TRIALS:-40}" bash "$PODWIRE_SRC/scripts/chaos.sh" "$PODWIRE_BIN"
	echo "$output" | sed 's/^/# /' >&2
	[ "$status" -eq 0 ]
	# The kills must really land mid-ADD in most trials, or the test proves little.
	killed=$(echo "$output" | sed -n 's/.* killed=\([0-9]*\) .*/\1/p')
	trials=$(echo "$output" | sed -n 's/.*chaos: trials=\([0-9]*\) .*/\1/p')
	[ "$killed" -ge $((trials / 2)) ]
}

@test "SIGKILLed bridge ADDs without ipMasq leave nothing behind either (no ownerless lease)" {
	require_binaries bridge host-local
	run env CHAOS_IPMASQ=0 CHAOS_TRIALS="${CHAOS_TRIALS:-20}" bash "$PODWIRE_SRC/scripts/chaos.sh" "$PODWIRE_BIN"
	echo "$output" | sed 's/^/# /' >&2
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "ipmasq=false"
	killed=$(echo "$output" | sed -n 's/.* killed=\([0-9]*\) .*/\1/p')
	trials=$(echo "$output" | sed -n 's/.*chaos: trials=\([0-9]*\) .*/\1/p')
	[ "$killed" -ge $((trials / 2)) ]
}
