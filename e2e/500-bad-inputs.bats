#!/usr/bin/env bats
# Bad input through the real binaries: every row of
# testdata/reliability/bad-inputs.tsv must fail with exactly its CNI error
# code, a msg naming the key and the value, exactly one
# JSON document on stdout, exit status 1 -- and leave no trace: links,
# addresses, routes (host and pod), nftables, state files and their content
# are compared before and after every case (rel_snapshot).
#
# Each plugin's rows are one test; every failing row is printed with its
# name and why, and the test fails at the end. REL_CASE=<name> runs one row.

setup() {
	load helpers
	load reliability-helpers
	pw_setup
	mkdir -p "$STATE/work/dir"
	: >"$STATE/work/regular-file"
}

teardown() {
	pw_teardown
}

# rel_subst STRING: expand the table's placeholders.
rel_subst() {
	local s=$1
	s=${s//@FILE/$STATE/work/regular-file}
	s=${s//@DIR/$STATE/work/dir}
	s=${s//@HOSTNS//var/run/netns/$HOST_NS}
	s=${s//@DD@/$STATE/ipam}
	printf '%s' "$s"
}

# rel_stdin SPEC: the case's stdin on stdout.
rel_stdin() {
	local spec=$1
	case "$spec" in
	raw:*) rel_subst "${spec#raw:}" ;;
	@empty) ;;
	@oversize)
		# A valid config followed by 5 MiB of JSON whitespace: only the size is wrong.
		rel_conf bridge
		head -c $((5 << 20)) /dev/zero | tr '\0' ' '
		;;
	@truncated:*)
		local full
		full=$(rel_conf "${spec#@truncated:}")
		printf '%s' "${full:0:$((${#full} / 2))}"
		;;
	*'|'*) rel_conf "${spec%%|*}" "${spec#*|}" ;;
	*) rel_conf "$spec" ;;
	esac
}

# rel_case NAME PLUGIN CMD ENV STDIN CODE SUBSTRINGS: 0 if the row holds.
rel_case() {
	local name=$1 plugin=$2 cmd=$3 envs=$4 spec=$5 code=$6 subs=$7
	local in="$STATE/work/stdin" out="$STATE/work/stdout" err="$STATE/work/stderr"
	local -A env=(
		[CNI_COMMAND]=$cmd [CNI_CONTAINERID]=relbad [CNI_IFNAME]=eth1
		[CNI_NETNS]=/var/run/netns/$POD_NS [CNI_PATH]=$PODWIRE_BIN:$PODWIRE_TEST_BIN
	)
	local tok rc got text s ok=0
	local -a envv=()

	rel_stdin "$spec" >"$in" || { echo "# [$name] cannot build stdin" >&2; return 1; }
	if [ "$envs" != "-" ]; then
		for tok in $envs; do
			case "$tok" in
			-*) unset "env[${tok#-}]" ;;
			*=*) env[${tok%%=*}]=$(rel_subst "${tok#*=}") ;;
			esac
		done
	fi
	for tok in "${!env[@]}"; do
		envv+=("$tok=${env[$tok]}")
	done
	[ -n "${ASAN_OPTIONS:-}" ] && envv+=("ASAN_OPTIONS=$ASAN_OPTIONS")
	[ -n "${UBSAN_OPTIONS:-}" ] && envv+=("UBSAN_OPTIONS=$UBSAN_OPTIONS")

	# The baseline is the previous case's end state (rel_table takes the first).
	ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" "${envv[@]}" \
		timeout 60 "$PODWIRE_BIN/$plugin" <"$in" >"$out" 2>"$err"
	rc=$?

	if [ "$rc" -ne 1 ]; then
		echo "# [$name] exit status $rc, want 1" >&2
		ok=1
	fi
	# Under make test-asan a sanitizer report also exits 1: look for it.
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$err"; then
		echo "# [$name] sanitizer report on stderr" >&2
		ok=1
	fi
	if [ "$(jq -s length <"$out" 2>/dev/null)" != 1 ]; then
		echo "# [$name] stdout is not exactly one JSON document: $(head -c 300 "$out")" >&2
		ok=1
	else
		got=$(jq -r '.code' <"$out")
		# README: "msg names the offending key or variable and its value".
		text=$(jq -r '.msg // ""' <"$out")
		if [ "$got" != "$code" ]; then
			echo "# [$name] code $got, want $code: $(jq -c . <"$out")" >&2
			ok=1
		fi
		IFS='|' read -r -a subs_a <<<"$subs"
		for s in "${subs_a[@]}"; do
			s=$(rel_subst "$s")
			case "$text" in
			*"$s"*) ;;
			*)
				echo "# [$name] msg lacks '$s': $(jq -c . <"$out")" >&2
				ok=1
				;;
			esac
		done
	fi
	if ! rel_assert_same before 2>"$STATE/work/diff"; then
		echo "# [$name] state changed:" >&2
		sed 's/^/#   /' "$STATE/work/diff" >&2
		ok=1
		# Judge the next case against what this one left.
		rel_settle
		rel_snapshot before
	fi
	[ "$ok" -eq 0 ] || echo "# [$name] stderr: $(head -c 400 "$err")" >&2
	return $ok
}

