#!/usr/bin/env bash
# multinet ADD against the sum of its delegates' own ADDs, measured in the
# same run (issue 20). One pod = eth0 (podwire bridge + host-local) + net1
# (podwire bridge + static): multinet costs the two delegates plus one pod
# GET, one NAD GET and one PATCH on a kept TLS connection to the apiserver
# stand-in (test/apiserver/apiserver.py), plus its own work. The round trips
# are measured on their own with curl (one connection, same requests).
#
# Usage: bench/multinet/run.sh BUILD_DIR [--pods N] [--rounds R] [--out DIR]
# Root (network namespaces). Every namespace, server and file is the run's
# own and removed at exit (the bridge delegates' lock files too:
# PODWIRE_LOCK_DIR). Output: one JSON summary line on stdout (and in
# DIR/multinet.json with the raw pwbench lines).
set -euo pipefail

BUILD=${1:?usage: run.sh BUILD_DIR [--pods N] [--rounds R] [--out DIR]}
shift
PODS=20 ROUNDS=5 OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--pods) PODS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$BUILD/bin
PWBENCH=$BUILD/bench/pwbench
ID="mnb$$"
HOST="${ID}h"
W=$(mktemp -d /tmp/podwire-mnbench.XXXXXX)
TOKEN=bench-token
SRV_PID=

cleanup() {
	set +e
	if [ -n "$SRV_PID" ]; then
		kill "$SRV_PID" 2>/dev/null
		wait "$SRV_PID" 2>/dev/null
	fi
	for i in $(seq "$PODS"); do ip netns del "${ID}p$i" 2>/dev/null || true; done
	ip netns del "$HOST" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT

ip netns add "$HOST"
ip -n "$HOST" link set lo up
for i in $(seq "$PODS"); do
	ip netns add "${ID}p$i"
	ip -n "${ID}p$i" link set lo up
done
mkdir -p "$W"/{fx/pods/ns1,fx/nads/ns1,conf,cache,ipam,certs}

# Certificates and the stand-in, inside the bench's host netns.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$W/certs/ca.key" \
	-out "$W/certs/ca.crt" -days 1 -subj /CN=bench-ca 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$W/certs/s.key" \
	-out "$W/certs/s.csr" -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$W/certs/ext"
openssl x509 -req -in "$W/certs/s.csr" -CA "$W/certs/ca.crt" -CAkey "$W/certs/ca.key" \
	-CAcreateserial -out "$W/certs/s.crt" -days 1 -extfile "$W/certs/ext" 2>/dev/null
ip netns exec "$HOST" /usr/bin/python3 "$SRC/test/apiserver/apiserver.py" --dir "$W/fx" \
	--cert "$W/certs/s.crt" --key "$W/certs/s.key" --token "$TOKEN" --log "$W/requests.log" \
	--port-file "$W/port" &
SRV_PID=$!
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
PORT=$(cat "$W/port")
cat >"$W/kubeconfig" <<YAML
current-context: b
contexts: [{name: b, context: {cluster: s, user: u}}]
clusters: [{name: s, cluster: {server: "https://127.0.0.1:$PORT", certificate-authority: "$W/certs/ca.crt"}}]
users: [{name: u, user: {token: $TOKEN}}]
YAML

CLUSTER='{"cniVersion":"1.0.0","name":"cluster","type":"bridge","bridge":"mbcl0","isGateway":true,
 "ipam":{"type":"host-local","dataDir":"'"$W"'/ipam","ranges":[[{"subnet":"10.90.0.0/16"}]]}}'
NET1='{"cniVersion":"1.0.0","name":"net-b","type":"bridge","bridge":"mbbr1",
 "ipam":{"type":"static","addresses":[{"address":"10.91.0.10/24"}]}}'
jq -n --argjson c "$CLUSTER" '{cniVersion:"1.0.0",name:"cluster",plugins:[$c | del(.cniVersion,.name)]}' \
	>"$W/conf/10-cluster.conflist"
echo "$CLUSTER" >"$W/cluster.json"
echo "$NET1" >"$W/net1.json"
jq -n --arg c "$NET1" '{apiVersion:"k8s.cni.cncf.io/v1",kind:"NetworkAttachmentDefinition",
  metadata:{name:"net-b",namespace:"ns1"},spec:{config:$c}}' >"$W/fx/nads/ns1/net-b.json"
jq -n '{apiVersion:"v1",kind:"Pod",metadata:{name:"pod1",namespace:"ns1",uid:"u1",
  annotations:{"k8s.v1.cni.cncf.io/networks":"net-b"}}}' >"$W/fx/pods/ns1/pod1.json"
