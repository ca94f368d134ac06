#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Two builds measured in one run with the project's own benches, interleaved.
#
#   bench/compare.sh BEFORE_BUILD AFTER_BUILD [--runs N] [--out DIR] [--quick]
#                    [--only LIST] [--drivers BUILD]
#
# Benches (--only takes a comma-separated subset): bridge (bench/run.sh
# --medium --only bridge-v4), bgp-route (bench/bgp/run.sh, 2 nodes),
# multinet (bench/multinet/run.sh), cluster-ipam (bench/cluster-ipam/run.sh
# --runs 1). Run r measures every bench on both builds back to back, the
# before build first in odd runs and the after build first in even ones, so
# that neither side always goes first; both invocations of a pair hold
# /tmp/podwire-bench.lock, so no other bench runs between them. Every bench
# isolates itself (own namespaces, etcd, BIRDs, apiserver stand-in, temp
# dirs) as it does when run alone.
#
# Both builds are measured with the scripts of this tree and with the
# drivers (pwbench, kfloor, routewatch, cipam-bench) of one build, AFTER's
# unless --drivers says otherwise: the instrument stays the same and only
# the plugins (BUILD/bin) differ. Plugins and drivers are copied to a
# temporary directory at the start, so a rebuild during the run changes
# nothing.
#
# Output: a markdown table on stdout and in DIR/compare.md, every run's
# numbers in DIR/compare.json, each invocation's own output and logs in
# DIR/raw/<bench>-<side>-r<run>/ (DIR: bench/results/compare unless --out).
# Default: 3 runs, about 8 minutes on 2 vCPUs (load 5-7); --quick: 2 runs
# at the benches' smallest sizes, about 3 minutes. Exit status 1 when a bench
# invocation failed (its numbers are then left out), 2 on bad usage or
# something missing; never on timing.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
ALL_BENCHES="bridge bgp-route multinet cluster-ipam"
LOCK=/tmp/podwire-bench.lock
# Seconds between two invocations: the kernel dismantles the namespaces a
# bench deleted in the background; let that not land on the next one.
SETTLE=${COMPARE_SETTLE:-3}

usage() {
	echo "usage: $0 BEFORE_BUILD AFTER_BUILD [--runs N] [--out DIR] [--quick] [--only LIST] [--drivers BUILD]" >&2
	exit 2
}
log() { echo "[compare] $*" >&2; }
die() {
	log "$*"
	exit 2
}

case "${1:-}" in
-h | --help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
[ $# -ge 2 ] || usage
BEFORE=$(cd "$1" 2>/dev/null && pwd) || die "BEFORE_BUILD: no directory '$1'"
AFTER=$(cd "$2" 2>/dev/null && pwd) || die "AFTER_BUILD: no directory '$2'"
shift 2
RUNS="" OUT="$SRC/bench/results/compare" QUICK=0 BENCHES=$ALL_BENCHES DRIVERS=$AFTER
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=${2:?--runs needs a number}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift ;;
	--quick) QUICK=1 ;;
	--only) BENCHES=${2:?--only needs a list}; BENCHES=${BENCHES//,/ }; shift ;;
	--drivers) DRIVERS=$(cd "${2:?--drivers needs a build}" && pwd); shift ;;
	*) usage ;;
	esac
	shift
done
[ -n "$RUNS" ] || RUNS=$((QUICK ? 2 : 3))
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "--runs: a positive number, not '$RUNS'"
for b in $BENCHES; do
	[[ " $ALL_BENCHES " == *" $b "* ]] || die "--only: unknown bench '$b' (benches: $ALL_BENCHES)"
done

# Sizes: reduced from each bench's reference size, large enough for a median.
if [ "$QUICK" = 1 ]; then
	BR_PROFILE=--smoke BR_PODS=5 BGP_PODS=5 MN_PODS=5 MN_ROUNDS=2 CI_ARGS=(--bgp-pairs 10)
else
	BR_PROFILE=--medium BR_PODS=100 BGP_PODS=15 MN_PODS=10 MN_ROUNDS=5 CI_ARGS=()
fi

# --- what each bench needs -----------------------------------------------------

