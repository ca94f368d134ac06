#!/usr/bin/env bash
# portmap benchmark (root): medians of N runs, same run, same machine.
#  1. ADD of a bridge + portmap (1 mapping) chain through cnitool: podwire's
#     plugins vs the reference ones (/usr/lib/cni, portmap's iptables backend).
#  2. podwire portmap ADD+DEL of one attachment with 1000 other attachments'
#     mappings on the node vs with none (and the reference's, same shape).
# Everything runs in throwaway network namespaces; state in a temp dir.
# Usage: bench/portmap/run.sh <build-dir> [runs (default 30)]
set -euo pipefail
BUILD=$(cd "${1:?usage: run.sh <build-dir> [runs]}" && pwd)
RUNS=${2:-30}
HERE=$(cd "$(dirname "$0")" && pwd)
REF=/usr/lib/cni
[ -x "$BUILD/bin/portmap" ] && [ -x "$BUILD/bin/cnitool" ] || { echo "build first" >&2; exit 1; }
[ -x "$REF/portmap" ] || { echo "reference plugins missing in $REF" >&2; exit 1; }
ID="pmb$$"
T=$(mktemp -d)
cleanup() {
	ip netns del "${ID}h" 2>/dev/null || true
	ip netns del "${ID}p" 2>/dev/null || true
	rm -rf "$T"
}
trap cleanup EXIT
ip netns add "${ID}h"
ip netns add "${ID}p"
ip -n "${ID}h" link set lo up
ip -n "${ID}p" link set lo up
ip netns exec "${ID}h" env BUILD="$BUILD" REF="$REF" FILL="${FILL:-1000}" T="$T" RUNS="$RUNS" \
	NETNS="/var/run/netns/${ID}p" bash "$HERE/inner.sh"
