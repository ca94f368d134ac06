#!/usr/bin/env bash
# pwhttp over TLS against a Python server (test/pwhttp/tls-server.py): a GET
# verified against the right CA; the wrong CA refused (certificate verify
# failed); a write into a connection the server reset fails with an error
# instead of killing the process with SIGPIPE (OpenSSL writes with write(2));
# a session file: the next process resumes, a garbage file or another CA
# does not; with a saved session the CA
# is loaded only for a full handshake;
# the saved session holds no certificate (it is never decoded again); a
# client certificate is parsed only for a server that asks for one, and a
# session it authenticated is offered only with the same certificate and key.
# Usage: tls-test.sh CLIENT_BINARY
set -euo pipefail
client=$1
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d /tmp/pwhttp-tls.XXXXXX)
srv=
cleanup() { [ -z "$srv" ] || kill $srv 2>/dev/null || true; rm -rf "$t"; }
trap cleanup EXIT
cert() { # NAME: a self-signed certificate for 127.0.0.1
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$t/$1.key" -out "$t/$1.crt" -days 1 -subj /CN=127.0.0.1 \
		-addext subjectAltName=IP:127.0.0.1 2>/dev/null
}
cert s
cert other
python3 "$here/tls-server.py" "$t/s.crt" "$t/s.key" 3 >"$t/port" &
srv=$!
for _ in $(seq 100); do [ -s "$t/port" ] && break; sleep 0.05; done
port=$(cat "$t/port")
expect() { # WANT WHAT CLIENT-ARGS...: the client prints WANT
	local want=$1 what=$2 out
	shift 2
	out=$("$client" "$@") || true
	[ "$out" = "$want" ] || { echo "$what: $out"; exit 1; }
}
refused() { # TEXT WHAT CLIENT-ARGS...: the client exits 1 saying TEXT
	local text=$1 what=$2 out rc=0
	shift 2
	out=$("$client" "$@") || rc=$?
	[ "$rc" -eq 1 ] && [[ $out == *"$text"* ]] || { echo "$what ($rc): $out"; exit 1; }
}

expect "200 ok" GET "$port" "$t/s.crt" GET
refused "certificate verify failed" "wrong CA" "$port" "$t/other.crt" GET
rc=0
out=$("$client" "$port" "$t/s.crt" RESET) || rc=$?
[ "$rc" -eq 0 ] || { echo "reset connection ($rc, 141 = SIGPIPE): $out"; exit 1; }
# Sessions across processes (the server answers "re" to a resumed one), on
# a server of their own (the one above accepts no more connections: that is
# what makes the retry of the reset POST fail).
python3 "$here/tls-server.py" "$t/s.crt" "$t/s.key" 5 >"$t/port2" &
srv="$srv $!"
for _ in $(seq 100); do [ -s "$t/port2" ] && break; sleep 0.05; done
port=$(cat "$t/port2")
sf=$t/sessions/apiserver
expect "200 ok" "first GET with a session file" "$port" "$t/s.crt" GET "$sf"
[ "$(stat -c %a "$sf")" = 600 ] && [ "$(stat -c %a "$t/sessions")" = 700 ] ||
	{ echo "session file modes: $(stat -c %a "$sf" "$t/sessions")"; exit 1; }
openssl x509 -in "$t/s.crt" -outform DER -out "$t/s.der"
python3 -c 'import sys; sys.exit(open(sys.argv[1], "rb").read() in open(sys.argv[2], "rb").read())' \
	"$t/s.der" "$sf" || { echo "the saved session holds the server's certificate"; exit 1; }
expect "200 re" "second GET resumed" "$port" "$t/s.crt" GET "$sf"
head -c 100 /dev/urandom >"$sf"
expect "200 ok" "garbage session file" "$port" "$t/s.crt" GET "$sf"
expect "200 re" "garbage replaced, then resumed" "$port" "$t/s.crt" GET "$sf"
# With a session saved for this CA and host the CA is loaded only when a
# certificate must be verified: a new server (other ticket keys) refuses the
# session, and its certificate is verified with the CA loaded then...
# server NAME ACCEPTS [CLIENT_CA]: a server with NAME's certificate, its port
# in $sport. Not in a subshell: its PID must reach $srv, which the exit trap
# kills (a failed test leaves servers waiting for connections).
server() {
	local f
	f=$(mktemp "$t/port.XXXXXX")
	python3 "$here/tls-server.py" "$t/$1.crt" "$t/$1.key" "$2" ${3:+"$3"} >"$f" &
	srv="$srv $!"
	for _ in $(seq 100); do [ -s "$f" ] && break; sleep 0.05; done
	sport=$(cat "$f")
}
same_identity_garbage() { # FILE: garbage content, same inode, size and mtime
	touch -r "$1" "$t/stamp"
	head -c "$(stat -c %s "$1")" /dev/zero | tr '\0' x | dd of="$1" conv=notrunc status=none
	touch -r "$t/stamp" "$1"
}
server s 4; p3=$sport
expect "200 ok" "refused session, CA loaded late" "$p3" "$t/s.crt" GET "$sf"
expect "200 re" "new server's session not resumed" "$p3" "$t/s.crt" GET "$sf"
# ... and a server whose certificate that CA did not sign is refused all the same.
server other 1; p4=$sport
refused "certificate verify failed" "deferred CA, certificate of another CA" "$p4" "$t/s.crt" GET "$sf"
# The session is bound to the CA's bytes: a CA file of the same name and
# identity (inode, size, mtime) with other bytes is not offered it, so the
# CA is parsed at once and refused.
cp "$t/s.crt" "$t/ca2.crt"
expect "200 ok" "second CA file, first GET" "$p3" "$t/ca2.crt" GET "$t/sf2"
expect "200 re" "second CA file, resumed" "$p3" "$t/ca2.crt" GET "$t/sf2"
same_identity_garbage "$t/ca2.crt"
refused "no usable CA certificate" "another CA's session offered" "$p3" "$t/ca2.crt" GET "$t/sf2"
# A client certificate is deferred the same way: sent by a server's request
# (a new server refuses the session), never parsed for a resumed one.
cert c
server s 2 "$t/c.crt"; pc=$sport
cl=("$t/s.crt" GET "$t/sf3" "$t/c.crt" "$t/c.key")
expect "200 ok" "client certificate, first GET" "$pc" "${cl[@]}"
expect "200 re" "client certificate, resumed" "$pc" "${cl[@]}"
server s 2 "$t/c.crt"; pc2=$sport
expect "200 ok" "client certificate loaded late" "$pc2" "${cl[@]}"
# A session a client certificate authenticated is bound to the bytes of that
# certificate and key: a key file of the same name and identity (inode,
# size, mtime) with other bytes is not offered the session, so the key is
# loaded at once and refused.
same_identity_garbage "$t/c.key"
refused "client certificate or key unusable" "another key's session offered" "$pc2" "${cl[@]}"
# ... nor is a process without any client certificate: a full handshake,
# which the server refuses (resumed, it would have been let in).
refused "error" "no client certificate, session offered" "$pc2" "$t/s.crt" GET "$t/sf3"
# Another CA: the saved session is not for it, so the server is verified again.
refused "certificate verify failed" "other CA with a saved session" "$port" "$t/other.crt" GET "$sf"
echo "tls: ok"
