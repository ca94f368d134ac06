/* SPDX-License-Identifier: Apache-2.0 */
/*
 * portmap: config parsing (good, bad, lenient), pod address choice, the
 * expansion over families, element keys, and the nftables batch built on a
 * recorder (message types, EXCL on first try, element count).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include "cni/conf.h"
#include "cni/plugin.h"
#include "portmap.h"
#include "pwnft/portmap.h"

static int parse(const char *json, enum cni_command cmd, struct cni_ctx *ctx,
		 struct portmap_conf *c)
{
	json_error_t jerr;
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);

	memset(ctx, 0, sizeof(*ctx));
	ctx->command = cmd;
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	assert_non_null(root);
	assert_int_equal(cni_conf_parse(root, &ctx->conf, &ctx->err), 0);
	json_decref(root);
	memset(c, 0, sizeof(*c));
	return portmap_conf_parse(ctx, c);
}

static void done(struct cni_ctx *ctx, struct portmap_conf *c)
{
	portmap_conf_done(c);
	cni_conf_done(&ctx->conf);
	cni_error_done(&ctx->err);
}

#define BASE "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"portmap\""
#define PM(x) BASE ",\"runtimeConfig\":{\"portMappings\":" x "}}"

struct bad_case {
	const char *json;
	const char *substr;
};

static const struct bad_case bad_cases[] = {
    {PM("[{\"hostPort\":0,\"containerPort\":80}]"),
     "runtimeConfig.portMappings[0].hostPort: must be a port number 1-65535, got 0"},
    {PM("[{\"hostPort\":65536,\"containerPort\":80}]"),
     "hostPort: must be a port number 1-65535, got 65536"},
    {PM("[{\"hostPort\":80}]"), "containerPort: must be a port number 1-65535, got (absent)"},
    {PM("[{\"hostPort\":80.5,\"containerPort\":80}]"), "hostPort: must be a port number"},
    {PM("[{\"hostPort\":\"80\",\"containerPort\":80}]"), "hostPort: must be a port number"},
    {PM("[{\"hostPort\":80,\"containerPort\":80,\"protocol\":\"icmp\"}]"),
     "portMappings[0].protocol: must be \"tcp\", \"udp\" or \"sctp\", got \"icmp\""},
    {PM("[{\"hostPort\":80,\"containerPort\":80,\"hostIP\":\"300.1.1.1\"}]"), "hostIP: must be"},
    {PM("[{\"hostPort\":80,\"containerPort\":80},{\"hostPort\":80,\"containerPort\":90}]"),
     "portMappings[1]: tcp host port 80 overlaps runtimeConfig.portMappings[0]"},
    {PM("[{\"hostPort\":80,\"containerPort\":80,\"hostIP\":\"10.0.0.1\"},"
	"{\"hostPort\":80,\"containerPort\":90,\"hostIP\":\"0.0.0.0\"}]"),
     "overlaps"},
    {PM("[5]"), "portMappings[0].: must be an object"},
    {PM("{}"), "runtimeConfig.portMappings: expected a list of at most 16 entries, got {}"},
    {BASE ",\"markMasqBit\":32}", "markMasqBit"},
    {BASE ",\"markMasqBit\":1,\"externalSetMarkChain\":\"X\"}", "mutually exclusive"},
    {BASE ",\"backend\":\"bpf\"}", "backend: must be \"iptables\" or \"nftables\", got 'bpf'"},
    {BASE ",\"conditionsV4\":[\"-s\",\"1.2.3.4\"]}",
     "conditionsV4: match conditions are not supported"},
    {BASE ",\"conditionsV6\":[5]}", "conditionsV6[0]: must be a string"},
    {BASE ",\"snat\":\"yes\"}", "snat"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct cni_ctx ctx;
		struct portmap_conf c;
		int r = parse(bad_cases[i].json, CNI_CMD_ADD, &ctx, &c);

		if (r >= 0 || !ctx.err.msg || !strstr(ctx.err.msg, bad_cases[i].substr))
			fail_msg("case %zu: r=%d msg=%s", i, r,
				 ctx.err.msg ? ctx.err.msg : "(none)");
		assert_int_equal(ctx.err.code, 7);
		done(&ctx, &c);
	}
}

static void test_lenient_del_skips_bad_entries(void **state)
{
	struct cni_ctx ctx;
	struct portmap_conf c;

	(void)state;
	assert_int_equal(parse(PM("[{\"hostPort\":0,\"containerPort\":80},"
				  "{\"hostPort\":81,\"containerPort\":80}]"),
			       CNI_CMD_DEL, &ctx, &c),
			 0);
	assert_int_equal(c.n_maps, 1);
	assert_int_equal(c.maps[0].host_port, 81);
	assert_int_equal(c.maps[0].index, 1);
	done(&ctx, &c);
}

static void test_good_and_containerd_casing(void **state)
{
	struct cni_ctx ctx;
	struct portmap_conf c;

	(void)state;
	assert_int_equal(
	    parse(BASE
		  ",\"snat\":false,\"masqAll\":true,\"backend\":\"iptables\","
		  "\"externalSetMarkChain\":\"KUBE-MARK-MASQ\",\"conditionsV4\":[],"
		  "\"runtimeConfig\":{\"portMappings\":["
		  "{\"HostPort\":8080,\"ContainerPort\":80,\"Protocol\":\"TCP\",\"HostIP\":\"\"},"
		  "{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"udp\","
		  "\"hostIP\":\"fd00::1\"},"
		  "{\"hostPort\":9,\"containerPort\":9,\"protocol\":\"sctp\",\"hostIP\":\"0.0.0."
		  "0\"}]}}",
		  CNI_CMD_ADD, &ctx, &c),
	    0);
	assert_false(c.snat);
	assert_true(c.masq_all);
	assert_true(c.has_external_set_mark_chain);
	assert_int_equal(c.mark_masq_bit, 13);
	assert_int_equal(c.n_maps, 3);
	assert_int_equal(c.maps[0].proto, IPPROTO_TCP);
	assert_int_equal(c.maps[0].host_family, 0);
	assert_int_equal(c.maps[1].proto, IPPROTO_UDP);
	assert_int_equal(c.maps[1].host_family, AF_INET6);
	assert_true(c.maps[1].has_host_ip);
	assert_int_equal(c.maps[2].proto, IPPROTO_SCTP);
	assert_int_equal(c.maps[2].host_family, AF_INET);
	assert_false(c.maps[2].has_host_ip);
	done(&ctx, &c);
}

static struct cni_result *result(void)
{
	struct cni_result *r = cni_result_new(CNI_VERSION_CURRENT);
	struct cni_ip ip = {.interface = 0};

	assert_int_equal(cni_result_add_iface(r, "cni0", NULL, NULL), 0);
	assert_int_equal(cni_result_add_iface(r, "eth0", NULL, "/var/run/netns/x"), 1);
	assert_int_equal(ip_prefix_parse("10.0.0.1/24", &ip.address), 0);
	assert_true(cni_result_add_ip(r, &ip) >= 0); /* host side: skipped */
	ip.interface = 1;
	assert_int_equal(ip_prefix_parse("10.0.0.5/24", &ip.address), 0);
	assert_true(cni_result_add_ip(r, &ip) >= 0);
	assert_int_equal(ip_prefix_parse("10.0.0.6/24", &ip.address), 0);
	assert_true(cni_result_add_ip(r, &ip) >= 0); /* second v4: ignored */
	ip.interface = -1;
	assert_int_equal(ip_prefix_parse("fd00::5/64", &ip.address), 0);
	assert_true(cni_result_add_ip(r, &ip) >= 0);
	return r;
}

