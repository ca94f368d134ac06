#!/usr/bin/env bats
# The node install script (packaging/install-cni.sh, /usr/libexec/podwire/
# install-cni in the package) run for real, as the DaemonSets in
# conf/kubernetes/ run it on a node: image and node are temp directories,
# the command lines come from the manifests themselves.

load helpers
load packaging-helpers

setup() {
	pk_setup
	pk_image
}

teardown() {
	pk_teardown
}

install_cni() {
	run timeout 60 "$IMAGE/usr/libexec/podwire/install-cni" "$@"
}

@test "install-cni --help is a manual page" {
	install_cni --help
	[ "$status" -eq 0 ]
	for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS"; do
		[[ $output == *"$section"* ]] || {
			echo "# no $section in: $output" >&2
			return 1
		}
	done
	install_cni --frobnicate
	[ "$status" -eq 1 ]
	[[ $output == *'unknown argument "--frobnicate"'* ]]
	install_cni --watch soon
	[ "$status" -eq 1 ]
	[[ $output == *'--watch "soon"'* ]]
}

# The plugins a run of the install DaemonSet must install: the types of the
# ConfigMap's lists it installs, loopback, and the manifest's --also.
expected_plugins() {
	{
		grep -ho '"type"[[:space:]]*:[[:space:]]*"[^"]*"' \
			"$PK/work/volumes/cni-config/00-multinet.conflist" \
			"$PK/work/volumes/cni-config/10-podwire-routed.conflist" |
			sed 's/.*"\([^"]*\)"$/\1/'
		printf '%s\n' loopback sriov-rdma macvlan
	} | sort -u
}

@test "the install DaemonSet installs the plugins its lists need, the kubeconfig, then the conflists" {
	pk_container podwire-install install-cni
	stand_ins=$(pk_stand_ins)
	echo "# not built in this tree, the noop test plugin stands in: ${stand_ins:-none}" >&3
	pk_run_container
	[ "$status" -eq 0 ] || {
		echo "# $output" >&2
		return 1
	}
	bin=$HOSTROOT/opt/cni/bin conf=$HOSTROOT/etc/cni/net.d
	# The plugins the lists and the NADs need, byte for byte, executable,
	# and no other: bridge, host-local and static are not this mode's.
	expected=$(expected_plugins)
	for p in $expected; do
		cmp "$IMAGE/opt/cni/bin/$p" "$bin/$p"
		[ "$(stat -c %a "$bin/$p")" = 755 ]
	done
	[ "$(cd "$bin" && ls)" = "$expected" ]
	for p in bridge host-local static; do
		[ ! -e "$bin/$p" ]
	done
	# Each recorded with the content it was given.
	[ "$(cut -d' ' -f2 "$bin/.podwire-install-cni")" = "$expected" ]
	grep -qx "bin multinet $(sha256sum "$bin/multinet" | cut -d' ' -f1)" "$bin/.podwire-install-cni"
	# The configuration lists are the ConfigMap's, where the args put them.
	cmp "$PK/work/volumes/cni-config/00-multinet.conflist" "$conf/00-multinet.conflist"
	cmp "$PK/work/volumes/cni-config/10-podwire-routed.conflist" \
		"$conf/multinet.d/10-podwire-routed.conflist"
	# The kubeconfig: private, the service account's token and CA.
	kc=$conf/multinet.d/multinet.kubeconfig
	[ "$(stat -c %a "$kc")" = 600 ]
	grep -qx '    token: token-1' "$kc"
	grep -qx '    server: https://10.96.0.1:443' "$kc"
	grep -qx "    certificate-authority-data: $(base64 -w0 <"$PK/work/serviceaccount/ca.crt")" "$kc"
	# No temporary file left, and the conflists were written last.
	[ -z "$(find "$HOSTROOT" -name '*.tmp')" ]
	last_other=$(find "$bin" "$kc" -type f -printf '%T@\n' | sort -n | tail -1)
	first_conf=$(find "$conf" -name '*.conflist' -printf '%T@\n' | sort -n | head -1)
	[[ $first_conf > $last_other || $first_conf == "$last_other" ]]
}

@test "installing again changes nothing; a changed plugin alone is replaced" {
	pk_container podwire-install install-cni
	pk_stand_ins >/dev/null
	pk_run_container
	[ "$status" -eq 0 ]
	before=$(pk_state "$HOSTROOT")
	pk_run_container
	[ "$status" -eq 0 ]
	[[ $output != *installed* ]]
	[ "$(pk_state "$HOSTROOT")" = "$before" ]
	# A new bgp-route in the image: only bgp-route is rewritten (and its record).
	printf '\n' >>"$IMAGE/opt/cni/bin/bgp-route"
	pk_run_container
	[ "$status" -eq 0 ]
	[ "$output" = "install-cni: installed $HOSTROOT/opt/cni/bin/bgp-route" ]
	cmp "$IMAGE/opt/cni/bin/bgp-route" "$HOSTROOT/opt/cni/bin/bgp-route"
	grep -qx "bin bgp-route $(sha256sum "$IMAGE/opt/cni/bin/bgp-route" | cut -d' ' -f1)" \
		"$HOSTROOT/opt/cni/bin/.podwire-install-cni"
}

