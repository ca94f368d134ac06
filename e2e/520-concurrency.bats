#!/usr/bin/env bats
# Concurrency: 100 attachments on one bridge network with host-local IPAM,
# every round 100 ADDs and DELs at once (a random half of each), repeated;
# no failure, no address held twice, no lost or stale lease, host veths and
# nftables elements exactly those of the attachments that are up. The logic
# lives in scripts/concurrency.sh (CONC_N, CONC_ROUNDS, CONC_SEED).

setup() {
	load helpers
	load reliability-helpers
}

@test "100 parallel mixed ADD/DEL, repeated: no failures, duplicates, lost or stale leases" {
	require_binaries bridge host-local
	run env CONC_N="${CONC_N:-100}" CONC_ROUNDS="${CONC_ROUNDS:-2}" \
		bash "$PODWIRE_SRC/scripts/concurrency.sh" "$PODWIRE_BIN"
	echo "$output" | sed 's/^/# /' >&2
	[ "$status" -eq 0 ]
	[[ "$output" == *"failures=0"* ]]
}
