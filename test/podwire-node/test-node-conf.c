/* SPDX-License-Identifier: Apache-2.0 */
/* node-conf.c: table of node configs -> parsed values or the exact error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pwnode.h"

#define BASE "{\"nodeName\":\"n1\",\"routerId\":\"10.0.0.1\",\"asNumber\":64512"

struct bad_case {
	const char *json;
	const char *substr;
};

static const struct bad_case bad_cases[] = {
    {"[1]", "expected a JSON object"},
    {"{\"nodeName\":", "line 1"},
    {"{\"routerId\":\"10.0.0.1\",\"asNumber\":1}", "nodeName: required"},
    {"{\"nodeName\":\"a/b\",\"routerId\":\"10.0.0.1\",\"asNumber\":1}", "got \"a/b\""},
    {"{\"nodeName\":7}", "nodeName: expected a string, got 7"},
    {"{\"nodeName\":\"n\",\"asNumber\":1}", "routerId: required"},
    {"{\"nodeName\":\"n\",\"routerId\":\"fd00::1\",\"asNumber\":1}",
     "routerId: expected an IPv4 address, got \"fd00::1\""},
    {"{\"nodeName\":\"n\",\"routerId\":\"10.0.0.1\"}", "asNumber: required"},
    {"{\"nodeName\":\"n\",\"routerId\":\"10.0.0.1\",\"asNumber\":0}",
     "asNumber: expected an integer from 1 to 4294967295, got 0"},
    {"{\"nodeName\":\"n\",\"routerId\":\"10.0.0.1\",\"asNumber\":4294967296}", "got 4294967296"},
    {"{\"nodeName\":\"n\",\"routerId\":\"10.0.0.1\",\"asNumber\":\"64512\"}",
     "asNumber: expected an integer"},
    {BASE ",\"peers\":{}}", "peers: expected a list of at most 4096 entries, got {}"},
    {BASE ",\"peers\":[7]}", "peers[0]: expected an object"},
    {BASE ",\"peers\":[{}]}", "peers[0].address: required"},
    {BASE ",\"peers\":[{\"address\":\"10.0.0.300\"}]}",
     "peers[0].address: expected an IP address, got \"10.0.0.300\""},
    {BASE ",\"peers\":[{\"address\":\"10.0.0.1\"}]}",
     "peers[0].address: 10.0.0.1 is this node's own address (duplicate router id)"},
    {BASE ",\"peers\":[{\"address\":\"10.0.0.2\"},{\"address\":\"10.0.0.2\"}]}",
     "peers[1].address: 10.0.0.2 is listed twice"},
    {BASE ",\"peers\":[{\"address\":\"10.0.0.2\",\"asNumber\":-1}]}",
     "peers[0].asNumber: expected an integer from 1 to 4294967295, got -1"},
    {BASE ",\"addresses\":[]}", "addresses: expected 1 to 8 addresses, got 0"},
    {BASE ",\"addresses\":[\"x\"]}", "addresses[0]: expected an IP address, got \"x\""},
    {BASE ",\"addresses\":[\"fd00::1\"],\"peers\":[{\"address\":\"fd00::1\"}]}",
     "duplicate router id"},
    {BASE ",\"routeReflector\":[]}", "routeReflector: expected an object"},
    {BASE ",\"routeReflector\":{\"clusterId\":\"x\"}}",
     "routeReflector.clusterId: expected an IPv4 address, got \"x\""},
    {BASE ",\"routeReflector\":{\"clients\":[\"10.0.0.9\"]}}",
     "routeReflector.clients[0]: 10.0.0.9 is not one of peers[].address"},
    {BASE ",\"peers\":[{\"address\":\"10.0.0.9\",\"asNumber\":1}],"
	  "\"routeReflector\":{\"clients\":[\"10.0.0.9\"]}}",
     "a client must be in this node's AS 64512"},
    {BASE ",\"exportMode\":\"all\"}", "exportMode: expected \"pods\" or \"blocks\", got \"all\""},
    {BASE ",\"routeProtocols\":{\"pod\":12}}", "routeProtocols.pod: 12 is BIRD's own"},
    {BASE ",\"routeProtocols\":{\"block\":2}}",
     "routeProtocols.block: expected an integer from 5 to 255, got 2"},
    {BASE ",\"routeProtocols\":{\"borrowed\":80}}", "pod, block and borrowed must differ"},
    {BASE ",\"birdSocket\":\"\"}", "birdSocket: must not be empty"},
    {BASE ",\"birdConfig\":1}", "birdConfig: expected a string, got 1"},
    {BASE ",\"etcd\":\"http://x\"}", "etcd: expected an object"},
    {BASE ",\"etcdPrefix\":\"podwire\"}", "etcdPrefix: must start with '/'"},
    {BASE ",\"leaseTtl\":1}", "leaseTtl: expected an integer from 2 to 3600, got 1"},
    {BASE ",\"podInterfacePrefix\":\"toolong\"}", "podInterfacePrefix: 1-4 characters"},
    /* a known key but for letter case: meant, so an error, not a warning */
    {BASE ",\"asnumber\":1}", "'asnumber': unknown key (did you mean 'asNumber'?)"},
    {BASE ",\"etcd\":{\"endpoints\":[\"http://h:1\"],\"CAFile\":\"/ca\"}}",
     "etcd.'CAFile': unknown key (did you mean 'caFile'?)"},
    {BASE ",\"peers\":[{\"address\":\"10.0.0.2\",\"ASNumber\":1}]}",
     "peers[].'ASNumber': unknown key (did you mean 'asNumber'?)"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];
		struct cni_error err = {0};
		struct pwn_conf c;
		int r = pwn_conf_parse(b->json, strlen(b->json), "node.json", NULL, &c, &err);

		if (r >= 0 || !err.msg || !strstr(err.msg, b->substr) ||
		    !strstr(err.msg, "node.json")) {
			print_error("case %zu: %s: r=%d msg=%s\n", i, b->json, r,
				    err.msg ? err.msg : "(none)");
			fail();
		}
		assert_null(c.root);
		cni_error_done(&err);
	}
}