# needs BENCH -> "plugins|drivers|commands" (drivers are in DRIVERS/bench).
needs() {
	case "$1" in
	bridge) echo "bridge|pwbench kfloor|ip jq nft" ;;
	bgp-route) echo "bgp-route bridge podwire-node|routewatch|ip jq bird birdc python3" ;;
	multinet) echo "multinet bridge|pwbench|ip jq curl openssl python3" ;;
	cluster-ipam) echo "cluster-ipam host-local bgp-route|cipam-bench|ip curl python3 /usr/bin/etcd" ;;
	esac
}

# check_prerequisites: every plugin in both builds, every driver, every
# command; all missing pieces are listed at once, with how to build them.
check_prerequisites() {
	local b c plugins drivers cmds p missing=()
	[ "$(id -u)" -eq 0 ] || die "root needed (network namespaces)"
	for c in flock jq awk; do
		command -v "$c" >/dev/null || missing+=("command $c")
	done
	for b in $BENCHES; do
		IFS='|' read -r plugins drivers cmds <<<"$(needs "$b")"
		for p in $plugins; do
			[ -x "$BEFORE/bin/$p" ] || missing+=("$b: $BEFORE/bin/$p (cmake --build $BEFORE --target $p -j1)")
			[ -x "$AFTER/bin/$p" ] || missing+=("$b: $AFTER/bin/$p (cmake --build $AFTER --target $p -j1)")
		done
		for p in $drivers; do
			[ -x "$DRIVERS/bench/$p" ] || missing+=("$b: $DRIVERS/bench/$p (cmake --build $DRIVERS --target $p -j1)")
		done
		for p in $cmds; do
			command -v "$p" >/dev/null || missing+=("$b: command $p")
		done
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "missing, nothing measured:"
	printf '  %s\n' "${missing[@]}" >&2
	exit 2
}

# --- the builds as the benches see them -----------------------------------------

# Each side is a directory of its own with bin/ (the build's plugins) and
# bench/ (the drivers), the layout the benches expect of a build directory.
# Both are copies taken at the start: a rebuild of either build during the
# run must not change what the later runs measure.
WORK=""
cleanup() {
	[ -n "$WORK" ] && rm -rf "$WORK"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

DRIVER_FILES="pwbench kfloor routewatch cipam-bench"
make_sides() {
	local side build d
	WORK=$(mktemp -d /tmp/pwcompare.XXXXXX)
	for side in before after; do
		build=$BEFORE
		[ "$side" = before ] || build=$AFTER
		mkdir -p "$WORK/$side/bench"
		cp -a "$build/bin" "$WORK/$side/bin"
		for d in $DRIVER_FILES; do
			[ ! -e "$DRIVERS/bench/$d" ] || cp -a "$DRIVERS/bench/$d" "$WORK/$side/bench/"
		done
	done
}

# build_facts BUILD COPY: what a build is (source tree and its HEAD now,
# build type) and what was copied of it (when its newest plugin was linked,
# a digest of all of them).
build_facts() {
	local src type newest digest commit=unknown
	src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
	type=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
	src=${src:-unknown} type=${type:-unknown}
	if [ "$src" != unknown ] && git -C "$src" rev-parse --short HEAD >/dev/null 2>&1; then
		commit=$(git -C "$src" rev-parse --short HEAD)
		[ -z "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
			commit="$commit (sources modified)"
	fi
	# the newest plugin of the copy: the build may be older than its tree's HEAD
	newest=$(find "$2/bin/" -maxdepth 1 -type f -printf '%T@\n' | sort -n | tail -1)
	digest=$(find "$2/bin/" -maxdepth 1 -type f -print0 | sort -z | xargs -0 cat | sha256sum)
	jq -nc --arg d "$1" --arg s "$src" --arg c "$commit" --arg t "$type" \
		--arg n "$(date -u -d "@${newest%.*}" '+%Y-%m-%d %H:%M UTC')" --arg h "${digest:0:12}" \
		'{dir: $d, source: $s, source_head: $c, build_type: $t, newest_plugin: $n, bin_sha256: $h}'
}

# --- one invocation per bench ------------------------------------------------------

# bench_cmd BENCH BUILD DIR: the bench's command line, one word per line.
bench_cmd() {
	local build=$2 dir=$3
	case "$1" in
	bridge) printf '%s\n' "$SRC/bench/run.sh" "$build" "$BR_PROFILE" --only bridge-v4 --out "$dir" ;;
	bgp-route) printf '%s\n' "$SRC/bench/bgp/run.sh" --build "$build" --nodes 2 --pods "$BGP_PODS" --out "$dir" ;;
	multinet) printf '%s\n' "$SRC/bench/multinet/run.sh" "$build" --pods "$MN_PODS" --rounds "$MN_ROUNDS" --out "$dir" ;;
	cluster-ipam) printf '%s\n' "$SRC/bench/cluster-ipam/run.sh" "$build" --runs 1 "${CI_ARGS[@]}" ;;
	esac
}

