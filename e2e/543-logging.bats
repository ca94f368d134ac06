#!/usr/bin/env bats
# What an operator finds in logFile (libcni's skeleton, so every plugin):
# every error result at error level with code, msg, details, container ID,
# ifname and network, at the default level too; at info one line per
# command with its outcome, addresses and duration; at debug the steps. A
# relative logFile is refused with a warning; an unknown logLevel is code 7
# on ADD and a warning on DEL.

setup() {
	load helpers
	pw_setup
	LOG="$STATE/plugin.log"
}

teardown() {
	pw_teardown
}

# conf [EXTRA-JQ]: bridge + host-local writing to $LOG.
conf() {
	jq -nc --arg dd "$STATE/ipam" --arg log "$LOG" \
		'{cniVersion:"1.0.0", name:"lognet", type:"bridge", bridge:"logbr0", logFile:$log,
		  ipam:{type:"host-local", subnet:"10.81.0.0/24", dataDir:$dd}} | '"${1:-.}"
}

@test "a failed ADD is logged at the default level: code, msg, details, container, ifname, network" {
	run_plugin bridge ADD eth0 pod1 <<<"$(conf)"
	[ ! -s "$LOG" ] # success at the default level: nothing
	run_plugin -e 1 bridge ADD eth0 pod1 <<<"$(conf)"
	assert_error 103 "already exists"
	grep -q ': error: ADD failed: code 103: .*already exists.*; details: .*(container pod1, ifname eth0, network lognet)' "$LOG"
	[ "$(wc -l <"$LOG")" -eq 1 ]
	run_plugin -e 1 bridge ADD eth0 pod1 <<<"$(conf '.logLevel = "error"')"
	[ "$(grep -c 'error: ADD failed: code 103' "$LOG")" -eq 2 ]
}

@test "info: one line per command with outcome, addresses and duration" {
	run_plugin bridge ADD eth0 pod1 <<<"$(conf '.logLevel = "info"')"
	local prev
	prev=$(jq -c --argjson pr "$output" '. + {prevResult: $pr}' <<<"$(conf '.logLevel = "info"')")
	run_plugin bridge CHECK eth0 pod1 <<<"$prev"
	run_plugin bridge DEL eth0 pod1 <<<"$(conf '.logLevel = "info"')"
	run_plugin -e 1 bridge CHECK eth0 pod1 <<<"$prev"
	cat "$LOG" >&2
	grep -Eq 'bridge ADD pod1: info: ADD ok in [0-9.]+ ms \(container pod1, ifname eth0, network lognet, ips 10\.81\.0\.2/24\)' "$LOG"
	grep -Eq 'info: CHECK ok in [0-9.]+ ms' "$LOG"
	grep -Eq 'info: DEL ok in [0-9.]+ ms \(container pod1, ifname eth0, network lognet\)' "$LOG"
	grep -Eq 'info: CHECK failed with code [0-9]+ in [0-9.]+ ms' "$LOG"
	grep -q 'error: CHECK failed: code' "$LOG"
	[ "$(grep -c ': info: ' "$LOG")" -eq 4 ]
	run ! grep -q ': debug: ' "$LOG"
}

@test "debug adds the steps" {
	run_plugin -e 1 bridge ADD eth0 pod1 <<<"$(conf '.logLevel = "debug" | .ipam.subnet = "10.81.0.0/31"')"
	grep -q ': debug: ADD: network lognet, cniVersion 1.0.0' "$LOG"
	grep -q ': debug: ADD failed: rolling back' "$LOG"
	grep -q ': debug: undo ' "$LOG"
	grep -q ': error: ADD failed: code ' "$LOG"
}

@test "a relative logFile is refused with a warning and nothing is written in the working directory" {
	mkdir "$STATE/cwd"
	cd "$STATE/cwd"
	run_plugin -e 1 bridge ADD eth0 pod1 <<<"$(conf '.logFile = "rel.log" | .ipam.subnet = "bad"')"
	grep -q "logFile: 'rel.log' is not an absolute path, ignoring" "$PW_STDERR"
	[ -z "$(ls -A "$STATE/cwd")" ]
	[ ! -e "$PODWIRE_SRC/rel.log" ]
}

@test "an unknown logLevel is code 7 on ADD, a warning on DEL" {
	run_plugin -e 1 bridge ADD eth0 pod1 <<<"$(conf '.logLevel = "verbose"')"
	assert_error 7 "logLevel: unknown level 'verbose'"
	grep -q "code 7: logLevel: unknown level 'verbose'" "$LOG"
	PW_NETNS="" run_plugin bridge DEL eth0 pod1 <<<"$(conf '.logLevel = "verbose"')"
	grep -q "logLevel: unknown level 'verbose', ignoring" "$PW_STDERR"
}
