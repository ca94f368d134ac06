/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam config: defaults, every key, and code-7 errors naming the
 * key and value; DEL/GC leniency for the keys that do not decide what is
 * touched.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cni/log.h"
#include "cni/plugin.h"
#include "ipam/cluster-ipam.h"

#define BASE                                                                                       \
	"\"cniVersion\":\"1.1.0\",\"name\":\"net\",\"ipam\":{\"type\":\"cluster-ipam\",\"etcd\":{" \
	"\"endpoints\":[\"unix:///run/etcd.sock\"]}"

struct parsed {
	struct cni_ctx ctx;
	struct cipam_conf c;
	int r;
};

static void parse(struct parsed *p, enum cni_command cmd, const char *json)
{
	json_t *root = json_loads(json, 0, NULL);

	assert_non_null(root);
	memset(p, 0, sizeof(*p));
	p->ctx.command = cmd;
	p->ctx.command_str = cni_command_str(cmd);
	p->ctx.container_id = "c";
	p->ctx.ifname = "eth0";
	assert_int_equal(
	    cni_conf_parse_ex(root, !cni_ctx_strict(&p->ctx), &p->ctx.conf, &p->ctx.err), 0);
	json_decref(root);
	p->r = cipam_conf_parse(&p->ctx, &p->c);
}

static void done(struct parsed *p)
{
	cipam_conf_done(&p->c);
	cni_conf_done(&p->ctx.conf);
	cni_error_done(&p->ctx.err);
}

static void expect_error(enum cni_command cmd, const char *json, const char *msg)
{
	struct parsed p;

	parse(&p, cmd, json);
	assert_int_equal(p.r, -EINVAL);
	assert_int_equal(p.ctx.err.code, 7);
	if (!strstr(p.ctx.err.msg, msg))
		fail_msg("'%s' lacks '%s'", p.ctx.err.msg, msg);
	done(&p);
}

static void test_defaults(void **state)
{
	struct parsed p;
	char buf[IP_PREFIX_STRLEN];
	(void)state;

	parse(&p, CNI_CMD_ADD,
	      "{" BASE ",\"nodeName\":\"n1\",\"pools\":[{\"cidr\":\"10.244.0.0/16\"},"
	      "{\"cidr\":\"fd00:10:244::/56\"}]}}");
	assert_int_equal(p.r, 0);
	assert_string_equal(p.c.node, "n1");
	assert_string_equal(p.c.prefix, "/podwire");
	assert_string_equal(p.c.data_dir, "/var/lib/cni/cluster-ipam");
	assert_int_equal(p.c.etcd.timeout_ms, 2000);
	assert_int_equal(p.c.n_pools, 2);
	assert_int_equal(p.c.pools[0].block_size, 26);
	assert_int_equal(p.c.pools[1].block_size, 122);
	assert_string_equal(ip_prefix_fmt(&p.c.pools[1].cidr, buf), "fd00:10:244::/56");
	assert_int_equal(p.c.max_blocks, 20);
	assert_int_equal(p.c.grace_s, 300);
	assert_int_equal(p.c.route_protocol, 81);
	assert_false(p.c.strict_affinity);
	assert_int_equal(p.c.n_requested, 0);
	done(&p);
}

