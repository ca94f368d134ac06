#!/usr/bin/env bash
# podwire demo: wire two throwaway pods with bridge + host-local through
# cnitool, show the results, ping one pod from the other, and remove
# everything again (also on Ctrl-C or failure).
#
# Usage: scripts/demo-bridge.sh [BUILD_DIR]      (as root; `make demo-bridge` runs it)
#
# Nothing on the real host is touched: the bridge lives in a throwaway "host"
# network namespace, and the conf dir, result cache and IPAM data are in a
# temporary directory. Plugins come from BUILD_DIR/bin when podwire's bridge
# and host-local are built there, else from Debian's reference plugins in
# /usr/lib/cni; PODWIRE_DEMO_CNI_PATH overrides the choice.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
CNITOOL="$BUILD/bin/cnitool"
CONFLIST="$SRC/conf/demo/podwire-demo.conflist"
NET=podwire-demo

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (it creates network namespaces)"
for tool in ip jq ping; do
	command -v "$tool" >/dev/null || die "'$tool' is missing: run scripts/bootstrap.sh"
done
[ -x "$CNITOOL" ] || die "$CNITOOL not built: run 'make build' (or pass the build dir)"

if [ -n "${PODWIRE_DEMO_CNI_PATH:-}" ]; then
	CNI_PATH_DEMO=$PODWIRE_DEMO_CNI_PATH
elif [ -x "$BUILD/bin/bridge" ] && [ -x "$BUILD/bin/host-local" ]; then
	CNI_PATH_DEMO="$BUILD/bin"
elif [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ]; then
	CNI_PATH_DEMO=/usr/lib/cni
	echo "demo: podwire's bridge/host-local are not built; using /usr/lib/cni" >&2
else
	die "no bridge/host-local plugins found in $BUILD/bin or /usr/lib/cni"
fi

# Unique, short names: interface names elsewhere are limited to 15 bytes.
TAG="pwd$(printf '%05d' $(($$ % 100000)))"
HOST_NS="${TAG}h"
PODS=("${TAG}a" "${TAG}b")
TMP=$(mktemp -d /tmp/podwire-demo.XXXXXX)
# Lock files of shared resources (the bridge's): in this run's temp dir, not /run/podwire.
export PODWIRE_LOCK_DIR="${PODWIRE_LOCK_DIR:-$TMP/locks}"
CREATED_NS=()
ADDED=()

cnitool() {
	ip netns exec "$HOST_NS" env NETCONFPATH="$TMP/net.d" CNI_PATH="$CNI_PATH_DEMO" \
		"$CNITOOL" --cache-dir "$TMP/cache" --timeout 30 "$@"
}

cleanup() {
	local rc=$? pod ns
	trap - EXIT INT TERM
	say "cleaning up"
	for pod in "${ADDED[@]}"; do
		cnitool del "$NET" "/var/run/netns/$pod" && echo "cnitool del $pod: ok" ||
			echo "cnitool del $pod failed (the namespace goes anyway)" >&2
	done
	for ns in "${CREATED_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null && echo "removed netns $ns"
	done
	rm -rf "$TMP"
	echo "removed $TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

say "throwaway namespaces: host $HOST_NS, pods ${PODS[*]}"
for ns in "$HOST_NS" "${PODS[@]}"; do
	ip netns add "$ns"
	CREATED_NS+=("$ns")
	ip -n "$ns" link set lo up
done

mkdir -p "$TMP/net.d"
jq --arg dir "$TMP/ipam" --arg br "${TAG}br" \
	'.plugins[0].ipam.dataDir = $dir | .plugins[0].bridge = $br' \
	"$CONFLIST" >"$TMP/net.d/10-demo.conflist"
echo "conflist (from conf/demo, dataDir and bridge made temporary):"
cat "$TMP/net.d/10-demo.conflist"
echo "plugins from: $CNI_PATH_DEMO"

declare -A ADDR
for pod in "${PODS[@]}"; do
	say "cnitool add $NET /var/run/netns/$pod"
	result=$(cnitool add "$NET" "/var/run/netns/$pod")
	ADDED+=("$pod")
	printf '%s\n' "$result"
	ADDR[$pod]=$(printf '%s' "$result" | jq -r '.ips[0].address | split("/")[0]')
	cnitool check "$NET" "/var/run/netns/$pod"
	echo "cnitool check: ok"
done

say "inside pod ${PODS[0]}"
ip -n "${PODS[0]}" -br addr show
ip -n "${PODS[0]}" route show

say "ping ${PODS[1]} (${ADDR[${PODS[1]}]}) from ${PODS[0]}"
ip netns exec "${PODS[0]}" ping -c 3 -W 2 "${ADDR[${PODS[1]}]}"

say "demo succeeded"
