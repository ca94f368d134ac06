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
	pw_setup
	EXAMPLES=("$PODWIRE_SRC"/conf/*.conf "$PODWIRE_SRC"/conf/*.conflist "$PODWIRE_SRC"/conf/demo/*.conflist)
}

teardown() {
	pw_teardown
}

# example_stdin FILE: what a runtime sends the (first) plugin, state moved to $STATE.
example_stdin() {
	jq -c --arg dd "$STATE/ipam" \
		'(if has("plugins") then .plugins[0] + {name, cniVersion} else . end)
		 | if .ipam.type == "host-local" then .ipam.dataDir = $dd else . end' "$1"
}

@test "the examples: one bridge each, distinct subnets, cniVersion 1.0.0 unless showing an old version" {
	local f
	[ "${#EXAMPLES[@]}" -ge 10 ]
	run sh -c 'for f in "$@"; do jq -r "(.plugins[0] // .).bridge" "$f"; done | sort | uniq -d' sh "${EXAMPLES[@]}"
	[ -z "$output" ] || { echo "# bridges shared by examples: $output" >&2; return 1; }
	run sh -c 'for f in "$@"; do jq -r "[.. | objects | .subnet? // empty] | unique[]" "$f"; done | sort | uniq -d' sh "${EXAMPLES[@]}"
	[ -z "$output" ] || { echo "# subnets shared by examples: $output" >&2; return 1; }
	for f in "${EXAMPLES[@]}"; do
		case $(jq -r .cniVersion "$f") in
		1.0.0 | 0.3.1) ;;
		*) echo "# $f: cniVersion $(jq -r .cniVersion "$f")" >&2; return 1 ;;
		esac
	done
}

@test "every example: ADD, CHECK and DEL, all of them up at once on one node" {
	local i=0 f conf ns
	local -a confs results
	for f in "${EXAMPLES[@]}"; do
		ns="${PW_ID}e$i"
		pw_netns_new "$ns"
		conf=$(example_stdin "$f")
		if ! PW_NETNS="/var/run/netns/$ns" run_plugin bridge ADD eth0 "ex$i" <<<"$conf"; then
			# the kernel of some machines refuses bridge VLAN filtering (see 110-bridge-features)
			if jq -e '.vlan or .vlanTrunk' <<<"$conf" >/dev/null &&
				assert_error 100 "VLAN filtering"; then
				echo "# ${f#$PODWIRE_SRC/}: kernel refuses VLAN filtering, not run" >&3
				i=$((i + 1))
				continue
			fi
			echo "# ADD of ${f#$PODWIRE_SRC/} failed" >&2
			return 1
		fi
		confs[i]=$conf
		results[i]=$output
		i=$((i + 1))
	done
	for i in "${!confs[@]}"; do
		f=${EXAMPLES[i]}
		[ "$(jq -r .cniVersion <<<"${confs[i]}")" = 0.3.1 ] && continue # no CHECK before 0.4.0
		PW_NETNS="/var/run/netns/${PW_ID}e$i" run_plugin bridge CHECK eth0 "ex$i" \
			<<<"$(jq -c --argjson pr "${results[i]}" '. + {prevResult: $pr}' <<<"${confs[i]}")" ||
			{ echo "# CHECK of ${f#$PODWIRE_SRC/} failed" >&2; return 1; }
	done
	for i in "${!confs[@]}"; do
		PW_NETNS="/var/run/netns/${PW_ID}e$i" run_plugin bridge DEL eth0 "ex$i" <<<"${confs[i]}"
		PW_NETNS="" run_plugin bridge DEL eth0 "ex$i" <<<"${confs[i]}"
	done
	# every host veth and every lease is gone (bridges stay, as with the reference)
	[ -z "$(ip -n "$HOST_NS" -o link show type veth)" ]
	[ -z "$(find "$STATE/ipam" -maxdepth 2 -type f -name '[0-9a-f]*[.:]*' ! -name 'last_reserved_ip*' 2>/dev/null)" ]
}

@test "an example chained with the reference tuning plugin: ADD, CHECK, DEL through cnitool" {
	[ -x "$REF_BIN/tuning" ] || skip "reference tuning not installed"
	load "$PODWIRE_SRC/test/cnitool/cnitool-e2e"
	cnitool_setup
	jq --arg dd "$STATE/ipam" '.plugins[0].ipam.dataDir = $dd
		| .plugins += [{"type": "tuning", "sysctl": {"net.ipv4.conf.eth0.accept_local": "1"}}]' \
		"$PODWIRE_SRC/conf/bridge-basic.conflist" >"$NETCONF/10-basic.conflist"
	PW_CNI_PATH="$PODWIRE_BIN:$REF_BIN"
	run_cnitool add bridge-basic "/var/run/netns/$POD_NS"
	[ "$(in_ns "$POD_NS" cat /proc/sys/net/ipv4/conf/eth0/accept_local)" = 1 ]
	run_cnitool check bridge-basic "/var/run/netns/$POD_NS"
	run_cnitool del bridge-basic "/var/run/netns/$POD_NS"
}
