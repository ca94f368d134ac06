#!/usr/bin/env bash
# Every tracked C file is formatted as .clang-format says, by the pinned
# clang-format (Debian 12's, major version 14: another version formats a few
# constructs differently). ctest lint-format; `make format` fixes the tree.
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2
pinned=14
command -v clang-format >/dev/null || { echo "lint-format: clang-format not installed"; exit 1; }
ver=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
[ "$ver" = "$pinned" ] || { echo "lint-format: clang-format $ver, pinned to $pinned"; exit 1; }
bad=$(git ls-files '*.c' '*.h' | while read -r f; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
done)
if [ -n "$bad" ]; then
	printf 'lint-format: not formatted (run make format):\n%s\n' "$bad"
	exit 1
fi
echo "lint-format: ok"
