#!/usr/bin/env bats
# cnitool driving the noop/fail test doubles: what each plugin saw (env,
# stdin), chaining, reverse DEL, the cache file, CLI and environment
# handling, errors and timeouts.

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	pw_setup
	cnitool_setup
	NETNS="/var/run/netns/$POD_NS"
	CID=$(cnitool_cid "$NETNS")
}

teardown() {
	pw_teardown
}

# A two-plugin list: the first answers a fixed result and takes portMappings.
write_list() {
	cat >"$NETCONF/10-chain.conflist" <<JSON
{"cniVersion":"${1:-1.1.0}","name":"chain","plugins":[
 {"type":"noop","recordFile":"$STATE/record","capabilities":{"portMappings":true},
  "result":{"cniVersion":"${1:-1.1.0}","interfaces":[{"name":"eth0","sandbox":"$NETNS"}],
            "ips":[{"address":"10.20.0.2/24","interface":0}]}},
 {"type":"noop","recordFile":"$STATE/record"}]}
JSON
}

@test "add prints the result and caches it in the upstream format and place" {
	write_list
	run_cnitool add chain "$NETNS"
	assert_json .cniVersion 1.1.0
	assert_json '.ips[0].address' 10.20.0.2/24
	local cache="$CACHE/results/chain-$CID-eth0"
	[ -f "$cache" ]
	[ "$(stat -c %a "$cache")" = 600 ]
	[ "$(stat -c %a "$CACHE/results")" = 700 ]
	output=$(cat "$cache")
	assert_json .kind cniCacheV1
	assert_json .containerId "$CID"
	assert_json .ifName eth0
	assert_json .networkName chain
	assert_json .netns "$NETNS"
	assert_json '.result.ips[0].address' 10.20.0.2/24
	assert_json 'has("cniArgs")' false
	# config is the conflist file, byte for byte, in base64.
	jq -r .config "$cache" | base64 -d | cmp - "$NETCONF/10-chain.conflist"
}

@test "each plugin gets the CNI env and its own stdin, chained on ADD" {
	write_list
	CNITOOL_ENV=(CNI_ARGS="K8S_POD_NAME=p;IgnoreUnknown=1"
		CAP_ARGS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}],"mac":"x"}')
	run_cnitool add chain "$NETNS"
	records
	assert_json length 2
	assert_json '[.[].command] | join(",")' ADD,ADD
	assert_json '[.[].containerID] | unique | .[0]' "$CID"
	assert_json '[.[].netns] | unique | .[0]' "$NETNS"
	assert_json '[.[].ifname] | unique | .[0]' eth0
	assert_json '[.[].args] | unique | .[0]' "K8S_POD_NAME=p;IgnoreUnknown=1"
	assert_json '.[0].path' "$PODWIRE_BIN:$PODWIRE_TEST_BIN"
	assert_json '.[0].fds | join(",")' 0,1,2
	assert_json '.[0].stdin.name' chain
	assert_json '.[0].stdin.cniVersion' 1.1.0
	assert_json '.[0].stdin.runtimeConfig.portMappings[0].hostPort' 8080
	assert_json '.[0].stdin.runtimeConfig | has("mac")' false
	assert_json '.[0].stdin | has("prevResult")' false
	assert_json '.[1].stdin | has("runtimeConfig")' false
	assert_json '.[1].stdin.prevResult.ips[0].address' 10.20.0.2/24
}

@test "check and del get the cached result; del runs in reverse and removes the cache" {
	write_list
	run_cnitool add chain "$NETNS"
	rm "$STATE/record"
	run_cnitool check chain "$NETNS"
	[ -z "$output" ]
	run_cnitool del chain "$NETNS"
	[ -z "$output" ]
	records
	assert_json '[.[].command] | join(",")' CHECK,CHECK,DEL,DEL
	assert_json '[.[].stdin.prevResult.ips[0].address] | unique | join(",")' 10.20.0.2/24
	# DEL order: the plugin with "result" (first in the list) runs last.
	assert_json '[.[2:][] | .stdin | has("result")] | join(",")' false,true
	[ ! -e "$CACHE/results/chain-$CID-eth0" ]
	# A second DEL still succeeds, now without prevResult.
	rm "$STATE/record"
	run_cnitool del chain "$NETNS"
	records
	assert_json '[.[].stdin | has("prevResult")] | unique | join(",")' false
	# CHECK after DEL: nothing was added.
	run_cnitool -e 1 check chain "$NETNS"
	assert_stderr "no cached result"
	assert_stderr "code 3"
}

