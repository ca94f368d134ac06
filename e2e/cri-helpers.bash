# Helpers for the e2e tests that drive podwire's plugins through containerd's
# CRI (e2e/25x-cri-*.bats), the kubelet's own path: RunPodSandbox (CNI ADD),
# StopPodSandbox (DEL with the netns), RemovePodSandbox (DEL again, netns
# gone), on top of e2e/helpers.bash.
#
# Each test starts its own containerd (cri_start) inside $HOST_NS and a
# private mount namespace (test/cri/containerd-ns.sh), with everything under
# $CRI (inside $STATE): root, state, temp, sockets, runc's root, the CNI conf
# dir, the pods' netns mounts (netns_mounts_under_state_dir) and, bound over
# /run and /var/lib for containerd and what it starts, the shims' sockets
# (/run/containerd/s) and go-cni's result cache (/var/lib/cni), which
# containerd 1.6 cannot move. The sandbox image is a static pause binary
# packed as an OCI image (test/cri/mkimage.py) and imported: no registry, no
# pull. cri_teardown removes the test's pods through the CRI, then stops
# containerd by PID and kills by PID whatever shim or pod process of this
# containerd is left; the mounts go away with its mount namespace.

CRI_PYTHON=/usr/bin/python3
CRI_CLIENT="$PODWIRE_SRC/test/cri/cri.py"
CRI_IMAGE=podwire.test/pause:1
# A CRI call that takes longer than this is a failure (exit 3), not a hang.
CRI_CALL_TIMEOUT_S=${CRI_CALL_TIMEOUT_S:-60}

# cri_image: the pause binary (gcc -static) and its OCI image tarball, made
# once per bats file; prints the tarball's path.
cri_image() {
	local d=${BATS_FILE_TMPDIR:-$STATE}/cri-image/${CRI_IMAGE//[^a-z0-9]/_}
	if [ ! -s "$d/pause.tar" ]; then
		mkdir -p "$d"
		gcc -static -Os -Wall -Wextra -Werror -o "$d/pause" "$PODWIRE_SRC/test/cri/pause.c" &&
			"$CRI_PYTHON" "$PODWIRE_SRC/test/cri/mkimage.py" --binary "$d/pause" \
				--name "$CRI_IMAGE" --out "$d/pause.tar.tmp" &&
			mv "$d/pause.tar.tmp" "$d/pause.tar" || return 1
	fi
	echo "$d/pause.tar"
}

# cri_config: containerd's config.toml for $CRI. Plugins that would touch the
# host or are not needed are disabled; CNI binaries come from $PODWIRE_BIN.
cri_config() {
	cat >"$CRI/config.toml" <<TOML
version = 2
root = "$CRI/root"
state = "$CRI/state"
temp = "$CRI/tmp"
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.internal.v1.restart",
  "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.overlayfs", "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing"]

[grpc]
  address = "$CRI/c.sock"

[ttrpc]
  address = "$CRI/c.sock.ttrpc"

[debug]
  level = "debug"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$CRI_IMAGE"
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  disable_apparmor = true
  disable_cgroup = true
  restrict_oom_score_adj = true

  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$PODWIRE_BIN"
    conf_dir = "$CRI/net.d"
    max_conf_num = 1

  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$CRI/runc"
TOML
}

# cri_start CONF-FILE: start containerd with CONF-FILE as its only CNI config
# (a .conflist, or a .conf for a single plugin such as multinet), wait until
# the CRI answers (bounded), import the pause image.
cri_start() {
	local conf=$1 image
	image=$(cri_image) || return 1
	CRI="$STATE/cri"
	CRI_IDS=()
	export PODWIRE_CRI_CACHE="${BATS_FILE_TMPDIR:-$STATE}/cri-proto"
	mkdir -p "$CRI"/{root,state,tmp,net.d,runc}
	cp "$conf" "$CRI/net.d/"
	cri_config
	"$PODWIRE_SRC/test/cri/containerd-ns.sh" "/var/run/netns/$HOST_NS" "$CRI" "$CRI/config.toml" \
		>"$CRI/containerd.log" 2>&1 3>&- &
	CRI_PID=$!
	export CRI CRI_PID
	local i
	for i in $(seq 200); do
		[ -S "$CRI/c.sock" ] && break
		kill -0 "$CRI_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -S "$CRI/c.sock" ] || ! cri_call --timeout 30 version >/dev/null; then
		echo "# containerd did not come up; its log:" >&2
		tail -n 30 "$CRI/containerd.log" >&2
		return 1
	fi
	timeout 60 ctr --address "$CRI/c.sock" -n k8s.io images import --snapshotter native \
		"$image" >"$CRI/import.log" 2>&1 || {
		cat "$CRI/import.log" >&2
		return 1
	}
}

# cri_call [--timeout S] ARGS...: the CRI client against this test's containerd.
cri_call() {
	local t=$CRI_CALL_TIMEOUT_S
	if [ "$1" = "--timeout" ]; then
		t=$2
		shift 2
	fi
	"$CRI_PYTHON" "$CRI_CLIENT" --sock "$CRI/c.sock" --timeout "$t" "$@"
}

# cri_run NAME NAMESPACE UID: RunPodSandbox; the sandbox ID lands in $CRI_ID
# (and in CRI_IDS for teardown).
cri_run() {
	CRI_ID=$(cri_call run --name "$1" --namespace "$2" --uid "$3") || return 1
	[ -n "$CRI_ID" ] || return 1
	CRI_IDS+=("$CRI_ID")
}