# extract_<bench> DIR: "key value" lines from the invocation's own output
# (value "null" when the bench did not print it).
extract_bridge() {
	jq -r '
	  def g($i; $c; $cmd): first(.groups[] | select(.impl == $i and .case == $c and .cmd == $cmd)) // null;
	  def m($i; $c; $cmd): g($i; $c; $cmd) | if . then .lat_ms.median else null end;
	  def sub($a; $b): if $a == null or $b == null then null else $a - $b end;
	  def div($a; $b): if $a == null or $b == null or $b == 0 then null else $a / $b end;
	  "add_1pod \(m("podwire"; "1pod"; "ADD"))",
	  "add_seq \(m("podwire"; "seq"; "ADD"))",
	  "del_1pod \(m("podwire"; "1pod"; "DEL"))",
	  "del_seq \(m("podwire"; "seq"; "DEL"))",
	  "add_seq_floor \(div(m("podwire"; "seq"; "ADD"); m("floor"; "seq"; "EXEC")))",
	  "del_seq_floor \(sub(m("podwire"; "seq"; "DEL"); m("floor"; "seq-del"; "EXEC")))",
	  "rss_add \(g("podwire"; "seq"; "ADD") | if . then .rss_kb.max else null end)",
	  "floor_add_seq \(m("floor"; "seq"; "EXEC"))",
	  "floor_del_seq \(m("floor"; "seq-del"; "EXEC"))"' "$1/latest.json"
}

