#!/bin/sh
# install-cni: put podwire's plugins and a CNI configuration on a node.
#
# Run by the init container of conf/kubernetes/podwire-install.yaml with the
# node's plugin and configuration directories mounted into the container,
# or by hand on a node. Order is what keeps the node consistent:
#   1. every plugin is copied next to its destination and renamed over it
#      (rename(2) is atomic, so a runtime executing the old binary keeps its
#      inode and the next exec gets the new one; never "text file busy");
#   2. the multinet kubeconfig, if asked for;
#   3. the configuration lists last, each renamed into place, and only after
#      every plugin "type" they name is present in the plugin directory,
#      so the runtime never picks up a network whose plugins are missing;
#   4. then the lists an earlier run installed and this one does not are
#      removed (a mode switch), after the new ones are in place.
# Unchanged files are left alone: running it again changes nothing. What it
# installed is recorded in a dot-file of each directory (RECORD), so that a
# binary it did not install (a kubeadm node's reference plugins, say) is
# never replaced without --force, and the lists of a previous mode can go.
# `local` is not POSIX but every /bin/sh this runs under has it (dash,
# busybox ash, bash).
# shellcheck disable=SC3043
set -eu

PROG=install-cni
BIN_FROM=/opt/cni/bin
BIN_TO=/host/opt/cni/bin
CONF_DIR=/host/etc/cni/net.d
PLUGINS=
ALSO=loopback
FORCE=
NO_PLUGINS=
CONFS=
KUBECONFIG_OUT=
SA_DIR=/var/run/secrets/kubernetes.io/serviceaccount
NODE_TEMPLATE=
NODE_OUT=
WATCH=
TMPFILES=
RECORD=.podwire-install-cni