jq -n --arg w "$W" --arg bin "$BIN" '{cniVersion:"1.0.0",name:"multinet",type:"multinet",
  kubeconfig:($w+"/kubeconfig"),clusterNetwork:($w+"/conf/10-cluster.conflist"),
  cniDir:($w+"/cache"),binDir:$bin}' >"$W/multinet.json"

# The same two networks without any apiserver (delegates mode): multinet's
# own cost without the round trips.
jq -n --arg w "$W" --arg bin "$BIN" --argjson c "$CLUSTER" --argjson n "$NET1" \
	'{cniVersion:"1.0.0",name:"multinet",type:"multinet",delegates:[$c,$n],
	  cniDir:($w+"/cache"),binDir:$bin}' >"$W/multinet-local.json"

ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=ns1;K8S_POD_NAME=pod1;K8S_POD_UID=u1"
bench() { # LABEL CMD PLUGIN CONF IFNAME
	ip netns exec "$HOST" "$PWBENCH" --label "$1" --cmd "$2" --plugin "$BIN/$3" --conf "$4" \
		--netns "/var/run/netns/${ID}p{i}" --cid "$1-{i}" --ifname "$5" --cni-path "$BIN" \
		--env "CNI_ARGS=$ARGS" --env "PODWIRE_LOCK_DIR=$W/locks" --count "$PODS"
}
# Round trips alone: GET pod, GET NAD, PATCH, on one connection (curl's own
# per-request time, first one including the TLS handshake).
roundtrips() {
	local base="https://127.0.0.1:$PORT" c=(--cacert "$W/certs/ca.crt" -H "Authorization: Bearer $TOKEN" -s -o /dev/null -w '%{time_total}\n')
	ip netns exec "$HOST" curl "${c[@]}" "$base/api/v1/namespaces/ns1/pods/pod1" \
		"$base/apis/k8s.cni.cncf.io/v1/namespaces/ns1/network-attachment-definitions/net-b" \
		--next "${c[@]}" -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d '{"metadata":{"annotations":{"x":"y"}}}' "$base/api/v1/namespaces/ns1/pods/pod1" |
		awk '{s += $1} END {printf "%.3f\n", s * 1000}'
}

RAW="$W/raw.jsonl"
: >"$RAW"
for r in $(seq "$ROUNDS"); do
	# Same order every round; CIDs differ per label so nothing collides.
	bench "mn$r" ADD multinet "$W/multinet.json" eth0 >>"$RAW"
	bench "mn$r" DEL multinet "$W/multinet.json" eth0 >>"$RAW"
	bench "ml$r" ADD multinet "$W/multinet-local.json" eth0 >>"$RAW"
	bench "ml$r" DEL multinet "$W/multinet-local.json" eth0 >>"$RAW"
	bench "cl$r" ADD bridge "$W/cluster.json" eth0 >>"$RAW"
	bench "n1$r" ADD bridge "$W/net1.json" net1 >>"$RAW"
	bench "n1$r" DEL bridge "$W/net1.json" net1 >>"$RAW"
	bench "cl$r" DEL bridge "$W/cluster.json" eth0 >>"$RAW"
	for _ in $(seq 5); do roundtrips; done | sort -n | sed -n 3p |
		jq -c --arg l "rt$r" '{label:$l,cmd:"RT",lat_ms:{median:.}}' >>"$RAW"
done
[ -z "$(ls "$W/cache" | grep -vx -e results -e tls -e deleted)" ] || { echo "run.sh: multinet cache left behind" >&2; exit 1; }

SUMMARY=$(jq -s --argjson pods "$PODS" '
  def med: sort | if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end;
  def per(p): [.[] | select(.cmd == "ADD" and (.label|startswith(p))) | .lat_ms.median];
  (per("mn")) as $mn | (per("ml")) as $ml | (per("cl")) as $cl | (per("n1")) as $n1 |
  [.[] | select(.cmd == "RT") | .lat_ms.median] as $rt |
  [range(0; $mn|length) | $mn[.] - $cl[.] - $n1[.]] as $over |
  {bench:"multinet", pods_per_round:$pods, rounds:($mn|length),
   multinet_add_ms:($mn|med), delegates_add_sum_ms:([range(0; $cl|length) | $cl[.] + $n1[.]]|med),
   overhead_ms:($over|med), apiserver_roundtrips_ms:($rt|med),
   multinet_local_add_ms:($ml|med),
   overhead_local_ms:([range(0; $ml|length) | $ml[.] - $cl[.] - $n1[.]]|med),
   target_ms:(3 + ($rt|med)), met:(($over|med) <= 3 + ($rt|med))}' "$RAW")
echo "$SUMMARY"
if [ -n "$OUT" ]; then
	mkdir -p "$OUT"
	{ echo "$SUMMARY"; cat "$RAW"; } >"$OUT/multinet.json"
fi
