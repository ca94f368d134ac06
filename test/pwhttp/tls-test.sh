#!/usr/bin/env bash
# pwhttp over TLS against a Python server (test/pwhttp/tls-server.py): a GET
# verified against the right CA; the wrong CA refused (certificate verify
# failed); a write into a connection the server reset fails with an error
# instead of killing the process with SIGPIPE (OpenSSL writes with write(2));
# a session file: the next process resumes, a garbage file or another CA
# does not.
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
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 re" ] || { echo "second GET did not resume: $out"; exit 1; }
head -c 100 /dev/urandom >"$sf"
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 ok" ] || { echo "garbage session file: $out"; exit 1; }
out=$("$client" "$port" "$t/s.crt" GET "$sf")
[ "$out" = "200 re" ] || { echo "garbage replaced, then resumed: $out"; exit 1; }
# Another CA: the saved session is not for it, so the server is verified again.
rc=0
out=$("$client" "$port" "$t/other.crt" GET "$sf") || rc=$?
[ "$rc" -eq 1 ] && [[ $out == *"certificate verify failed"* ]] ||
	{ echo "other CA with a saved session ($rc): $out"; exit 1; }
echo "tls: ok"