@test "del: a missing plugin binary is reported, the other plugins' DEL still run (a difference from upstream)" {
	cat >"$NETCONF/10-chain.conflist" <<JSON
{"cniVersion":"1.1.0","name":"chain","plugins":[
 {"type":"noop","recordFile":"$STATE/record","tag":"first"},
 {"type":"not-installed-$PW_ID"},
 {"type":"noop","recordFile":"$STATE/record","tag":"last"}]}
JSON
	run_cnitool -e 1 add chain "$NETNS"
	assert_stderr "failed to find plugin \"not-installed-$PW_ID\""
	rm -f "$STATE/record"
	run_cnitool -e 1 del chain "$NETNS"
	assert_stderr "plugin type=\"not-installed-$PW_ID\" name=\"chain\" failed (delete)"
	assert_stderr "code 104"
	records
	assert_json '[.[].command] | join(",")' DEL,DEL
	assert_json '[.[].stdin.tag] | join(",")' last,first
}

@test "-i, --ifname and CNI_IFNAME choose the interface" {
	write_list
	CNITOOL_ENV=(CNI_IFNAME=net7)
	run_cnitool add chain "$NETNS"
	[ -f "$CACHE/results/chain-$CID-net7" ]
	run_cnitool add -i net8 chain "$NETNS"
	run_cnitool --ifname=net9 add chain "$NETNS"
	records
	assert_json '[.[].ifname] | unique | join(",")' net7,net8,net9
	run_cnitool del chain "$NETNS" --ifname net8
	[ ! -e "$CACHE/results/chain-$CID-net8" ]
	[ -f "$CACHE/results/chain-$CID-net9" ]
	# A set but empty CNI_IFNAME is an empty name, refused like upstream.
	CNITOOL_ENV=(CNI_IFNAME=)
	run_cnitool -e 1 add chain "$NETNS"
	assert_stderr 'invalid interface name ""'
}

@test "the container ID follows the absolute netns path" {
	write_list
	# A relative path is made absolute against cnitool's working directory.
	cd "$STATE"
	run_cnitool add chain "$(realpath -s --relative-to=. "$NETNS")"
	records
	assert_json '.[0].containerID' "$CID"
	assert_json '.[0].netns' "$NETNS"
}

@test "legacy .conf files are up-converted" {
	cat >"$NETCONF/50-single.conf" <<JSON
{"cniVersion":"0.4.0","name":"single","type":"noop","recordFile":"$STATE/record"}
JSON
	run_cnitool add single "$NETNS"
	assert_json .cniVersion 0.4.0
	run_cnitool check single "$NETNS"
	run_cnitool del single "$NETNS"
	records
	assert_json '[.[].command] | join(",")' ADD,CHECK,DEL
	assert_json '.[2].stdin.prevResult.cniVersion' 0.4.0
}

@test "bad input: network, CNI_ARGS, CAP_ARGS, usage" {
	write_list
	run_cnitool -e 1 add nosuch "$NETNS"
	assert_stderr 'no net configuration with name "nosuch"'
	CNITOOL_ENV=(CNI_ARGS="A=1;B")
	run_cnitool -e 1 add chain "$NETNS"
	assert_stderr 'CNI_ARGS: invalid pair "B"'
	CNITOOL_ENV=(CAP_ARGS='[1]')
	run_cnitool -e 1 add chain "$NETNS"
	assert_stderr 'CAP_ARGS'
	CNITOOL_ENV=()
	run_cnitool -e 1 frobnicate chain "$NETNS"
	assert_stderr 'Usage: cnitool'
	run_cnitool -e 1 add chain
	run_cnitool -e 1 --timeout soon add chain "$NETNS"
	assert_stderr 'invalid --timeout "soon"'
	run_cnitool -e 1 add chain "$NETNS" --cache-dir ""
	assert_stderr '--cache-dir must not be empty'
	run_cnitool --help
	[[ "$output" == *"CAP_ARGS"* ]]
	[[ "$output" == *"--cache-dir"* ]]
	[ ! -e "$STATE/record" ]
	printf '{"name": ' >"$NETCONF/00-broken.conflist"
	run_cnitool -e 1 add chain "$NETNS"
	assert_stderr "00-broken.conflist"
}

