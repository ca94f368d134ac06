#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Whole cluster-ipam ADD and DEL calls against a real etcd 3.4, for
# comparing builds or environments of the same plugin in one run (pwhttp's
# start-up choices: what a mapped library or a saved TLS session costs):
#
#   bench/pwhttp/run.sh BUILD_DIR [--tls cert|server|none] [--key rsa|ec]
#                       [--count N] [--runs R] [--raw FILE] [VARIANT...]
#   VARIANT: LABEL=PLUGIN[,VAR=VALUE...] (environment of that plugin's calls)
#
# Without VARIANTs: BUILD_DIR/bin/cluster-ipam as it is, and the same with
# libcurl mapped (LD_PRELOAD=libcurl.so.4, standing for a binary that links
# it). --tls cert (default): etcd on https:// requiring a client certificate
# (RSA 2048 by default, as kubeadm makes them); server: https:// without a
# client certificate; none: http://. Each run calls every variant in turn
# (the order rotated by pod): one untimed ADD+DEL each (the TLS session
# saved), then N pods: for each, every variant's ADD and then its DEL, each
# call one fork/exec/wait of pwbench. A
# variant has its own dataDir (its session file) and etcd prefix. Prints a
# markdown table: per variant the median over runs of the per-run median
# ADD, DEL and ADD+DEL (wall time, then CPU time: user + system of the
# plugin's process, what is left to compare on a loaded machine). Root (a throwaway host netns: cluster-ipam keeps
# blackhole routes there); etcd, the netns and the temp dir are removed on
# exit. --raw FILE keeps pwbench's JSON lines (every sample).
set -euo pipefail

BUILD=$(cd "${1:?usage: run.sh BUILD_DIR [--tls cert|server|none] [--count N] [--runs R] [VARIANT...]}" && pwd)
shift
TLS=cert KEY=rsa COUNT=20 RUNS=3 RAW_OUT=
VARIANTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--tls) TLS=$2; shift 2 ;;
	--key) KEY=$2; shift 2 ;;
	--count) COUNT=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--raw) RAW_OUT=$2; shift 2 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) VARIANTS+=("$1"); shift ;;
	esac
done
[ ${#VARIANTS[@]} -gt 0 ] ||
	VARIANTS=("pwhttp=$BUILD/bin/cluster-ipam" "libcurl-mapped=$BUILD/bin/cluster-ipam,LD_PRELOAD=libcurl.so.4")
PWBENCH=$BUILD/bench/pwbench
[ -x "$PWBENCH" ] || { echo "run.sh: build pwbench first" >&2; exit 2; }

ID=pwhb$$
HOST=${ID}h
W=$(mktemp -d /dev/shm/pw-http-bench.XXXXXX 2>/dev/null || mktemp -d)
ETCD_PID=
cleanup() {
	set +e
	if [ -n "$ETCD_PID" ]; then
		kill "$ETCD_PID" 2>/dev/null
		wait "$ETCD_PID" 2>/dev/null
	fi
	ip netns del "$HOST" 2>/dev/null
	ip netns del "${ID}p" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
ip netns add "$HOST"
ip -n "$HOST" link set lo up
ip netns add "${ID}p"

# certs: a CA, etcd's certificate for 127.0.0.1, a client certificate.
keyopt=(-newkey rsa:2048)
[ "$KEY" = ec ] && keyopt=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1)
issue() { # NAME SUBJECT EXT
	openssl req "${keyopt[@]}" -nodes -keyout "$W/$1.key" -out "$W/$1.csr" -subj "$2" 2>/dev/null
	printf '%s\n' "$3" >"$W/$1.ext"
	openssl x509 -req -in "$W/$1.csr" -CA "$W/ca.pem" -CAkey "$W/ca.key" -CAcreateserial \
		-out "$W/$1.pem" -days 1 -extfile "$W/$1.ext" 2>/dev/null
}
openssl req -x509 "${keyopt[@]}" -nodes -keyout "$W/ca.key" -out "$W/ca.pem" -days 1 \
	-subj /CN=bench-ca 2>/dev/null
issue srv /CN=etcd $'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth' # etcd's gateway dials etcd with it
issue cli /O=podwire extendedKeyUsage=clientAuth

read -r PC PP < <(/usr/bin/python3 -c '
import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
tls_args=(--cert-file "$W/srv.pem" --key-file "$W/srv.key")
etcd_json='{"endpoints":["https://127.0.0.1:'$PC'"],"caFile":"'$W'/ca.pem","timeoutMs":5000}'
case $TLS in
cert)
	tls_args+=(--client-cert-auth --trusted-ca-file "$W/ca.pem")
	etcd_json=$(jq -c --arg w "$W" '.certFile = $w + "/cli.pem" | .keyFile = $w + "/cli.key"' <<<"$etcd_json")
	;;
server) ;;
none)
	tls_args=()
	etcd_json='{"endpoints":["http://127.0.0.1:'$PC'"],"timeoutMs":5000}'
	;;
