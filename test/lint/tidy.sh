#!/usr/bin/env bash
# The function limits of CONTRIBUTING.md (functions of at most 80 lines, 6 parameters, nesting 4),
# checked by clang-tidy's readability-function-size (.clang-tidy) on the
# production code (ctest lint-tidy). Functions that were over a limit when the
# gate came, and 6 of portmap/bandwidth, are listed in test/lint/tidy-allow.txt.
# A new function over a limit fails the test.
#   tidy.sh SRC BUILD
set -u
src=$1 build=$2
cd "$src" || exit 2
command -v clang-tidy >/dev/null || { echo "lint-tidy: clang-tidy not installed"; exit 1; }
[ -f "$build/compile_commands.json" ] || { echo "lint-tidy: no $build/compile_commands.json"; exit 1; }
allow=test/lint/tidy-allow.txt
found=$(git ls-files 'libcni/*.c' 'netlink/*.c' 'nft/*.c' 'ipam/*.c' 'podnet/*.c' 'pwhttp/*.c' 'pwetcd/*.c' \
	'plugins/*.c' 'tools/*.c' 2>/dev/null |
	xargs -P2 -n8 clang-tidy -p "$build" --quiet 2>/dev/null |
	sed -n "s|^$src/\([^:]*\):[0-9]*:[0-9]*: .*function '\([^']*\)' exceeds recommended size.*|\1:\2|p" |
	sort -u)
new=$(comm -23 <(printf '%s\n' "$found" | sed '/^$/d') <(grep -v '^#' "$allow" | sort -u))
gone=$(comm -13 <(printf '%s\n' "$found" | sed '/^$/d') <(grep -v '^#' "$allow" | sort -u))
[ -n "$gone" ] && printf 'lint-tidy: within the limits now, remove from %s:\n%s\n' "$allow" "$gone"
if [ -n "$new" ]; then
	printf 'lint-tidy: over the function limits (split them):\n%s\n' "$new"
	exit 1
fi
echo "lint-tidy: ok ($(printf '%s\n' "$found" | sed '/^$/d' | wc -l) allowed exceptions)"
