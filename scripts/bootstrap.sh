#!/usr/bin/env bash
# Install every Debian package podwire's build, tests, demo and benchmarks
# need, and only those that are missing. `apt-get update` runs only when
# something has to be installed. Safe to run repeatedly; needs root for the
# install step.
set -euo pipefail

PACKAGES=(
	# build
	gcc make cmake pkg-config
	libmnl-dev libjansson-dev libnftnl-dev
	libssl-dev libyaml-dev libibverbs-dev libbpf-dev
	# unit tests, fuzzing and lint
	libcmocka-dev clang libclang-rt-14-dev valgrind clang-format clang-tidy shellcheck
	# e2e tests, demo, benchmarks
	bats jq iproute2 nftables iputils-ping tcpdump time procps util-linux strace
	socat openssl python3 python3-yaml python3-jsonschema file curl
	# CRI e2e (e2e/250): containerd and runc, the Python CRI client's gRPC and
	# protoc, a static libc for the pause binary
	containerd runc python3-grpcio python3-grpc-tools python3-protobuf libc6-dev
	# BGP and the cluster datastore (bgp-route, podwire-node, cluster-ipam)
	bird2 etcd-server etcd-client
	# packaging (make deb, lintian)
	dpkg-dev fakeroot lintian
	# the reference Go plugins we compare against (in /usr/lib/cni)
	containernetworking-plugins
)

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "bootstrap: all ${#PACKAGES[@]} packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "bootstrap: missing packages (run as root to install): ${missing[*]}" >&2
	exit 1
fi

echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
