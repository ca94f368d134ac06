#!/usr/bin/env bash
# deb-test.sh SRC BUILD [CMAKE_ARGS...]: build the Debian package the way
# `make deb` does, check it (lintian, contents, Depends, version, no file
# owned by another package), install it with dpkg, run every plugin's
# VERSION and every tool's --help from the installed paths, purge it and
# check that nothing is left. ctest runs it as `packaging-deb` (label
# package, root).
#
# Where it installs: by default into a temporary root with its own dpkg
# database (dpkg --root): a test never touches the host's /opt/cni. With
# PODWIRE_DEB_TEST_SYSTEM=1 (test-only, for a by-hand check on a throwaway
# machine) into the real system (dpkg -i, then dpkg --purge), and only when
# that is safe and reversible: podwire is not installed, /opt/cni/bin does
# not exist or is empty, and no file of the package exists on the host.
set -euo pipefail

SRC=$1
BUILD=$2
shift 2
OUT=$BUILD/deb
LOCK=/run/lock/podwire-deb-test.lock
T=$(mktemp -d /tmp/podwire-deb-test.XXXXXX)
ROOT=
INSTALLED=

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
ok() { echo "ok: $*"; }

cleanup() {
	if [ -n "$INSTALLED" ] && [ -z "$ROOT" ]; then
		dpkg_retry --purge podwire >/dev/null 2>&1 || true
	fi
	rm -rf "$T"
}
trap cleanup EXIT

# dpkg_retry ARGS...: dpkg, waiting (bounded) while another dpkg or apt on
# the machine holds the lock.
dpkg_retry() {
	local out
	for _ in $(seq 60); do
		if out=$(dpkg "$@" 2>&1); then
			printf '%s\n' "$out"
			return 0
		fi
		case $out in
		*"lock"*) sleep 1 ;;
		*)
			printf '%s\n' "$out" >&2
			return 1
			;;
		esac
	done
	printf '%s\n' "$out" >&2
	return 1
}

pkg_installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

build_package() {
	DEB=$(JOBS=${JOBS:-2} bash "$SRC/packaging/build-deb.sh" "$OUT" "$@" | tail -1)
	[ -f "$DEB" ] || fail "build-deb.sh made no package"
	# shellcheck source=/dev/null
	. "$OUT/tree/podwire-install.env"
	ok "built $DEB (plugins: $PODWIRE_PLUGINS; tools: $PODWIRE_TOOLS)"
}

check_lintian() {
	lintian --fail-on error "$DEB" >"$T/lintian" 2>&1 ||
		{
			cat "$T/lintian" >&2
			fail "lintian reports errors"
		}
	! grep -q '^E:' "$T/lintian" || fail "lintian: $(grep '^E:' "$T/lintian")"
	ok "lintian: no errors ($(grep -c '^[WI]:' "$T/lintian" || true) warnings/infos)"
}

check_version() {
	local want got
	want=$(sed -n 's/^project(podwire VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
	got=$(dpkg-deb -f "$DEB" Version)
	if [ -z "$want" ] || [ "$got" != "$want" ]; then
		fail "package version \"$got\", project version \"$want\""
	fi
	[ "$PODWIRE_VERSION" = "$want" ] || fail "podwire-install.env version $PODWIRE_VERSION"
	ok "version $got = project version"
}

# Today's binaries must be there; whatever else the tree builds must be too.
check_contents() {
	local b
	dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|' >"$T/paths"
	for b in bridge host-local static; do
		case " $PODWIRE_PLUGINS " in *" $b "*) ;; *) fail "plugin $b is not built" ;; esac
	done
	case " $PODWIRE_TOOLS " in *" cnitool "*) ;; *) fail "tool cnitool is not built" ;; esac
	for b in $PODWIRE_PLUGINS; do
		grep -qx "$PODWIRE_CNI_BINDIR/$b" "$T/paths" || fail "package lacks $PODWIRE_CNI_BINDIR/$b"
	done
	for b in $PODWIRE_TOOLS; do
		grep -qx "/usr/bin/$b" "$T/paths" || fail "package lacks /usr/bin/$b"
	done
	for b in /usr/share/man/man1/cnitool.1.gz /usr/libexec/podwire/install-cni \
		/usr/share/doc/podwire/copyright /usr/share/doc/podwire/changelog.gz \
		/usr/share/doc/podwire/docs/node-setup.md /usr/share/doc/podwire/examples/bridge-basic.conflist \
		/usr/share/doc/podwire/plugins/main/bridge/README.md /usr/share/doc/podwire/conf \
		/usr/share/doc/podwire/examples/kubernetes/podwire-install.yaml; do
		grep -qx "$b" "$T/paths" || fail "package lacks $b"
	done
	[ "$PODWIRE_CNI_BINDIR" = /opt/cni/bin ] || fail "package plugin dir $PODWIRE_CNI_BINDIR"
	ok "contents: $(wc -l <"$T/paths") paths, every plugin in /opt/cni/bin, every tool in /usr/bin"
}

