#!/usr/bin/env bats
# cluster-ipam over TLS: an etcd with client-certificate auth started by the
# test inside the test's host netns (https://127.0.0.1 there); the client
# goes through pwhttp (libssl loaded on first https use) with
# caFile/certFile/keyFile, the watch stream too (pwetcd-smoke).

load cluster-ipam-helpers

setup() {
	pw_setup
	ci_require
	pw_need openssl
	CI_PREFIX="/e2e-$PW_ID"
	TLS=$STATE/tls
	mkdir -p "$TLS"
	(
		cd "$TLS" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=pw-test-ca 2>/dev/null
		printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >srv.ext
		openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=etcd 2>/dev/null
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 2 -extfile srv.ext 2>/dev/null
		printf 'extendedKeyUsage=clientAuth\n' >cli.ext
		openssl req -newkey rsa:2048 -nodes -keyout cli.key -out cli.csr -subj /O=podwire 2>/dev/null
		openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cli.pem -days 2 -extfile cli.ext 2>/dev/null
	)
	CI_ETCD_DIR=$(mktemp -d /dev/shm/pw-etcd.XXXXXX)
	read -r PC PP _ < <(ci_free_ports)
	CI_TLS_EP="https://127.0.0.1:$PC"
	(cd "$CI_ETCD_DIR" && exec ip netns exec "$HOST_NS" "$CI_ETCD" --name ci --data-dir "$CI_ETCD_DIR/data" \
		--listen-client-urls "$CI_TLS_EP" --advertise-client-urls "$CI_TLS_EP" \
		--cert-file "$TLS/srv.pem" --key-file "$TLS/srv.key" --trusted-ca-file "$TLS/ca.pem" \
		--client-cert-auth \
		--listen-peer-urls "http://127.0.0.1:$PP" --initial-advertise-peer-urls "http://127.0.0.1:$PP" \
		--initial-cluster "ci=http://127.0.0.1:$PP" >>"$CI_ETCD_DIR/etcd.log" 2>&1) &
	CI_ETCD_PID=$!
	local i
	for i in $(seq 1 100); do
		ip netns exec "$HOST_NS" curl -sf --max-time 1 --cacert "$TLS/ca.pem" --cert "$TLS/cli.pem" \
			--key "$TLS/cli.key" "$CI_TLS_EP/version" >/dev/null 2>&1 && break
		sleep 0.1
	done
}

teardown() {
	ci_teardown
}

tls_conf() {
	ci_conf n1 ".ipam.etcd={\"endpoints\":[\"$CI_TLS_EP\"],\"caFile\":\"$TLS/ca.pem\",\"certFile\":\"$TLS/cli.pem\",\"keyFile\":\"$TLS/cli.key\",\"timeoutMs\":3000} | ${1:-.}"
}

@test "ADD/DEL over https with a client certificate" {
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(tls_conf)"
	assert_json '.ips | length' 2
	run_plugin cluster-ipam CHECK eth0 c1 <<<"$(tls_conf)"
	run_plugin cluster-ipam DEL eth0 c1 <<<"$(tls_conf)"
	run_plugin -e 1 cluster-ipam CHECK eth0 c1 <<<"$(tls_conf)"
	assert_error 105 "no addresses"
}

@test "the TLS session is kept in dataDir/tls for the next call; a broken one costs a full handshake only" {
	local f="$STATE/data-n1/tls/etcd-127.0.0.1_${CI_TLS_EP##*:}"
	run_plugin cluster-ipam ADD eth0 c1 <<<"$(tls_conf)"
	[ -s "$f" ]
	[ "$(stat -c %a "$f")" = 600 ]
	[ "$(stat -c %a "$STATE/data-n1/tls")" = 700 ]
	run_plugin cluster-ipam ADD eth0 c2 <<<"$(tls_conf)"
	[ "$(stat -c %a "$f")" = 600 ]
	head -c 300 /dev/urandom >"$STATE/garbage"
	cp "$STATE/garbage" "$f"
	run_plugin cluster-ipam ADD eth0 c3 <<<"$(tls_conf)"
	assert_json '.ips | length' 2
	# a full handshake, and its session saved over the garbage
	[ -s "$f" ]
	run ! cmp -s "$f" "$STATE/garbage"
	for c in c1 c2 c3; do
		run_plugin cluster-ipam DEL eth0 "$c" <<<"$(tls_conf)"
	done
}

@test "https without the client certificate, or with a wrong CA, fails and allocates nothing" {
	# etcd refuses the handshake (an alert): not worth a retry, code 100 with the reason
	run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(tls_conf 'del(.ipam.etcd.certFile, .ipam.etcd.keyFile)')"
	assert_error 100 "alert"
	run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(tls_conf ".ipam.etcd.caFile=\"$TLS/cli.pem\"")"
	assert_error 100 "etcd"
	run ip -n "$HOST_NS" route show table all proto 81
	[ -z "$output" ]
}

@test "a TLS file that is missing: code 100 naming the key, the path and why" {
	run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(tls_conf ".ipam.etcd.caFile=\"$TLS/nope/ca.pem\"")"
	assert_error 100 "ipam.etcd.caFile: $TLS/nope/ca.pem: No such file or directory"
	[ "$(printf '%s' "$output" | jq -r .details)" = "No such file or directory" ]
	run_plugin -e 1 cluster-ipam ADD eth0 c1 <<<"$(tls_conf ".ipam.etcd.keyFile=\"$TLS/gone.key\"")"
	assert_error 100 "ipam.etcd.keyFile: $TLS/gone.key: No such file or directory"
	run ip -n "$HOST_NS" route show table all proto 81
	[ -z "$output" ]
}

@test "pwetcd over https: kv, txn, lease and watch" {
	run ip netns exec "$HOST_NS" env SSL_CERT_FILE="$TLS/ca.pem" "$PODWIRE_TEST_BIN/pwetcd-smoke" "$CI_TLS_EP" "$CI_PREFIX/s" "$TLS/ca.pem" "$TLS/cli.pem" "$TLS/cli.key"
	[ "$status" -eq 0 ] || { echo "# $output" >&2; false; }
	[ "${lines[3]}" = "watch ok" ]
}