*) echo "run.sh: --tls cert|server|none" >&2; exit 2 ;;
esac
EP=$(jq -r '.endpoints[0]' <<<"$etcd_json")
(cd "$W" && exec ip netns exec "$HOST" /usr/bin/etcd --name b --data-dir "$W/data" \
	--listen-client-urls "$EP" --advertise-client-urls "$EP" "${tls_args[@]}" \
	--listen-peer-urls "http://127.0.0.1:$PP" --initial-advertise-peer-urls "http://127.0.0.1:$PP" \
	--initial-cluster "b=http://127.0.0.1:$PP" >"$W/etcd.log" 2>&1) &
ETCD_PID=$!
for _ in $(seq 100); do
	ip netns exec "$HOST" etcdctl --endpoints="$EP" --cacert "$W/ca.pem" --cert "$W/cli.pem" \
		--key "$W/cli.key" --dial-timeout=1s endpoint health >/dev/null 2>&1 && break
	sleep 0.1
done

conf() { # LABEL: the variant's config (its own dataDir and prefix)
	jq -nc --arg w "$W" --arg l "$1" --argjson e "$etcd_json" '{cniVersion:"1.1.0",name:"bench",
	  ipam:{type:"cluster-ipam",nodeName:"n1",etcd:$e,etcdPrefix:("/bench/"+$l),
	  dataDir:($w+"/data-"+$l),blockReleaseGraceSeconds:0,pools:[{cidr:"10.240.0.0/16",blockSize:26}]}}'
}
bench() { # LABEL PLUGIN CMD INDEX CID-PREFIX ENV...: one call
	local label=$1 plugin=$2 cmd=$3 idx=$4 cid=$5 envs=() e
	shift 5
	for e in "$@"; do envs+=(--env "$e"); done
	ip netns exec "$HOST" "$PWBENCH" --label "$label" --cmd "$cmd" --plugin "$plugin" \
		--conf "$W/$label.json" --netns "/var/run/netns/${ID}p" --cid "$cid{i}" --ifname eth0 \
		--cni-path "$BUILD/bin" --first "$idx" --count 1 --expect-ips 1 ${envs[@]+"${envs[@]}"}
}

RAW=$W/raw.jsonl
: >"$RAW"
n=${#VARIANTS[@]}
variant() { # K: LABEL, PLUGIN and ENVS of variant K
	local v=${VARIANTS[$1]}
	label=${v%%=*}
	IFS=, read -r -a envs <<<"${v#*=}"
	plugin=${envs[0]}
	envs=("${envs[@]:1}")
}
for k in $(seq 0 $((n - 1))); do
	variant "$k"
	conf "$label" >"$W/$label.json"
done
for run in $(seq "$RUNS"); do
	for k in $(seq 0 $((n - 1))); do
		variant "$k"
		bench "$label" "$plugin" ADD 0 "warm$run-" ${envs[@]+"${envs[@]}"} >/dev/null
		bench "$label" "$plugin" DEL 0 "warm$run-" ${envs[@]+"${envs[@]}"} >/dev/null
	done
	for i in $(seq "$COUNT"); do
		for k in $(seq 0 $((n - 1))); do
			variant $(((k + i + run) % n))
			bench "$label" "$plugin" ADD "$i" "r$run-" ${envs[@]+"${envs[@]}"} | jq -c --argjson r "$run" '. + {run: $r}' >>"$RAW"
			bench "$label" "$plugin" DEL "$i" "r$run-" ${envs[@]+"${envs[@]}"} | jq -c --argjson r "$run" '. + {run: $r}' >>"$RAW"
		done
	done
done

echo "cluster-ipam over $EP (tls: $TLS, $KEY keys), $COUNT ADDs and DELs per variant and run, $RUNS runs interleaved; medians of the per-run medians, ms"
echo
echo "| variant | ADD | DEL | ADD+DEL | ADD CPU | ADD+DEL CPU | ADD+DEL per run |"
echo "|---|---|---|---|---|---|---|"
jq -rs '
  def med: sort | if length % 2 == 1 then .[length/2|floor] else (.[length/2-1] + .[length/2]) / 2 end;
  def r2: . * 100 | round / 100;
  # per run: the median over pods of f (ADD, DEL, or their sum per pod); then the median over runs
  def runs(f): group_by(.run) | map(group_by(.first) | map(f) | med);
  def add_(k): map(select(.cmd == "ADD") | .[k].median) | add;
  def del_(k): map(select(.cmd == "DEL") | .[k].median) | add;
  def all_(k): map(.[k].median) | add;
  group_by(.label)[] | . as $g |
  [$g[0].label] + ([runs(add_("lat_ms")), runs(del_("lat_ms")), runs(all_("lat_ms")),
    runs(add_("cpu_ms")), runs(all_("cpu_ms"))] | map(med | r2)) + [runs(all_("lat_ms")) | map(r2)] |
  "| " + (map(tostring) | join(" | ")) + " |"' "$RAW"
[ -z "$RAW_OUT" ] || cp "$RAW" "$RAW_OUT"
failed=$(jq -s 'map(.failed) | add' "$RAW")
[ "$failed" -eq 0 ] || { echo "run.sh: $failed calls failed" >&2; exit 1; }
