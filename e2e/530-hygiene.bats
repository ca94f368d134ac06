#!/usr/bin/env bats
# Hygiene of the shipped binaries: no system()/popen(), only stdin/stdout/
# stderr inherited by an exec'd delegate (every other fd is CLOEXEC), state
# files 0600 in 0700 directories whatever the umask, and no memory errors
# or leaks under valgrind.

setup() {
	load helpers
	load reliability-helpers
	pw_setup
	mkdir -p "$STATE/work"
}

teardown() {
	pw_teardown
}

# Directories whose code ships in a binary (tests, fuzzers, bench do not).
SHIPPED=(libcni/src libcni/include libcni/base netlink nft ipam plugins tools)

# shell_calls FILE...: "file:line: text" for every call of system() or
# popen() in code; comments and string literals do not count (the
# preprocessor strips comments without expanding anything).
shell_calls() {
	local f
	for f in "$@"; do
		gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null |
			sed -E 's/"([^"\\]|\\.)*"/""/g' |
			grep -nE '(^|[^A-Za-z0-9_.>])(system|popen)[[:space:]]*\(' |
			sed "s|^|$f:|"
	done
	return 0
}

@test "the system()/popen() detector finds a call and ignores comments and strings" {
	cat >"$STATE/work/probe.c" <<-'EOF'
		/* system("not code"); popen() in a comment */
		static const char *s = "system(\"x\")";
		// popen("y", "r");
		int filesystem(int x);
		int f(void) { return system("rm -rf /"); }
	EOF
	run shell_calls "$STATE/work/probe.c"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *'return system('* ]]
}

@test "shipped sources call neither system() nor popen()" {
	cd "$PODWIRE_SRC"
	local files
	mapfile -t files < <(find "${SHIPPED[@]}" -name '*.[ch]' 2>/dev/null | sort)
	[ "${#files[@]}" -gt 20 ]
	run shell_calls "${files[@]}"
	[ -z "$output" ] || { echo "$output" >&2; false; }
}

