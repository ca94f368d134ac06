#!/usr/bin/env bash
# ShellCheck over the shell code that tests and ships podwire: e2e/*.bats and
# *.bash, scripts/, packaging/, bench/ and .ci/ (ctest lint-shellcheck).
# - SC2314/SC2315 are errors at every level: in bats, `! cmd` fails a test
#   only as its last command, so a negative check is `run ! cmd` everywhere.
# - ShellCheck sees only @test bodies; in a helper function (called by a test)
#   a `! cmd` at the start of a line is as blind, so this script flags those
#   too (bare_bang), unless an `||` handles the outcome.
# - Everything else at warning level, except the codes listed in
#   test/lint/shellcheck-allow.txt ("CODE [PATH-PREFIX]  # why").
# A self-test first: a planted mid-test `! false` must be reported, so the
# gate cannot rot into one that passes everything.
# Usage: test/lint/shellcheck.sh [SRC]
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2
command -v shellcheck >/dev/null || { echo "lint-shellcheck: shellcheck not installed"; exit 1; }
allow=test/lint/shellcheck-allow.txt

# bats_bang FILE...: every `! cmd` ShellCheck flags in bats code.
bats_bang() {
	shellcheck -s bash -f gcc -i SC2314,SC2315 "$@"
}

# bare_bang FILE...: `! cmd` lines anywhere in bats code (helpers too).
bare_bang() {
	awk 'FNR == 1 { prev = "" }
	/^[ \t]*! / && prev !~ /\\$/ && $0 !~ /\|\|/ {
		printf "%s:%d:1: error: `! cmd` here never fails a test: use `run ! cmd` or [ ... ] [SC2314]\n", FILENAME, FNR
	}
	{ prev = $0 }' "$@"
}

self_test() {
	local tmp rc=0
	tmp=$(mktemp -d) || return 1
	printf '%s\n' '#!/usr/bin/env bats' '@test "planted" {' '	! false' '	true' '}' >"$tmp/planted.bats"
	printf '%s\n' '#!/usr/bin/env bats' '@test "fixed" {' '	run ! false' '	true' '}' >"$tmp/fixed.bats"
	if ! bats_bang "$tmp/planted.bats" | grep -q 'SC2314'; then
		echo "lint-shellcheck: self-test: a mid-test '! false' was not reported"
		rc=1
	fi
	printf '%s\n' 'helper() {' '	! false' '	true' '}' >"$tmp/helper.bash"
	if ! bare_bang "$tmp/helper.bash" | grep -q 'SC2314'; then
		echo "lint-shellcheck: self-test: a '! false' in a helper was not reported"
		rc=1
	fi
	if [ -n "$(bats_bang "$tmp/fixed.bats")" ]; then
		echo "lint-shellcheck: self-test: 'run ! false' was reported"
		rc=1
	fi
	rm -rf "$tmp"
	return "$rc"
}

# The shell files under the checked paths: by extension or by a sh/bash shebang.
shell_files() {
	git ls-files 'scripts/*' 'packaging/*' 'bench/*' '.ci/*' | while read -r f; do
		case $f in
		*.sh) echo "$f" ;;
		*.*) ;;
		*) head -n1 "$f" | grep -qE '^#!.*(/|env )(ba)?sh\b' && echo "$f" ;;
		esac
	done
}

# reported: from ShellCheck's findings (gcc format, every level), SC2314 and
# SC2315 at any level, and errors and warnings the allow-list does not excuse.
reported() {
	awk 'NR == FNR {
		sub(/#.*/, "")
		if (NF) { code[++n] = $1; prefix[n] = $2 }
		next
	}
	/\[SC231[45]\]$/ { print; next }
	/^[^:]*:[0-9]+:[0-9]+: (error|warning): / {
		match($0, /\[SC[0-9]+\]$/)
		c = substr($0, RSTART + 1, RLENGTH - 2)
		for (i = 1; i <= n; i++)
			if (code[i] == c && (prefix[i] == "" || index($0, prefix[i]) == 1)) next
		print
	}' "$allow" -
}

self_test || exit 1
mapfile -t e2e < <(git ls-files 'e2e/*.bats' 'e2e/*.bash')
mapfile -t other < <(shell_files)
[ ${#e2e[@]} -gt 0 ] && [ ${#other[@]} -gt 0 ] ||
	{ echo "lint-shellcheck: no files to check (not a git checkout?)"; exit 1; }
found=$({
	{
		printf '%s\0' "${e2e[@]}" | xargs -0 -P2 -n8 shellcheck -s bash -f gcc
		printf '%s\0' "${other[@]}" | xargs -0 -P2 -n8 shellcheck -f gcc
	} | reported
	bare_bang "${e2e[@]}"
} | sort -t: -k1,1 -k2,2n -u)
if [ -n "$found" ]; then
	printf '%s\n' "$found"
	grep -q '\[SC231[45]\]$' <<<"$found" &&
		echo 'lint-shellcheck: `! cmd` in a bats test fails it only as its last command: use `run ! cmd`'
	echo "lint-shellcheck: fix the warnings above (or list a code in $allow, with the reason)"
	exit 1
fi
echo "lint-shellcheck: ok ($((${#e2e[@]} + ${#other[@]})) files)"
