#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# podwire benchmark harness. See bench/README.md.
#
#   bench/run.sh <build-dir> [--smoke|--medium|--full] [--only <mode>] [--out <dir>]
#
# Modes: floor, bridge-v4, bridge-dual, concurrent, host-local, ipam-exec.
# Every plugin call runs inside a throwaway "host" netns made here; pod netns
# are created before timing starts and everything is removed on exit. The
# smoke profile uses a few pods; the medium one (bench/compare.sh) the 1-pod
# and 100-pod cases at reduced repetitions and no 1000-pod case. No profile
# fails on timing, only on errors, leftovers or duplicate addresses.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 <build-dir> [--smoke|--medium|--full] [--only <mode>] [--out <dir>]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
PROFILE=full
ONLY=""
OUT="$SRC/bench/results"
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) PROFILE=smoke ;;
	--medium) PROFILE=medium ;;
	--full) PROFILE=full ;;
	--only) ONLY=${2:?--only needs a mode}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	*) usage ;;
	esac
	shift
done

MODES="floor bridge-v4 bridge-dual concurrent host-local ipam-exec"
if [ -n "$ONLY" ] && ! grep -qw -- "$ONLY" <<< "$MODES"; then
	echo "run.sh: --only: unknown mode '$ONLY' (modes: $MODES)" >&2
	exit 2
fi

if [ "$PROFILE" = smoke ]; then
	REPS_1POD=3 PODS_SEQ=5 RUNS_SEQ=1 PODS_BIG=25 PODS_CONC=5 RUNS_CONC=1 BIG_SETTLE=0
	LEASES_BIG=200 PODS_HL=5 RUNS_HL=1 EXEC_FLOOR_N=10
elif [ "$PROFILE" = medium ]; then
	REPS_1POD=20 PODS_SEQ=100 RUNS_SEQ=1 PODS_BIG=0 PODS_CONC=20 RUNS_CONC=2 BIG_SETTLE=0
	LEASES_BIG=2000 PODS_HL=50 RUNS_HL=1 EXEC_FLOOR_N=50
else
	REPS_1POD=60 PODS_SEQ=100 RUNS_SEQ=3 PODS_BIG=1000 PODS_CONC=50 RUNS_CONC=3
	LEASES_BIG=10000 PODS_HL=100 RUNS_HL=2 EXEC_FLOOR_N=100 BIG_SETTLE=5
fi
# Sequential DELs start after an untimed pause of 0-20 ms (pwbench --jitter),
# a whole number of scheduler ticks at HZ 100, 250, 300 and 1000. A link
# deletion waits for RCU grace periods, which end on a tick; back to back,
# every DEL starts at the same tick phase and its time moves in whole ticks
# (4 ms at HZ=250) as its own work crosses a tick boundary. DEL_JITTER_MS=0
# restores back-to-back calls.
DEL_JITTER=${DEL_JITTER_MS:-20}

PWBENCH="$BUILD/bench/pwbench"
KFLOOR="$BUILD/bench/kfloor"
PW_BIN="$BUILD/bin"
REF_BIN=/usr/lib/cni
IP=$(command -v ip)

log() { echo "[bench] $*" >&2; }
ERRORS=()
fail() {
	log "ERROR: $*"
	ERRORS+=("$*")
}

# --- prerequisites -----------------------------------------------------------

ensure_pwbench() {
	if [ ! -x "$PWBENCH" ] || [ ! -x "$KFLOOR" ]; then
		cmake --build "$BUILD" --target pwbench kfloor >&2
	fi
}

# The reference plugins are the comparison baseline: install them if missing.
ensure_reference() {
	[ -x "$REF_BIN/bridge" ] && [ -x "$REF_BIN/host-local" ] && return 0
	log "installing containernetworking-plugins"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y containernetworking-plugins >&2; then
		apt-get update >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y containernetworking-plugins >&2
	fi
}

