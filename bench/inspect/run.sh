#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# podwire-inspect --json on a node with N attachments (default 1000) next to
# the reference an operator has today, same run.
#
#   bench/inspect/run.sh <build-dir> [--count N] [--runs R] [--out FILE]
#
# The node: a throwaway "host" netns with a bridge and N pods, each its own
# netns with eth0 (a veth whose host end "veth%08x" is tagged
# "podwire:bench/<cid>/eth0" and enslaved, as bridge makes them) and a libcni
# cniCacheV1 entry in a temp cache dir (as cnitool/runtimes write it), plus
# N/10 sriov-rdma state records and a fake sysfs tree with RDMA counters for
# them. Built with `ip -batch` (no plugin runs: this measures inspection).
#
# Measured, R runs (default 5), median:
#   inspect    podwire-inspect --json (wall time and max RSS, /usr/bin/time)
#   reference  `ip -s -j link show` in the host netns and in every pod netns
#              (one process per netns: what piecing it together by hand costs)
# and the netlink requests podwire-inspect sends (strace): one link dump per
# netns plus the host's link and route dumps, never one per attachment.
# Targets: inspect <= 1 s and <= 20 MB RSS at N=1000.
# Everything is removed on exit.
set -euo pipefail

usage() {
	echo "usage: $0 <build-dir> [--count N] [--runs R] [--out FILE]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
BUILD=$(cd "$1" && pwd)
shift
COUNT=1000 RUNS=5 OUT=""
while [ $# -gt 0 ]; do
	case "$1" in
	--count) COUNT=${2:?}; shift ;;
	--runs) RUNS=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
INSPECT="$BUILD/bin/podwire-inspect"
[ -x "$INSPECT" ] || { echo "missing $INSPECT" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 2; }