# Depends must be exactly the packages of the shared libraries the binaries
# load (DT_NEEDED), nothing for what is linked statically, plus what they
# dlopen (DLOPENED: libssl3 through pwhttp).
DLOPENED="libssl3"
check_depends() {
	local f lib path pkg want got
	dpkg-deb -x "$DEB" "$T/x"
	: >"$T/needed"
	while IFS= read -r f; do
		[[ $(file -b "$f") == ELF* ]] || continue
		readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >>"$T/needed"
	done < <(find "$T/x" -type f -perm -u+x)
	: >"$T/want"
	sort -u "$T/needed" >"$T/needed.u"
	# read the cache once, into a file: awk leaving early would SIGPIPE ldconfig
	ldconfig -p >"$T/ldcache"
	while IFS= read -r lib; do
		path=$(awk -v l="$lib" '$1 == l && /x86-64|x86_64|64bit/ {print $NF; exit}' "$T/ldcache")
		[ -n "$path" ] || path=$(awk -v l="$lib" '$1 == l {print $NF; exit}' "$T/ldcache")
		pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) ||
			true
		[ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
		[ -n "$pkg" ] || fail "no Debian package owns $lib ($path)"
		echo "$pkg" >>"$T/want"
	done <"$T/needed.u"
	printf '%s\n' $DLOPENED >>"$T/want"
	want=$(sort -u "$T/want" | tr '\n' ' ')
	got=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g' | sort -u | tr '\n' ' ')
	[ "$want" = "$got" ] || fail "Depends \"$got\" but the binaries need \"$want\""
	for f in "$T"/x/opt/cni/bin/{bridge,host-local,static}; do
		lib=$(readelf -d "$f")
		[[ ! $lib =~ NEEDED.*(yaml|ibverbs|bpf) ]] || fail "$(basename "$f") loads a heavy library"
	done
	ok "Depends = packages of DT_NEEDED: $got"
}

# No file of the package may belong to another installed package
# (containernetworking-plugins ships bridge, host-local, static in /usr/lib/cni).
check_no_conflicts() {
	local p owner
	while IFS= read -r p; do
		[ -d "$T/x$p" ] && continue
		owner=$(dpkg -S "$p" 2>/dev/null | cut -d: -f1 || true)
		[ -z "$owner" ] || [ "$owner" = podwire ] || fail "$p is owned by $owner"
	done <"$T/paths"
	if pkg_installed containernetworking-plugins; then
		dpkg -L containernetworking-plugins | sort >"$T/cni-ref"
		[ -z "$(comm -12 "$T/cni-ref" <(grep -v '/$' "$T/paths" | sort) | while read -r p; do
			[ -d "$p" ] || echo "$p"
		done)" ] || fail "file shared with containernetworking-plugins"
	fi
	ok "no file owned by another package"
}