static void test_all_keys(void **state)
{
	struct parsed p;
	(void)state;

	parse(&p, CNI_CMD_ADD,
	      "{\"cniVersion\":\"1.1.0\",\"name\":\"net\",\"args\":{\"cni\":{\"ips\":[\"10.1.0.9\"]"
	      "}},"
	      "\"ipam\":{\"type\":\"cluster-ipam\",\"nodeName\":\"n2\",\"etcdPrefix\":\"/x/y/\","
	      "\"dataDir\":\"/tmp/d\",\"etcd\":{\"endpoints\":[\"https://10.0.0.1:2379\","
	      "\"http://h:2379\"],\"caFile\":\"/ca\",\"certFile\":\"/c\",\"keyFile\":\"/k\","
	      "\"timeoutMs\":500},\"pools\":[{\"cidr\":\"10.1.0.0/16\",\"blockSize\":28}],"
	      "\"maxBlocksPerNode\":3,\"strictAffinity\":true,\"blockReleaseGraceSeconds\":0,"
	      "\"blockRouteProtocol\":99,\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}");
	assert_int_equal(p.r, 0);
	assert_string_equal(p.c.prefix, "/x/y");
	assert_string_equal(p.c.data_dir, "/tmp/d");
	assert_int_equal(p.c.etcd.n_endpoints, 2);
	assert_string_equal(p.c.etcd.ca_file, "/ca");
	assert_string_equal(p.c.etcd.key_file, "/k");
	assert_int_equal(p.c.etcd.timeout_ms, 500);
	assert_int_equal(p.c.pools[0].block_size, 28);
	assert_int_equal(p.c.max_blocks, 3);
	assert_true(p.c.strict_affinity);
	assert_int_equal(p.c.grace_s, 0);
	assert_int_equal(p.c.route_protocol, 99);
	assert_int_equal(p.c.n_requested, 1);
	assert_non_null(p.c.routes);
	assert_int_equal(p.c.routes->n_routes, 1);
	done(&p);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error(CNI_CMD_ADD, "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"ipam\":{}}",
		     "ipam.etcd: expected an object with endpoints");
	expect_error(CNI_CMD_ADD, "{" BASE ",\"pools\":[{\"cidr\":\"10.0.0.1/16\"}]}}",
		     "ipam.pools[0].cidr: has host bits set: '10.0.0.1/16'");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"pools\":[{\"cidr\":\"10.0.0.0/16\",\"blockSize\":19}]}}",
		     "ipam.pools[0].blockSize: expected a prefix length in 20..32");
	expect_error(CNI_CMD_ADD, "{" BASE ",\"pools\":[{\"cidr\":\"10.0.0.0/28\"}]}}",
		     "ipam.pools[0].blockSize: the default /26 does not fit the pool");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"pools\":[{\"cidr\":\"fd00::/64\",\"blockSize\":115}]}}",
		     "116..128");
	expect_error(CNI_CMD_ADD, "{" BASE ",\"pools\":[]}}",
		     "ipam.pools: expected a list of 1 to 16");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"pools\":[{\"cidr\":\"10.0.0.0/8\"},{\"cidr\":\"10.9.0.0/16\"}]}}",
		     "ipam.pools[1]: 10.9.0.0/16 overlaps ipam.pools[0] 10.0.0.0/8");
	expect_error(CNI_CMD_ADD,
		     "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"ipam\":{\"etcd\":{\"endpoints\":"
		     "[\"unix://rel\"]},\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "ipam.etcd.endpoints[0]: expected http://HOST:PORT");
	expect_error(CNI_CMD_ADD,
		     "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"ipam\":{\"etcd\":{\"endpoints\":"
		     "[\"http://h:1\"],\"timeoutMs\":5},\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "ipam.etcd.timeoutMs: expected an integer from 10 to 600000, got 5");
	expect_error(
	    CNI_CMD_ADD,
	    "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"ipam\":{\"etcd\":{\"endpoints\":"
	    "[\"http://h:1\"],\"keyFile\":\"/k\"},\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
	    "certFile and keyFile go together");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"nodeName\":\"a b\",\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "ipam.nodeName: not a node name");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"etcdPrefix\":\"rel\",\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "ipam.etcdPrefix");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"dataDir\":\"rel\",\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "ipam.dataDir: not an absolute path: 'rel'");
	expect_error(CNI_CMD_ADD,
		     "{" BASE ",\"blockRouteProtocol\":12,\"pools\":[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "ipam.blockRouteProtocol");
	expect_error(
	    CNI_CMD_ADD,
	    "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"runtimeConfig\":{\"ips\":[\"10.0.0.1\","
	    "\"10.0.0.2\"]},\"ipam\":{\"etcd\":{\"endpoints\":[\"http://h:1\"]},\"pools\":"
	    "[{\"cidr\":\"10.0.0.0/16\"}]}}",
	    "runtimeConfig.ips[1]: a second IPv4 address requested");
	expect_error(CNI_CMD_ADD,
		     "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"runtimeConfig\":{\"ips\":[\"x\"]},"
		     "\"ipam\":{\"etcd\":{\"endpoints\":[\"http://h:1\"]},\"pools\":"
		     "[{\"cidr\":\"10.0.0.0/16\"}]}}",
		     "runtimeConfig.ips[0]: not an IP address: 'x'");
	/* etcd decides what DEL touches: an error there too */
	expect_error(CNI_CMD_DEL,
		     "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"ipam\":{\"etcd\":{}}}",
		     "ipam.etcd.endpoints");
}

static void test_del_lenient(void **state)
{
	struct parsed p;
	(void)state;

	/* bad pools or numbers do not block DEL */
	parse(&p, CNI_CMD_DEL, "{" BASE ",\"pools\":\"x\",\"maxBlocksPerNode\":\"y\"}}");
	assert_int_equal(p.r, 0);
	assert_int_equal(p.c.n_pools, 0);
	done(&p);
	parse(&p, CNI_CMD_GC, "{" BASE "}}");
	assert_int_equal(p.r, 0);
	done(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_all_keys),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_del_lenient),
	};
	cni_log_set_level(CNI_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