@test "a plugin being executed during the install is replaced by an atomic rename" {
	bin=$HOSTROOT/opt/cni/bin
	mkdir -p "$bin"
	# The node's old "bridge" is running (a long call, say).
	cp "$(command -v sleep)" "$bin/bridge"
	"$bin/bridge" 60 &
	PK_PIDS=$!
	for _ in $(seq 50); do
		[ "$(readlink "/proc/$PK_PIDS/exe")" = "$bin/bridge" ] && break
		sleep 0.1
	done
	# Writing over it in place is what must not happen: the kernel refuses.
	run cp "$IMAGE/opt/cni/bin/bridge" "$bin/bridge"
	[ "$status" -ne 0 ]
	[[ $output == *"Text file busy"* ]]
	# It is not install-cni's: refused, then replaced when forced.
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --plugins bridge
	[ "$status" -eq 1 ]
	cmp "$(command -v sleep)" "$bin/bridge"
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --plugins bridge --force
	[ "$status" -eq 0 ]
	cmp "$IMAGE/opt/cni/bin/bridge" "$bin/bridge"
	# The running process still has its own (now unlinked) binary.
	kill -0 "$PK_PIDS"
	[ "$(readlink "/proc/$PK_PIDS/exe")" = "$bin/bridge (deleted)" ]
}

@test "a conflist naming a plugin that is not installed is refused, and so are the others" {
	conf=$HOSTROOT/etc/cni/net.d
	echo '{"cniVersion":"1.0.0","name":"a","plugins":[{"type":"bridge","ipam":{"type":"host-local"}}]}' >"$PK/a.conflist"
	echo '{"cniVersion":"1.0.0","name":"b","plugins":[{"type":"bridge"},{"type":"flannel"}]}' >"$PK/b.conflist"
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$HOSTROOT/opt/cni/bin" \
		--conf-dir "$conf" --conf "$PK/a.conflist" --conf "$PK/b.conflist=20-b.conflist"
	[ "$status" -eq 1 ]
	[[ $output == *'plugin type "flannel" is not in'* ]]
	[ -z "$(find "$conf" -type f)" ]
	[ -z "$(find "$HOSTROOT" -name '*.tmp')" ]
	# A destination outside the configuration directory is refused too.
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$HOSTROOT/opt/cni/bin" \
		--conf-dir "$conf" --conf "$PK/a.conflist=../../escape.conflist"
	[ "$status" -eq 1 ]
	[[ $output == *'invalid destination name'* ]]
	[ ! -e "$HOSTROOT/etc/escape.conflist" ]
	# Without the bad one, a goes in.
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$HOSTROOT/opt/cni/bin" \
		--conf-dir "$conf" --conf "$PK/a.conflist"
	[ "$status" -eq 0 ]
	cmp "$PK/a.conflist" "$conf/a.conflist"
}

@test "a plugin install-cni did not install is never replaced without --force" {
	bin=$HOSTROOT/opt/cni/bin conf=$HOSTROOT/etc/cni/net.d
	mkdir -p "$bin"
	# The node's package put its own bridge there (not a podwire build).
	printf '#!/bin/sh\necho reference bridge\n' >"$bin/bridge"
	chmod 755 "$bin/bridge"
	cp "$bin/bridge" "$PK/node-bridge"
	echo '{"cniVersion":"1.0.0","name":"a","plugins":[{"type":"bridge","ipam":{"type":"host-local"}}]}' >"$PK/a.conflist"
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" --conf "$PK/a.conflist"
	[ "$status" -eq 1 ]
	[[ $output == *"plugin bridge: $bin/bridge was not installed by install-cni"*"--force"* ]]
	# Nothing changed: no other plugin, no record, no list.
	cmp "$PK/node-bridge" "$bin/bridge"
	[ "$(ls -A "$bin")" = bridge ]
	[ -z "$(find "$HOSTROOT" -name '*.conflist' -o -name '*.tmp')" ]
	# Forced: replaced and recorded, so the next upgrade needs no force.
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" \
		--conf "$PK/a.conflist" --force
	[ "$status" -eq 0 ]
	cmp "$IMAGE/opt/cni/bin/bridge" "$bin/bridge"
	printf '\n' >>"$IMAGE/opt/cni/bin/bridge"
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" --conf "$PK/a.conflist"
	[ "$status" -eq 0 ]
	cmp "$IMAGE/opt/cni/bin/bridge" "$bin/bridge"
	# The package overwrote it again: not install-cni's any more.
	cp "$PK/node-bridge" "$bin/bridge"
	printf '\n' >>"$IMAGE/opt/cni/bin/bridge"
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" --conf "$PK/a.conflist"
	[ "$status" -eq 1 ]
	cmp "$PK/node-bridge" "$bin/bridge"
}