static void test_pod_addrs_and_plan(void **state)
{
	struct cni_result *r = result();
	struct portmap_addrs a;
	struct pw_nft_hostport out[6];
	size_t src[6];
	struct cni_ctx ctx;
	struct portmap_conf c;
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	portmap_pod_addrs(r, "eth0", &a);
	assert_true(a.has_v4 && a.has_v6);
	assert_string_equal(ip_addr_fmt(AF_INET, &a.v4, buf), "10.0.0.5");
	assert_string_equal(ip_addr_fmt(AF_INET6, &a.v6, buf), "fd00::5");
	portmap_pod_addrs(r, "net1", &a);
	assert_false(a.has_v4);
	assert_true(a.has_v6); /* no interface index: taken, as the reference */
	portmap_pod_addrs(r, "eth0", &a);
	assert_int_equal(parse(PM("[{\"hostPort\":80,\"containerPort\":8080},"
				  "{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"udp\","
				  "\"hostIP\":\"192.0.2.1\"},"
				  "{\"hostPort\":54,\"containerPort\":53,\"hostIP\":\"::\"}]"),
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_int_equal(portmap_plan(&c, &a, out, src), 4);
	assert_int_equal(out[0].family, AF_INET);
	assert_int_equal(out[0].host_port, 80);
	assert_int_equal(out[1].host_port, 53);
	assert_true(out[1].has_host_ip);
	assert_int_equal(src[1], 1);
	assert_int_equal(out[2].family, AF_INET6);
	assert_int_equal(out[2].host_port, 80);
	assert_int_equal(out[3].host_port, 54);
	assert_false(out[3].has_host_ip);
	assert_int_equal(src[3], 2);
	done(&ctx, &c);
	cni_result_free(r);
}

static void test_keys(void **state)
{
	struct pw_nft_hostport p = {.family = AF_INET,
				    .proto = IPPROTO_TCP,
				    .host_port = 8080,
				    .container_port = 80,
				    .has_host_ip = true};
	uint8_t key[PW_NFT_PORTMAP_KEY_MAX], data[20];
	static const uint8_t hp[] = {6, 0, 0, 0, 0x1f, 0x90, 0, 0};
	static const uint8_t hip[] = {192, 0, 2, 1, 6, 0, 0, 0, 0x1f, 0x90, 0, 0};
	static const uint8_t hair[] = {10, 0, 0, 5, 10, 0, 0, 5, 6, 0, 0, 0, 0, 80, 0, 0};
	static const uint8_t d[] = {10, 0, 0, 5, 0, 80, 0, 0};

	(void)state;
	assert_int_equal(ip_addr_parse("10.0.0.5", &p.family, &p.pod_ip), 0);
	assert_int_equal(ip_addr_parse("192.0.2.1", &p.family, &p.host_ip), 0);
	assert_int_equal(pw_nft_portmap_key(PW_PM_HOSTPORTS, &p, key), sizeof(hp));
	assert_memory_equal(key, hp, sizeof(hp));
	assert_int_equal(pw_nft_portmap_key(PW_PM_HOSTIP, &p, key), sizeof(hip));
	assert_memory_equal(key, hip, sizeof(hip));
	assert_int_equal(pw_nft_portmap_key(PW_PM_HAIRPIN, &p, key), sizeof(hair));
	assert_memory_equal(key, hair, sizeof(hair));
	assert_int_equal(pw_nft_portmap_key(PW_PM_MASQALL, &p, key), 12);
	assert_int_equal(pw_nft_portmap_data(&p, data), sizeof(d));
	assert_memory_equal(data, d, sizeof(d));
	p.family = AF_INET6;
	assert_int_equal(pw_nft_portmap_key(PW_PM_HAIRPIN, &p, key), 40);
	assert_int_equal(pw_nft_portmap_key(PW_PM_LOCALHOST, &p, key), 0);
	assert_null(pw_nft_portmap_set_name(PW_PM_LOCALHOST, AF_INET6));
	assert_string_equal(pw_nft_portmap_set_name(PW_PM_HOSTIP, AF_INET6), "hostip-hostports-v6");
	p.has_host_ip = false;
	assert_int_equal(pw_nft_portmap_key(PW_PM_HOSTIP, &p, key), 0);
}

static void test_tag(void **state)
{
	char buf[PW_NFT_PORTMAP_TAG_MAX + 1];
	char longid[300];

	(void)state;
	assert_int_equal(pw_nft_portmap_tag("net", "cid", "eth0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "net/cid/eth0");
	assert_int_equal(pw_nft_portmap_tag("net", "c/d", "eth0", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(pw_nft_portmap_tag("", "cid", "eth0", buf, sizeof(buf)), -EINVAL);
	memset(longid, 'a', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(pw_nft_portmap_tag("net", longid, "eth0", buf, sizeof(buf)),
			 -ENAMETOOLONG);
}

struct batch_count {
	unsigned newsetelem, excl, newrule, newset, destroy;
};

static void count_batch(const void *buf, size_t len, struct batch_count *bc)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;

	memset(bc, 0, sizeof(*bc));
	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		uint16_t type = nlh->nlmsg_type & 0xff;

		if ((nlh->nlmsg_type >> 8) != NFNL_SUBSYS_NFTABLES)
			continue;
		bc->newsetelem += type == NFT_MSG_NEWSETELEM;
		bc->excl += type == NFT_MSG_NEWSETELEM && (nlh->nlmsg_flags & NLM_F_EXCL);
		bc->newrule += type == NFT_MSG_NEWRULE;
		bc->newset += type == NFT_MSG_NEWSET;
		bc->destroy += type == 30;
	}
}

static void test_batch_on_recorder(void **state)
{
	struct pw_nft_hostport p[2] = {
	    {.family = AF_INET, .proto = IPPROTO_TCP, .host_port = 8080, .container_port = 80},
	    {.family = AF_INET, .proto = IPPROTO_UDP, .host_port = 53, .container_port = 53},
	};
	struct pw_nft_portmap pm = {.network = "n",
				    .container_id = "c",
				    .ifname = "eth0",
				    .ports = p,
				    .n_ports = 2,
				    .snat = true};
	struct pw_nft *nft = NULL;
	struct batch_count bc;
	const void *buf;
	size_t len = 0;

	(void)state;
	assert_int_equal(ip_addr_parse("10.0.0.5", &p[0].family, &p[0].pod_ip), 0);
	p[1].pod_ip = p[0].pod_ip;
	assert_int_equal(pw_nft_new_recorder(&nft), 0);
	assert_int_equal(pw_nft_portmap_add(nft, &pm, NULL, NULL), 0);
	buf = pw_nft_recorded(nft, &len);
	assert_non_null(buf);
	count_batch(buf, len, &bc);
	assert_int_equal(bc.newset, 9);
	assert_int_equal(bc.newrule, 11);
	/* one message per set: hostports-v4, hairpin-v4, localhost-v4 */
	assert_int_equal(bc.newsetelem, 3);
	assert_int_equal(bc.excl, 3);
	assert_int_equal(bc.destroy, 0);
	/* checks and deletions need the kernel */
	assert_int_equal(pw_nft_portmap_check(nft, &pm, NULL), -ENOTCONN);
	assert_int_equal(pw_nft_portmap_del(nft, &pm), -ENOTCONN);
	p[0].host_port = 0;
	assert_int_equal(pw_nft_portmap_add(nft, &pm, NULL, NULL), -EINVAL);
	pw_nft_free(nft);
}

/* The largest attachment the plugin accepts fits one batch. */
static void test_max_mappings_fit(void **state)
{
	struct pw_nft_hostport p[2 * PORTMAP_MAX_MAPPINGS];
	struct pw_nft_portmap pm = {.network = "a-network-with-a-long-name",
				    .ifname = "eth0",
				    .container_id =
					"0123456789abcdef0123456789abcdef0123456789abcdef"
					"0123456789abcdef",
				    .ports = p,
				    .n_ports = 2 * PORTMAP_MAX_MAPPINGS,
				    .snat = true,
				    .masq_all = true};
	struct pw_nft *nft = NULL;

	(void)state;
	for (size_t i = 0; i < 2 * PORTMAP_MAX_MAPPINGS; i++) {
		bool v4 = i < PORTMAP_MAX_MAPPINGS;

		memset(&p[i], 0, sizeof(p[i]));
		assert_int_equal(
		    ip_addr_parse(v4 ? "10.0.0.5" : "fd00::5", &p[i].family, &p[i].pod_ip), 0);
		p[i].proto = IPPROTO_TCP;
		p[i].host_port = (uint16_t)(1000 + i);
		p[i].container_port = (uint16_t)(2000 + i);
		p[i].has_host_ip = true;
		p[i].host_ip = p[i].pod_ip;
	}
	assert_int_equal(pw_nft_new_recorder(&nft), 0);
	assert_int_equal(pw_nft_portmap_add(nft, &pm, NULL, NULL), 0);
	pw_nft_free(nft);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_lenient_del_skips_bad_entries),
	    cmocka_unit_test(test_good_and_containerd_casing),
	    cmocka_unit_test(test_pod_addrs_and_plan),
	    cmocka_unit_test(test_keys),
	    cmocka_unit_test(test_tag),
	    cmocka_unit_test(test_batch_on_recorder),
	    cmocka_unit_test(test_max_mappings_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
