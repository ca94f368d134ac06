#!/usr/bin/env bats
# host-local's lease appears atomically with its owner (O_TMPFILE + linkat,
# EEXIST as with O_EXCL), so a SIGKILL at any moment of an ADD leaves either
# no lease or a complete one that DEL releases. The kill lands exactly on
# the k-th write(2) of the ADD, for every k, through strace's fault
# injection: deterministic, unlike the random delays of scripts/chaos.sh.
# An empty (ownerless) lease left by an older podwire or a crash is released
# by DEL of the attachment whose index entry names it, and by GC, once it is
# older than the grace period (5 s); a fresh one is left alone.

setup() {
	load helpers
	load reliability-helpers
	pw_setup
	mkdir -p "$STATE/work"
	pw_need strace
	CONF=$(rel_conf host-local '.ipam.subnet = "10.79.0.0/24"')
	DIR="$STATE/ipam/$REL_NET"
}

teardown() {
	pw_teardown
}

# add_killed_at K CID: host-local ADD, SIGKILLed on entry to its K-th write(2).
# Prints "killed" or "done".
add_killed_at() {
	ip netns exec "$HOST_NS" env CNI_COMMAND=ADD CNI_CONTAINERID="$2" CNI_IFNAME=eth0 \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_PATH="$PODWIRE_BIN" \
		strace -o /dev/null -e trace=write -e inject=write:signal=KILL:when="$1" \
		"$PODWIRE_BIN/host-local" <<<"$CONF" >"$STATE/work/out.$2" 2>/dev/null
	if grep -q '"ips"' "$STATE/work/out.$2"; then echo "done"; else echo killed; fi
}

# Lease files and index entries of the network, one per line.
leftovers() {
	rel_leases | sed 's/^/lease /'
	rel_index_entries | sed 's/^/index /'
}

@test "a SIGKILL at every write of an ADD, then DEL: no lease, no index entry left" {
	local k outcome killed=0
	for k in $(seq 1 12); do
		outcome=$(add_killed_at "$k" "kill$k")
		PW_NETNS="" run_plugin host-local DEL eth0 "kill$k" <<<"$CONF"
		run leftovers
		if [ -n "$output" ]; then
			echo "# ADD killed at write $k ($outcome); after DEL:" >&2
			echo "$output" | sed 's/^/#   /' >&2
			for f in "$DIR"/[0-9]*; do [ -f "$f" ] && echo "#   $f: '$(cat "$f")'" >&2; done
			return 1
		fi
		[ "$outcome" = killed ] && killed=$((killed + 1))
		[ "$outcome" = "done" ] && break
	done
	# the kills covered the whole ADD: it completed only once there was no write left to hit
	[ "$outcome" = "done" ]
	[ "$killed" -ge 4 ]
}

@test "a killed ADD never leaves an empty lease, even before DEL" {
	local k
	for k in $(seq 1 12); do
		rm -rf "$STATE/ipam" # the same sequence of writes every time
		[ "$(add_killed_at "$k" "kill$k")" = "done" ] && break
		for f in "$DIR"/[0-9]*; do
			[ -f "$f" ] || continue
			[ -s "$f" ] || { echo "# write $k: empty lease ${f##*/}" >&2; return 1; }
		done
	done
}

# plant_ownerless IP CID AGE: an empty lease of IP with CID's index entry naming it.
plant_ownerless() {
	run_plugin host-local ADD eth0 seed <<<"$CONF" # creates the directories
	PW_NETNS="" run_plugin host-local DEL eth0 seed <<<"$CONF"
	: >"$DIR/$1"
	printf 'podwire-index 1\n%s\n' "$1" >"$DIR/.podwire/@$2:eth0"
	[ "$3" = old ] && touch -d '-1 minute' "$DIR/$1"
	return 0
}

@test "DEL releases an ownerless lease its index entry names once it is older than 5 s" {
	plant_ownerless 10.79.0.50 own1 old
	PW_NETNS="" run_plugin host-local DEL eth0 own1 <<<"$CONF"
	[ ! -e "$DIR/10.79.0.50" ]
	grep -q "lease 10.79.0.50 is empty" "$PW_STDERR"
	# a fresh one may still be being written by a plugin that does not lock: kept
	plant_ownerless 10.79.0.51 own2 new
	PW_NETNS="" run_plugin host-local DEL eth0 own2 <<<"$CONF"
	[ -e "$DIR/10.79.0.51" ]
	# another attachment's DEL never takes it, however old
	touch -d '-1 minute' "$DIR/10.79.0.51"
	PW_NETNS="" run_plugin host-local DEL eth0 other <<<"$CONF"
	[ -e "$DIR/10.79.0.51" ]
}

@test "GC releases an ownerless lease older than 5 s and keeps a fresh one" {
	local gc
	gc=$(jq -c '. + {"cni.dev/valid-attachments": []}' <<<"$CONF")
	plant_ownerless 10.79.0.60 own1 old
	: >"$DIR/10.79.0.61"
	PW_NETNS="" run_plugin host-local GC "" "" <<<"$gc"
	[ ! -e "$DIR/10.79.0.60" ]
	[ -e "$DIR/10.79.0.61" ]
	touch -d '-1 minute' "$DIR/10.79.0.61"
	PW_NETNS="" run_plugin host-local GC "" "" <<<"$gc"
	[ ! -e "$DIR/10.79.0.61" ]
}