ID="pwib$$"
HOST="${ID}h"
TMP=$(mktemp -d /tmp/podwire-bench-inspect.XXXXXX)
cleanup() {
	{
		for ((i = 0; i < COUNT; i++)); do echo "netns del ${ID}p$i"; done
		echo "netns del $HOST"
	} >"$TMP/del.batch"
	ip -force -batch "$TMP/del.batch" >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT

echo "building a node with $COUNT attachments..." >&2
{
	echo "netns add $HOST"
	for ((i = 0; i < COUNT; i++)); do echo "netns add ${ID}p$i"; done
} >"$TMP/ns.batch"
ip -batch "$TMP/ns.batch"
/usr/bin/python3 - "$TMP" "$ID" "$COUNT" <<'PY'
import base64, json, os, sys
tmp, ident, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(f"{tmp}/cache/results")
os.makedirs(f"{tmp}/sriov")
conf = {"cniVersion": "1.1.0", "name": "bench", "plugins": [
    {"type": "bridge", "bridge": "pwbench0", "ipam": {"type": "host-local"}},
    {"type": "portmap", "capabilities": {"portMappings": True}}]}
b64 = base64.b64encode(json.dumps(conf).encode()).decode()
host, pods = [], []
for i in range(n):
    cid = "%s%056x" % ("c", i)
    veth = "veth%08x" % i
    ns = f"/var/run/netns/{ident}p{i}"
    ip = "10.%d.%d.%d/8" % (100 + i // 65536, (i // 256) % 256, i % 256 or 1)
    host.append(f"link add {veth} type veth peer name eth0 netns {ident}p{i}")
    host.append(f"link set {veth} alias podwire:bench/{cid}/eth0 master pwbench0 up")
    res = {"cniVersion": "1.1.0", "interfaces": [
        {"name": "pwbench0", "mac": "02:00:00:00:00:01"},
        {"name": veth, "mac": "02:00:00:00:00:02"},
        {"name": "eth0", "mac": "0a:58:00:00:%02x:%02x" % (i // 256 % 256, i % 256), "sandbox": ns}],
        "ips": [{"address": ip, "interface": 2}]}
    entry = {"kind": "cniCacheV1", "containerId": cid, "config": b64, "ifName": "eth0",
             "networkName": "bench", "netns": ns,
             "cniArgs": [["K8S_POD_NAMESPACE", "bench"], ["K8S_POD_NAME", f"pod-{i}"]],
             "result": res}
    with open(f"{tmp}/cache/results/bench-{cid}-eth0", "w") as f:
        json.dump(entry, f)
    if i % 10 == 0:
        bdf = "0000:%02x:%02x.%d" % (0x80 + i // 2560, (i // 8) % 32, i % 8)
        dev = f"mlx5_{i}"
        st = {"version": 1, "containerID": cid, "ifname": "net1", "deviceID": bdf,
              "network": "rail", "netns": ns, "pf": {"bdf": "0000:7f:00.0", "name": "pf0"},
              "rdmaDevice": dev, "complete": True}
        with open(f"{tmp}/sriov/{bdf}.json", "w") as f:
            json.dump(st, f)
        p = f"{tmp}/sys/class/infiniband/{dev}/ports/1"
        os.makedirs(p + "/hw_counters")
        os.makedirs(p + "/counters")
        for k in ("out_of_sequence", "np_cnp_sent", "rp_cnp_handled", "roce_adp_retrans",
                  "packet_seq_err", "local_ack_timeout_err"):
            open(f"{p}/hw_counters/{k}", "w").write("%d\n" % i)
        for k in ("port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets"):
            open(f"{p}/counters/{k}", "w").write("%d\n" % (i * 1000))
        open(f"{p}/state", "w").write("4: ACTIVE\n")
with open(f"{tmp}/host.batch", "w") as f:
    f.write("link add pwbench0 type bridge\nlink set pwbench0 up\n" + "\n".join(host) + "\n")
PY
ip netns exec "$HOST" ip -batch "$TMP/host.batch"

run_inspect() {
	ip netns exec "$HOST" "$@" "$INSPECT" --json --cache-dir "$TMP/cache" \
		--multinet-dir "$TMP/multinet" --state-dir "$TMP/sriov" --lease-dir "$TMP/ipam" \
		--sysfs-root "$TMP/sys"
}

# Sanity: every attachment listed, joined to its veth, netns present.
run_inspect >"$TMP/out.json"
got=$(jq '[.attachments[] | select(.ifname == "eth0" and .netnsState == "present" and .host.bridge == "pwbench0")] | length' "$TMP/out.json")
[ "$got" -eq "$COUNT" ] || { echo "bench: $got of $COUNT attachments complete" >&2; exit 1; }
size=$(stat -c %s "$TMP/out.json")

# Requests: sendto/sendmsg on netlink sockets.
reqs=""
if command -v strace >/dev/null; then
	run_inspect strace -f -qq -e trace=sendto,sendmsg -o "$TMP/strace" >/dev/null
	reqs=$(grep -c -E 'sendto|sendmsg' "$TMP/strace" || true)
fi

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
: >"$TMP/t.inspect"
: >"$TMP/rss.inspect"
: >"$TMP/t.ref"
for ((r = 0; r < RUNS; r++)); do
	run_inspect /usr/bin/time -f "%e %M" -o "$TMP/time" >/dev/null
	read -r t m <"$TMP/time"
	echo "$t" >>"$TMP/t.inspect"
	echo "$m" >>"$TMP/rss.inspect"
	s=$(date +%s.%N)
	ip -n "$HOST" -s -j link show >/dev/null
	for ((i = 0; i < COUNT; i++)); do ip -n "${ID}p$i" -s -j link show >/dev/null; done
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN {printf "%.3f\n", e - s}' >>"$TMP/t.ref"
done
ti=$(median <"$TMP/t.inspect")
mi=$(median <"$TMP/rss.inspect")
tr=$(median <"$TMP/t.ref")
ratio=$(awk -v a="$ti" -v b="$tr" 'BEGIN {printf "%.3f", (b > 0) ? a / b : 0}')
load=$(cut -d' ' -f1-3 /proc/loadavg)
report=$(cat <<MD
| attachments | runs | podwire-inspect --json (median) | max RSS (median) | reference: ip -s -j link per netns | ratio | netlink requests | JSON size | load avg |
|---|---|---|---|---|---|---|---|---|
| $COUNT (+$(((COUNT + 9) / 10)) sriov records with RDMA counters) | $RUNS | ${ti} s | $((mi / 1024)) MB ($mi KB) | ${tr} s | ${ratio} | ${reqs:-n/a} | $((size / 1024)) KB | $load |
MD
)
echo "$report"
[ -z "$OUT" ] || echo "$report" >"$OUT"
