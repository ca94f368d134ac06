#!/usr/bin/env bats
# static IPAM through the binary: addresses, routes, dns, the address
# sources (args.cni.ips, runtimeConfig.ips, CNI_ARGS IP/GATEWAY), CHECK
# against prevResult, DEL, and errors naming key and value.

setup() {
	load helpers
	pw_setup
}

teardown() {
	pw_teardown
}

CONF='{"cniVersion":"1.0.0","name":"st","type":"bridge","ipam":{"type":"static",
 "addresses":[{"address":"10.10.0.1/24","gateway":"10.10.0.254"},{"address":"fd00:10::1/64"}],
 "routes":[{"dst":"0.0.0.0/0"}],"dns":{"nameservers":["10.10.0.53"],"search":["example.com"]}}}'

@test "ADD returns the configured addresses, routes and dns; DEL twice succeeds" {
	run_plugin static ADD eth0 <<<"$CONF"
	assert_json '.ips[0].address' 10.10.0.1/24
	assert_json '.ips[0].gateway' 10.10.0.254
	assert_json '.ips[1].address' fd00:10::1/64
	assert_json '.routes[0].dst' 0.0.0.0/0
	assert_json '.dns.nameservers[0]' 10.10.0.53
	PW_NETNS="" run_plugin static DEL eth0 <<<"$CONF"
	PW_NETNS="" run_plugin static DEL eth0 <<<"$CONF"
}

@test "runtimeConfig.ips replaces the addresses; CNI_ARGS IP appends and GATEWAY fills in" {
	run_plugin static ADD eth0 <<<'{"cniVersion":"1.0.0","name":"st","type":"bridge","runtimeConfig":{"ips":["10.20.0.7/24"]},"ipam":{"type":"static","addresses":[{"address":"10.10.0.1/24"}]}}'
	assert_json '.ips | length' 1
	assert_json '.ips[0].address' 10.20.0.7/24
	PW_CNI_ARGS="IP=10.30.0.7/24;GATEWAY=10.30.0.1" run_plugin static ADD eth0 <<<"$CONF"
	assert_json '.ips | length' 3
	assert_json '.ips[2].address' 10.30.0.7/24
	assert_json '.ips[2].gateway' 10.30.0.1
}

@test "CHECK compares with prevResult" {
	local prev='"prevResult":{"cniVersion":"1.0.0","ips":[{"address":"10.10.0.1/24","gateway":"10.10.0.254"},{"address":"fd00:10::1/64"}]}'
	run_plugin static CHECK eth0 <<<"${CONF%\}}, $prev}"
	run_plugin -e 1 static CHECK eth0 <<<"${CONF%\}}, ${prev/10.10.0.254/10.10.0.9}}"
	assert_error 105 "gateway of 10.10.0.1/24 differs"
	run_plugin -e 1 static CHECK eth0 <<<"$CONF"
	assert_error 7 "Required prevResult missing"
}

@test "errors name key and value" {
	run_plugin -e 1 static ADD eth0 <<<'{"cniVersion":"1.0.0","name":"st","type":"bridge","ipam":{"type":"static","addresses":[{"address":"10.10.0.1"}]}}'
	assert_error 7 "ipam.addresses[0].address: '10.10.0.1' is expected to be in CIDR notation"
	PW_CNI_ARGS="IP=bogus" run_plugin -e 1 static ADD eth0 <<<"$CONF"
	assert_error 4 "CNI_ARGS IP: 'bogus'"
	run_plugin -e 1 static ADD eth0 <<<'{"cniVersion":"0.2.0","name":"st","type":"bridge","ipam":{"type":"static","addresses":[{"address":"10.10.0.1/24"},{"address":"10.11.0.1/24"}]}}'
	assert_error 7 "does not support more than 1 address per family"
}
