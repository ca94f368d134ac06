#!/usr/bin/env bash
# build-deb.sh OUTDIR [CMAKE_ARGS...]: build podwire's Debian package.
#
# Configures a Release tree of its own in OUTDIR/tree (prefix /usr, plugins
# in $DEB_CNI_BINDIR, default /opt/cni/bin; no tests), builds it, and lets
# CPack write OUTDIR/podwire_<version>_<arch>.deb. Prints the path of the
# package on the last line. `make deb` runs it with OUTDIR=build/deb.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] || {
	echo "usage: build-deb.sh OUTDIR [CMAKE_ARGS...]" >&2
	exit 2
}
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
bindir=${DEB_CNI_BINDIR:-/opt/cni/bin}
case $bindir in
/*) ;;
*)
	echo "build-deb.sh: DEB_CNI_BINDIR \"$bindir\" must be an absolute path" >&2
	exit 2
	;;
esac

# run LOG CMD...: quiet unless it fails; then the log explains why.
run() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || {
		cat "$log" >&2
		echo "build-deb.sh: failed: $*" >&2
		exit 1
	}
}
run "$out/configure.log" cmake -S "$src" -B "$out/tree" -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_INSTALL_PREFIX=/usr -DPODWIRE_CNI_BINDIR="$bindir" -DPODWIRE_BUILD_TESTS=OFF "$@"
run "$out/build.log" cmake --build "$out/tree" -j"${JOBS:-2}"
rm -f "$out"/podwire_*.deb
run "$out/cpack.log" cpack -G DEB -B "$out" --config "$out/tree/CPackConfig.cmake"
ls "$out"/podwire_*.deb