usage() {
	cat <<'EOF'
NAME
    install-cni - install podwire's CNI plugins and configuration on a node

SYNOPSIS
    install-cni [--bin-from DIR] [--bin-to DIR] [--plugins LIST | --no-plugins]
                [--also LIST] [--force]
                [--conf-dir DIR] [--conf SRC[=NAME]]... [--kubeconfig FILE]
                [--node-config-template FILE --node-config FILE] [--watch SECONDS]

DESCRIPTION
    Copies the plugins the configuration lists need (every "type" they name
    that --bin-from has, plus loopback and --also) into --bin-to, each by an
    atomic rename, then writes the configuration lists into --conf-dir,
    last, each by an atomic rename and only when every plugin "type" it
    names is an executable in --bin-to. Files whose content is already in
    place are not rewritten. A plugin in --bin-to that install-cni did not
    install (another package's, with other content) is not replaced: the
    run fails naming it, unless --force. When --conf is given, the lists an
    earlier run installed and this one does not are removed after the new
    ones are in place. What was installed is recorded in
    --bin-to/.podwire-install-cni and --conf-dir/.podwire-install-cni.
    Temporary files are dot-files ending in .tmp, which no container
    runtime loads.

OPTIONS
    --bin-from DIR      plugins to install (default /opt/cni/bin: the image)
    --bin-to DIR        the node's plugin directory (default /host/opt/cni/bin)
    --plugins LIST      comma-separated plugin names, or "all" for every
                        executable of --bin-from (default: the types the
                        --conf lists name that --bin-from has, loopback, and
                        --also)
    --also LIST         more plugins to install by default: the types of the
                        NetworkAttachmentDefinitions multinet will run
    --force             replace plugins that install-cni did not install
    --no-plugins        install no plugin (only the other files asked for)
    --conf-dir DIR      the node's CNI configuration directory
                        (default /host/etc/cni/net.d)
    --conf SRC[=NAME]   install file SRC as --conf-dir/NAME (default: SRC's
                        file name; NAME may name a subdirectory, e.g.
                        multinet.d/cluster.conflist). Repeatable; written in
                        the order given
    --kubeconfig FILE   write a kubeconfig (mode 0600) for multinet from the
                        pod's service account and KUBERNETES_SERVICE_HOST/PORT
    --sa-dir DIR        service account directory (default
                        /var/run/secrets/kubernetes.io/serviceaccount)
    --node-config-template FILE, --node-config FILE
                        write the podwire-node config FILE from the template,
                        replacing @NODE_NAME@ and @NODE_IP@ with $NODE_NAME
                        and $NODE_IP (the DaemonSet sets them from the
                        downward API)
    --watch SECONDS     after installing, stay in the foreground and rewrite
                        the kubeconfig whenever the service account token
                        changes (checked every SECONDS)
    -h, --help          show this help

EXIT STATUS
    0 when everything is in place, 1 on any error (the message names the
    file or value); a failed run leaves no temporary file and writes no
    configuration list.
EOF
}

die() {
	echo "$PROG: $*" >&2
	exit 1
}

cleanup() {
	for f in $TMPFILES; do
		rm -f "$f"
	done
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# install_file SRC DEST MODE: atomic replace of DEST by a copy of SRC, unless
# DEST already has SRC's content and mode.
install_file() {
	local src="$1" dest="$2" mode="$3" tmp
	if [ -f "$dest" ] && cmp -s "$src" "$dest" &&
		[ "$(stat -c %a "$dest")" = "$mode" ]; then
		return 0
	fi
	tmp="$(dirname "$dest")/.$(basename "$dest").$$.tmp"
	TMPFILES="$TMPFILES $tmp"
	cp "$src" "$tmp" || die "cannot copy $src to $tmp"
	chmod "$mode" "$tmp"
	# On disk before it gets the name: a node that loses power right after
	# the rename must not come up with an empty plugin or list.
	sync "$tmp" 2>/dev/null || sync
	mv -f "$tmp" "$dest" || die "cannot rename $tmp to $dest"
	echo "$PROG: installed $dest"
}

# install_content DEST MODE: like install_file with the content on stdin.
install_content() {
	local dest="$1" mode="$2" staged
	staged="$(dirname "$dest")/.$(basename "$dest").$$.new.tmp"
	TMPFILES="$TMPFILES $staged"
	(umask 077 && cat >"$staged") || die "cannot write $staged"
	install_file "$staged" "$dest" "$mode"
	rm -f "$staged"
}

# conf_types FILE...: every plugin "type" the files name, one per line.
conf_types() {
	[ $# -gt 0 ] || return 0
	grep -ho '"type"[[:space:]]*:[[:space:]]*"[^"]*"' "$@" |
		sed 's/.*"\([^"]*\)"$/\1/' | sort -u
}

conf_srcs() {
	local spec
	for spec in $CONFS; do
		echo "${spec%%=*}"
	done
}

plugin_list() {
	if [ "$PLUGINS" = all ]; then
		for f in "$BIN_FROM"/*; do
			[ -f "$f" ] && [ -x "$f" ] && basename "$f"
		done
		return 0
	fi
	if [ -n "$PLUGINS" ]; then
		echo "$PLUGINS" | tr ',' '\n'
		return 0
	fi
	# shellcheck disable=SC2046 # paths have no blanks (--conf refuses them)
	{ conf_types $(conf_srcs) 2>/dev/null; echo "$ALSO" | tr ',' '\n'; } |
		sort -u | while read -r p; do
		[ -z "$p" ] || [ ! -x "$BIN_FROM/$p" ] || echo "$p"
	done
}

# recorded DIR KIND NAME: the line install-cni recorded for NAME in DIR.
recorded() {
	[ -f "$1/$RECORD" ] || return 1
	grep -m1 "^$2 $3\( \|\$\)" "$1/$RECORD"
}

sum_of() {
	sha256sum "$1" | cut -d' ' -f1
}

# A plugin already in --bin-to is install-cni's to replace when it records
# the content there now, or when it is a podwire build that an install
# without records (an earlier install-cni, or the package) put there.
ours() {
	local dest="$1" line
	line=$(recorded "$BIN_TO" bin "$(basename "$dest")") &&
		[ "${line##* }" = "$(sum_of "$dest")" ] && return 0
	[ -z "$line" ] && grep -qa 'podwire' "$dest"
}

# Every plugin checked before any is copied: a refusal changes nothing.
check_plugins() {
	local p
	for p in "$@"; do
		case $p in
		'' | */* | .*) die "--plugins: invalid plugin name \"$p\"" ;;
		esac
		[ -x "$BIN_FROM/$p" ] || die "plugin $p: $BIN_FROM/$p is not an executable"
		[ -n "$FORCE" ] || [ ! -e "$BIN_TO/$p" ] || cmp -s "$BIN_FROM/$p" "$BIN_TO/$p" ||
			ours "$BIN_TO/$p" ||
			die "plugin $p: $BIN_TO/$p was not installed by install-cni (another package's?); not replaced without --force"
	done
}

# record DIR KIND LINES: replace DIR's records of KIND by LINES ("NAME [SUM]").
record() {
	local kind="$2" lines="$3" f="$1/$RECORD"
	{
		[ ! -f "$f" ] || grep -v "^$kind " "$f" || true
		[ -z "$lines" ] || printf '%s\n' "$lines" | sed "s/^/$kind /"
	} | install_content "$f" 644 >/dev/null
}

install_plugins() {
	[ -z "$NO_PLUGINS" ] || return 0
	[ -d "$BIN_FROM" ] || die "--bin-from $BIN_FROM is not a directory"
	local list p
	list=$(plugin_list)
	[ -n "$list" ] || die "no plugin to install in $BIN_FROM"
	# shellcheck disable=SC2086 # one plugin name per word
	check_plugins $list
	mkdir -p "$BIN_TO" || die "cannot create --bin-to $BIN_TO"
	for p in $list; do
		install_file "$BIN_FROM/$p" "$BIN_TO/$p" 755
	done
	record "$BIN_TO" bin "$(plugin_records "$list")"
}

# The records of the plugins installed now, and those of the plugins an
# earlier run installed and this one did not: those stay on the node (pods
# attached by them need them for DEL) and stay install-cni's.
plugin_records() {
	local p sum
	for p in $1; do
		echo "$p $(sum_of "$BIN_TO/$p")"
	done
	grep '^bin ' "$BIN_TO/$RECORD" 2>/dev/null | while read -r _ p sum; do
		printf '%s\n' "$1" | grep -qxF "$p" || echo "$p $sum"
	done
}

# Every "type" a configuration names (plugins, ipam, delegates) must be an
# executable in the node's plugin directory before the file goes live.
check_types() {
	local src="$1" types t
	types=$(conf_types "$src")
	[ -n "$types" ] || die "--conf $src: no plugin \"type\" in it"
	for t in $types; do
		case $t in
		*/* | .*) die "--conf $src: invalid plugin type \"$t\"" ;;
		esac
		[ -x "$BIN_TO/$t" ] || die "--conf $src: plugin type \"$t\" is not in $BIN_TO"
	done
}

install_confs() {
	[ -n "$CONFS" ] || return 0
	mkdir -p "$CONF_DIR" || die "cannot create --conf-dir $CONF_DIR"
	local spec src name names=
	# Check all first: one bad file leaves every configuration untouched.
	for spec in $CONFS; do
		src=${spec%%=*}
		[ -f "$src" ] || die "--conf $src: no such file"
		check_types "$src"
	done
	for spec in $CONFS; do
		src=${spec%%=*} name=${spec#*=}
		[ "$name" != "$spec" ] || name=$(basename "$src")
		case $name in
		'' | /* | *..*) die "--conf $spec: invalid destination name \"$name\"" ;;
		esac
		mkdir -p "$(dirname "$CONF_DIR/$name")"
		install_file "$src" "$CONF_DIR/$name" 644
		names="$names${names:+
}$name"
	done
	remove_old_confs "$names"
	record "$CONF_DIR" conf "$names"
}

# The lists an earlier run installed and this run does not: a mode switch
# must not leave the old mode's list first in the directory.
remove_old_confs() {
	local old name
	old=$(grep '^conf ' "$CONF_DIR/$RECORD" 2>/dev/null | cut -d' ' -f2-) || true
	for name in $old; do
		printf '%s\n' "$1" | grep -qxF "$name" && continue
		[ -f "$CONF_DIR/$name" ] || continue
		rm -f "$CONF_DIR/$name" || die "cannot remove $CONF_DIR/$name"
		echo "$PROG: removed $CONF_DIR/$name (installed by an earlier run)"
	done
}

kube_server() {
	local host port
	host=${KUBERNETES_SERVICE_HOST:-}
	port=${KUBERNETES_SERVICE_PORT:-443}
	[ -n "$host" ] || die "--kubeconfig: KUBERNETES_SERVICE_HOST is not set"
	case $host in
	*:*) host="[$host]" ;;
	esac
	echo "https://$host:$port"
}

write_kubeconfig() {
	[ -n "$KUBECONFIG_OUT" ] || return 0
	[ -s "$SA_DIR/token" ] || die "--kubeconfig: no service account token in $SA_DIR"
	[ -s "$SA_DIR/ca.crt" ] || die "--kubeconfig: no ca.crt in $SA_DIR"
	local server ca token
	server=$(kube_server)
	ca=$(base64 -w0 <"$SA_DIR/ca.crt")
	token=$(cat "$SA_DIR/token")
	mkdir -p "$(dirname "$KUBECONFIG_OUT")"
	install_content "$KUBECONFIG_OUT" 600 <<EOF
# Written by podwire's install-cni from the podwire-multinet service account.
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: multinet
  user:
    token: $token
contexts:
- name: multinet-context
  context:
    cluster: local
    user: multinet
current-context: multinet-context
EOF
}

render_node_config() {
	[ -n "$NODE_TEMPLATE$NODE_OUT" ] || return 0
	if [ -z "$NODE_TEMPLATE" ] || [ -z "$NODE_OUT" ]; then
		die "--node-config-template and --node-config go together"
	fi
	[ -f "$NODE_TEMPLATE" ] || die "--node-config-template $NODE_TEMPLATE: no such file"
	local name ip
	name=${NODE_NAME:-$(hostname)}
	ip=${NODE_IP:-}
	echo "$name" | grep -Eqx '[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?' ||
		die "NODE_NAME \"$name\" is not a Kubernetes node name"
	if grep -q '@NODE_IP@' "$NODE_TEMPLATE"; then
		echo "$ip" | grep -Eqx '[0-9]+(\.[0-9]+){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*' ||
			die "NODE_IP \"$ip\" is not an IP address"
	fi
	mkdir -p "$(dirname "$NODE_OUT")"
	sed -e "s/@NODE_NAME@/$name/g" -e "s/@NODE_IP@/$ip/g" "$NODE_TEMPLATE" |
		install_content "$NODE_OUT" 644
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help)
			usage
			exit 0
			;;
		--no-plugins)
			NO_PLUGINS=1
			shift
			;;
		--force)
			FORCE=1
			shift
			;;
		--bin-from | --bin-to | --plugins | --also | --conf-dir | --conf | --kubeconfig | \
			--sa-dir | --node-config-template | --node-config | --watch)
			[ $# -ge 2 ] || die "$1 needs a value"
			set_opt "$1" "$2"
			shift 2
			;;
		*)
			usage >&2
			die "unknown argument \"$1\""
			;;
		esac
	done
}

set_opt() {
	case $1 in
	--bin-from) BIN_FROM=$2 ;;
	--bin-to) BIN_TO=$2 ;;
	--plugins) PLUGINS=$2 ;;
	--also) ALSO="$ALSO,$2" ;;
	--conf-dir) CONF_DIR=$2 ;;
	--conf)
		case $2 in
		*[[:space:]]*) die "--conf \"$2\": no blanks in paths" ;;
		esac
		CONFS="$CONFS $2"
		;;
	--kubeconfig) KUBECONFIG_OUT=$2 ;;
	--sa-dir) SA_DIR=$2 ;;
	--node-config-template) NODE_TEMPLATE=$2 ;;
	--node-config) NODE_OUT=$2 ;;
	--watch)
		echo "$2" | grep -Eqx '[1-9][0-9]*' || die "--watch \"$2\": not a number of seconds"
		WATCH=$2
		;;
	esac
}

watch_token() {
	[ -n "$WATCH" ] || return 0
	echo "$PROG: installed; checking the service account token every ${WATCH}s"
	while :; do
		sleep "$WATCH" &
		wait $! || true
		write_kubeconfig
	done
}

main() {
	parse_args "$@"
	install_plugins
	render_node_config
	write_kubeconfig
	install_confs
	watch_token
}

main "$@"