# rel_table PLUGIN: run every row of PLUGIN; print failures; fail if any.
rel_table() {
	local name plugin cmd envs spec code subs n=0 failed=()
	rel_snapshot before
	while IFS=$'\t' read -r -u 4 name plugin cmd envs spec code subs; do
		[ -z "$name" ] || [ "${name:0:1}" = "#" ] && continue
		[ "$plugin" = "$1" ] || continue
		[ -n "${REL_CASE:-}" ] && [ "$name" != "$REL_CASE" ] && continue
		n=$((n + 1))
		rel_case "$name" "$plugin" "$cmd" "$envs" "$spec" "$code" "$subs" ||
			failed+=("$name")
	done 4<"$REL_DATA/bad-inputs.tsv"
	echo "# $1: $n cases, ${#failed[@]} failed${failed:+: ${failed[*]}}" >&2
	[ -n "${REL_CASE:-}" ] || [ "$n" -ge 1 ]
	[ "${#failed[@]}" -eq 0 ]
}

@test "the bad-input table has at least 40 cases, unique names, 7 columns each" {
	run awk -F'\t' '!/^#/ && NF { n++; if (NF != 7) bad = bad " " $1; if (seen[$1]++) dup = dup " " $1 }
		END { print n; print "cols:" bad; print "dups:" dup }' "$REL_DATA/bad-inputs.tsv"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -ge 40 ]
	[ "${lines[1]}" = "cols:" ]
	[ "${lines[2]}" = "dups:" ]
}

@test "bridge (with host-local IPAM) refuses every bad input and changes nothing" {
	require_binaries bridge host-local
	# Something to lose: a live attachment (bridge, veth, address, lease, nft elements).
	rel_conf bridge >"$STATE/work/good.json"
	run_plugin bridge ADD eth0 relgood <"$STATE/work/good.json"
	rel_settle
	rel_table bridge
}

@test "host-local on its own refuses every bad input and changes nothing" {
	require_binaries host-local
	rel_conf host-local >"$STATE/work/good.json"
	run_plugin host-local ADD eth0 relgood <"$STATE/work/good.json"
	rel_table host-local
}

@test "static on its own refuses every bad input and changes nothing" {
	require_binaries static
	rel_table static
}

@test "a config key known but for letter case is code 7 on ADD and CHECK, a warning on DEL" {
	require_binaries bridge host-local
	rel_conf bridge 'del(.ipMasq) | .ipmasq = true' >"$STATE/work/case.json"
	run_plugin -e 1 bridge ADD eth0 relcase <"$STATE/work/case.json"
	assert_error 7 "'ipmasq': unknown key (did you mean 'ipMasq'?)"
	run_plugin -e 1 bridge CHECK eth0 relcase <"$STATE/work/case.json"
	assert_error 7 "'ipmasq'"
	run_plugin bridge DEL eth0 relcase <"$STATE/work/case.json"
	grep -q "'ipmasq': unknown key (did you mean 'ipMasq'?), ignoring" "$PW_STDERR"
	rel_conf bridge '.ipam.RangeS = []' >"$STATE/work/case2.json"
	run_plugin -e 1 bridge ADD eth0 relcase <"$STATE/work/case2.json"
	assert_error 7 "ipam.'RangeS'"
}

@test "unknown config keys are ignored with a warning naming them (documented behaviour)" {
	require_binaries bridge host-local
	rel_conf bridge '.isGatway = true' >"$STATE/work/typo.json"
	run_plugin bridge ADD eth0 reltypo <"$STATE/work/typo.json"
	grep -q 'isGatway' "$PW_STDERR"
	grep -q 'isGateway' "$PW_STDERR" # the "did you mean" hint
	run_plugin bridge DEL eth0 reltypo <"$STATE/work/typo.json"
}
