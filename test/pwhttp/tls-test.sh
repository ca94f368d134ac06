#!/usr/bin/env bash
# pwhttp over TLS against a Python server (test/pwhttp/tls-server.py): a GET
# verified against the right CA; the wrong CA refused (certificate verify
# failed); a write into a connection the server reset fails with an error
# instead of killing the process with SIGPIPE (OpenSSL writes with write(2));
# a session file: the next process resumes, a garbage file or another CA
# does not; with a saved session the CA is loaded only for a full handshake;
# the saved session holds no certificate (it is never decoded again).
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

out=$("$client" "$port" "$t/s.crt" GET)
[ "$out" = "200 ok" ] || { echo "GET: $out"; exit 1; }
rc=0
out=$("$client" "$port" "$t/other.crt" GET) || rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"certificate verify failed"* ]] || { echo "wrong CA ($rc): $out"; exit 1; }
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
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 ok" ] || { echo "first GET with a session file: $out"; exit 1; }
[ "$(stat -c %a "$sf")" = 600 ] && [ "$(stat -c %a "$t/sessions")" = 700 ] ||
	{ echo "session file modes: $(stat -c %a "$sf" "$t/sessions")"; exit 1; }
openssl x509 -in "$t/s.crt" -outform DER -out "$t/s.der"
python3 -c 'import sys; sys.exit(open(sys.argv[1], "rb").read() in open(sys.argv[2], "rb").read())' \
	"$t/s.der" "$sf" || { echo "the saved session holds the server's certificate"; exit 1; }
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 re" ] || { echo "second GET did not resume: $out"; exit 1; }
head -c 100 /dev/urandom >"$sf"
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 ok" ] || { echo "garbage session file: $out"; exit 1; }
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 re" ] || { echo "garbage replaced, then resumed: $out"; exit 1; }
# With a session saved for this CA and host the CA is loaded only when a
# certificate must be verified: a new server (other ticket keys) refuses the
# session, and its certificate is verified with the CA loaded then...
server() { # NAME ACCEPTS: a server with NAME's certificate; its port in $t/port.NAME
	python3 "$here/tls-server.py" "$t/$1.crt" "$t/$1.key" "$2" >"$t/port.$1.$2" &
	srv="$srv $!"
	for _ in $(seq 100); do [ -s "$t/port.$1.$2" ] && break; sleep 0.05; done
	cat "$t/port.$1.$2"
}
p3=$(server s 4)
out=$("$client" "$p3" "$t/s.crt" GET "$sf")
[ "$out" = "200 ok" ] || { echo "refused session, CA loaded late: $out"; exit 1; }
out=$("$client" "$p3" "$t/s.crt" GET "$sf")
[ "$out" = "200 re" ] || { echo "new server's session not resumed: $out"; exit 1; }
# ... and a server whose certificate that CA did not sign is refused all the same.
p4=$(server other 1)
rc=0
out=$("$client" "$p4" "$t/s.crt" GET "$sf") || rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"certificate verify failed"* ]] ||
	{ echo "deferred CA, certificate of another CA ($rc): $out"; exit 1; }
# A resumed handshake never reads the CA (same file identity: inode, size,
# mtime); a full one that finds it unusable says so.
cp "$t/s.crt" "$t/ca2.crt"
out=$("$client" "$p3" "$t/ca2.crt" GET "$t/sf2")
[ "$out" = "200 ok" ] || { echo "second CA file, first GET: $out"; exit 1; }
touch -r "$t/ca2.crt" "$t/stamp"
head -c "$(stat -c %s "$t/ca2.crt")" /dev/zero | tr '\0' x | dd of="$t/ca2.crt" conv=notrunc status=none
touch -r "$t/stamp" "$t/ca2.crt"
out=$("$client" "$p3" "$t/ca2.crt" GET "$t/sf2")
[ "$out" = "200 re" ] || { echo "resumed without reading the CA: $out"; exit 1; }
p5=$(server s 1)
rc=0
out=$("$client" "$p5" "$t/ca2.crt" GET "$t/sf2") || rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"no usable CA certificate"* ]] ||
	{ echo "deferred CA unusable ($rc): $out"; exit 1; }
# Another CA: the saved session is not for it, so the server is verified again.
rc=0
out=$("$client" "$port" "$t/other.crt" GET "$sf") || rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"certificate verify failed"* ]] ||
	{ echo "other CA with a saved session ($rc): $out"; exit 1; }
echo "tls: ok"
