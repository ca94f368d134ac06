#!/bin/sh
# podwire-inspect's documented formats on the fixture tree (no netlink): the
# JSON document against schema.json, the Prometheus exposition through the
# format parser (and promtool when installed). Usage: formats.sh BIN DIR SCHEMA
set -eu
bin=$1 dir=$2 schema=$3
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$py" "$dir/promparse.py" --self-test
"$py" "$dir/schemacheck.py" "$schema" --self-test
f="$dir/fixtures"
run() {
	"$bin" --no-netlink --cache-dir "$f/cache" --multinet-dir "$f/multinet" \
		--state-dir "$f/sriov" --lease-dir "$f/ipam" --sysfs-root "$f/sys" "$@"
}
run --json >"$tmp/out.json"
"$py" "$dir/schemacheck.py" "$schema" "$tmp/out.json"
rc=0
run --json leaks >"$tmp/leaks.json" || rc=$?
[ "$rc" -eq 1 ] || { echo "leaks exited $rc, want 1"; exit 1; }
"$py" "$dir/schemacheck.py" "$schema" "$tmp/leaks.json"
run --prometheus >"$tmp/out.prom"
"$py" "$dir/promparse.py" "$tmp/out.prom"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$tmp/out.prom"
fi
grep -q '^podwire_attachment_rdma_hw_total{pod="ml/trainer-0",network="rail-a",ifname="rdma0",device="0000:3b:00.2",rdma_device="mlx5_3",port="1",counter="out_of_sequence"} 14$' "$tmp/out.prom"
grep -q '^podwire_inspect_lost_vfs 1$' "$tmp/out.prom"
echo "formats: JSON schema and exposition format valid"
