#!/usr/bin/env bash
# The repository describes itself and nothing else (ctest lint-docs):
#   - no absolute path of a development machine in any file (a home, /root or
#     a /work checkout): what ships must not depend on where it was written;
#   - no reference to documents outside the repository (../shared, the
#     design, contract and style notes it was planned from): facts are stated
#     here, or in docs/architecture.md and the component READMEs;
#   - no work diary in Markdown: no "second session", "fourth pass", no dated
#     section headings in READMEs. Measurements of a run go to bench/results/.
# Checks the files git knows (tracked, and new ones not ignored), or every
# file outside build directories when the source is not a git checkout.
# Prints every offending line; exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2
bad=0

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard
	else
		find . -path ./build\* -prune -o -path ./.git -prune -o -type f -print0 |
			sed -z 's|^\./||'
	fi
}

# check DESCRIPTION PATTERN [FILE-FILTER [GREP-FLAG]]: grep -E over the files
# whose path matches FILE-FILTER (a regex; every file when empty), binary files
# skipped; GREP-FLAG is e.g. -i.
check() {
	local what=$1 pat=$2 filter=${3:-.} flag=${4:--E} hits
	hits=$(files | grep -zE "$filter" | xargs -0 -r grep -InE "$flag" -- "$pat" 2>/dev/null)
	if [ -n "$hits" ]; then
		printf 'lint-docs: %s:\n%s\n' "$what" "$hits"
		bad=1
	fi
}

# A path that starts at the root (line start, a space, a quote, '=', '(',
# ':', '`' or '<' before it) under a home or a checkout directory. $VAR/work/
# and similar relative uses do not match; /var/lib/cni, /opt/cni/bin and
# /tmp do not either.
check "absolute path of a development machine" \
	'(^|[][[:space:]"'"'"'=(:`<,])/(home|root|work|Users)/'
check "reference to a document outside the repository" \
	'\.\./shared/|[/]shared[/]reference|(DESIGN|CONTRACTS|STYLE)\.md'
check "work diary in Markdown (state the fact; runs go to bench/results/)" \
	'\b(first|second|third|fourth|fifth|this|another) (session|pass)\b' \
	'\.md$' -i
check "dated section heading in a README (measurements go to bench/results/)" \
	'^#+ .*\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b' \
	'(^|/)README\.md$'

[ "$bad" -eq 0 ] && echo "lint-docs: ok"
exit "$bad"