@test "shipped binaries import neither system nor popen" {
	local b n=0
	for b in "$PODWIRE_BIN"/*; do
		[ -x "$b" ] || continue
		n=$((n + 1))
		run nm -u --dynamic "$b"
		[ "$status" -eq 0 ]
		! grep -qwE 'system|popen' <<<"$output" || {
			echo "# $b imports: $(grep -wE 'system|popen' <<<"$output")" >&2
			false
		}
	done
	[ "$n" -ge 1 ]
}

# needed BIN: the shared libraries BIN loads (DT_NEEDED), one per line.
needed() {
	readelf -d "$1" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p'
}

@test "plugins load only the libraries they use (no yaml, ibverbs; jansson and nftnl static; libmnl where netlink is used)" {
	local b lib allowed
	for b in bridge host-local static cluster-ipam; do
		pw_need "$PODWIRE_BIN/$b"
		allowed='libc\.so\.6'
		case "$b" in bridge | cluster-ipam) allowed+='|libmnl\.so\.0' ;; esac
		# A build configured with -DPODWIRE_STATIC_DEPS=OFF loads them shared.
		grep -qs '^PODWIRE_STATIC_DEPS:BOOL=OFF' "$PODWIRE_BIN/../CMakeCache.txt" &&
			allowed+='|libjansson\.so\.4|libnftnl\.so\.11'
		allowed+='|lib(asan|ubsan)\.so\.[0-9]+' # sanitizer builds (make test-asan)
		allowed="^($allowed)\$"
		while read -r lib; do
			[[ "$lib" =~ $allowed ]] || {
				echo "# $b loads $lib" >&2
				false
			}
		done < <(needed "$PODWIRE_BIN/$b")
	done
}

# fds_conf: a bridge config whose IPAM is the noop double (exec'd through
# CNI_PATH). The noop reads "recordFile" and "result" from the top level of
# the config it is given -- the bridge's own stdin, which the bridge
# forwards unchanged -- and the bridge ignores both keys (with a warning).
fds_conf() {
	rel_conf bridge | jq -c --arg rec "$STATE/work/fds.jsonl" '
		.ipam = {"type": "noop", "recordFile": $rec}
		| .recordFile = $rec
		| .result = {"cniVersion": "1.1.0",
			"ips": [{"address": "10.79.0.5/24", "gateway": "10.79.0.1"}]}'
}

# closed CMD...: exec CMD with every fd above 2 of this shell closed (bats
# keeps several open), so the plugin starts with exactly 0, 1 and 2.
closed() {
	local fd
	for fd in /proc/$BASHPID/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
	done
	exec "$@"
}

# run_closed CMD: the bridge, started with only fds 0, 1 and 2.
run_closed() {
	(closed ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" CNI_COMMAND="$1" CNI_CONTAINERID=relfds \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 \
		CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN" \
		"$PODWIRE_BIN/bridge" <"$STATE/work/fds.json" >"$STATE/work/out" 2>"$STATE/work/err")
}

@test "the noop double's fd record sees an inherited fd (so the next test can fail)" {
	require_binaries noop
	fds_conf | jq -c '.type = "noop"' >"$STATE/work/fds.json"
	ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" CNI_COMMAND=ADD CNI_CONTAINERID=relfds \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 CNI_PATH="$PODWIRE_TEST_BIN" \
		"$PODWIRE_TEST_BIN/noop" <"$STATE/work/fds.json" >/dev/null 5</dev/null
	run jq -c '.fds | index(5) != null' "$STATE/work/fds.jsonl"
	[ "$output" = true ]
}

@test "an exec'd IPAM delegate inherits exactly fds 0, 1 and 2 (ADD, CHECK, DEL)" {
	require_binaries bridge noop
	fds_conf >"$STATE/work/fds.json"
	run_closed ADD || { cat "$STATE/work/out" "$STATE/work/err" >&2; false; }
	jq -c --slurpfile r "$STATE/work/out" '.prevResult = $r[0]' "$STATE/work/fds.json" \
		>"$STATE/work/fds.check.json"
	mv "$STATE/work/fds.check.json" "$STATE/work/fds.json"
	run_closed CHECK || { cat "$STATE/work/out" "$STATE/work/err" >&2; false; }
	run_closed DEL || { cat "$STATE/work/out" "$STATE/work/err" >&2; false; }
	run jq -c '[.command, .fds]' "$STATE/work/fds.jsonl"
	echo "$output" | sed 's/^/# /' >&2
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = '["ADD",[0,1,2]]' ]
	[ "${lines[1]}" = '["CHECK",[0,1,2]]' ]
	[ "${lines[2]}" = '["DEL",[0,1,2]]' ]
}

# The invoker closes every fd above 2 in the child (closefrom), so the
# delegate test above holds even for an fd opened without O_CLOEXEC. This
# one looks at the plugin itself: while the bridge waits for a hanging IPAM
# delegate, every fd it holds above 2 (netlink sockets, the netns fd, the
# /sys and /proc roots, pipes) must carry O_CLOEXEC (02000000 in fdinfo).
@test "every fd the bridge holds while a delegate runs is O_CLOEXEC" {
	require_binaries bridge fail
	rel_conf bridge '.ipam = {"type": "fail"} | .hangSeconds = 3 | .failOn = ["ADD"]
		| .msg = "injected IPAM failure"' >"$STATE/work/hang.json"
	rel_snapshot before
	closed ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" CNI_COMMAND=ADD \
		CNI_CONTAINERID=relhang CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME=eth0 \
		CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN" \
		"$PODWIRE_BIN/bridge" <"$STATE/work/hang.json" >"$STATE/work/out" 2>"$STATE/work/err" &
	local pid=$! child="" i fd flags bad="" n=0
	for i in $(seq 1 100); do
		child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)
		[ -n "$child" ] && break
		sleep 0.05
	done
	[ -n "$child" ] || { echo "# the bridge never started its IPAM delegate" >&2; false; }
	for fd in /proc/$pid/fdinfo/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] || continue
		n=$((n + 1))
		flags=$(awk '/^flags:/ { print $2 }' "/proc/$pid/fdinfo/$fd")
		(((8#$flags & 8#2000000) != 0)) ||
			bad+=" $fd->$(readlink "/proc/$pid/fd/$fd") (flags $flags)"
	done
	echo "# bridge held $n fds above 2 while its delegate ran" >&2
	wait "$pid" || true
	[ -z "$bad" ] || { echo "# fds without O_CLOEXEC:$bad" >&2; false; }
	[ "$n" -ge 2 ]
	output=$(cat "$STATE/work/out")
	assert_error 100 "injected IPAM failure"
}

# ipam_fail_conf: the bridge config with the fail double as IPAM.
ipam_fail_conf() {
	rel_conf bridge '.ipam = {"type": "fail"} | .failOn = ["ADD"] | .msg = "injected IPAM failure"'
}

# finds bug: the first ADD of a macspoofchk network that fails at IPAM
# removes the bridge it created but leaves nftables table "bridge podwire"
# with chain spoof-<net> (and its drop rule) and the two empty sets.
@test "an IPAM failure in the first ADD of a network leaves nothing behind" {
	require_binaries bridge fail
	ipam_fail_conf >"$STATE/work/fail.json"
	rel_snapshot before
	run_plugin -e 1 bridge ADD eth0 relfail <"$STATE/work/fail.json"
	assert_error 100 "injected IPAM failure"
	rel_assert_same before
}

@test "an IPAM failure next to a live attachment leaves the network as it was" {
	require_binaries bridge host-local fail
	rel_conf bridge >"$STATE/work/good.json"
	run_plugin bridge ADD eth0 relgood <"$STATE/work/good.json"
	rel_settle
	rel_snapshot before
	ipam_fail_conf >"$STATE/work/fail.json"
	run_plugin -e 1 bridge ADD eth1 relfail <"$STATE/work/fail.json"
	assert_error 100 "injected IPAM failure"
	rel_assert_same before
}

# assert_private DIR: every directory 0700 and every file 0600 under DIR.
assert_private() {
	local bad
	[ -d "$1" ] || { echo "# $1 was not created" >&2; return 1; }
	bad=$(find "$1" \( -type d ! -perm 0700 \) -o \( ! -type d ! -perm 0600 \) -printf '%M %p\n')
	[ -z "$bad" ] || { echo "# not private:" >&2; echo "$bad" >&2; return 1; }
}

@test "host-local state: 0600 files in 0700 directories, even with umask 000 (via bridge and alone)" {
	require_binaries bridge host-local
	rel_conf bridge >"$STATE/work/conf.json"
	(umask 000 && run_plugin bridge ADD eth0 relmode <"$STATE/work/conf.json")
	rel_conf host-local '.name = "relnet2"' >"$STATE/work/conf2.json"
	(umask 000 && run_plugin host-local ADD eth1 relmode <"$STATE/work/conf2.json")
	find "$STATE/ipam" -printf '# %M %P\n' >&2
	[ -n "$(rel_leases)" ]
	assert_private "$STATE/ipam/relnet"
	assert_private "$STATE/ipam/relnet2"
	# DEL rewrites the index and state files: still private.
	(umask 000 && run_plugin bridge DEL eth0 relmode <"$STATE/work/conf.json")
	assert_private "$STATE/ipam/relnet"
}

@test "cnitool's result cache: 0600 files in 0700 directories, even with umask 000" {
	require_binaries cnitool bridge host-local
	mkdir -p "$STATE/work/net.d"
	rel_conf bridge | jq -c '{cniVersion, name, plugins: [del(.cniVersion, .name)]}' \
		>"$STATE/work/net.d/10-rel.conflist"
	run bash -c "umask 000 && ip netns exec '$HOST_NS' env NETCONFPATH='$STATE/work/net.d' \
		CNI_PATH='$PODWIRE_BIN' '$PODWIRE_BIN/cnitool' --cache-dir '$STATE/cache' \
		add $REL_NET /var/run/netns/$POD_NS"
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	find "$STATE/cache" -printf '# %M %P\n' >&2
	[ -n "$(find "$STATE/cache" -type f)" ]
	assert_private "$STATE/cache"
	run ip netns exec "$HOST_NS" env NETCONFPATH="$STATE/work/net.d" CNI_PATH="$PODWIRE_BIN" \
		"$PODWIRE_BIN/cnitool" --cache-dir "$STATE/cache" del $REL_NET /var/run/netns/$POD_NS
	[ "$status" -eq 0 ]
}

# vg PLUGIN CMD IFNAME CID CONF [WANT_RC]: run under valgrind memcheck;
# fail on any memory error or definite/indirect leak (exit 99), or when the
# plugin's own exit status differs from WANT_RC (default 0).
vg() {
	local plugin=$1 cmd=$2 ifname=$3 cid=$4 conf=$5 want=${6:-0} rc
	local log="$STATE/work/vg.$plugin.$cmd.$cid.log"
	rc=0
	ip netns exec "$HOST_NS" env -i PODWIRE_LOCK_DIR="$PODWIRE_LOCK_DIR" PATH="$PATH" CNI_COMMAND="$cmd" CNI_CONTAINERID="$cid" \
		CNI_NETNS="/var/run/netns/$POD_NS" CNI_IFNAME="$ifname" \
		CNI_PATH="$PODWIRE_BIN:$PODWIRE_TEST_BIN" \
		valgrind -q --leak-check=full --error-exitcode=99 \
		--errors-for-leak-kinds=definite,indirect --log-file="$log" \
		"$PODWIRE_BIN/$plugin" <"$conf" >"$STATE/work/vg.out" 2>/dev/null || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "# valgrind $plugin $cmd ($cid): exit $rc, want $want" >&2
		echo "# stdout: $(head -c 400 "$STATE/work/vg.out")" >&2
		grep -E '== (  (at|by) |[A-Z][a-z]+)' "$log" | grep -v 'Warning: noted' |
			head -40 | sed 's/^/#   /' >&2
		VG_FAILED+=("$plugin $cmd $cid")
	fi
	return 0
}

# with_prev CONF: CONF with the last stdout as prevResult (for CHECK).
with_prev() {
	jq -c --slurpfile r "$STATE/work/vg.out" '.prevResult = $r[0]' "$1"
}

# finds bug: bridge requests carry uninitialised bytes to the kernel
# ("sendto(msg) points to uninitialised byte(s)" from nlw_talk via link_get,
# and from nft_batch_commit): attribute padding that Debian 12's libmnl
# 1.0.4 does not zero, and the nft batch buffer is malloc()ed.
@test "valgrind: bridge ADD/CHECK/DEL, host-local and static, success and failure paths" {
	pw_need valgrind
	require_binaries bridge host-local static
	# valgrind cannot run sanitizer builds (make test-asan covers those).
	! nm "$PODWIRE_BIN/bridge" 2>/dev/null | grep -q __asan_init ||
		skip "ASan build: valgrind does not apply"
	VG_FAILED=()
	local w="$STATE/work"
	rel_conf bridge >"$w/br.json"
	vg bridge ADD eth0 relvg "$w/br.json"
	with_prev "$w/br.json" >"$w/br.check.json"
	vg bridge CHECK eth0 relvg "$w/br.check.json"
	vg bridge DEL eth0 relvg "$w/br.check.json"
	vg bridge DEL eth0 relvg "$w/br.json"
	rel_conf bridge '.ipam.rangeStart = "10.78.0.5"' >"$w/br.bad.json"
	vg bridge ADD eth0 relvg2 "$w/br.bad.json" 1

	rel_conf host-local >"$w/hl.json"
	vg host-local ADD eth1 relvg "$w/hl.json"
	with_prev "$w/hl.json" >"$w/hl.check.json"
	vg host-local CHECK eth1 relvg "$w/hl.check.json"
	vg host-local DEL eth1 relvg "$w/hl.json"
	rel_conf host-local '.args = {"cni": {"ips": ["10.99.0.5"]}}' >"$w/hl.bad.json"
	vg host-local ADD eth1 relvg2 "$w/hl.bad.json" 1

	rel_conf static >"$w/st.json"
	vg static ADD eth2 relvg "$w/st.json"
	with_prev "$w/st.json" >"$w/st.check.json"
	vg static CHECK eth2 relvg "$w/st.check.json"
	vg static DEL eth2 relvg "$w/st.json"
	rel_conf static '.ipam.addresses[0].address = "banana"' >"$w/st.bad.json"
	vg static ADD eth2 relvg2 "$w/st.bad.json" 1
	[ "${#VG_FAILED[@]}" -eq 0 ] || {
		echo "# failed under valgrind: ${VG_FAILED[*]}" >&2
		false
	}
}