# Real system or temporary root (see the header).
choose_root() {
	local p why=
	if [ "${PODWIRE_DEB_TEST_SYSTEM:-0}" != 1 ]; then
		why="the default (PODWIRE_DEB_TEST_SYSTEM=1 installs into the system)"
	elif pkg_installed podwire; then
		why="podwire is already installed on this machine"
	elif [ -d /opt/cni/bin ] && [ -n "$(ls -A /opt/cni/bin)" ]; then
		why="/opt/cni/bin already has files ($(find /opt/cni/bin -mindepth 1 -maxdepth 1 -printf '%f ' | head -c 200))"
	else
		while IFS= read -r p; do
			if [ -e "$p" ] && [ ! -d "$p" ]; then
				why="$p already exists on this machine"
				break
			fi
		done <"$T/paths"
	fi
	if [ -n "$why" ]; then
		ROOT=$T/root
		mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates"
		touch "$ROOT/var/lib/dpkg/status"
		echo "note: installing into a temporary root ($ROOT), not the system: $why"
	else
		echo "note: installing into the real system (dpkg -i, then dpkg --purge)"
	fi
}

# What a purge must give back exactly.
snapshot() {
	{
		find /opt/cni /usr/share/doc/podwire /usr/libexec/podwire 2>/dev/null || true
		while IFS= read -r p; do
			[ -e "$p" ] && echo "exists $p"
		done <"$T/paths"
		dpkg-query -W -f='${Status}\n' podwire 2>/dev/null || true
	} | sort
}

install_package() {
	if [ -n "$ROOT" ]; then
		dpkg_retry --root="$ROOT" --force-depends -i "$DEB" >"$T/dpkg-i" 2>&1 ||
			fail "dpkg --root -i: $(cat "$T/dpkg-i")"
	else
		snapshot >"$T/before"
		INSTALLED=1
		dpkg_retry -i "$DEB" >"$T/dpkg-i" || fail "dpkg -i: $(cat "$T/dpkg-i")"
		pkg_installed podwire || fail "podwire not installed"
	fi
	ok "dpkg installed $(basename "$DEB")"
}

run_installed() {
	local p t out
	for p in $PODWIRE_PLUGINS; do
		# VERSION touches nothing; a private netns makes sure of it.
		out=$(CNI_COMMAND=VERSION unshare --net "$ROOT$PODWIRE_CNI_BINDIR/$p" </dev/null) ||
			fail "$PODWIRE_CNI_BINDIR/$p VERSION failed"
		echo "$out" | jq -e '.cniVersion and (.supportedVersions | length > 0)' >/dev/null ||
			fail "$p VERSION printed $out"
	done
	for t in $PODWIRE_TOOLS; do
		out=$("$ROOT/usr/bin/$t" --help) || fail "/usr/bin/$t --help failed"
		echo "$out" | grep -Eqi 'usage|synopsis' || fail "/usr/bin/$t --help: no usage"
	done
	out=$("$ROOT/usr/libexec/podwire/install-cni" --help) || fail "install-cni --help failed"
	[[ $out == *SYNOPSIS* ]] || fail "install-cni --help: no SYNOPSIS"
	ok "VERSION from every installed plugin, --help from every installed tool"
}

purge_package() {
	local left
	if [ -n "$ROOT" ]; then
		dpkg_retry --root="$ROOT" --purge podwire >/dev/null || fail "dpkg --root --purge"
		left=$(cd "$ROOT" && find . ! -type d ! -path './var/lib/dpkg/*' | head -5)
		[ -z "$left" ] || fail "left after purge: $left"
		for left in "$ROOT/opt" "$ROOT/usr"; do
			[ ! -e "$left" ] || fail "left after purge: $(find "$left" | head -5)"
		done
	else
		dpkg_retry --purge podwire >/dev/null || fail "dpkg --purge"
		INSTALLED=
		snapshot >"$T/after"
		diff "$T/before" "$T/after" >&2 || fail "the system differs after purge"
	fi
	ok "purged, nothing left"
}

main() {
	exec 9>"$LOCK"
	flock -w 300 9 || fail "another deb-test holds $LOCK"
	build_package "$@"
	check_lintian
	check_version
	check_contents
	check_depends
	check_no_conflicts
	choose_root
	install_package
	run_installed
	purge_package
}

main "$@"
