#!/usr/bin/env bats
# podwire-inspect with damaged state: every unreadable or corrupt cache,
# multinet, sriov-rdma or lease file is reported on its own, the good ones
# are still listed, and stdout is always one whole JSON document.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	load inspect-helpers
	pw_need "$PODWIRE_BIN/bridge" "$PODWIRE_BIN/cnitool"
	pw_setup
	cnitool_setup
	inspect_setup
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN"
	NETNS="/var/run/netns/$POD_NS"
	cat >"$NETCONF/10-pw.conflist" <<JSON
{"cniVersion":"1.1.0","name":"pw","plugins":[
 {"type":"bridge","bridge":"${PW_ID}br",
  "ipam":{"type":"host-local","dataDir":"$STATE/ipam","ranges":[[{"subnet":"10.98.1.0/24"}]]}}]}
JSON
}

teardown() {
	pw_teardown
}

@test "inspect: corrupt and unreadable files are reported per file, never a partial document" {
	run_cnitool add pw "$NETNS"
	local good
	good=$(ls "$CACHE/results/")
	head -c 40 "$CACHE/results/$good" >"$CACHE/results/pw-truncated-eth0"
	printf '\x00\x01\xff\xfe' >"$CACHE/results/pw-binary-eth0"
	printf '{"kind":"cniCacheV1","containerId":"a/b","ifName":"eth0","networkName":"pw"}' \
		>"$CACHE/results/pw-slash-eth0"
	ln -s /nonexistent "$CACHE/results/pw-dangling-eth0"
	head -c 5000000 /dev/zero >"$CACHE/results/pw-huge-eth0"
	echo '{"kind":"multinetCacheV1"' >"$STATE/multinet/c1"
	echo '{"kind":"somethingElse","containerId":"c2","delegates":[]}' >"$STATE/multinet/c2"
	echo '{"kind":"multinetCacheV1","containerId":"c3","delegates":[7,{"ifname":"net1"}]}' >"$STATE/multinet/c3"
	echo '{"version":2,"containerID":"c","ifname":"net1","deviceID":"0000:01:00.1"}' \
		>"$STATE/sriov/0000:01:00.1.json"
	echo 'not json' >"$STATE/sriov/0000:01:00.2.json"
	touch "$STATE/sriov/0000:01:00.1.lock" "$STATE/sriov/.0000:01:00.3.json.tmp"
	mkdir -p "$STATE/ipam/pw"
	printf 'bad\x01id\r\neth0' >"$STATE/ipam/pw/10.98.1.77"
	run_inspect --json
	assert_schema
	assert_json '.attachments | map(select(.health.status == "ok")) | length' 1
	local e
	for e in results/pw-truncated-eth0 results/pw-binary-eth0 results/pw-slash-eth0 \
		results/pw-dangling-eth0 results/pw-huge-eth0; do
		printf '%s' "$output" | jq -e ".errors[] | select(.path == \"$CACHE/$e\")" >/dev/null ||
			{ echo "# no error for $e" >&2; return 1; }
	done
	for e in multinet/c1 multinet/c2 multinet/c3 sriov/0000:01:00.1.json sriov/0000:01:00.2.json \
		ipam/pw/10.98.1.77; do
		printf '%s' "$output" | jq -e ".errors[] | select(.path == \"$STATE/$e\")" >/dev/null ||
			{ echo "# no error for $e" >&2; return 1; }
	done
	# c3's second delegate is fine: listed (multinet-only, its netns unknown)
	assert_json '.attachments[] | select(.containerId == "c3") | .ifname' net1
	assert_json '.errors | length' 11
	# the table and the exposition say so too
	run_inspect
	[[ "$output" == *"error: $CACHE/results/pw-truncated-eth0"* ]]
	run_inspect --prometheus
	assert_prometheus
	printf '%s\n' "$output" | grep -qx 'podwire_inspect_file_errors 11'
}

@test "inspect: usage errors exit 2 and print nothing on stdout" {
	run_inspect -e 2 --watch 0
	[ -z "$output" ]
	run_inspect -e 2 --bogus
	[ -z "$output" ]
	run_inspect -e 2 frobnicate
	[ -z "$output" ]
	run_inspect --help
	[[ "$output" == *"--sysfs-root"* ]]
}
