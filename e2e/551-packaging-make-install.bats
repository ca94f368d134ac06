#!/usr/bin/env bats
# `make install` (cmake --install of the build) with DESTDIR: every plugin
# the tree builds lands in PODWIRE_CNI_BINDIR and answers VERSION from there,
# every tool lands in bin and answers --help, nothing built is left out.

load helpers
load packaging-helpers

setup() {
	pk_setup
	D=$PK/destdir
}

teardown() {
	pk_teardown
}

# The installed path of a plugin dir or tool dir under DESTDIR and prefix.
under() {
	case $1 in
	/*) echo "$D$1" ;;
	*) echo "$D$2/$1" ;;
	esac
}

@test "install honours DESTDIR: every plugin answers VERSION from the plugin dir" {
	run env DESTDIR="$D" cmake --install "$PODWIRE_BUILD" --prefix /usr
	[ "$status" -eq 0 ]
	# Everything cmake installed is under DESTDIR (the manifest lists the
	# paths without it), and nothing else is there.
	n=0
	while IFS= read -r f || [ -n "$f" ]; do
		[ -f "$D$f" ] || {
			echo "# $f is not under DESTDIR" >&2
			return 1
		}
		n=$((n + 1))
	done <"$PODWIRE_BUILD/install_manifest.txt"
	[ "$n" -gt 0 ]
	[ "$(find "$D" -type f | wc -l)" -eq "$n" ]
	plugdir=$(under "$PODWIRE_CNI_BINDIR" /usr)
	[ -n "$PODWIRE_PLUGINS" ]
	for p in $PODWIRE_PLUGINS; do
		[ -x "$plugdir/$p" ]
		run env CNI_COMMAND=VERSION unshare --net "$plugdir/$p" </dev/null
		[ "$status" -eq 0 ]
		echo "$output" | jq -e '.cniVersion and (.supportedVersions | index("1.0.0"))'
	done
}

@test "the installed docs keep their links: every relative link resolves, every README is there" {
	run env DESTDIR="$D" cmake --install "$PODWIRE_BUILD" --prefix /usr
	[ "$status" -eq 0 ]
	doc=$D/usr/share/doc/podwire
	run python3 "$PODWIRE_SRC/test/packaging/check-doc-links.py" "$doc"
	echo "# $output" >&3
	[ "$status" -eq 0 ]
	# Each plugin's and tool's README where the tree has it.
	for p in $PODWIRE_PLUGINS $PODWIRE_TOOLS; do
		readme=$(cd "$PODWIRE_SRC" && ls plugins/*/"$p"/README.md ipam/"$p"/README.md \
			tools/"$p"/README.md 2>/dev/null || true)
		[ -n "$readme" ] || continue
		cmp "$PODWIRE_SRC/$readme" "$doc/$readme"
	done
	[ -f "$doc/examples/kubernetes/podwire-install.yaml" ]
	[ -f "$doc/docs/node-setup.md" ]
}

@test "install puts every tool in bin with --help and its manual page" {
	run env DESTDIR="$D" cmake --install "$PODWIRE_BUILD" --prefix /usr
	[ "$status" -eq 0 ]
	[ -n "$PODWIRE_TOOLS" ]
	for t in $PODWIRE_TOOLS; do
		run "$D/usr/$PODWIRE_TOOL_BINDIR/$t" --help
		[ "$status" -eq 0 ]
		[[ $output == *Usage* || $output == *SYNOPSIS* ]]
	done
	zcat "$D/usr/share/man/man1/cnitool.1.gz" | grep -q '^\.TH CNITOOL 1'
	[ -x "$D/usr/$PODWIRE_NODE_SCRIPTDIR/install-cni" ]
	[ -f "$D/usr/$PODWIRE_DOCDIR/examples/kubernetes/podwire-install.yaml" ]
	[ -f "$D/usr/$PODWIRE_DOCDIR/examples/bridge-basic.conflist" ]
}

@test "every binary built into bin/ is a plugin or a tool; every one the README lists is built" {
	for f in "$PODWIRE_BIN"/*; do
		[ -x "$f" ] || continue
		b=$(basename "$f")
		[[ " $PODWIRE_PLUGINS $PODWIRE_TOOLS " == *" $b "* ]] || {
			echo "# $b is built but neither podwire_plugin() nor podwire_tool(): not installed" >&2
			return 1
		}
	done
	# the README's table of executables (15 today): none left out of the build
	listed=$(sed -n 's/^| `\([a-z-]*\)` | .*/\1/p' "$PODWIRE_SRC/README.md")
	[ "$(wc -w <<<"$listed")" -ge 15 ]
	for b in $listed; do
		[ -x "$PODWIRE_BIN/$b" ] && [[ " $PODWIRE_PLUGINS $PODWIRE_TOOLS " == *" $b "* ]] || {
			echo "# $b: listed in README.md, not built (or not installed)" >&2
			return 1
		}
	done
}
