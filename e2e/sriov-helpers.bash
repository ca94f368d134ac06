# Helpers of the sriov-rdma e2e tests (220-229): a fake sysfs tree under
# $STATE/sys (PODWIRE_SYSFS_ROOT) laid out as plugins/main/sriov-rdma/README.md says, whose PF and
# VF netdevs are real veth devices in the test's throwaway host netns.
#
#   0000:af:00.0  PF "pwpf0", sriov_numvfs $SR_NVF, VFs 0000:af:06.0.. (netdevs pwvf0..)
#   0000:af:06.6  (when SR_NVF > 6) bound to vfio-pci: a DPDK VF without netdev
#   0000:af:06.7  (when SR_NVF > 7) has an RDMA device infiniband/mlx5_7
#   0000:b0:00.0  a second PF "pwpf1" without VFs (sriov_totalvfs 4)
#   0000:05:00.0  a plain PCI device (no SR-IOV)

SR_PF=0000:af:00.0

sr_vf_bdf() { printf '0000:af:06.%d' "$1"; }

# sr_tree [NVF]: build the tree and the veths (SR_PLAIN=1: every VF a plain netdev VF).
sr_tree() {
	local n=${1:-8} i vf dev
	SR_NVF=$n
	SYS="$STATE/sys"
	dev="$SYS/bus/pci/devices"
	mkdir -p "$dev" "$SYS/bus/pci/drivers/mlx5_core" "$SYS/bus/pci/drivers/vfio-pci" \
		"$SYS/class/net"
	mkdir -p "$dev/$SR_PF/net/pwpf0"
	echo "$n" >"$dev/$SR_PF/sriov_numvfs"
	echo 8 >"$dev/$SR_PF/sriov_totalvfs"
	ip -n "$HOST_NS" link add pwpf0 type veth peer name pwpf0p
	for ((i = 0; i < n; i++)); do
		vf=$(sr_vf_bdf "$i")
		mkdir -p "$dev/$vf"
		ln -s "../$vf" "$dev/$SR_PF/virtfn$i"
		ln -s "../$SR_PF" "$dev/$vf/physfn"
		if [ "$i" -eq 6 ] && [ -z "${SR_PLAIN:-}" ]; then
			ln -s "$SYS/bus/pci/drivers/vfio-pci" "$dev/$vf/driver"
			continue
		fi
		ln -s "$SYS/bus/pci/drivers/mlx5_core" "$dev/$vf/driver"
		mkdir -p "$dev/$vf/net/pwvf$i"
		[ "$i" -eq 7 ] && [ -z "${SR_PLAIN:-}" ] && mkdir -p "$dev/$vf/infiniband/mlx5_7"
		ip -n "$HOST_NS" link add "pwvf$i" type veth peer name "pwvp$i"
		ip -n "$HOST_NS" link set "pwvf$i" address "02:00:00:00:06:0$i" mtu 1500
	done
	mkdir -p "$dev/0000:b0:00.0/net/pwpf1" "$dev/0000:05:00.0/net/pwplain"
	echo 4 >"$dev/0000:b0:00.0/sriov_totalvfs"
	echo 0 >"$dev/0000:b0:00.0/sriov_numvfs"
	SR_STATE_DIR="$STATE/sriov"
	PW_ENV=(PODWIRE_SYSFS_ROOT="$SYS")
	export SYS SR_STATE_DIR
}

# sr_conf VF_INDEX [EXTRA_JSON_MEMBERS]: a config for VF i with host-local IPAM.
sr_conf() {
	local extra=${2:+,$2}
	cat <<JSON
{"cniVersion":"1.1.0","name":"rail-a","type":"sriov-rdma","deviceID":"$(sr_vf_bdf "$1")",
 "stateDir":"$SR_STATE_DIR"$extra,
 "ipam":{"type":"host-local","dataDir":"$STATE/ipam","ranges":[[{"subnet":"10.77.0.0/24"}]],
         "routes":[{"dst":"10.78.0.0/16"}]}}
JSON
}

# sr_conf_noipam VF_INDEX [EXTRA]: no IPAM.
sr_conf_noipam() {
	local extra=${2:+,$2}
	printf '{"cniVersion":"1.1.0","name":"rail-a","type":"sriov-rdma","deviceID":"%s","stateDir":"%s"%s}' \
		"$(sr_vf_bdf "$1")" "$SR_STATE_DIR" "$extra"
}

# sr_link NS NAME: "name mac mtu state" of a link, or nothing.
sr_link() {
	ip -n "$1" -j link show dev "$2" 2>/dev/null |
		jq -r '.[0] | "\(.ifname) \(.address) \(.mtu) \(.operstate)"'
}

# sr_assert_home i: VF i is back in the host netns as pwvf<i> with its MAC and MTU.
sr_assert_home() {
	local got
	got=$(ip -n "$HOST_NS" -j link show dev "pwvf$1" | jq -r '.[0] | "\(.address) \(.mtu)"')
	[ "$got" = "02:00:00:00:06:0$1 1500" ] || {
		echo "# pwvf$1 in host: '$got'" >&2
		return 1
	}
	[ ! -e "$SR_STATE_DIR/$(sr_vf_bdf "$1").json" ] || {
		echo "# state of VF $1 still there" >&2
		return 1
	}
}

# sr_ipam_fail: an IPAM delegate (the "fail" test double) that fails ADD only.
sr_ipam_fail() {
	printf '"failOn":["ADD"]%s,"ipam":{"type":"fail"}' "${1:+,$1}"
}

# sr_snapshot NAME / sr_assert_snapshot NAME: links, addresses and routes of
# both namespaces and the state files, to prove a failed ADD changed nothing.
sr_snapshot() {
	{
		local ns
		for ns in "$HOST_NS" "$POD_NS"; do
			ip -n "$ns" -o link show | sed 's/^[0-9]*: //' | awk '{print $1, $2, $3, $4, $5}'
			ip -n "$ns" -o link show | grep -o 'link/ether [0-9a-f:]*' || true
			ip -n "$ns" -o addr show | awk '{print $2, $4}'
			ip -n "$ns" route show table all
		done
		ls "$SR_STATE_DIR"/*.json 2>/dev/null || true
		ls "$STATE/ipam/rail-a" 2>/dev/null | grep -v -e lock -e last_reserved || true
	} >"$STATE/sr-snap.$1"
}

sr_assert_snapshot() {
	sr_snapshot now
	diff -u "$STATE/sr-snap.$1" "$STATE/sr-snap.now" >&2
}