@test "switching modes removes the lists of the previous mode, and only those" {
	bin=$HOSTROOT/opt/cni/bin conf=$HOSTROOT/etc/cni/net.d
	echo '{"cniVersion":"1.0.0","name":"a","plugins":[{"type":"bridge","ipam":{"type":"host-local"}}]}' >"$PK/a.conflist"
	echo '{"cniVersion":"1.0.0","name":"b","plugins":[{"type":"bgp-route","ipam":{"type":"host-local"}}]}' >"$PK/b.conflist"
	mkdir -p "$conf"
	echo '{"name":"theirs"}' >"$conf/99-other.conflist"
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" \
		--conf "$PK/a.conflist=10-a.conflist" --conf "$PK/a.conflist=multinet.d/a.conflist"
	[ "$status" -eq 0 ]
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" \
		--conf "$PK/b.conflist=20-b.conflist"
	[ "$status" -eq 0 ]
	[[ $output == *"removed $conf/10-a.conflist (installed by an earlier run)"* ]]
	[ "$(cd "$conf" && find . -name '*.conflist' | sort)" = "$(printf '%s\n' ./20-b.conflist ./99-other.conflist)" ]
	# bridge stays (pods of the old mode need it for DEL) and stays recorded.
	[ -x "$bin/bridge" ]
	grep -q '^bin bridge ' "$bin/.podwire-install-cni"
	grep -qx 'conf 20-b.conflist' "$conf/.podwire-install-cni"
	# A run that installs no list leaves the lists alone.
	install_cni --bin-from "$IMAGE/opt/cni/bin" --bin-to "$bin" --conf-dir "$conf" --no-plugins
	[ "$status" -eq 0 ]
	[ -f "$conf/20-b.conflist" ]
}

@test "the DaemonSet's main container keeps the kubeconfig's token current" {
	pk_container podwire-install refresh-kubeconfig 1
	pk_stand_ins >/dev/null
	mapfile -t argv < <(jq -r '.argv[]' "$PK/cmd.json")
	env KUBERNETES_SERVICE_HOST=10.96.0.1 KUBERNETES_SERVICE_PORT=443 \
		"${argv[@]}" >"$PK/watch.log" 2>&1 &
	PK_PIDS=$!
	kc=$HOSTROOT/etc/cni/net.d/multinet.d/multinet.kubeconfig
	for _ in $(seq 100); do
		grep -qs 'token: token-1' "$kc" && break
		sleep 0.1
	done
	grep -q 'token: token-1' "$kc"
	# The kubelet rotates the projected token.
	echo token-2 >"$PK/work/serviceaccount/token.new"
	mv "$PK/work/serviceaccount/token.new" "$PK/work/serviceaccount/token"
	for _ in $(seq 100); do
		grep -qs 'token: token-2' "$kc" && break
		sleep 0.1
	done
	grep -q 'token: token-2' "$kc" || {
		cat "$PK/watch.log" >&2
		return 1
	}
	[ "$(stat -c %a "$kc")" = 600 ]
	kill -0 "$PK_PIDS"
}

@test "podwire-node's init container writes this node's config from the ConfigMap" {
	pk_container podwire-node node-config
	pk_run_container
	[ "$status" -eq 0 ]
	node=$(jq -r '.argv[-1]' "$PK/cmd.json")
	[ "$(jq -r .nodeName "$node")" = node-1.example ]
	[ "$(jq -r .routerId "$node")" = 192.0.2.10 ]
	[ "$(jq -r .exportMode "$node")" = blocks ]
	# Nothing was installed into the node's plugin directory.
	[ ! -e "$HOSTROOT/opt/cni/bin" ]
	# A node name that is not one is refused.
	jq '.env.NODE_NAME = "Node_1; rm -rf /"' "$PK/cmd.json" >"$PK/bad.json"
	mv "$PK/bad.json" "$PK/cmd.json"
	rm -f "$node"
	pk_run_container
	[ "$status" -eq 1 ]
	[[ $output == *'is not a Kubernetes node name'* ]]
	[ ! -e "$node" ]
}

@test "podwire-node accepts the rendered node config (bird-config, bird -p)" {
	pw_need "$PODWIRE_BIN/podwire-node"
	pk_container podwire-node node-config
	pk_run_container
	[ "$status" -eq 0 ]
	node=$(jq -r '.argv[-1]' "$PK/cmd.json")
	# Without etcd (peers from the registry) bird-config needs static peers.
	jq 'del(.etcd) | .peers = [{"address": "192.0.2.11"}] | .birdSocket = "'"$PK"'/bird.ctl"' \
		"$node" >"$PK/static-node.json"
	run timeout 30 "$PODWIRE_BIN/podwire-node" bird-config --node-config "$PK/static-node.json"
	[ "$status" -eq 0 ] || {
		echo "# $output" >&2
		return 1
	}
	[[ $output == *"router id 192.0.2.10"* ]]
}
