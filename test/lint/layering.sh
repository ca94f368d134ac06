#!/usr/bin/env bash
# The layering rules, checked on the sources (ctest lint-layering):
#   libcni/   the CNI protocol: never a <linux/*.h> kernel header
#   netlink/  the kernel: never jansson, never libcni's headers
#   <yaml.h> only in the modules allowed below (multinet's kubeconfig), so
#   the light plugins never load it; OpenSSL only in pwhttp (it dlopens
#   libssl); <curl/curl.h> nowhere: pwhttp is the one HTTP client (libcurl
#   maps ~30 libraries, see pwhttp/README.md).
# Prints every offending line; exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2
bad=0

check() { # DESCRIPTION PATTERN DIR...
	local what=$1 pat=$2 hits
	shift 2
	hits=$(grep -rnE "$pat" --include='*.c' --include='*.h' "$@" 2>/dev/null)
	if [ -n "$hits" ]; then
		printf 'layering: %s:\n%s\n' "$what" "$hits"
		bad=1
	fi
}

check "libcni includes a kernel header" '^#include <linux/' libcni
check "netlink includes jansson" '^#include <jansson\.h>' netlink
check "netlink includes libcni" '^#include "cni/' netlink
hits=$(grep -rlE '^#include <yaml\.h>' --include='*.c' --include='*.h' . 2>/dev/null |
	sed 's|^\./||' | grep -vE '^(ipam/cluster-ipam|plugins/meta/multinet|tools/|test/|fuzz/|bench/)')
if [ -n "$hits" ]; then
	printf 'layering: <yaml.h> outside the modules that need it:\n%s\n' "$hits"
	bad=1
fi
check "a second HTTP client (libcurl)" '^#include <curl/' .
hits=$(grep -rlE '^#include <openssl/' --include='*.c' --include='*.h' . 2>/dev/null |
	sed 's|^\./||' | grep -vE '^(pwhttp/src/|build)')
if [ -n "$hits" ]; then
	printf 'layering: <openssl/*.h> outside pwhttp:\n%s\n' "$hits"
	bad=1
fi
[ "$bad" -eq 0 ] && echo "layering: ok"
exit "$bad"
