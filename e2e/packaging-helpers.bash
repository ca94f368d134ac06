# Helpers for the packaging e2e tests (e2e/55x-*.bats): an "image" root made
# by `cmake --install` of this build in the package's layout (plugins in
# /opt/cni/bin, the install script in /usr/libexec/podwire), a "host" root
# standing for the node's filesystem, and the DaemonSet containers' command
# lines as the kubelet would run them, paths mapped into those roots by
# test/packaging/check-manifests.py. Everything lives under $PK (a temp dir).

: "${PODWIRE_SRC:=$(cd "$(dirname "${BATS_TEST_FILENAME}")/.." && pwd)}"
: "${PODWIRE_BUILD:=${PODWIRE_SRC}/build}"
: "${PODWIRE_BIN:=${PODWIRE_BUILD}/bin}"
: "${PODWIRE_TEST_BIN:=${PODWIRE_BUILD}/test-bin}"
PK_MANIFESTS=$PODWIRE_SRC/conf/kubernetes
PK_CHECK=$PODWIRE_SRC/test/packaging/check-manifests.py

pk_setup() {
	PK=$(mktemp -d /tmp/pw-pkg.XXXXXX)
	IMAGE=$PK/image
	HOSTROOT=$PK/host
	mkdir -p "$HOSTROOT"
	# shellcheck source=/dev/null
	. "$PODWIRE_BUILD/podwire-install.env"
}

pk_teardown() {
	[ -n "${PK_PIDS:-}" ] && kill $PK_PIDS 2>/dev/null
	[ -n "${PK:-}" ] && rm -rf "$PK"
	return 0
}

# pk_image: the image layout, from this build's install rules.
pk_image() {
	DESTDIR=$IMAGE cmake --install "$PODWIRE_BUILD" --prefix /usr >"$PK/install.log"
	local from=$PODWIRE_CNI_BINDIR
	[ "${from#/}" != "$from" ] || from=/usr/$from
	if [ "$from" != /opt/cni/bin ]; then
		mkdir -p "$IMAGE/opt/cni"
		mv "$IMAGE$from" "$IMAGE/opt/cni/bin"
	fi
}

# pk_stand_ins: plugin types the shipped configuration lists name but this
# tree does not build yet get the noop test plugin under their name, so the
# install flow runs in full. Prints their names.
pk_stand_ins() {
	local t
	for t in $(cat "$PK/work/volumes/cni-config/"* |
		grep -o '"type"[[:space:]]*:[[:space:]]*"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | sort -u); do
		[ -x "$IMAGE/opt/cni/bin/$t" ] && continue
		cp "$PODWIRE_TEST_BIN/noop" "$IMAGE/opt/cni/bin/$t"
		echo "$t"
	done
}

# pk_container DAEMONSET CONTAINER [WATCH]: $PK/cmd.json with the container's
# argv and env on this fake node.
pk_container() {
	python3 "$PK_CHECK" argv "$PK_MANIFESTS" --daemonset "$1" --container "$2" \
		--image-root "$IMAGE" --host-root "$HOSTROOT" --work "$PK/work" \
		${3:+--watch "$3"} >"$PK/cmd.json"
}

# pk_run_container: run $PK/cmd.json ($output, $status as bats' run).
pk_run_container() {
	local -a argv envs
	mapfile -t argv < <(jq -r '.argv[]' "$PK/cmd.json")
	mapfile -t envs < <(jq -r '.env | to_entries[] | "\(.key)=\(.value)"' "$PK/cmd.json")
	run env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${envs[@]}" timeout 60 "${argv[@]}"
}

# pk_state DIR: every file under DIR with inode, mode and mtime (ns).
pk_state() {
	find "$1" -type f -printf '%i %m %T@ %P\n' | sort -k4
}
