#!/bin/bash
# Concurrency test for the bridge plugin with host-local IPAM: N attachments
# (one pod netns each) on one network; a random half is ADDed first, then
# each round runs N operations at once -- DEL for every attachment that is
# up, ADD for every one that is down -- and checks:
#   - every operation succeeded;
#   - no address is held by two attachments;
#   - the lease files are exactly the addresses of the attachments that are
#     up, each naming its own attachment (no lost and no stale lease), and
#     podwire's index agrees;
#   - the host has exactly one veth per attachment that is up, and
#     nftables exactly its elements.
# At the end every attachment is DELeted and nothing may remain.
#
#   scripts/concurrency.sh [BIN_DIR]      (default: build/bin)
#
# Environment: CONC_N (default 100), CONC_ROUNDS (default 3), CONC_SEED.
# Needs root; works in throwaway netns and a temporary directory.
set -u

BIN=${1:-build/bin}
BIN=$(cd "$BIN" && pwd) || exit 2
N=${CONC_N:-100}
ROUNDS=${CONC_ROUNDS:-3}
SEED=${CONC_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$SEED

ID=$(printf 'pwk%04x%04x' "$$" "$((RANDOM))")
HOST_NS=${ID}h
NET=concnet
BR=concbr0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/podwire-conc.XXXXXX")
# Lock files of shared resources (the bridge's): in this run's temp dir, not /run/podwire.
export PODWIRE_LOCK_DIR="${PODWIRE_LOCK_DIR:-$WORK/locks}"
FAILS=0
declare -a UP IP

cleanup() {
	local i
	{
		for i in $(seq 1 "$N"); do
			echo "netns del ${ID}p$i"
		done
		echo "netns del $HOST_NS"
	} | ip -force -batch - 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL $*"
	FAILS=$((FAILS + 1))
}

[ -x "$BIN/bridge" ] && [ -x "$BIN/host-local" ] || {
	echo "concurrency: bridge and host-local must be built in $BIN" >&2
	exit 2
}
{
	echo "netns add $HOST_NS"
	for i in $(seq 1 "$N"); do
		echo "netns add ${ID}p$i"
	done
} | ip -batch - || exit 2
ip -n "$HOST_NS" link set lo up

printf '{"cniVersion":"1.1.0","name":"%s","type":"bridge","bridge":"%s","isGateway":true,' \
	"$NET" "$BR" >"$WORK/conf.json"
printf '"ipMasq":true,"macspoofchk":true,"ipam":{"type":"host-local","subnet":"10.89.0.0/24",' \
	>>"$WORK/conf.json"
printf '"dataDir":"%s/ipam"}}' "$WORK" >>"$WORK/conf.json"

# op CMD I: one plugin run for attachment I; output in $WORK/I.CMD.{out,err,rc}.
op() {
	local cmd=$1 i=$2
	ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" CNI_COMMAND="$cmd" CNI_CONTAINERID="conc$i" \
		CNI_NETNS="/var/run/netns/${ID}p$i" CNI_IFNAME=eth0 CNI_PATH="$BIN" \
		${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
		timeout 300 "$BIN/bridge" <"$WORK/conf.json" >"$WORK/$i.$cmd.out" 2>"$WORK/$i.$cmd.err"
	echo $? >"$WORK/$i.$cmd.rc"
}

# finish CMD I: account for a finished op (state arrays, failures).
finish() {
	local cmd=$1 i=$2 rc addr
	rc=$(cat "$WORK/$i.$cmd.rc")
	if [ "$rc" != 0 ]; then
		fail "$cmd conc$i: exit $rc: $(head -c 300 "$WORK/$i.$cmd.out")"
		return
	fi
	if [ "$cmd" = ADD ]; then
		addr=$(jq -r '.ips[0].address // empty' <"$WORK/$i.$cmd.out")
		[ -n "$addr" ] || fail "ADD conc$i: no address in result"
		UP[$i]=1
		IP[$i]=${addr%/*}
	else
		UP[$i]=0
		IP[$i]=""
	fi
}

# verify WHEN: the invariants above against UP/IP.
verify() {
	local when=$1 i want_leases="" want_owners="" got dups want_veths=0
	for i in $(seq 1 "$N"); do
		[ "${UP[$i]}" = 1 ] || continue
		want_leases+="${IP[$i]}"$'\n'
		want_owners+="${IP[$i]} conc$i/eth0"$'\n'
		want_veths=$((want_veths + 1))
	done
	dups=$(printf '%s' "$want_leases" | sort | uniq -d | tr '\n' ' ')
	[ -z "$dups" ] || fail "$when: addresses held twice: $dups"
	got=$(find "$WORK/ipam/$NET" -maxdepth 1 -type f ! -name lock ! -name 'last_reserved_ip.*' \
		-printf '%f\n' | sort)
	[ "$got" = "$(printf '%s' "$want_leases" | sort)" ] ||
		fail "$when: lease files differ (< want, > have):" \
			"$(diff <(printf '%s' "$want_leases" | sort) <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
	got=$(cd "$WORK/ipam/$NET" && find . -maxdepth 1 -type f ! -name lock \
		! -name 'last_reserved_ip.*' -printf '%f\n' | while read -r f; do
		printf '%s %s\n' "$f" "$(tr -d '\n' <"$f" | tr '\r' /)"
	done | sort)
	[ "$got" = "$(printf '%s' "$want_owners" | sort)" ] ||
		fail "$when: lease owners differ: $(diff <(printf '%s' "$want_owners" | sort) \
			<(echo "$got") | grep '^[<>]' | head -5 | tr '\n' ' ')"
	got=$(find "$WORK/ipam/$NET/.podwire" -maxdepth 1 -name '@*' 2>/dev/null | wc -l)
	[ "$got" = "$want_veths" ] || fail "$when: $got index entries for $want_veths attachments"
	got=$(ip -n "$HOST_NS" -o link show type veth | wc -l)
	[ "$got" = "$want_veths" ] || fail "$when: $got host veths for $want_veths attachments"
	got=$(ip netns exec "$HOST_NS" nft -j list ruleset |
		jq -r '.nftables[] | select(.set) | .set.elem // [] | .[] |
			(.elem.comment // "?")' | sort | uniq -c | awk '{ print $2, $1 }' | sort)
	want=$(printf '%s' "$want_owners" | awk '{ print $2 }' | sort | awk '{ print $1, 3 }')
	[ "$got" = "$want" ] ||
		fail "$when: nftables elements differ: $(diff <(echo "$want") <(echo "$got") |
			grep '^[<>]' | head -5 | tr '\n' ' ')"
}

# Initial mix: a random half ADDed one by one.
for i in $(seq 1 "$N"); do
	UP[$i]=0
	IP[$i]=""
	if [ $((RANDOM % 2)) = 1 ]; then
		op ADD "$i"
		finish ADD "$i"
	fi
done
verify "initial"

t0=$(date +%s%N)
ops=0
for r in $(seq 1 "$ROUNDS"); do
	cmds=()
	for i in $(seq 1 "$N"); do
		if [ "${UP[$i]}" = 1 ]; then cmds[$i]=DEL; else cmds[$i]=ADD; fi
		op "${cmds[$i]}" "$i" &
	done
	wait
	for i in $(seq 1 "$N"); do
		finish "${cmds[$i]}" "$i"
	done
	ops=$((ops + N))
	verify "round $r"
done
t_ms=$((($(date +%s%N) - t0) / 1000000))

for i in $(seq 1 "$N"); do
	if [ "${UP[$i]}" = 1 ]; then
		op DEL "$i"
		finish DEL "$i"
	fi
done
verify "after DEL of all"

echo "concurrency: attachments=$N rounds=$ROUNDS parallel_ops=$ops time_ms=$t_ms seed=$SEED" \
	"failures=$FAILS"
[ "$FAILS" -eq 0 ]