extract_bgp-route() {
	awk -F'|' '
	function trim(s) { gsub(/^ +| +$/, "", s); return s }
	{ p50[trim($2)] = trim($3) }
	function v(name) { return (name in p50) ? p50[name] : "null" }
	END {
		add = v("bgp-route ADD"); del = v("bgp-route DEL")
		floor = v("veth delete, configured like a pod'"'"'s (floor)")
		print "add " add
		print "del " del
		print "del_floor " ((del == "null" || floor == "null") ? "null" : del - floor)
		print "prop_add " v("ADD returned -> /32 on every peer")
		print "floor_del " floor
	}' "$1/bgp-bench-k2.md"
}

extract_multinet() {
	jq -r 'select(.bench == "multinet") |
	  "add \(.multinet_add_ms)", "overhead \(.overhead_ms)",
	  "overhead_local \(.overhead_local_ms)", "delegates \(.delegates_add_sum_ms)",
	  "roundtrips \(.apiserver_roundtrips_ms)"' "$1/multinet.json"
}

extract_cluster-ipam() {
	awk '
	{ v[$1] = $2 }
	function g(k) { return (k in v) ? v[k] : "null" }
	END {
		print "add_rate " g("add_rate")
		print "add_p50 " g("add_p50_ms")
		print "add_p99 " g("add_p99_ms")
		print "rate_vs_raw " g("add_rate/raw_kept")
		print "exec " g("exec_cluster_ipam_ms")
		print "bgp_diff " g("bgp_diff_ms")
		print "raw_kept " g("raw_kept")
	}' "$1/stdout.log"
}

# The metrics, in table order: bench|key|unit|better|kind|label. better:
# lower, higher, or ref (a reference the builds do not change: its change
# is the machine's). kind: ratio (after/before) or delta (after - before,
# for differences that sit near zero).
metrics() {
	cat <<-EOF
	bridge|add_1pod|ms|lower|ratio|ADD, 1 pod (bridge created each time)
	bridge|add_seq|ms|lower|ratio|ADD, $BR_PODS pods on one bridge
	bridge|del_1pod|ms|lower|ratio|DEL, 1 pod
	bridge|del_seq|ms|lower|ratio|DEL, $BR_PODS pods
	bridge|add_seq_floor|x|lower|ratio|ADD, $BR_PODS pods / kernel floor ADD, same run
	bridge|del_seq_floor|ms|lower|delta|DEL, $BR_PODS pods - kernel floor DEL, same run
	bridge|rss_add|KB|lower|ratio|peak RSS of an ADD (max over calls)
	bridge|floor_add_seq|ms|ref|ratio|kernel floor ADD, $BR_PODS pods (reference)
	bridge|floor_del_seq|ms|ref|ratio|kernel floor DEL, $BR_PODS pods (reference)
	bgp-route|add|ms|lower|ratio|bgp-route ADD (p50, 2 nodes x $BGP_PODS pods)
	bgp-route|del|ms|lower|ratio|bgp-route DEL (p50)
	bgp-route|del_floor|ms|lower|delta|DEL - pod-like veth delete (p50s)
	bgp-route|prop_add|ms|lower|delta|ADD returned -> /32 on every peer (p50)
	bgp-route|floor_del|ms|ref|ratio|pod-like veth delete (reference)
	multinet|add|ms|lower|ratio|multinet ADD ($MN_PODS pods x $MN_ROUNDS rounds)
	multinet|overhead|ms|lower|delta|overhead: multinet ADD - delegates' ADDs
	multinet|overhead_local|ms|lower|delta|overhead without the apiserver (delegates mode)
	multinet|delegates|ms|lower|ratio|delegates' own ADDs (bridge + bridge)
	multinet|roundtrips|ms|ref|ratio|apiserver round trips by curl (reference)
	cluster-ipam|add_rate|/s|higher|ratio|ADD rate, 8x8 parallel x 4 rounds
	cluster-ipam|add_p50|ms|lower|ratio|ADD p50
	cluster-ipam|add_p99|ms|lower|ratio|ADD p99
	cluster-ipam|rate_vs_raw|x|higher|ratio|ADD rate / raw etcd CAS rate, same run
	cluster-ipam|exec|ms|lower|ratio|exec_cluster_ipam_ms (VERSION, start-up)
	cluster-ipam|bgp_diff|ms|lower|delta|bgp-route ADD with cluster-ipam - with host-local
	cluster-ipam|raw_kept|/s|ref|ratio|raw etcd CAS rate, one kept connection (reference)
	EOF
}

RECORDS="" INVOCATIONS="" FAILED=()

# run_one BENCH SIDE RUN: one invocation, its numbers appended to RECORDS.
run_one() {
	local bench=$1 side=$2 run=$3 dir cmd t0 secs rc=0 key value values
	dir="$OUT/raw/$bench-$side-r$run"
	rm -rf "$dir"
	mkdir -p "$dir"
	mapfile -t cmd < <(bench_cmd "$bench" "$WORK/$side" "$dir")
	t0=$(date +%s.%N)
	"${cmd[@]}" >"$dir/stdout.log" 2>"$dir/stderr.log" {LOCKFD}>&- || rc=$?
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
	log "run $run/$RUNS $bench $side: $secs s$([ "$rc" -eq 0 ] || echo ", FAILED (exit $rc, see $dir/stderr.log)")"
	jq -nc --arg b "$bench" --arg s "$side" --argjson r "$run" --argjson t "$secs" \
		--argjson rc "$rc" --arg d "$dir" --argjson cmd "$(printf '%s\n' "${cmd[@]}" | jq -R . | jq -sc .)" \
		'{bench: $b, side: $s, run: $r, seconds: $t, exit: $rc, dir: $d, cmd: $cmd}' >>"$INVOCATIONS"
	if [ "$rc" -ne 0 ]; then
		FAILED+=("$bench $side run $run: exit $rc ($dir/stderr.log)")
		return 0
	fi
	if ! values=$("extract_$bench" "$dir" 2>>"$dir/stderr.log"); then
		FAILED+=("$bench $side run $run: its output could not be read ($dir)")
		return 0
	fi
	while read -r key value; do
		if [[ ! "$value" =~ ^-?[0-9.]+([eE][-+]?[0-9]+)?$ ]]; then
			FAILED+=("$bench $side run $run: no '$key' in its output ($dir)")
			continue
		fi
		jq -nc --arg b "$bench" --arg s "$side" --argjson r "$run" --arg k "$key" \
			--argjson v "$value" '{bench: $b, side: $s, run: $r, key: $k, value: $v}' >>"$RECORDS"
	done <<<"$values"
}

# run_pair BENCH RUN: both sides back to back under the bench lock, the
# before build first in odd runs.
run_pair() {
	local bench=$1 run=$2 first=before second=after
	[ $((run % 2)) -eq 1 ] || { first=after second=before; }
	if ! flock -n "$LOCKFD"; then
		log "waiting for $LOCK (another bench is running)"
		flock "$LOCKFD"
	fi
	run_one "$bench" "$first" "$run"
	sleep "$SETTLE"
	run_one "$bench" "$second" "$run"
	flock -u "$LOCKFD"
	sleep "$SETTLE"
}

# --- the summary ---------------------------------------------------------------------

# summarize: compare.json from the records (medians, ratios, spreads, verdicts).
summarize() {
	metrics | jq -R 'split("|") | {bench: .[0], key: .[1], unit: .[2], better: .[3], kind: .[4], label: .[5]}' |
		jq -s --slurpfile recs "$RECORDS" --slurpfile inv "$INVOCATIONS" \
			--argjson before "$BEFORE_FACTS" --argjson after "$AFTER_FACTS" \
			--arg drivers "$DRIVERS" --arg scripts "$SRC at $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?')" --argjson runs "$RUNS" --argjson quick "$QUICK" \
			--arg benches "$BENCHES" --arg date "$STARTED_AT" --argjson secs "$(($(date +%s) - STARTED))" \
			--arg machine "$(nproc) vCPU, $(uname -r)" --arg load0 "$LOAD0" \
			--arg load1 "$(cut -d' ' -f1-3 /proc/loadavg)" \
			--argjson failed "$(printf '%s\n' "${FAILED[@]+"${FAILED[@]}"}" | jq -R . | jq -s 'map(select(length > 0))')" '
	def med: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def vals($m; $s): [$recs[] | select(.bench == $m.bench and .key == $m.key and .side == $s)]
		| sort_by(.run);
	def spread($kind): if length < 2 then null
		elif $kind == "delta" then max - min
		elif med == 0 then null else (max - min) / (med | fabs) end;
	def cmp($kind; $a; $b): if $a == null or $b == null then null
		elif $kind == "delta" then $a - $b elif $b == 0 then null else $a / $b end;
	($benches | split(" ")) as $bl
	| {
	  date: $date, seconds: $secs, machine: $machine, load_start: $load0, load_end: $load1,
	  runs: $runs, quick: ($quick == 1), before: $before, after: $after, drivers: $drivers, scripts: $scripts,
	  rule: "spread: the larger of the two sides'\'' (max - min) over the runs, relative to the median for ratio metrics, in the unit for delta metrics; outside noise: |after/before - 1| (ratio) or |after - before| (delta) larger than the spread",
	  invocations: $inv, failed: $failed,
	  metrics: [.[] | select(.bench as $b | any($bl[]; . == $b)) | . as $m
	    | vals($m; "before") as $b | vals($m; "after") as $a
	    | ($b | map(.value) | med) as $bm | ($a | map(.value) | med) as $am
	    | cmp($m.kind; $am; $bm) as $c
	    | ([($b | map(.value) | spread($m.kind)), ($a | map(.value) | spread($m.kind))]) as $sp
	    | (if any($sp[]; . == null) then null else ($sp | max) end) as $s
	    | (if $c == null or $s == null then null
	       elif $m.kind == "delta" then ($c | fabs) > $s else ($c - 1 | fabs) > $s end) as $out
	    | (if $m.kind == "delta" then $c > 0 else $c > 1 end) as $up
	    | $m + {
	        before: ($b | map(.value)), after: ($a | map(.value)),
	        before_median: $bm, after_median: $am, change: $c, spread: $s,
	        per_run: [$b[] | .run as $r | .value as $bv | first($a[] | select(.run == $r)) | .value as $av
	                  | {run: $r, change: cmp($m.kind; $av; $bv)}],
	        outside_noise: $out,
	        verdict: (if $c == null then "not measured"
	          elif $s == null then "n/a (fewer than 2 runs a side)"
	          elif $out | not then "within noise"
	          elif $m.better == "ref" then "outside noise (reference: the machine moved)"
	          elif ($m.better == "lower") == $up then "**outside noise: worse**"
	          else "**outside noise: better**" end)
	      }]
	}'
}

# report: compare.md from compare.json.
report() {
	jq -r '
	def r2: . * 100 | round / 100;
	def num($u): if . == null then "—" elif $u == "/s" or $u == "KB" then "\(round) \($u)"
		elif $u == "x" then "\(r2)x" else "\(r2) \($u)" end;
	def chg: if .change == null then "—" elif .kind == "delta" then
		"\(if .change >= 0 then "+" else "" end)\(.change | r2) \(.unit)" else "\(.change * 1000 | round / 1000)x" end;
	def spr: if .spread == null then "—" elif .kind == "delta" then "\(.spread | r2) \(.unit)"
		else "\(.spread * 1000 | round / 10)%" end;
	def runs_note($n): if (.before | length) < $n or (.after | length) < $n
		then " (runs: \(.before | length) before, \(.after | length) after)" else "" end;
	def side($s): "\($s.dir) (\($s.build_type); source tree \($s.source) at \($s.source_head) when the run started; newest plugin linked \($s.newest_plugin); plugins sha256 \($s.bin_sha256)…)";
	. as $c
	| "# podwire: before/after comparison\(if .quick then " (--quick: smoke sizes, its verdicts are no evidence)" else "" end)",
	  "",
	  "\(.date); \(.machine); \(.runs) run(s), \(.seconds) s in all; load average \(.load_start) at the start, \(.load_end) at the end.",
	  "",
	  "- before: \(side(.before))",
	  "- after: \(side(.after))",
	  "- drivers (pwbench, kfloor, routewatch, cipam-bench) for both: \(.drivers)/bench",
	  "- plugins and drivers copied at the start; the benches'\'' scripts from \(.scripts)",
	  (if .before.build_type != .after.build_type then "- **the two builds have different build types**" else empty end),
	  "",
	  "Each run measures every bench on both builds back to back, the before build first in odd runs, the after build first in even ones. Medians over the runs of each bench'\''s own number; after/before is the ratio of the medians (for differences, marked ±, after minus before). Spread: the larger of the two sides'\'' (max - min) over the runs, relative to the median (in the unit for differences). Outside noise: the change is larger than that spread. References do not depend on the build: their change is the machine'\''s.",
	  "",
	  "| bench | metric | before (median) | after (median) | after/before | spread of the runs | |",
	  "|---|---|---|---|---|---|---|",
	  (.metrics[] | .unit as $u | "| \(.bench) | \(.label) | \(.before_median | num($u)) | \(.after_median | num($u)) | \(chg) | \(spr)\(runs_note($c.runs)) | \(.verdict) |"),
	  "",
	  "Time per invocation (s):",
	  "",
	  "| bench | before | after |",
	  "|---|---|---|",
	  ((.invocations[] | select(.run == 1 and .side == "before") | .bench) as $b
	    | [$c.invocations[] | select(.bench == $b)] as $i
	    | "| \($b) | \([$i[] | select(.side == "before") | .seconds] | map(tostring) | join(", ")) | \([$i[] | select(.side == "after") | .seconds] | map(tostring) | join(", ")) |"),
	  "",
	  (if (.failed | length) > 0 then "Failed (numbers left out):\n" + (.failed | map("- " + .) | join("\n"))
	   else "Every invocation succeeded." end)' "$OUT/compare.json"
}

main() {
	local run bench
	check_prerequisites
	make_sides
	BEFORE_FACTS=$(build_facts "$BEFORE" "$WORK/before")
	AFTER_FACTS=$(build_facts "$AFTER" "$WORK/after")
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd)
	RECORDS="$OUT/records.jsonl" INVOCATIONS="$OUT/invocations.jsonl"
	: >"$RECORDS"
	: >"$INVOCATIONS"
	exec {LOCKFD}>>"$LOCK"
	STARTED=$(date +%s) STARTED_AT=$(date -u '+%Y-%m-%d %H:%M UTC') LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
	log "before $BEFORE, after $AFTER, drivers $DRIVERS/bench; $RUNS run(s) of: $BENCHES; output in $OUT"
	for ((run = 1; run <= RUNS; run++)); do
		for bench in $BENCHES; do
			run_pair "$bench" "$run"
		done
	done
	summarize >"$OUT/compare.json"
	rm -f "$RECORDS" "$INVOCATIONS"
	report | tee "$OUT/compare.md"
	log "done in $(($(date +%s) - STARTED)) s"
	if [ ${#FAILED[@]} -gt 0 ]; then
		log "${#FAILED[@]} failure(s):"
		printf '  %s\n' "${FAILED[@]}" >&2
		exit 1
	fi
}

main
