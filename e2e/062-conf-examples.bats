#!/usr/bin/env bats
# Every example in conf/ (and conf/demo/) really works: ADD, CHECK and DEL
# through the bridge in a throwaway host netns, each in its own pod netns,
# all of them up on one "node" at the same time (each example has its own
# bridge and subnet, so none collides with another). IPAM state goes to
# $STATE: every host-local dataDir is rewritten. A chain of an example with
# Debian's reference tuning plugin works too (the examples use cniVersion
# 1.0.0, which the reference plugins support; they refuse 1.1.0).

setup() {
	load helpers
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	pw_setup
	cnitool_setup
	ALL=("$PODWIRE_SRC"/conf/*.conf "$PODWIRE_SRC"/conf/*.conflist "$PODWIRE_SRC"/conf/demo/*.conflist)
	# The examples whose (first) plugin is the bridge; the macvlan and loopback
	# examples need links of their own and are the business of those plugins' tests.
	EXAMPLES=()
	local f
	for f in "${ALL[@]}"; do
		[ "$(jq -r '(.plugins[0] // .).type' "$f")" = bridge ] && EXAMPLES+=("$f")
	done
	PW_CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN:$REF_BIN"
}

teardown() {
	pw_teardown
}

# relocate FILE: the example with every dataDir (host-local's, tuning's) in $STATE.
relocate() {
	jq -c --arg dd "$STATE" 'def fix: (if .ipam.type == "host-local" then .ipam.dataDir = ($dd + "/ipam") else . end)
		| if has("dataDir") then .dataDir = ($dd + "/" + .type) else . end;
		if has("plugins") then .plugins |= map(fix) else fix end' "$1"
}

@test "the examples: one bridge each, distinct subnets, cniVersion 1.0.0 unless showing an old version" {
	local f
	[ "${#EXAMPLES[@]}" -ge 10 ]
	run sh -c 'for f in "$@"; do jq -r "[.. | objects | .bridge? // empty] | unique[]" "$f"; done | sort | uniq -d' sh "${ALL[@]}"
	[ -z "$output" ] || { echo "# bridges shared by examples: $output" >&2; return 1; }
	run sh -c 'for f in "$@"; do jq -r "[.. | objects | .subnet? // empty] | unique[]" "$f"; done | sort | uniq -d' sh "${ALL[@]}"
	[ -z "$output" ] || { echo "# subnets shared by examples: $output" >&2; return 1; }
	for f in "${EXAMPLES[@]}"; do
		case $(jq -r .cniVersion "$f") in
		1.0.0 | 0.3.1) ;;
		*) echo "# $f: cniVersion $(jq -r .cniVersion "$f")" >&2; return 1 ;;
		esac
	done
	# The other examples may say 1.1.0 where every plugin supports it and GC
	# matters (bgp-route: stale host routes); conf/README.md says which.
	for f in "${ALL[@]}"; do
		case $(jq -r .cniVersion "$f") in
		1.1.0 | 1.0.0 | 0.3.1) ;;
		*) echo "# $f: cniVersion $(jq -r .cniVersion "$f")" >&2; return 1 ;;
		esac
	done
}

# example CMD I FILE [PREV]: CMD of example FILE in pod netns I: a .conf as
# a runtime sends it to the bridge, a .conflist through cnitool. ADD leaves
# the result in $output.
example() {
	local cmd=$1 i=$2 f=$3 conf netns="/var/run/netns/${PW_ID}e$2"
	conf=$(relocate "$f")
	if [ "${f%.conflist}" != "$f" ]; then
		[ -e "$NETCONF/$i.conflist" ] || printf '%s\n' "$conf" >"$NETCONF/$i.conflist"
		run_cnitool "$(tr A-Z a-z <<<"$cmd")" "$(jq -r .name <<<"$conf")" "$netns"
		return
	fi
	[ "$cmd" = CHECK ] && conf=$(jq -c --argjson pr "$4" '. + {prevResult: $pr}' <<<"$conf")
	PW_NETNS="$netns" run_plugin bridge "$cmd" eth0 "ex$i" <<<"$conf"
}

@test "every example: ADD, CHECK and DEL, all of them up at once on one node" {
	local i f
	local -a up results
	for i in "${!EXAMPLES[@]}"; do
		f=${EXAMPLES[i]}
		pw_netns_new "${PW_ID}e$i"
		if ! example ADD "$i" "$f"; then
			# the kernel of some machines refuses bridge VLAN filtering (see 110-bridge-features)
			if jq -e '(.plugins[0] // .) | .vlan or .vlanTrunk' "$f" >/dev/null &&
				grep -q "VLAN filtering" <<<"$output$(cat "$CNITOOL_ERR" 2>/dev/null)"; then
				echo "# ${f#$PODWIRE_SRC/}: kernel refuses VLAN filtering, not run" >&3
				continue
			fi
			echo "# ADD of ${f#$PODWIRE_SRC/} failed" >&2
			return 1
		fi
		up+=("$i")
		results[i]=$output
	done
	for i in "${up[@]}"; do
		f=${EXAMPLES[i]}
		[ "$(jq -r .cniVersion "$f")" = 0.3.1 ] && continue # no CHECK before 0.4.0
		example CHECK "$i" "$f" "${results[i]}" ||
			{ echo "# CHECK of ${f#$PODWIRE_SRC/} failed" >&2; return 1; }
	done
	for i in "${up[@]}"; do
		example DEL "$i" "${EXAMPLES[i]}"
		example DEL "$i" "${EXAMPLES[i]}"
	done
	# every host veth and every lease is gone (bridges stay, as with the reference)
	[ -z "$(ip -n "$HOST_NS" -o link show type veth)" ]
	[ -z "$(find "$STATE/ipam" -maxdepth 2 -type f -name '[0-9a-f]*[.:]*' ! -name 'last_reserved_ip*' 2>/dev/null)" ]
}

@test "an example chained with the reference tuning plugin: ADD, CHECK, DEL through cnitool" {
	pw_need "$REF_BIN/tuning"
	jq --arg dd "$STATE/ipam" '.plugins[0].ipam.dataDir = $dd
		| .plugins += [{"type": "tuning", "sysctl": {"net.ipv4.conf.eth0.accept_local": "1"}}]' \
		"$PODWIRE_SRC/conf/bridge-basic.conflist" >"$NETCONF/10-basic.conflist"
	# podwire's bridge, the reference tuning (podwire builds a tuning of its own too)
	mkdir -p "$STATE/ref"
	ln -s "$REF_BIN/tuning" "$STATE/ref/tuning"
	PW_CNI_PATH="$STATE/ref:$PODWIRE_BIN"
	run_cnitool add bridge-basic "/var/run/netns/$POD_NS"
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv4/conf/eth0/accept_local)" = 1 ]
	run_cnitool check bridge-basic "/var/run/netns/$POD_NS"
	run_cnitool del bridge-basic "/var/run/netns/$POD_NS"
}
