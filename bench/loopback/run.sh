#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# loopback ADD next to its exec floor and the reference, same run.
#
#   bench/loopback/run.sh <build-dir> [--runs N] [--count N] [--out FILE]
#
# Three implementations, each called the way a runtime calls a plugin (one
# fork/exec/wait per call, timed by pwbench around the whole call):
#   floor      build/bench/loopback-floor: lo up with one netlink message
#   podwire    build/bin/loopback
#   reference  /usr/lib/cni/loopback
# Every implementation has its own pool of --count pod netns (default 100).
# A run interleaves the three in chunks of 10 ADDs (floor, podwire,
# reference, next chunk...), then sets every lo down again (the floor's
# pool with podwire's DEL, untimed in the table) so the next run starts from
# the same state. The table gives each run's median ADD per implementation,
# the median over runs (default 3), and the ratios of the medians.
# Everything runs inside a throwaway "host" netns made here; all namespaces
# are removed on exit.
set -euo pipefail

usage() {
	echo "usage: $0 <build-dir> [--runs N] [--count N] [--out FILE]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
RUNS=3 COUNT=100 OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=${2:?}; shift ;;
	--count) COUNT=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
[ "$COUNT" -ge 10 ] && [ $((COUNT % 10)) -eq 0 ] || { echo "--count: a multiple of 10" >&2; exit 2; }

PWBENCH="$BUILD/bench/pwbench"
FLOOR="$BUILD/bench/loopback-floor"
PW="$BUILD/bin/loopback"
REF=/usr/lib/cni/loopback
for b in "$PWBENCH" "$FLOOR" "$PW" "$REF"; do
	[ -x "$b" ] || { echo "missing $b (cmake --build $BUILD --target pwbench loopback-floor loopback)" >&2; exit 2; }
done

ID="pwlb$(printf '%04x' $(($$ % 65536)))"
HOST_NS="${ID}h"
TMP=$(mktemp -d /tmp/pwlb.XXXXXX)
cleanup() {
	ip netns list 2>/dev/null | awk -v p="^${ID}" '$1 ~ p {print "netns del " $1}' |
		ip -force -batch - 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

IMPLS=(floor podwire reference)
declare -A BIN=([floor]=$FLOOR [podwire]=$PW [reference]=$REF)
declare -A TAG=([floor]=f [podwire]=p [reference]=r)

ip netns add "$HOST_NS"
for impl in "${IMPLS[@]}"; do
	for ((i = 1; i <= COUNT; i++)); do echo "netns add ${ID}${TAG[$impl]}$i"; done
done | ip -batch -
# New namespaces finish setting up asynchronously; let that settle first.
sleep 2
CONF="$TMP/lo.conf"
echo '{"cniVersion":"1.0.0","name":"lo","type":"loopback"}' > "$CONF"
RAW="$TMP/raw.jsonl"
: > "$RAW"

# call IMPL CMD FIRST COUNT RUN: one pwbench invocation in the host netns.
call() {
	local impl=$1 cmd=$2 first=$3 count=$4 run=$5 bin=${BIN[$1]}
	[ "$cmd" = DEL ] && [ "$impl" = floor ] && bin=$PW
	ip netns exec "$HOST_NS" "$PWBENCH" --label "$impl/$cmd/$run" --cmd "$cmd" \
		--plugin "$bin" --cni-path /usr/lib/cni --conf "$CONF" --netns "/var/run/netns/${ID}${TAG[$impl]}{i}" \
		--cid "${ID}-{i}" --first "$first" --count "$count" |
		jq -c --arg i "$impl" --arg c "$cmd" --argjson r "$run" \
			'{impl: $i, cmd: $c, run: $r, samples: .samples_ms}' >> "$RAW"
}

for ((run = 1; run <= RUNS; run++)); do
	echo "[loopback-bench] run $run/$RUNS: $COUNT ADDs per implementation" >&2
	for ((first = 1; first <= COUNT; first += 10)); do
		for impl in "${IMPLS[@]}"; do call "$impl" ADD "$first" 10 "$run"; done
	done
	for impl in "${IMPLS[@]}"; do call "$impl" DEL 1 "$COUNT" "$run"; done
done

# Medians per (impl, cmd, run); the median over runs; and the ratios per run
# (both sides from the same run), whose median is the verdict.
TABLE=$(jq -rs '
	def median: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def r3: . * 1000 | round / 1000;
	group_by([.impl, .cmd, .run])
	| map({impl: .[0].impl, cmd: .[0].cmd, run: .[0].run, med: ([.[].samples[]] | median)})
	| . as $m
	| ([$m[].run] | unique) as $runs
	| def at(i; c; r): [$m[] | select(.impl == i and .cmd == c and .run == r) | .med][0];
	  def med(i; c): [$m[] | select(.impl == i and .cmd == c) | .med] | median;
	  def runs(i; c): [$runs[] as $r | at(i; c; $r) | r3 | tostring] | join(" / ");
	  def ratio(a; b): [$runs[] as $r | at(a; "ADD"; $r) / at(b; "ADD"; $r)];
	  def ratios(a; b): ratio(a; b) | map(r3 | tostring) | join(" / ");
	"| implementation | ADD median per run (ms) | ADD median of runs (ms) | / floor, per run | / floor (median) | / reference, per run | / reference (median) |",
	"|---|---|---|---|---|---|---|",
	(["floor", "podwire", "reference"][] as $i |
	  "| \($i) | \(runs($i; "ADD")) | \(med($i; "ADD") | r3) | \(ratios($i; "floor")) | \(ratio($i; "floor") | median | r3) | \(ratios($i; "reference")) | \(ratio($i; "reference") | median | r3) |"),
	"",
	"DEL median of runs (ms): podwire \(med("podwire"; "DEL") | r3), reference \(med("reference"; "DEL") | r3).",
	"Targets: podwire / floor <= 1.1, podwire / reference <= 0.2 (median of the per-run ratios)."
	' "$RAW")
echo "$TABLE"
if [ -n "$OUT" ]; then
	{
		echo "loopback bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $RUNS runs x $COUNT ADDs per implementation"
		echo
		echo "$TABLE"
	} > "$OUT"
fi
