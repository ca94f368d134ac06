#!/bin/bash
# Chaos test for the bridge plugin: SIGKILL an ADD at a random moment, then
# DEL the attachment (twice: DEL is idempotent) and finally GC the network;
# afterwards nothing may be left: no host veth, no pod interface, no lease,
# no podwire index entry, no nftables element, no route.
#
#   scripts/chaos.sh [BIN_DIR]          (default: build/bin)
#
# Environment: CHAOS_TRIALS (default 40), CHAOS_SEED (default: random; the
# seed is printed so a run can be repeated), CHAOS_VERBOSE=1 (one line per
# trial), CHAOS_IPMASQ=0 (the bridge without ipMasq: a shorter ADD, so the
# kills land more often in the IPAM steps). Needs root. Everything happens in throwaway network namespaces
# and a temporary directory, removed on exit, failure or Ctrl-C.
#
# The kill delay is uniform in [0, D], D tracking the ADD's duration (see
# the calibration below), so some ADDs die before doing anything, most in
# the middle, about one in seven completes.
#
# Trials cycle through three clean-up paths: DEL with the pod netns (2 in
# 4); pod netns deleted first, then DEL with an empty CNI_NETNS
# as a runtime does when the sandbox is already gone (1 in 4); pod netns
# deleted and no DEL at all, a runtime that lost track, so only the final GC
# (cni.dev/valid-attachments: []) releases the lease and nftables elements
# (1 in 4).
#
# Output: one summary line "chaos: trials=N killed=K completed=C ..." and,
# for each problem, a line starting with "FAIL". Exit status 0 only if
# nothing failed and nothing leaked.
set -u