# Implementations measured per mode: the reference always, podwire's bridge
# modes when its bridge is built (its host-local IPAM runs in-process), the
# host-local and ipam-exec modes when its host-local is built too.
IMPLS=(reference)
IMPLS_HL=(reference)
detect_podwire() {
	if [ -x "$PW_BIN/bridge" ]; then
		IMPLS=(podwire reference)
	else
		log "podwire bridge not built in $PW_BIN: bridge modes measure the reference only"
	fi
	if [ -x "$PW_BIN/host-local" ]; then
		IMPLS_HL=(podwire reference)
	else
		log "podwire host-local not built in $PW_BIN: host-local mode measures the reference only"
	fi
}

impl_bin() { [ "$1" = podwire ] && echo "$PW_BIN" || echo "$REF_BIN"; }

# --- namespaces and scratch space --------------------------------------------

ID="pwb$(printf '%04x' $(($$ % 65536)))"
HOST_NS="${ID}h"
TMP=""
PODS_MADE=0

cleanup() {
	# One ip process for all of them (-force: keep going past a failed line).
	"$IP" netns list 2>/dev/null | awk -v p="^${ID}" '$1 ~ p {print "netns del " $1}' |
		"$IP" -force -batch - 2>/dev/null || true
	[ -n "$TMP" ] && rm -rf "$TMP"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

setup() {
	TMP=$(mktemp -d /tmp/pwbench.XXXXXX)
	# The bridge's per-bridge lock files: in the run's temp dir unless set.
	export PODWIRE_LOCK_DIR="${PODWIRE_LOCK_DIR:-$TMP/locks}"
	RAW="$TMP/raw.jsonl"
	: > "$RAW"
	"$IP" netns add "$HOST_NS"
	"$IP" -n "$HOST_NS" link set lo up
}

pod_ns() { echo "${ID}p$1"; }
pod_path() { echo "/var/run/netns/${ID}p$1"; }

# pods_ensure N: pod netns 1..N exist (created in one ip -batch, untimed).
# With POD_RS=off, IPv6 router solicitations are off in them: an idle pod
# keeps soliciting with backoff (there is no router on these bridges), each
# solicitation flooded to every port. The default keeps the kernel's
# default, as pods on a node have it.
pods_ensure() {
	local n=$1 i
	[ "$n" -le "$PODS_MADE" ] && return 0
	for ((i = PODS_MADE + 1; i <= n; i++)); do
		echo "netns add $(pod_ns "$i")"
	done | "$IP" -batch -
	if [ "${POD_RS:-}" = off ]; then
		for ((i = PODS_MADE + 1; i <= n; i++)); do
			"$IP" netns exec "$(pod_ns "$i")" sysctl -qw \
				net.ipv6.conf.default.router_solicitations=0
		done
	fi
	PODS_MADE=$n
}

in_host() { "$IP" netns exec "$HOST_NS" "$@"; }

# --- one pwbench call ----------------------------------------------------------

# measure IMPL MODE CASE -- pwbench args...: run pwbench in the host netns and
# append its JSON line, tagged with impl/mode/case, to $RAW.
measure() {
	local impl=$1 mode=$2 case=$3 line rc=0
	shift 4
	line=$(in_host "$PWBENCH" --label "$mode/$impl/$case" --env "PODWIRE_LOCK_DIR=$PODWIRE_LOCK_DIR" "$@") || rc=$?
	if [ -z "$line" ]; then
		fail "$mode/$impl/$case: pwbench failed to run (exit $rc)"
		return 0
	fi
	[ "$rc" -eq 0 ] || fail "$mode/$impl/$case: $(jq -r .failed <<< "$line") of $(jq -r .count <<< "$line") calls failed"
	jq -c --arg i "$impl" --arg m "$mode" --arg c "$case" \
		'. + {impl: $i, mode: $m, case: $c}' <<< "$line" >> "$RAW"
}

# plugin_call IMPL MODE CASE CMD CONF FIRST COUNT [pwbench args...]
plugin_call() {
	local impl=$1 mode=$2 case=$3 cmd=$4 conf=$5 first=$6 count=$7 bin
	shift 7
	bin=$(impl_bin "$impl")
	[ "$cmd" = DEL ] && set -- --jitter "$DEL_JITTER" "$@"
	measure "$impl" "$mode" "$case" -- --cmd "$cmd" --plugin "$bin/${PLUGIN:-bridge}" \
		--cni-path "$bin" --conf "$conf" --netns "/var/run/netns/${ID}p{i}" \
		--cid "${ID}-{i}" --first "$first" --count "$count" "$@"
}

# --- configs -------------------------------------------------------------------

# write_conf FILE NET BRIDGE DATADIR dual|v4 [V4SUBNET]
write_conf() {
	local file=$1 net=$2 br=$3 datadir=$4 fam=$5 v4=${6:-10.99.0.0/16} ranges
	ranges="[{\"subnet\": \"$v4\"}]"
	[ "$fam" = dual ] && ranges="$ranges"', [{"subnet": "fd99:1::/64"}]'
	cat > "$file" <<-EOF
	{
	  "cniVersion": "1.0.0",
	  "name": "$net",
	  "type": "bridge",
	  "bridge": "$br",
	  "isGateway": true,
	  "ipam": {
	    "type": "host-local",
	    "dataDir": "$datadir",
	    "ranges": [$ranges]
	  }
	}
	EOF
}

# --- leftover and duplicate checks ---------------------------------------------

# lease_files DIR: the reservations in a host-local network dir: one file per
# address at the top (not lock, not last_reserved_ip.N), plus podwire's
# per-attachment index entries (.podwire/@<id>:<ifname>); podwire's
# .podwire/state is bookkeeping that stays, and entries for the prefilled
# leases (ids prefill-N) belong to those.
lease_files() {
	find "$1" -maxdepth 1 -type f ! -name lock ! -name 'last_reserved_ip.*'
	[ -d "$1/.podwire" ] && find "$1/.podwire" -type f -name '@*' ! -name '@prefill-*'
	return 0
}

# check_clean WHAT BRIDGE LEASEDIR [KEEP]: no veth in the host netns, no lease
# files beyond KEEP prefilled ones, no nft set elements; then drop the bridge.
check_clean() {
	local what=$1 br=$2 dir=$3 keep=${4:-0} n v
	n=$(in_host "$IP" -o link show type veth | wc -l)
	if [ "$n" -ne 0 ]; then
		fail "$what: $n veth(s) left in the host netns"
		# Scrub so that the next measurement starts clean (the pod ends go too).
		for v in $(in_host "$IP" -o link show type veth | awk -F'[:@ ]+' '{print $2}'); do
			in_host "$IP" link del "$v" 2>/dev/null || true
		done
	fi
	if [ -d "$dir" ]; then
		n=$(lease_files "$dir" | wc -l)
		if [ "$n" -ne "$keep" ]; then
			fail "$what: $((n - keep)) lease file(s) left in $dir"
			[ "$keep" -eq 0 ] && lease_files "$dir" | xargs -r rm -f
		fi
	fi
	n=$(in_host nft -j list ruleset 2>/dev/null |
		jq '[.nftables[]? | select(.set) | (.set.elem // []) | length] | add // 0' 2>/dev/null || echo 0)
	[ "$n" -eq 0 ] || fail "$what: $n nft set element(s) left"
	[ -n "$br" ] && in_host "$IP" link del "$br" 2>/dev/null || true
}

# check_dups WHAT FILE: no address handed out twice among live pods.
check_dups() {
	local d
	[ -s "$2" ] || { fail "$1: no addresses recorded"; return 0; }
	d=$(sed 's,/.*,,' "$2" | sort | uniq -d | head -5)
	[ -z "$d" ] || fail "$1: duplicate addresses: $(tr '\n' ' ' <<< "$d")"
	: > "$2"
}

# --- floors ---------------------------------------------------------------------

# The kernel floor is kfloor (bench/kfloor.c): the netlink work and a lease
# file in one process per pod, timed by pwbench exactly like a plugin.
# floor_add CASE FIRST COUNT BRIDGE [pwbench args]
floor_add() {
	local case=$1 first=$2 count=$3 br=$4
	shift 4
	mkdir -p "$TMP/floor-leases"
	measure floor floor "$case" -- --cmd EXEC --first "$first" --count "$count" \
		--step "$KFLOOR add /var/run/netns/${ID}p{i} pwv{i} $br 10.98.0.0/16+{i} 10.98.0.1 $TMP/floor-leases/{i}" "$@"
}

floor_del() {
	local case=$1-del first=$2 count=$3
	shift 3
	measure floor floor "$case" -- --cmd EXEC --first "$first" --count "$count" \
		--jitter "$DEL_JITTER" --step "$KFLOOR del pwv{i} $TMP/floor-leases/{i}" "$@"
}

# The same work as ip -batch files (two ip processes per pod, because a batch
# cannot switch netns): the floor as a shell user would script it.
floor_ip_files() {
	local i
	mkdir -p "$TMP/floor-ip"
	for ((i = 1; i <= $1; i++)); do
		printf 'link add pwv%d type veth peer name eth0 netns %s\nlink set pwv%d master %s up\n' \
			"$i" "$(pod_ns "$i")" "$i" "$2" > "$TMP/floor-ip/h$i"
		printf 'addr add 10.98.%d.%d/16 dev eth0\nlink set eth0 up\nroute add default via 10.98.0.1\n' \
			$(((i + 1) / 256)) $(((i + 1) % 256)) > "$TMP/floor-ip/p$i"
	done
}

# The kernel floor's 1-pod, sequential and 1000-pod cases run interleaved
# with the plugins' (mode bridge-v4), so that every ratio compares calls
# made under the same conditions of the machine.
floor_one_pod() {
	pods_ensure "$REPS_1POD"
	floor_add 1pod "$1" 1 pwbfl1
	floor_del 1pod "$1" 1
	check_clean "floor 1pod" pwbfl1 "$TMP/floor-leases"
}

floor_seq_pods() {
	pods_ensure "$PODS_SEQ"
	floor_add seq 1 "$PODS_SEQ" pwbfl0
	floor_del seq 1 "$PODS_SEQ"
	check_clean "floor seq" pwbfl0 "$TMP/floor-leases"
}

mode_floor() {
	local r br=pwbfl0
	log "floor: exec floor"
	measure floor floor exec -- --cmd EXEC --plugin /bin/true --count "$EXEC_FLOOR_N"

	log "floor: $PODS_SEQ pods with ip -batch"
	pods_ensure "$PODS_SEQ"
	floor_ip_files "$PODS_SEQ" "$br"
	in_host "$IP" link add "$br" type bridge
	in_host "$IP" link set "$br" up
	measure floor-ip floor seq -- --cmd EXEC --first 1 --count "$PODS_SEQ" \
		--step "$IP -batch $TMP/floor-ip/h{i}" --step "$IP -n ${ID}p{i} -batch $TMP/floor-ip/p{i}"
	measure floor-ip floor seq-del -- --cmd EXEC --first 1 --count "$PODS_SEQ" \
		--jitter "$DEL_JITTER" --step "$IP link del pwv{i}"
	check_clean "floor ip-batch" "$br" ""

	log "floor: $PODS_CONC concurrent x $RUNS_CONC runs"
	pods_ensure "$PODS_CONC"
	for ((r = 1; r <= RUNS_CONC; r++)); do
		# The bridge first, so concurrent pods do not race to create it.
		floor_add conc-bridge 1 1 "$br"
		floor_del conc-bridge 1 1
		floor_add conc 1 "$PODS_CONC" "$br" --concurrent
		floor_del conc 1 "$PODS_CONC" --concurrent
		check_clean "floor conc" "$br" "$TMP/floor-leases"
	done
}

# --- plugin modes -------------------------------------------------------------------

# seq_pods IMPL MODE FAM BR EXPECT_IPS R [env...]: run R of PODS_SEQ ADDs then DELs.
seq_pods() {
	local impl=$1 mode=$2 fam=$3 br=$4 nips=$5 r=$6 conf dd
	shift 6
	pods_ensure "$PODS_SEQ"
	dd="$TMP/ipam-$mode-$impl-$r"
	conf="$TMP/$mode-$impl-seq.json"
	write_conf "$conf" "net-$mode" "$br" "$dd" "$fam"
	plugin_call "$impl" "$mode" seq ADD "$conf" 1 "$PODS_SEQ" \
		--expect-ips "$nips" --ips-out "$TMP/ips" "$@"
	check_dups "$mode/$impl seq" "$TMP/ips"
	plugin_call "$impl" "$mode" seq DEL "$conf" 1 "$PODS_SEQ" "$@"
	check_clean "$mode/$impl seq" "$br" "$dd/net-$mode"
}

# one_pod IMPL MODE FAM BR EXPECT_IPS R: repetition R of ADD+DEL of one pod,
# bridge created each time.
one_pod() {
	local impl=$1 mode=$2 fam=$3 br=$4 nips=$5 r=$6 conf dd="$TMP/ipam-$2-$1-1pod"
	conf="$TMP/$mode-$impl-1pod.json"
	write_conf "$conf" "net-$mode" "$br" "$dd" "$fam"
	pods_ensure "$REPS_1POD"
	plugin_call "$impl" "$mode" 1pod ADD "$conf" "$r" 1 --expect-ips "$nips"
	plugin_call "$impl" "$mode" 1pod DEL "$conf" "$r" 1
	check_clean "$mode/$impl 1pod" "$br" "$dd/net-$mode"
}

# The 1000-pod case. The floor and every implementation each fill their own
# bridge in their own "host" namespace (own subnet, own pod namespaces: the
# floor uses pods 1..N, the k-th implementation pods k*N+1..(k+1)*N). Pods
# 1-10 and N-9..N are reported apart; DEL takes pod N alone (big-last), then
# pods 1..N-1 (big).
#
# Why a host namespace each: with thousands of links in one namespace the
# kernel's per-namespace work grows (every link state change walks the IPv6
# routing table, which holds routes for every link), so sharing one would
# make whoever fills their bridge last pay for the others' links. Why ADD
# fills one after another, BIG_SETTLE seconds apart, rather than
# interleaved: a new port's IPv6 link-local traffic (DAD, MLD reports) goes
# out during the next second or two and is flooded to every port of its
# bridge, and whoever runs then pays for it; interleaved, the floor (which
# leaves DAD on, so its traffic comes later) handed that cost to the next in
# turn. DEL has no such after-effect and runs interleaved, 10 pods at a
# time, with all bridges full.
big_br() { echo "pwbb-${1:0:3}"; }
big_ns() { echo "${ID}b$1"; }

# big_fill IMPL K: ADD pods 1..N of implementation K (0: the floor).
big_fill() {
	local impl=$1 base=$(($2 * PODS_BIG)) n=$PODS_BIG b count case
	for ((b = 1; b <= n; b += count)); do
		if [ "$b" -eq 1 ]; then
			case=big-first10 count=10
		elif [ "$b" -eq $((n - 9)) ]; then
			case=big-last10 count=10
		else
			case=big-middle count=$((n - 10 - b + 1))
		fi
		if [ "$impl" = floor ]; then
			floor_add "$case" "$b" "$count" pwbfl0
		else
			plugin_call "$impl" bridge-v4 "$case" ADD "$TMP/big-$impl.json" $((base + b)) \
				"$count" --expect-ips 1 --ips-out "$TMP/ips-big-$impl"
		fi
	done
}

# big_del_block CASE FIRST COUNT: DEL one block of pods, floor then each impl.
big_del_block() {
	local case=$1 first=$2 count=$3 impl k=0
	HOST_NS=$(big_ns 0) floor_del "$case" "$first" "$count"
	for impl in "${IMPLS[@]}"; do
		k=$((k + 1))
		HOST_NS=$(big_ns $k) plugin_call "$impl" bridge-v4 "$case" DEL "$TMP/big-$impl.json" \
			$((k * PODS_BIG + first)) "$count"
	done
}

big_bridges() {
	local n=$PODS_BIG impl k b count
	pods_ensure $(((${#IMPLS[@]} + 1) * n))
	for ((k = 0; k <= ${#IMPLS[@]}; k++)); do
		"$IP" netns add "$(big_ns $k)"
		"$IP" -n "$(big_ns $k)" link set lo up
	done
	HOST_NS=$(big_ns 0) big_fill floor 0
	k=0
	for impl in "${IMPLS[@]}"; do
		k=$((k + 1))
		write_conf "$TMP/big-$impl.json" net-big "$(big_br "$impl")" "$TMP/ipam-big-$impl" v4
		sleep "$BIG_SETTLE"
		HOST_NS=$(big_ns $k) big_fill "$impl" "$k"
		check_dups "bridge-v4/$impl big" "$TMP/ips-big-$impl"
	done
	sleep "$BIG_SETTLE"
	big_del_block big-last "$n" 1
	for ((b = 1; b <= n - 1; b += 10)); do
		count=$((n - 1 - b + 1))
		[ "$count" -gt 10 ] && count=10
		big_del_block big "$b" "$count"
	done
	HOST_NS=$(big_ns 0) check_clean "floor big" pwbfl0 "$TMP/floor-leases"
	k=0
	for impl in "${IMPLS[@]}"; do
		k=$((k + 1))
		HOST_NS=$(big_ns $k) check_clean "bridge-v4/$impl big" "$(big_br "$impl")" \
			"$TMP/ipam-big-$impl/net-big"
	done
	for ((k = 0; k <= ${#IMPLS[@]}; k++)); do
		"$IP" netns del "$(big_ns $k)"
	done
}

mode_bridge_v4() {
	local impl r
	log "bridge-v4: 1 pod x $REPS_1POD, $PODS_SEQ pods x $RUNS_SEQ (floor, ${IMPLS[*]} interleaved)"
	for ((r = 1; r <= REPS_1POD; r++)); do
		floor_one_pod "$r"
		for impl in "${IMPLS[@]}"; do
			one_pod "$impl" bridge-v4 v4 pwbv4a 1 "$r"
		done
	done
	for ((r = 1; r <= RUNS_SEQ; r++)); do
		floor_seq_pods
		for impl in "${IMPLS[@]}"; do
			seq_pods "$impl" bridge-v4 v4 pwbv4b 1 "$r"
		done
	done
	[ "$PODS_BIG" -gt 0 ] || return 0
	log "bridge-v4: $PODS_BIG pods on one bridge each (floor, ${IMPLS[*]}; a host netns each)"
	big_bridges
}

mode_bridge_dual() {
	local impl r
	log "bridge-dual: 1 pod x $REPS_1POD, $PODS_SEQ pods x $RUNS_SEQ (${IMPLS[*]} interleaved)"
	for ((r = 1; r <= REPS_1POD; r++)); do
		for impl in "${IMPLS[@]}"; do
			one_pod "$impl" bridge-dual dual pwbdsa 2 "$r"
		done
	done
	for ((r = 1; r <= RUNS_SEQ; r++)); do
		for impl in "${IMPLS[@]}"; do
			seq_pods "$impl" bridge-dual dual pwbdsb 2 "$r"
		done
	done
}

mode_concurrent() {
	local impl r conf dd br=pwbconc
	pods_ensure "$PODS_CONC"
	for impl in "${IMPLS[@]}"; do
		log "concurrent/$impl: $PODS_CONC ADDs then DELs x $RUNS_CONC"
		for ((r = 1; r <= RUNS_CONC; r++)); do
			dd="$TMP/ipam-conc-$impl-$r"
			conf="$TMP/conc-$impl.json"
			write_conf "$conf" net-conc "$br" "$dd" v4
			plugin_call "$impl" concurrent conc ADD "$conf" 1 "$PODS_CONC" --concurrent \
				--expect-ips 1 --ips-out "$TMP/ips"
			check_dups "concurrent/$impl" "$TMP/ips"
			plugin_call "$impl" concurrent conc DEL "$conf" 1 "$PODS_CONC" --concurrent
			check_clean "concurrent/$impl" "$br" "$dd/net-conc"
		done
	done
}

mode_ipam_exec() {
	if [ "${IMPLS[0]}" != podwire ] || [ "${IMPLS_HL[0]}" != podwire ]; then
		log "ipam-exec: podwire bridge or host-local not built, skipped"
		return 0
	fi
	local r
	log "ipam-exec: podwire with PODWIRE_IPAM_EXEC=1, $PODS_SEQ pods x $RUNS_SEQ"
	for ((r = 1; r <= RUNS_SEQ; r++)); do
		seq_pods podwire ipam-exec v4 pwbipx 1 "$r" --env PODWIRE_IPAM_EXEC=1
	done
}

# prefill_leases DIR N: N leases in the reference's on-disk layout.
prefill_leases() {
	local dir=$1 n=$2 i ip=""
	mkdir -p "$dir"
	for ((i = 0; i < n; i++)); do
		ip="10.97.$(((i + 2) / 256)).$(((i + 2) % 256))"
		printf 'prefill-%d\r\neth0' "$i" > "$dir/$ip"
	done
	[ -n "$ip" ] && printf '%s' "$ip" > "$dir/last_reserved_ip.0"
	return 0
}

mode_host_local() {
	local impl r leases conf dd case
	pods_ensure "$PODS_HL"
	for impl in "${IMPLS_HL[@]}"; do
		for leases in 0 "$LEASES_BIG"; do
			case=leases-$leases
			log "host-local/$impl: $leases existing leases, $PODS_HL ADDs+DELs x $RUNS_HL"
			for ((r = 1; r <= RUNS_HL; r++)); do
				dd="$TMP/hl-$impl-$leases-$r"
				conf="$TMP/hl-$impl.json"
				cat > "$conf" <<-EOF
				{"cniVersion": "1.0.0", "name": "net-hl", "type": "host-local",
				 "ipam": {"type": "host-local", "dataDir": "$dd",
				          "ranges": [[{"subnet": "10.97.0.0/16"}]]}}
				EOF
				prefill_leases "$dd/net-hl" "$leases"
				PLUGIN=host-local plugin_call "$impl" host-local "$case" ADD "$conf" 1 "$PODS_HL" \
					--expect-ips 1 --ips-out "$TMP/ips"
				check_dups "host-local/$impl $case" "$TMP/ips"
				PLUGIN=host-local plugin_call "$impl" host-local "$case" DEL "$conf" 1 "$PODS_HL"
				check_clean "host-local/$impl $case" "" "$dd/net-hl" "$leases"
			done
		done
	done
}

# --- binary facts ---------------------------------------------------------------------

binary_facts() {
	local impl bin p
	for impl in "${IMPLS[@]}"; do
		bin=$(impl_bin "$impl")
		for p in bridge host-local; do
			[ -x "$bin/$p" ] || continue
			jq -nc --arg i "$impl" --arg p "$p" --argjson s "$(stat -c %s "$bin/$p")" \
				--argjson n "$(ldd "$bin/$p" 2>/dev/null | grep -c '=>' || true)" \
				'{mode: "binary", impl: $i, case: $p, size: $s, shared_libs: $n}' >> "$RAW"
		done
	done
}

# --- main -----------------------------------------------------------------------------------

main() {
	local m t started
	ensure_pwbench
	ensure_reference
	detect_podwire
	setup
	started=$(date +%s)
	for m in $MODES; do
		[ -n "$ONLY" ] && [ "$ONLY" != "$m" ] && continue
		t=$(date +%s)
		"mode_${m//-/_}"
		log "$m: $(($(date +%s) - t)) s"
	done
	binary_facts
	mkdir -p "$OUT"
	jq -s --arg date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
		--arg machine "$(nproc) vCPU, $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")" \
		--arg profile "$PROFILE" --argjson secs "$(($(date +%s) - started))" \
		--argjson config "$(jq -nc --argjson a "$REPS_1POD" --argjson b "$PODS_SEQ" \
			--argjson c "$RUNS_SEQ" --argjson d "$PODS_BIG" --argjson e "$PODS_CONC" \
			--argjson f "$RUNS_CONC" --argjson g "$LEASES_BIG" --argjson h "$PODS_HL" \
			'{reps_1pod: $a, pods_seq: $b, runs_seq: $c, pods_big: $d, pods_conc: $e,
			  runs_conc: $f, leases_big: $g, pods_hl: $h}')" \
		--argjson errors "$(printf '%s\n' "${ERRORS[@]+"${ERRORS[@]}"}" | jq -R . | jq -s 'map(select(length > 0))')" \
		-f "$SRC/bench/summarize.jq" "$RAW" > "$OUT/latest.json"
	jq -r -f "$SRC/bench/report.jq" "$OUT/latest.json" | tee "$OUT/latest.md"
	if [ "${#ERRORS[@]}" -gt 0 ]; then
		log "${#ERRORS[@]} error(s):"
		printf '  %s\n' "${ERRORS[@]}" >&2
		exit 1
	fi
	log "done in $(($(date +%s) - started)) s, no errors, no leftovers, no duplicates"
}

main