@test "a plugin's error comes through with its code; nothing is cached" {
	cat >"$NETCONF/10-f.conflist" <<JSON
{"cniVersion":"1.1.0","name":"f","plugins":[{"type":"noop","recordFile":"$STATE/record"},
 {"type":"fail","code":117,"msg":"no luck","details":"because"}]}
JSON
	run_cnitool -e 1 add f "$NETNS"
	[ -z "$output" ]
	assert_stderr 'plugin type="fail" name="f" failed (add): no luck (CNI error code 117)'
	assert_stderr 'because'
	[ ! -e "$CACHE/results/f-$CID-eth0" ]
	cat >"$NETCONF/20-m.conflist" <<JSON
{"cniVersion":"1.1.0","name":"m","plugins":[{"type":"nonexistent"}]}
JSON
	run_cnitool -e 1 add m "$NETNS"
	assert_stderr 'failed to find plugin "nonexistent"'
}

@test "--timeout kills a hanging plugin and reports code 11" {
	cat >"$NETCONF/10-h.conflist" <<JSON
{"cniVersion":"1.1.0","name":"h","plugins":[{"type":"fail","hangSeconds":60}]}
JSON
	local t0=$SECONDS
	run_cnitool -e 1 --timeout 1 add h "$NETNS"
	[ $((SECONDS - t0)) -lt 10 ]
	assert_stderr "timed out"
	assert_stderr "code 11"
	# No stray plugin left behind in the host namespace.
	run ! grep -q . <<<"$(ip netns pids "$HOST_NS")"
}

@test "gc deletes every cached attachment of the network, then sends GC" {
	write_list
	pw_netns_new "${PW_ID}q"
	local other="/var/run/netns/${PW_ID}q"
	run_cnitool add chain "$NETNS"
	run_cnitool add chain "$other"
	# Another network's attachment is left alone.
	sed 's/"name":"chain"/"name":"keep"/' "$NETCONF/10-chain.conflist" >"$NETCONF/20-keep.conflist"
	run_cnitool add keep "$NETNS"
	rm "$STATE/record"
	run_cnitool gc chain
	records
	assert_json '[.[].command] | join(",")' DEL,DEL,DEL,DEL,GC,GC
	assert_json '[.[:4][].containerID] | unique | length' 2
	assert_json '[.[4:][].containerID] | unique | join(",")' ""
	assert_json '.[4].stdin | has("cni.dev/valid-attachments")' false
	run ls "$CACHE/results"
	[ "$output" = "keep-$CID-eth0" ]
}

@test "status reports the first failing plugin's code; <1.1.0 lists are not asked" {
	cat >"$NETCONF/10-s.conflist" <<JSON
{"cniVersion":"1.1.0","name":"s","plugins":[{"type":"noop","recordFile":"$STATE/record"},
 {"type":"fail","code":50,"msg":"plugin not available","recordFile":"$STATE/record"}]}
JSON
	run_cnitool -e 1 status s
	run_cnitool -e 1 status s "$NETNS"
	assert_stderr "plugin not available (CNI error code 50)"
	records
	assert_json '[.[].command] | join(",")' STATUS,STATUS,STATUS,STATUS
	sed -i 's/"1.1.0"/"1.0.0"/' "$NETCONF/10-s.conflist"
	rm "$STATE/record"
	run_cnitool status s
	[ ! -e "$STATE/record" ]
}
