#!/usr/bin/env bash
# Run every libFuzzer target of a fuzz build (cmake -DPODWIRE_BUILD_FUZZ=ON
# with clang) for SECONDS each, on a scratch copy of its seed corpus.
# Usage: fuzz/run.sh <fuzz-build-dir> [seconds]
# Exits non-zero when any target finds a crash; crashing inputs are kept in
# <fuzz-build-dir>/fuzz-artifacts/.
set -euo pipefail
build=${1:?usage: fuzz/run.sh <fuzz-build-dir> [seconds]}
seconds=${2:-60}
src=$(cd "$(dirname "$0")" && pwd)
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
failed=0
for bin in "$build"/fuzz/fuzz-*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	short=${name#fuzz-}
	work=$(mktemp -d)
	cp -r "$src/corpus/$short/." "$work/" 2>/dev/null || true
	echo "== $name: ${seconds}s"
	if ! "$bin" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
		-artifact_prefix="$artifacts/$name-" "$work" 2>"$artifacts/$name.log"; then
		echo "$name: FAILED (see $artifacts/$name.log)"
		tail -30 "$artifacts/$name.log"
		failed=1
	else
		grep -E "^(Done|#[0-9]+.*DONE)" "$artifacts/$name.log" | tail -1 || true
	fi
	rm -rf "$work"
done
exit $failed
