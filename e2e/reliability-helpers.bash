# Helpers for the reliability e2e tests (500-599): network configs, a wider
# "nothing changed" snapshot, and leak accounting for chaos and concurrency.
# Load after helpers.bash: `load helpers; load reliability-helpers`.

REL_DATA="${PODWIRE_SRC}/e2e/testdata/reliability"
REL_NET=relnet
REL_BR=relbr0
REL_SUBNET=10.77.0.0/24

# rel_conf KIND [JQ-FILTER]: a network config on stdout. KIND is
# bridge (bridge + host-local, ipMasq and macspoofchk so links, routes,
# addresses, leases and nftables all change on ADD), host-local or static
# (the IPAM plugins run directly). The filter edits the base config.
rel_conf() {
	local kind=$1 filter=${2:-.}
	local base
	case "$kind" in
	bridge)
		base='{"cniVersion":"1.1.0","name":"'$REL_NET'","type":"bridge",
		"bridge":"'$REL_BR'","isGateway":true,"ipMasq":true,"macspoofchk":true,
		"ipam":{"type":"host-local","subnet":"'$REL_SUBNET'","dataDir":$dd}}'
		;;
	host-local)
		base='{"cniVersion":"1.1.0","name":"'$REL_NET'","type":"host-local",
		"ipam":{"type":"host-local","subnet":"'$REL_SUBNET'","dataDir":$dd}}'
		;;
	static)
		base='{"cniVersion":"1.1.0","name":"'$REL_NET'","type":"static",
		"ipam":{"type":"static","addresses":[{"address":"10.78.0.5/24",
		"gateway":"10.78.0.1"}]}}'
		;;
	*)
		echo "rel_conf: unknown kind $kind" >&2
		return 1
		;;
	esac
	jq -cn --arg dd "$STATE/ipam" "$base | $filter"
}

# rel_ns_state NS: links (name, admin flags, master, mtu), addresses and
# every route of both families in NS, two processes in all (each `ip` costs
# tens of milliseconds on a busy machine and a table run makes hundreds).
rel_ns_state() {
	echo "--- $1"
	ip -o -n "$1" -batch - 2>/dev/null <<-EOF | rel_ns_filter
		link show
		addr show
		route show table all
	EOF
	ip -6 -n "$1" route show table all 2>/dev/null | sort
}

# Links reduced to name, admin flags, master and mtu: carrier flags left out
# (a bridge's carrier follows its ports on the kernel's own schedule).
rel_ns_filter() {
	awk '/^[0-9]+: [^ ]+: </ {
		m = "-"; mtu = "-"
		for (i = 1; i <= NF; i++) {
			if ($i == "master") m = $(i + 1)
			if ($i == "mtu") mtu = $(i + 1)
		}
		f = $3
		gsub(/LOWER_UP,?|NO-CARRIER,?|M-DOWN,?/, "", f)
		print "link", $2, f, m, mtu
		next
	}
	/^[0-9]+: [^ ]+ +inet6? / { print "addr", $2, $4; next }
	{ print "route", $0 }' | sort
}

# rel_snapshot NAME: what pw_snapshot covers and what it leaves out: pod
# routes, IPv6 routes, link masters and MTUs, every state file with its mode
# and a hash of its content (a rewritten lease is a change too).
rel_snapshot() {
	{
		rel_ns_state "$HOST_NS"
		rel_ns_state "$POD_NS"
		echo "--- nftables"
		ip netns exec "$HOST_NS" nft list ruleset 2>/dev/null
		echo "--- state files"
		find "$STATE" \( -path "$STATE/work" -o -path "$STATE/stderr" -o \
			-name 'snapshot.*' \) -prune -o -printf '%M %P\n' | sort
		find "$STATE" -path "$STATE/work" -prune -o -type f ! -name 'snapshot.*' \
			! -name stderr -print0 | sort -z | xargs -0r sha1sum | sed "s|$STATE/||"
	} >"$STATE/snapshot.$1"
}

