#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/startup/run.sh: builds of the same plugin that differ in one start-up
# optimisation, measured against each other in one run (bench/README.md,
# "Start-up optimisations"). Each LABEL=DIR names a directory holding a
# bridge (and host-local) binary. A round runs bridge ADD (host-local
# in-process) of pods 1..N for every build, then their DEL, through pwbench
# in a throwaway host netns, in blocks of BLOCK pods: every build in turn on
# each block, the order rotating with the block and the round, so that all
# builds see the machine in the same state. Every build has its own bridge
# and pod netns. Prints per build the median latency of each round, the
# median of those medians, the median CPU time (user + system, which the
# machine's other load inflates far less than latency), and the median and
# maximum peak RSS of ADD.
#
#   bench/startup/run.sh BUILD-DIR [--pods N] [--rounds R] [--block B] [--out FILE] LABEL=DIR...
#
# Defaults: 100 pods, 3 rounds, blocks of 10. BUILD-DIR provides pwbench
# (built if missing). Root: network namespaces.
set -euo pipefail

usage() {
	echo "usage: $0 BUILD-DIR [--pods N] [--rounds R] [--block B] [--out FILE] LABEL=DIR..." >&2
	exit 2
}
[ $# -ge 2 ] || usage
BUILD=$(cd "$1" && pwd)
shift
PODS=100 ROUNDS=3 BLOCK=10 OUT=""
LABELS=() DIRS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--pods) PODS=${2:?}; shift ;;
	--rounds) ROUNDS=${2:?}; shift ;;
	--block) BLOCK=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	*=*) LABELS+=("${1%%=*}"); DIRS+=("$(cd "${1#*=}" && pwd)") ;;
	*) usage ;;
	esac
	shift
done
if [ ${#LABELS[@]} -lt 1 ] || [ $((PODS % BLOCK)) -ne 0 ]; then usage; fi

PWBENCH=$BUILD/bench/pwbench
[ -x "$PWBENCH" ] || cmake --build "$BUILD" --target pwbench >&2
ID="pws$(printf '%04x' $(($$ % 65536)))"
TMP=$(mktemp -d /tmp/pwstartup.XXXXXX)
RAW=$TMP/raw.jsonl
export PODWIRE_LOCK_DIR=$TMP/locks

cleanup() {
	ip netns list 2>/dev/null | awk -v p="^${ID}" '$1 ~ p {print "netns del " $1}' |
		ip -force -batch - 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every binary starts from an empty page cache, so each ends up with the
# pages its own calls read: fault-around maps only pages in the cache, and
# what happens to be cached would otherwise move peak RSS by ~100 KB.
for dir in "${DIRS[@]}"; do
	for f in "$dir"/*; do dd if="$f" iflag=nocache count=0 status=none; done
done

ip netns add "${ID}h"
ip -n "${ID}h" link set lo up
n=${#LABELS[@]}
for ((k = 0; k < n; k++)); do
	for ((i = 1; i <= PODS; i++)); do echo "netns add ${ID}b${k}p$i"; done
	cat >"$TMP/conf$k.json" <<-EOF
	{"cniVersion": "1.0.0", "name": "pws$k", "type": "bridge", "bridge": "pwsbr$k",
	 "isGateway": true,
	 "ipam": {"type": "host-local", "dataDir": "$TMP/data$k",
	          "ranges": [[{"subnet": "10.97.0.0/16"}]]}}
	EOF
done | ip -batch -

# call K CMD ROUND FIRST: CMD of pods FIRST.. FIRST+BLOCK-1 with build K.
call() {
	local k=$1 cmd=$2 extra=() line
	[ "$cmd" = DEL ] && extra=(--jitter 20)
	line=$(ip netns exec "${ID}h" "$PWBENCH" --label "${LABELS[$k]}" --cmd "$cmd" \
		--plugin "${DIRS[$k]}/bridge" --cni-path "${DIRS[$k]}" --conf "$TMP/conf$k.json" \
		--env "PODWIRE_LOCK_DIR=$PODWIRE_LOCK_DIR" --netns "/var/run/netns/${ID}b${k}p{i}" \
		--cid "$ID-$k-{i}" --first "$4" --count "$BLOCK" "${extra[@]}") ||
		{ echo "startup: ${LABELS[$k]} $cmd: calls failed" >&2; exit 1; }
	jq -c --argjson r "$3" '{label: .label, cmd: .cmd, round: $r, ms: .samples_ms,
		cpu: .cpu_ms, rss: .rss_kb}' <<<"$line" >>"$RAW"
}

# Nothing left behind by build K (no veth, no lease); then its bridge goes.
check_clean() {
	local left
	left=$(ip -n "${ID}h" -o link show type veth | wc -l)
	left=$((left + $(find "$TMP/data$1" -maxdepth 2 -type f -name '10.*' | wc -l)))
	[ "$left" -eq 0 ] || { echo "startup: ${LABELS[$1]} left $left veths/leases" >&2; exit 1; }
	ip -n "${ID}h" link del "pwsbr$1"
}

# A round: blocks of BLOCK pods, every build in turn on each block (the order
# rotates with the block and the round), all ADDs, then all DELs.
for ((r = 0; r < ROUNDS; r++)); do
	echo "[startup] round $((r + 1))" >&2
	for cmd in ADD DEL; do
		for ((b = 0; b < PODS / BLOCK; b++)); do
			for ((j = 0; j < n; j++)); do
				call $(((j + b + r) % n)) "$cmd" "$((r + 1))" "$((b * BLOCK + 1))"
			done
		done
	done
	for ((k = 0; k < n; k++)); do check_clean "$k"; done
done

{
	echo "| build | ADD ms (rounds) | ADD ms | ADD CPU ms | DEL ms (rounds) | DEL ms | DEL CPU ms | ADD peak RSS KB median / max |"
	echo "|---|---|---|---|---|---|---|---|"
	jq -rs '
		def med: sort | .[(length - 1) / 2 | floor];
		def f: . * 100 | round / 100;
		def rounds: group_by(.round) | map({lat: ([.[].ms[]] | med), cpu: ([.[].cpu[]] | med),
			rss_med: ([.[].rss[]] | med), rss_max: ([.[].rss[]] | max)});
		group_by(.label) | .[] as $g | $g[0] | .label as $l |
		([$g[] | select(.cmd == "ADD")] | rounds) as $a |
		([$g[] | select(.cmd == "DEL")] | rounds) as $d |
		"| \($l) | \([$a[].lat | f] | join(" / ")) | \([$a[].lat] | med | f) | " +
		"\([$a[].cpu] | med | f) | \([$d[].lat | f] | join(" / ")) | " +
		"\([$d[].lat] | med | f) | \([$d[].cpu] | med | f) | " +
		"\([$a[].rss_med] | med) / \([$a[].rss_max] | max) |"' "$RAW"
	echo
	echo "$PODS pods per build and round in blocks of $BLOCK, $ROUNDS rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "${OUT:-/dev/null}"