BIN=${1:-build/bin}
BIN=$(cd "$BIN" && pwd) || exit 2
TRIALS=${CHAOS_TRIALS:-40}
IPMASQ=true
[ "${CHAOS_IPMASQ:-1}" = 0 ] && IPMASQ=false
SEED=${CHAOS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$SEED

ID=$(printf 'pwc%04x%04x' "$$" "$((RANDOM))")
HOST_NS=${ID}h
NET=chaosnet
BR=chaosbr0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/podwire-chaos.XXXXXX")
# Lock files of shared resources (the bridge's): in this run's temp dir, not /run/podwire.
export PODWIRE_LOCK_DIR="${PODWIRE_LOCK_DIR:-$WORK/locks}"
FAILS=0

# Pod netns are made in command substitutions (subshells), so find them by
# this run's unique prefix rather than in a list.
cleanup() {
	local ns
	for ns in $(ip netns list | awk -v p="${ID}p" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$ns" 2>/dev/null
	done
	ip netns del "$HOST_NS" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL $*"
	FAILS=$((FAILS + 1))
}

[ -x "$BIN/bridge" ] && [ -x "$BIN/host-local" ] || {
	echo "chaos: bridge and host-local must be built in $BIN" >&2
	exit 2
}
ip netns add "$HOST_NS" && ip -n "$HOST_NS" link set lo up || exit 2

conf() { # conf CNIVERSION [EXTRA-JSON-MEMBERS]
	printf '{"cniVersion":"%s","name":"%s","type":"bridge","bridge":"%s",' "$1" "$NET" "$BR"
	printf '"isGateway":true,"ipMasq":%s,"macspoofchk":true,%s' "$IPMASQ" "${2:+$2,}"
	printf '"ipam":{"type":"host-local","subnet":"10.88.0.0/16","dataDir":"%s/ipam"}}' "$WORK"
}
conf 1.1.0 >"$WORK/add.json"
conf 1.1.0 '"cni.dev/valid-attachments":[]' >"$WORK/gc.json"

# plugin CMD CID NETNS [timeout-args...]: run the bridge in the host netns.
plugin() {
	local cmd=$1 cid=$2 netns=$3
	shift 3
	ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" CNI_COMMAND="$cmd" CNI_CONTAINERID="$cid" \
		CNI_NETNS="$netns" CNI_IFNAME=eth0 CNI_PATH="$BIN" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		timeout "$@" "$BIN/bridge" <"$WORK/add.json" >"$WORK/out" 2>"$WORK/err"
}

new_pod() {
	local ns=${ID}p$1
	ip netns add "$ns" && ip -n "$ns" link set lo up || return 1
	echo "$ns"
}

drop_pod() {
	ip netns del "$1" 2>/dev/null
}

now_us() {
	local t
	t=$(date +%s%N)
	echo $((t / 1000))
}

# Calibrate D: the median of seven undisturbed ADDs less the median cost of
# starting `ip netns exec ... timeout` (the kill timer starts after that).
# Both vary with the machine's load, so D is only a first guess: after each
# trial it shrinks by 25% when the ADD completed and grows by 5% when it was
# killed, which settles where about one ADD in seven completes and the kills
# spread over the whole ADD.
median() {
	printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"
}
overhead=()
for i in 1 2 3 4 5 6 7; do
	t0=$(now_us)
	ip netns exec "$HOST_NS" timeout 30 true
	overhead+=($(($(now_us) - t0)))
done
times=()
for i in 1 2 3 4 5 6 7; do
	ns=$(new_pod cal$i) || exit 2
	t0=$(now_us)
	plugin ADD cal$i "/var/run/netns/$ns" 30 || { cat "$WORK/out"; exit 2; }
	times+=($(($(now_us) - t0)))
	plugin DEL cal$i "/var/run/netns/$ns" 30 || { cat "$WORK/out"; exit 2; }
	drop_pod "$ns"
done
D=$(($(median "${times[@]}") - $(median "${overhead[@]}")))
[ "$D" -gt 5000 ] || D=5000
D0=$D

# Host links other than lo and the bridge.
extra_links() {
	ip -n "$HOST_NS" -o link show | awk -v br="$BR" '{ sub(/@.*/, "", $2); sub(/:$/, "", $2) }
		$2 != "lo" && $2 != br { printf "%s ", $2 }'
}

# Leaks of one attachment (every earlier one was clean, so any extra host
# link is this one's): host links, pod interfaces, its lease and index
# entry, its nftables elements (tagged "<cid>/eth0"). A netns deleted before
# DEL takes its veth pair with it, but the kernel does that asynchronously:
# host links get up to 3 s to go.
attachment_links_leak() {
	local links i
	for i in $(seq 1 30); do
		links=$(extra_links)
		[ -z "$links" ] && break
		sleep 0.1
	done
	[ -n "$links" ] && echo " host-links:$links"
}

# "<address> <containerID>/<ifname>" for every lease file.
lease_owners() {
	local f
	for f in "$WORK/ipam/$NET"/*; do
		case ${f##*/} in
		lock | last_reserved_ip.* | \*) continue ;;
		esac
		[ -f "$f" ] && printf '%s %s\n' "${f##*/}" "$(tr -d '\n' <"$f" | tr '\r' /)"
	done
}

attachment_leaks() {
	local cid=$1 ns=$2 out=""
	out+=$(attachment_links_leak)
	if [ -n "$ns" ]; then
		out+=$(ip -n "$ns" -o link show 2>/dev/null | awk '$2 != "lo:" { print " pod-link:" $2 }')
	fi
	out+=$(lease_owners | awk -v a="$cid/eth0" -v b="$cid" '$2 == a || $2 == b { print " lease:" $1 }')
	# An empty lease names nobody: no DEL can match it (only the last ADD can have left it).
	out+=$(lease_owners | awk 'NF == 1 { print " ownerless-lease:" $1 }')
	[ -e "$WORK/ipam/$NET/.podwire/@$cid:eth0" ] && out+=" index:@$cid:eth0"
	out+=$(ip netns exec "$HOST_NS" nft list ruleset 2>/dev/null | grep -F "\"$cid/eth0\"" |
		sed 's/^[[:space:]]*/ nft:/')
	echo "$out"
}