# rel_settle: wait until IPv6 duplicate address detection is over and two
# snapshots in a row agree (up to 10 s in all), so the
# kernel's own follow-ups of a successful ADD (IPv6 link-local addresses,
# their local routes) are not blamed on the next call.
rel_settle() {
	local i
	for i in $(seq 1 50); do
		[ -z "$(ip -n "$HOST_NS" addr show tentative; ip -n "$POD_NS" addr show tentative)" ] &&
			break
		sleep 0.1
	done
	rel_snapshot settle.a
	for i in $(seq 1 25); do
		sleep 0.2
		rel_snapshot settle.b
		cmp -s "$STATE/snapshot.settle.a" "$STATE/snapshot.settle.b" && return 0
		mv "$STATE/snapshot.settle.b" "$STATE/snapshot.settle.a"
	done
	echo "# state did not settle within 5 s" >&2
	return 1
}

# rel_assert_same NAME: the state now equals snapshot NAME (diff on stderr).
rel_assert_same() {
	rel_snapshot now
	diff -u "$STATE/snapshot.$1" "$STATE/snapshot.now" >&2
}

# ---- leak accounting (chaos, concurrency) ----

# Host links other than lo and the bridge.
rel_host_extra_links() {
	ip -n "$HOST_NS" -o link show | sed -E 's/^[0-9]+: ([^:@]+).*/\1/' |
		grep -vx -e lo -e "$REL_BR" || true
}

# Lease files (one per address) in the host-local network directory.
rel_leases() {
	local dir="$STATE/ipam/$REL_NET"
	[ -d "$dir" ] || return 0
	find "$dir" -maxdepth 1 -type f ! -name lock ! -name 'last_reserved_ip.*' \
		-printf '%f\n' | sort
}

# podwire's per-attachment index entries (they must not outlive the leases).
rel_index_entries() {
	local dir="$STATE/ipam/$REL_NET/.podwire"
	[ -d "$dir" ] || return 0
	find "$dir" -maxdepth 1 -type f -name '@*' -printf '%f\n' | sort
}

# Elements in podwire's nftables sets of the host netns (one per line).
rel_nft_elements() {
	ip netns exec "$HOST_NS" nft -j list ruleset 2>/dev/null |
		jq -r '.nftables[] | select(.set) | .set | .name as $n |
			(.elem // [])[] | "\($n) \(.|tostring)"' 2>/dev/null || true
}

# Routes of the host netns other than the bridge's subnet route.
rel_host_extra_routes() {
	ip -n "$HOST_NS" route show | grep -v " dev $REL_BR " || true
	ip -n "$HOST_NS" -6 route show | grep -v " dev $REL_BR " | grep -v '^fe80::/64' |
		grep -v '^multicast' || true
}

# rel_assert_no_leaks: print every leaked resource class and fail if any.
rel_assert_no_leaks() {
	local links leases idx elems routes bad=0
	links=$(rel_host_extra_links)
	leases=$(rel_leases)
	idx=$(rel_index_entries)
	elems=$(rel_nft_elements)
	routes=$(rel_host_extra_routes)
	[ -z "$links" ] || { echo "# leaked host links: $(echo $links)" >&2; bad=1; }
	[ -z "$leases" ] || { echo "# leaked leases: $(echo $leases)" >&2; bad=1; }
	[ -z "$idx" ] || { echo "# leaked index entries: $(echo $idx)" >&2; bad=1; }
	[ -z "$elems" ] || { echo "# leaked nftables elements:" >&2; echo "$elems" >&2; bad=1; }
	[ -z "$routes" ] || { echo "# leaked routes:" >&2; echo "$routes" >&2; bad=1; }
	return $bad
}

# rel_plugin NETNS_PATH PLUGIN CMD IFNAME CID CONFIG_FILE: run a plugin in
# $HOST_NS without bats' `run` (for background jobs); stdout to
# $STATE/work/out.CID.IFNAME.CMD, returns the plugin's exit status.
rel_plugin() {
	local netns=$1 plugin=$2 cmd=$3 ifname=$4 cid=$5 conf=$6
	ip netns exec "$HOST_NS" env CNI_COMMAND="$cmd" CNI_CONTAINERID="$cid" \
		CNI_NETNS="$netns" CNI_IFNAME="$ifname" \
		CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN" \
		"$PODWIRE_BIN/$plugin" <"$conf" >"$STATE/work/out.$cid.$ifname.$cmd" \
		2>"$STATE/work/err.$cid.$ifname.$cmd"
}

require_binaries() {
	local b
	for b in "$@"; do
		[ -x "$PODWIRE_TEST_BIN/$b" ] || pw_need "$PODWIRE_BIN/$b"
	done
}
