#!/usr/bin/env bats
# Plugins must never be steered outside their state directories, also on
# DEL and GC, where a bad config value is only a warning. Each plugin runs
# in a private mount namespace whose /var/lib is a fresh tmpfs, so the
# default store (/var/lib/cni/networks) is a throwaway one the test can
# look into, and the host's real /var/lib is never touched.

setup() {
	load helpers
	load reliability-helpers
	pw_setup
	mkdir -p "$STATE/work"
}

teardown() {
	pw_teardown
}

# in_private_varlib CMD: run CMD (a shell snippet) in a mount namespace with
# a tmpfs on /var/lib, holding a planted lease of attachment relx/eth0 in
# the default store; afterwards print every path under /var/lib/cni with
# its content. Variables the snippet needs are exported.
in_private_varlib() {
	unshare -m --propagation private bash -c '
		set -e
		mount -t tmpfs -o mode=0755 podwire-test /var/lib
		mkdir -p -m 0700 /var/lib/cni/networks/relnet
		printf "relx\r\neth0" >/var/lib/cni/networks/relnet/10.77.0.9
		( '"$1"' ) >"$STATE/work/out" 2>"$STATE/work/err" || echo "exit $?" >"$STATE/work/rc"
		find /var/lib -printf "%p\n" | sort
	'
}

# host_local CMD DATADIR-JSON: a host-local call for attachment relx/eth0.
host_local_snippet() {
	rel_conf host-local ".ipam.dataDir = $2" >"$STATE/work/conf.$1.json"
	echo "ip netns exec $HOST_NS env -i PODWIRE_LOCK_DIR=$PODWIRE_LOCK_DIR CNI_COMMAND=$1 CNI_CONTAINERID=relx CNI_IFNAME=eth0 \
		CNI_NETNS=/var/run/netns/$POD_NS CNI_PATH=$PODWIRE_BIN \
		$PODWIRE_BIN/host-local <$STATE/work/conf.$1.json"
}

expect_default_store_untouched() {
	local want="/var/lib
/var/lib/cni
/var/lib/cni/networks
/var/lib/cni/networks/relnet
/var/lib/cni/networks/relnet/10.77.0.9"
	if [ "$output" != "$want" ]; then
		echo "# the default store changed; /var/lib now holds:" >&2
		echo "$output" | sed 's/^/#   /' >&2
		echo "# plugin stdout: $(cat "$STATE/work/out")" >&2
		return 1
	fi
}

@test "the private /var/lib harness sees a DEL that does use the default store" {
	require_binaries host-local
	# No dataDir at all: the default store is the right one, the planted lease goes.
	export STATE
	rel_conf host-local 'del(.ipam.dataDir)' >"$STATE/work/conf.DEL.json"
	run in_private_varlib "ip netns exec $HOST_NS env -i PODWIRE_LOCK_DIR=$PODWIRE_LOCK_DIR CNI_COMMAND=DEL CNI_CONTAINERID=relx \
		CNI_IFNAME=eth0 CNI_NETNS=/var/run/netns/$POD_NS CNI_PATH=$PODWIRE_BIN \
		$PODWIRE_BIN/host-local <$STATE/work/conf.DEL.json"
	[ "$status" -eq 0 ]
	run ! grep -qx /var/lib/cni/networks/relnet/10.77.0.9 <<<"$output"
}

# ADD refuses a relative (or non-string) ipam.dataDir, so no lease can exist
# under it: DEL and GC skip IPAM with a warning and succeed (the runtime's
# teardown must end), and never fall back to /var/lib/cni/networks.
expect_skipped_with_warning() {
	if [ -e "$STATE/work/rc" ] || [ -s "$STATE/work/out" ]; then
		echo "# wanted success with no output; $(cat "$STATE/work/rc" 2>/dev/null): $(cat "$STATE/work/out")" >&2
		return 1
	fi
	grep -q "ipam.dataDir: .*skipping IPAM" "$STATE/work/err" || {
		echo "# no warning on stderr: $(cat "$STATE/work/err")" >&2
		return 1
	}
}

@test "DEL with a relative dataDir does not fall back to the default store" {
	require_binaries host-local
	export STATE
	run in_private_varlib "$(host_local_snippet DEL '"relative/dir"')"
	[ "$status" -eq 0 ]
	expect_default_store_untouched
	expect_skipped_with_warning
}

@test "DEL with a non-string dataDir does not fall back to the default store" {
	require_binaries host-local
	export STATE
	run in_private_varlib "$(host_local_snippet DEL 42)"
	[ "$status" -eq 0 ]
	expect_default_store_untouched
	expect_skipped_with_warning
}

@test "bridge DEL with a relative dataDir (in-process host-local) succeeds and leaves the default store alone" {
	require_binaries bridge host-local
	export STATE
	rel_conf bridge '.ipam.dataDir = "relative/dir"' >"$STATE/work/conf.bridge.json"
	run in_private_varlib "ip netns exec $HOST_NS env -i PODWIRE_LOCK_DIR=$PODWIRE_LOCK_DIR CNI_COMMAND=DEL CNI_CONTAINERID=relx \
		CNI_IFNAME=eth0 CNI_NETNS=/var/run/netns/$POD_NS CNI_PATH=$PODWIRE_BIN \
		$PODWIRE_BIN/bridge <$STATE/work/conf.bridge.json"
	[ "$status" -eq 0 ]
	expect_default_store_untouched
	expect_skipped_with_warning
}

@test "GC with a relative dataDir does not fall back to the default store" {
	require_binaries host-local
	export STATE
	rel_conf host-local '.ipam.dataDir = "relative/dir" | .["cni.dev/valid-attachments"] = []' \
		>"$STATE/work/conf.GC.json"
	run in_private_varlib "ip netns exec $HOST_NS env -i PODWIRE_LOCK_DIR=$PODWIRE_LOCK_DIR CNI_COMMAND=GC CNI_PATH=$PODWIRE_BIN \
		$PODWIRE_BIN/host-local <$STATE/work/conf.GC.json"
	[ "$status" -eq 0 ]
	expect_default_store_untouched
	expect_skipped_with_warning
}

@test "ADD with a relative dataDir is refused and creates nothing in the default store" {
	require_binaries host-local
	export STATE
	run in_private_varlib "$(host_local_snippet ADD '"relative/dir"')"
	[ "$status" -eq 0 ]
	expect_default_store_untouched
	grep -q '"code": *7' "$STATE/work/out"
}