# cri_timed stop|rm ID: the call, its RPC duration in $CRI_MS; the status and
# stderr of the call in $status / $output (bats run).
cri_timed() {
	rm -f "$CRI/rpc-ms"
	run cri_call --rpc-ms "$CRI/rpc-ms" "$@"
	CRI_MS=$(cat "$CRI/rpc-ms" 2>/dev/null || echo -1)
	echo "# $* -> exit $status in ${CRI_MS} ms${output:+: $output}" >&3
}

# cri_status ID: PodSandboxStatus with containerd's verbose info, as JSON in
# $CRI_STATUS; the pod's first IP in $CRI_IP, its netns as containerd names
# it in $CRI_NETNS_PATH (a mount only containerd's mount namespace has) and
# as the test can enter it in $CRI_NETNS (the pause process's).
cri_status() {
	local pid
	CRI_STATUS=$(cri_call status --json "$1") || return 1
	CRI_IP=$(jq -r '.network.ip // empty' <<<"$CRI_STATUS")
	CRI_NETNS_PATH=$(jq -r '.info.info.runtimeSpec.linux.namespaces[] |
		select(.type == "network") | .path' <<<"$CRI_STATUS")
	pid=$(jq -r '.info.info.pid' <<<"$CRI_STATUS")
	[ "$pid" -gt 0 ] || return 1
	CRI_NETNS=/proc/$pid/ns/net
}

# cri_assert_clean: this containerd holds no pod any more (each test's
# containerd is its own, so nothing at all): none listed, no netns file or
# mount, no mount of a sandbox's state (in containerd's mount namespace or
# leaked to the host's), no go-cni cache entry, no shim, no cgroup of a
# sandbox the test ran.
cri_assert_clean() {
	local left id
	run cri_call list
	[ "$status" = 0 ] && [ -z "$output" ] || {
		echo "# sandboxes still listed (exit $status): $output" >&2
		return 1
	}
	left=$(ls "$CRI/state/io.containerd.grpc.v1.cri/netns" 2>/dev/null)
	[ -z "$left" ] || {
		echo "# netns left: $left" >&2
		return 1
	}
	left=$(grep -F "$CRI/state" "/proc/$CRI_PID/mountinfo" || true)
	[ -z "$left" ] || {
		echo "# mounts left in containerd's namespace: $left" >&2
		return 1
	}
	left=$(grep -F "$CRI" /proc/self/mountinfo || true)
	[ -z "$left" ] || {
		echo "# mounts of containerd's leaked to the host: $left" >&2
		return 1
	}
	left=$(find "$CRI/var-lib/cni" -type f 2>/dev/null)
	[ -z "$left" ] || {
		echo "# go-cni cache left: $left" >&2
		return 1
	}
	for id in "${CRI_IDS[@]}"; do
		left+=$(find /sys/fs/cgroup -maxdepth 2 -type d -name "$id" 2>/dev/null)
	done
	[ -z "$left" ] || {
		echo "# cgroups left: $left" >&2
		return 1
	}
	[ -z "$(cri_shim_pids)" ] || {
		echo "# shim left: $(cri_shim_pids)" >&2
		return 1
	}
}

# The PIDs of this containerd's shims (an argument of theirs is its socket).
cri_shim_pids() {
	local f
	for f in $(grep -lzxF -- "$CRI/c.sock" /proc/[0-9]*/cmdline 2>/dev/null); do
		f=${f#/proc/}
		echo "${f%/cmdline}"
	done
}

# cri_kill_pids PID...: SIGKILL each process and its children (a shim's
# pod process), then wait (bounded) until they are gone.
cri_kill_pids() {
	local p c i alive
	for p in "$@"; do
		for c in $(pgrep -P "$p"); do
			kill -KILL "$c" 2>/dev/null || true
		done
		kill -KILL "$p" 2>/dev/null || true
	done
	for i in $(seq 50); do
		alive=0
		for p in "$@"; do
			[ -e "/proc/$p" ] && alive=1
		done
		[ "$alive" = 0 ] && return 0
		sleep 0.1
	done
}

# cri_stop_containerd: SIGTERM, then SIGKILL after 10 s.
cri_stop_containerd() {
	[ -n "${CRI_PID:-}" ] || return 0
	kill -TERM "$CRI_PID" 2>/dev/null || true
	local i
	for i in $(seq 100); do
		kill -0 "$CRI_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$CRI_PID" 2>/dev/null || true
	wait "$CRI_PID" 2>/dev/null || true
	CRI_PID=
}

# cri_teardown: remove every pod of this containerd through the CRI (bounded;
# failures ignored), stop containerd, kill its shims and their pods, remove
# any cgroup runc left for a sandbox. $CRI goes with $STATE.
cri_teardown() {
	[ -n "${CRI:-}" ] || return 0
	local id listed=() shims
	if [ -n "${CRI_PID:-}" ] && kill -0 "$CRI_PID" 2>/dev/null; then
		# The containerd is the test's own: every sandbox it lists is the
		# test's, also one whose RunPodSandbox timed out on our side.
		mapfile -t listed < <(cri_call --timeout 20 list 2>/dev/null | awk '{print $1}')
		for id in "${listed[@]}"; do
			cri_call --timeout 20 stop "$id" 2>/dev/null || true
			cri_call --timeout 20 rm "$id" 2>/dev/null || true
		done
	fi
	shims=$(cri_shim_pids)
	cri_stop_containerd
	shims="$shims $(cri_shim_pids)"
	# shellcheck disable=SC2086 # a list of PIDs
	cri_kill_pids $shims
	for id in "${CRI_IDS[@]}" "${listed[@]}"; do
		find /sys/fs/cgroup -maxdepth 2 -type d -name "$id" -exec rmdir {} + 2>/dev/null || true
	done
	return 0
}