killed=0 completed=0 failed_add=0 netns_gone=0 del_leaks=0 gc_only=0
t_start=$(now_us)
for i in $(seq 1 "$TRIALS"); do
	cid=chaos$i
	ns=$(new_pod "$i") || { fail "trial $i: cannot create pod netns"; continue; }
	delay_us=$((1 + (RANDOM * 32768 + RANDOM) % (D + 1)))
	delay=$(printf '%d.%06d' $((delay_us / 1000000)) $((delay_us % 1000000)))
	# A subshell, so bash's "Killed" notice goes nowhere.
	(plugin ADD "$cid" "/var/run/netns/$ns" -s KILL "$delay") 2>/dev/null
	rc=$?
	case $rc in
	0)
		completed=$((completed + 1))
		D=$((D * 3 / 4 > 1000 ? D * 3 / 4 : 1000))
		;;
	137)
		killed=$((killed + 1))
		D=$((D * 21 / 20))
		;;
	*)
		failed_add=$((failed_add + 1))
		fail "trial $i: ADD (not killed, delay ${delay}s) exit $rc: $(head -c 300 "$WORK/out")"
		;;
	esac
	netns=/var/run/netns/$ns
	mode=$((i % 4))
	if [ "$mode" -eq 0 ] || [ "$mode" -eq 2 ]; then
		# The sandbox is gone before DEL: the kernel takes the veth pair with it.
		drop_pod "$ns"
		netns=""
		netns_gone=$((netns_gone + 1))
	fi
	if [ "$mode" -eq 2 ]; then
		# The runtime lost the attachment (no DEL at all): only GC cleans up.
		gc_only=$((gc_only + 1))
		leaks=$(attachment_links_leak)
		[ -z "$leaks" ] || fail "trial $i: host links outlive the pod netns:$leaks"
	else
		for attempt in 1 2; do
			plugin DEL "$cid" "$netns" 30 ||
				fail "trial $i: DEL #$attempt after ADD exit $rc (delay ${delay}s): $(head -c 300 "$WORK/out")"
		done
		leaks=$(attachment_leaks "$cid" "${netns:+$ns}")
		if [ -n "$leaks" ]; then
			del_leaks=$((del_leaks + 1))
			fail "trial $i: left after DEL (ADD exit $rc, delay ${delay}s):$leaks"
		fi
	fi
	[ "${CHAOS_VERBOSE:-0}" = 1 ] &&
		echo "trial $i: delay ${delay}s ADD exit $rc${leaks:+ leaks:$leaks}"
	[ -n "$netns" ] && drop_pod "$ns"
done

# GC with an empty valid-attachments list: nothing of this network is valid.
ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" CNI_COMMAND=GC CNI_PATH="$BIN" \
	timeout 30 "$BIN/bridge" <"$WORK/gc.json" >"$WORK/out" 2>"$WORK/err" ||
	fail "GC: $(head -c 300 "$WORK/out")"

# Whole-network leak check after GC.
links=$(extra_links)
leases=$(find "$WORK/ipam/$NET" -maxdepth 1 -type f ! -name lock ! -name 'last_reserved_ip.*' \
	-printf '%f ' 2>/dev/null)
index=$(find "$WORK/ipam/$NET/.podwire" -maxdepth 1 -name '@*' -printf '%f ' 2>/dev/null)
elems=$(ip netns exec "$HOST_NS" nft -j list ruleset 2>/dev/null |
	jq -r '[.nftables[] | select(.set) | .set.elem // [] | length] | add // 0')
routes=$(ip -n "$HOST_NS" route show | grep -vc " dev $BR ")
[ -z "$links" ] || fail "leaked host links after GC: $links"
[ -z "$leases" ] || fail "leaked leases after GC: $leases"
[ -z "$index" ] || fail "leaked index entries after GC: $index"
[ "$elems" = 0 ] || fail "leaked nftables elements after GC: $elems"
[ "$routes" = 0 ] || fail "leaked host routes after GC: $(ip -n "$HOST_NS" route show | grep -v " dev $BR ")"

t_total=$((($(now_us) - t_start) / 1000))
echo "chaos: trials=$TRIALS ipmasq=$IPMASQ killed=$killed completed=$completed add_failed=$failed_add" \
	"netns_gone_first=$netns_gone no_del_gc_only=$gc_only left_after_del=$del_leaks" \
	"after_gc: links=${links:-none} leases=${leases:-none} index=${index:-none}" \
	"nft_elements=$elems routes=$routes" \
	"add_us_start=$D0 add_us_end=$D seed=$SEED time_ms=$t_total failures=$FAILS"
[ "$FAILS" -eq 0 ]
