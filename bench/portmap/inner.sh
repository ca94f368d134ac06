#!/usr/bin/env bash
# Runs inside the benchmark's host netns (see run.sh). Prints a markdown table.
set -euo pipefail
now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
CAPS='{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}]}'

conflist() { # NAME SUBNET: bridge + portmap conflist
	mkdir -p "$T/$1"
	cat >"$T/$1/10.conflist" <<JSON
{"cniVersion":"1.0.0","name":"$1","plugins":[
 {"type":"bridge","bridge":"br$1","isGateway":true,"ipMasq":false,
  "ipam":{"type":"host-local","dataDir":"$T/ipam-$1","ranges":[[{"subnet":"$2"}]]}},
 {"type":"portmap","capabilities":{"portMappings":true}}]}
JSON
}

cnitool() { # NAME CNI_PATH CMD
	NETCONFPATH="$T/$1" CNI_PATH="$2" CAP_ARGS="$CAPS" \
		"$BUILD/bin/cnitool" --cache-dir "$T/cache-$1" "$3" "$1" "$NETNS" >"$T/out" ||
		{ echo "cnitool $3 $1 failed: $(cat "$T/out")" >&2; exit 1; }
}

chain_us() { # NAME CNI_PATH: median ADD time (us) over RUNS add/del cycles
	local i t0 t1
	: >"$T/times"
	for i in $(seq "$RUNS"); do
		t0=$(now)
		cnitool "$1" "$2" add
		t1=$(now)
		echo $(((t1 - t0) / 1000)) >>"$T/times"
		cnitool "$1" "$2" del
	done
	median <"$T/times"
}

pmconf() { # NET HOSTPORT POD-IP: a chained portmap config with prevResult
	printf '{"cniVersion":"1.0.0","name":"%s","type":"portmap","runtimeConfig":{"portMappings":[{"hostPort":%s,"containerPort":80,"protocol":"tcp"}]},"prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"%s"}],"ips":[{"address":"%s/24","interface":0}]}}' \
		"$1" "$2" "$NETNS" "$3"
}

pm() { # PLUGIN CMD CID CONF (a failure stops the benchmark)
	CNI_COMMAND=$2 CNI_CONTAINERID=$3 CNI_NETNS=$NETNS CNI_IFNAME=eth0 CNI_PATH=/nonexistent \
		"$1" <<<"$4" >"$T/out" || { echo "$1 $2 $3 failed: $(cat "$T/out")" >&2; exit 1; }
}

adddel_us() { # PLUGIN NET: median ADD+DEL (us) of one attachment
	local i t0 t1 c
	c=$(pmconf "$2" 9999 10.99.1.1)
	: >"$T/times"
	for i in $(seq "$RUNS"); do
		t0=$(now)
		pm "$1" ADD bench "$c"
		pm "$1" DEL bench "$c"
		t1=$(now)
		echo $(((t1 - t0) / 1000)) >>"$T/times"
	done
	median <"$T/times"
}

fill() { # PLUGIN NET N: N other attachments with one mapping each
	local i
	for i in $(seq "$3"); do
		pm "$1" ADD "other$i" "$(pmconf "$2" $((20000 + i)) "10.98.$((i / 250)).$((i % 250 + 1))")"
	done
}

conflist pw 10.201.0.0/24
conflist ref 10.202.0.0/24
ref_chain=$(chain_us ref "$REF")
pw_chain=$(chain_us pw "$BUILD/bin")
pw_1=$(adddel_us "$BUILD/bin/portmap" pmnet)
ref_1=$(adddel_us "$REF/portmap" refnet)
fill "$BUILD/bin/portmap" pmnet "${FILL:-1000}"
fill "$REF/portmap" refnet "${FILL:-1000}"
pw_1000=$(adddel_us "$BUILD/bin/portmap" pmnet)
ref_1000=$(adddel_us "$REF/portmap" refnet)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
cat <<MD
| measure (median of $RUNS, us) | podwire | reference | podwire / reference |
|---|---|---|---|
| cnitool ADD bridge + portmap (1 mapping) | $pw_chain | $ref_chain | $(ratio "$pw_chain" "$ref_chain") |
| portmap ADD+DEL, no other mappings | $pw_1 | $ref_1 | $(ratio "$pw_1" "$ref_1") |
| portmap ADD+DEL, ${FILL:-1000} other attachments' mappings | $pw_1000 | $ref_1000 | $(ratio "$pw_1000" "$ref_1000") |
| growth (${FILL:-1000} / none) | $(ratio "$pw_1000" "$pw_1") | $(ratio "$ref_1000" "$ref_1") | |
MD
