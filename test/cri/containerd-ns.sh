#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# containerd-ns.sh NETNS DIR CONFIG [ARGS...]: exec containerd inside the
# network namespace NETNS (a path) and a private mount namespace of its own,
# for podwire's CRI e2e tests. Only the exec'd containerd (same PID as this
# script) and what it starts (shims, pods, CNI plugins) see these mounts:
#
# - /sys: a sysfs of NETNS, as `ip netns exec` gives, with the host's
#   cgroup hierarchies bound back under /sys/fs/cgroup for runc;
# - /run := DIR/run and /var/lib := DIR/var-lib: the places containerd 1.6
#   writes outside its root and state directories (the shims' sockets in
#   /run/containerd/s, go-cni's result cache in /var/lib/cni) land in DIR,
#   so the test sees them and the host's /run and /var/lib are untouched.
#
# Nothing propagates back to the host's mount namespace; the mounts go away
# with the last process in it.
set -eu
[ $# -ge 3 ] || {
	echo "usage: $0 NETNS DIR CONFIG [CONTAINERD-ARGS...]" >&2
	exit 2
}
netns=$1 dir=$2 config=$3
shift 3
if [ "${PODWIRE_CRI_IN_NS:-}" != 1 ]; then
	export PODWIRE_CRI_IN_NS=1
	exec nsenter --net="$netns" -- unshare --mount --propagation private -- "$0" "$netns" "$dir" "$config" "$@"
fi
mkdir -p "$dir/run" "$dir/var-lib" "$dir/cgroup"
mount --rbind /sys/fs/cgroup "$dir/cgroup"
mount -t sysfs sysfs /sys
mount --rbind "$dir/cgroup" /sys/fs/cgroup
umount -l "$dir/cgroup"
mount --bind "$dir/run" /run
mount --bind "$dir/var-lib" /var/lib
exec containerd --config "$config" "$@"