static void parse_ok(const char *json, struct pwn_conf *c, char **warnings)
{
	struct cni_error err = {0};
	size_t len = 0;
	FILE *w = open_memstream(warnings, &len);
	int r = pwn_conf_parse(json, strlen(json), "t", w, c, &err);

	fclose(w);
	if (r < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(r, 0);
}

static void test_defaults(void **state)
{
	char *warn = NULL, buf[64];
	struct pwn_conf c;

	(void)state;
	parse_ok(BASE "}", &c, &warn);
	assert_string_equal(warn, "");
	assert_string_equal(c.node_name, "n1");
	assert_int_equal(c.as, 64512);
	assert_int_equal(c.n_addresses, 1);
	assert_string_equal(ip_prefix_fmt(&c.addresses[0], buf), "10.0.0.1/32");
	assert_int_equal(c.n_peers, 0);
	assert_false(c.is_reflector);
	assert_int_equal(c.export_mode, PWN_EXPORT_PODS);
	assert_int_equal(c.proto_pod, 80);
	assert_int_equal(c.proto_block, 81);
	assert_int_equal(c.proto_borrowed, 82);
	assert_string_equal(c.bird_socket, "/run/bird/bird.ctl");
	assert_string_equal(c.bird_config, "/etc/bird/bird.conf");
	assert_string_equal(c.pod_if_prefix, "pwr");
	assert_null(c.etcd);
	assert_string_equal(c.etcd_prefix, "/podwire");
	assert_int_equal(c.lease_ttl, 10);
	pwn_conf_done(&c);
	free(warn);
}

static void test_full(void **state)
{
	char *warn = NULL, buf[64];
	struct pwn_conf c;

	(void)state;
	parse_ok(BASE ",\"addresses\":[\"10.0.0.1/24\",\"fd00::1\"],\"peers\":[{\"address\":"
		      "\"10.0.0.2\"},{\"address\":\"fd00::2\",\"asNumber\":65000,\"pasive\":1}],"
		      "\"routeReflector\":{\"clients\":[\"10.0.0.2\"]},\"exportMode\":\"blocks\","
		      "\"etcd\":{\"endpoints\":[\"http://127.0.0.1:1\"]},\"etcdPrefix\":\"/x\","
		      "\"leaseTtl\":5,\"birdSocket\":\"/s\",\"routeProtocols\":{\"pod\":90,"
		      "\"block\":91,\"borrowed\":92},\"asNumbr\":1}",
		 &c, &warn);
	assert_non_null(
	    strstr(warn, "unknown key 'peers[].pasive' ignored (did you mean 'asNumber'?)") ||
	    strstr(warn, "unknown key 'peers[].pasive' ignored"));
	assert_non_null(strstr(warn, "'asNumbr' ignored (did you mean 'asNumber'?)"));
	assert_int_equal(c.n_addresses, 2);
	assert_string_equal(ip_prefix_fmt(&c.addresses[1], buf), "fd00::1/128");
	assert_int_equal(c.n_peers, 2);
	assert_true(c.peers[0].rr_client);
	assert_int_equal(c.peers[0].as, 64512);
	assert_false(c.peers[1].rr_client);
	assert_int_equal(c.peers[1].as, 65000);
	assert_true(c.is_reflector);
	assert_int_equal(c.rr_cluster_id.s_addr, c.router_id.s_addr);
	assert_int_equal(c.export_mode, PWN_EXPORT_BLOCKS);
	assert_non_null(c.etcd);
	assert_string_equal(c.etcd_prefix, "/x");
	assert_int_equal(c.lease_ttl, 5);
	assert_int_equal(c.proto_block, 91);
	pwn_conf_done(&c);
	free(warn);
}

static void test_load_missing(void **state)
{
	struct cni_error err = {0};
	struct pwn_conf c;

	(void)state;
	assert_int_equal(pwn_conf_load("/nonexistent/node.json", NULL, &c, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "--node-config /nonexistent/node.json: cannot open"));
	cni_error_done(&err);
}

/* conf/podwire-node-*.json: the documented examples parse without a warning. */
static void test_examples(void **state)
{
	const char *names[] = {"podwire-node-mesh.json", "podwire-node-reflector.json",
			       "podwire-node-client.json"};
	const char *src = getenv("PODWIRE_SRC");

	(void)state;
	assert_non_null(src);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct cni_error err = {0};
		char path[4096], *warn = NULL;
		size_t len = 0;
		FILE *w = open_memstream(&warn, &len);
		struct pwn_conf c;
		int r;

		snprintf(path, sizeof(path), "%s/conf/%s", src, names[i]);
		r = pwn_conf_load(path, w, &c, &err);
		fclose(w);
		if (r < 0 || *warn)
			print_error("%s: %s%s\n", path, err.msg ? err.msg : "", warn);
		assert_int_equal(r, 0);
		assert_string_equal(warn, "");
		pwn_conf_done(&c);
		free(warn);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad),	     cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_full),     cmocka_unit_test(test_load_missing),
	    cmocka_unit_test(test_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
