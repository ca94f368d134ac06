/* SPDX-License-Identifier: Apache-2.0 */
/*
 * macvlan: the config parser and its decisions, and ADD/DEL end to end
 * against the fake netlink transport (podnet's seam): which requests go to
 * which netns, with which attributes.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "cni/args.h"
#include "cni/conf.h"
#include "cni/plugin.h"
#include "fake-nl.h"
#include "macvlan.h"
#include "nlw/link.h"
#include "nlw/parse.h"
#include "podnet/podnet.h"

static int parse(const char *json, const char *args, enum cni_command cmd, struct cni_ctx *ctx,
		 struct macvlan_conf *c)
{
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, NULL);

	memset(ctx, 0, sizeof(*ctx));
	ctx->command = cmd;
	ctx->ifname = "net1";
	ctx->sysfs_fd = ctx->procfs_fd = -1;
	assert_non_null(root);
	assert_int_equal(cni_conf_parse(root, &ctx->conf, &ctx->err), 0);
	json_decref(root);
	assert_int_equal(cni_args_parse(args, &ctx->args, &ctx->err), 0);
	memset(c, 0, sizeof(*c));
	return macvlan_conf_parse(ctx, c);
}

static void done(struct cni_ctx *ctx)
{
	cni_conf_done(&ctx->conf);
	cni_args_done(&ctx->args);
	cni_error_done(&ctx->err);
}

#define BASE "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"macvlan\""

static void test_defaults_and_keys(void **state)
{
	struct cni_ctx ctx;
	struct macvlan_conf c;

	(void)state;
	assert_int_equal(parse(BASE "}", NULL, CNI_CMD_ADD, &ctx, &c), 0);
	assert_null(c.master);
	assert_int_equal(c.mode, NLW_MACVLAN_BRIDGE);
	assert_string_equal(c.mode_str, "bridge");
	assert_int_equal(c.mtu, 0);
	assert_false(c.has_mac || c.link_in_container || c.l3);
	done(&ctx);
	assert_int_equal(parse(BASE ",\"master\":\"eth1\",\"mode\":\"passthru\",\"mtu\":1400,"
				    "\"linkInContainer\":true,\"ipam\":{\"type\":\"static\"}}",
			       NULL, CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_string_equal(c.master, "eth1");
	assert_int_equal(c.mode, NLW_MACVLAN_PASSTHRU);
	assert_int_equal(c.mtu, 1400);
	assert_true(c.link_in_container && c.l3);
	done(&ctx);
	/* "ipam": {} is L2 */
	assert_int_equal(parse(BASE ",\"ipam\":{}}", NULL, CNI_CMD_ADD, &ctx, &c), 0);
	assert_false(c.l3);
	done(&ctx);
}

static void test_modes(void **state)
{
	static const char *const names[] = {"bridge", "private", "vepa", "passthru"};
	enum nlw_macvlan_mode m;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(macvlan_mode_parse(names[i], &m), 0);
		assert_string_equal(macvlan_mode_str(m), names[i]);
	}
	assert_int_equal(macvlan_mode_parse("", &m), 0);
	assert_int_equal(m, NLW_MACVLAN_BRIDGE);
	assert_int_equal(macvlan_mode_parse("source", &m), -EINVAL);
	assert_int_equal(macvlan_mode_parse("Bridge", &m), -EINVAL);
}

static void test_mac_precedence(void **state)
{
	struct cni_ctx ctx;
	struct macvlan_conf c;

	(void)state;
	assert_int_equal(parse(BASE ",\"mac\":\"02:00:00:00:00:01\"}", "MAC=02:00:00:00:00:02",
			       CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_string_equal(c.mac_src, "CNI_ARGS MAC");
	assert_int_equal(c.mac[5], 2);
	done(&ctx);
	assert_int_equal(parse(BASE ",\"mac\":\"bad\",\"runtimeConfig\":{\"Mac\":"
				    "\"02:00:00:00:00:03\"}}",
			       "MAC=02:00:00:00:00:02", CNI_CMD_ADD, &ctx, &c),
			 0);
	assert_string_equal(c.mac_src, "runtimeConfig.mac");
	assert_int_equal(c.mac[5], 3);
	done(&ctx);
}

static void test_mtu_rule(void **state)
{
	struct cni_ctx ctx = {0};
	struct macvlan_conf c = {.master = "m0", .mtu = 1500};

	(void)state;
	assert_int_equal(macvlan_check_mtu(&ctx, &c, 1500), 0);
	c.mtu = 1501;
	assert_int_equal(macvlan_check_mtu(&ctx, &c, 1500), -EINVAL);
	assert_int_equal(ctx.err.code, 7);
	assert_non_null(strstr(ctx.err.msg, "invalid MTU 1501, must be [0, master MTU(1500)]"));
	cni_error_done(&ctx.err);
}

static const struct {
	const char *json, *args, *substr;
} bad[] = {
    {BASE ",\"mode\":\"l2\"}", NULL, "mode: unknown macvlan mode 'l2'"},
    {BASE ",\"mode\":5}", NULL, "mode"},
    {BASE ",\"master\":\"a b\"}", NULL, "master: 'a b' is not a valid interface name"},
    {BASE ",\"master\":\"0123456789abcdef\"}", NULL, "is not a valid interface name"},
    {BASE ",\"mtu\":-1}", NULL, "mtu"},
    {BASE ",\"mac\":\"02:00:00:00:00\"}", NULL, "mac: invalid MAC address '02:00:00:00:00'"},
    {BASE "}", "MAC=01:00:5e:00:00:01", "CNI_ARGS MAC: '01:00:5e:00:00:01' is not a unicast"},
    {BASE ",\"linkInContainer\":\"yes\"}", NULL, "linkInContainer"},
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cni_ctx ctx;
		struct macvlan_conf c;

		if (parse(bad[i].json, bad[i].args, CNI_CMD_ADD, &ctx, &c) >= 0)
			fail_msg("accepted %s", bad[i].json);
		assert_int_equal(ctx.err.code, 7);
		if (!strstr(ctx.err.msg, bad[i].substr))
			fail_msg("'%s' lacks '%s'", ctx.err.msg, bad[i].substr);
		done(&ctx);
		assert_int_equal(parse(bad[i].json, bad[i].args, CNI_CMD_DEL, &ctx, &c), 0);
		done(&ctx);
	}
}

/* ---- ADD and DEL against fake host and pod transports ---- */

static struct fake_nl *fh, *fp;

static int fake_open_netns(const char *path, int *ret_fd)
{
	(void)path;
	*ret_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return *ret_fd < 0 ? -errno : 0;
}

static int fake_open_host(struct nlw_sock **ret)
{
	return fake_nl_sock(fh, NETLINK_ROUTE, ret);
}

static int fake_open_pod(int netns_fd, struct nlw_sock **ret)
{
	(void)netns_fd;
	return fake_nl_sock(fp, NETLINK_ROUTE, ret);
}

static const struct podnet_ops fake_ops = {
    .open_netns = fake_open_netns,
    .open_host = fake_open_host,
    .open_pod = fake_open_pod,
};

static int fx_setup(void **state)
{
	(void)state;
	fh = fake_nl_new();
	fp = fake_nl_new();
	podnet_set_ops(&fake_ops);
	return 0;
}

static int fx_teardown(void **state)
{
	(void)state;
	podnet_set_ops(NULL);
	fake_nl_free(fh);
	fake_nl_free(fp);
	return 0;
}

/* One RTM_NEWLINK answer (then its ACK) describing a link. */
static void reply_link(struct fake_nl *f, int ifindex, const char *name, unsigned mtu)
{
	static const unsigned char mac[6] = {0x02, 0xaa, 0, 0, 0, 0x01};
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_index = ifindex;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, mac);
	fake_nl_msg_end(f);
	fake_nl_flush(f);
	fake_nl_reply_ack(f);
}

static int run(enum cni_command cmd, const char *conf, char **out)
{
	static char add[] = "CNI_COMMAND=ADD", del[] = "CNI_COMMAND=DEL",
		    cid[] = "CNI_CONTAINERID=c1", netns[] = "CNI_NETNS=/proc/self/ns/net",
		    ovr[] = "CNI_NETNS_OVERRIDE=1", ifname[] = "CNI_IFNAME=net1",
		    path[] = "CNI_PATH=/nonexistent";
	char *const env[] = {cmd == CNI_CMD_ADD ? add : del, cid, netns, ovr, ifname, path, NULL};
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	int rc;

	assert_non_null(f);
	rc = podnet_plugin_run(&macvlan_ops, env, conf, strlen(conf), f);
	fclose(f);
	return rc;
}

static void test_add_l2(void **state)
{
	const char *conf = BASE ",\"master\":\"m0\",\"mode\":\"vepa\",\"mtu\":1400,"
				"\"bcqueuelen\":64}";
	struct nlw_link req;
	const struct nlmsghdr *nlh;
	char *out = NULL;

	(void)state;
	reply_link(fh, 5, "m0", 1500);	 /* GET master */
	fake_nl_reply_ack(fh);		 /* create */
	reply_link(fp, 2, "net1", 1400); /* GET the new link in the pod */
	fake_nl_reply_ack(fp);		 /* up */
	assert_int_equal(run(CNI_CMD_ADD, conf, &out), 0);
	assert_non_null(strstr(out, "\"name\": \"net1\""));
	assert_non_null(strstr(out, "\"mac\": \"02:aa:00:00:00:01\""));
	assert_null(strstr(out, "\"ips\""));
	free(out);
	/* Host: GET m0, then one NEWLINK creating net1 on ifindex 5 in the pod netns. */
	assert_int_equal(fake_nl_nrequests(fh), 2);
	nlh = fake_nl_request(fh, 1);
	assert_int_equal(nlh->nlmsg_type, RTM_NEWLINK);
	assert_true(nlh->nlmsg_flags & NLM_F_CREATE);
	assert_true(nlh->nlmsg_flags & NLM_F_EXCL);
	assert_int_equal(nlw_link_parse(nlh, &req), 0);
	assert_string_equal(req.name, "net1");
	assert_string_equal(req.kind, "macvlan");
	assert_int_equal(req.link, 5);
	assert_int_equal(req.mtu, 1400);
	assert_int_equal(req.macvlan_mode, NLW_MACVLAN_VEPA);
	assert_int_equal(req.macvlan_bc_queue_len, 64);
	assert_non_null(fake_nl_attr(nlh, sizeof(struct ifinfomsg), IFLA_NET_NS_FD));
	/* Pod: GET net1, then set up. */
	assert_int_equal(fake_nl_nrequests(fp), 2);
	nlh = fake_nl_request(fp, 1);
	assert_int_equal(nlh->nlmsg_type, RTM_SETLINK);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(nlh))->ifi_index, 2);
	assert_int_equal(fake_nl_pending(fh) + fake_nl_pending(fp), 0);
}

static void test_add_mtu_above_master_sends_nothing(void **state)
{
	char *out = NULL;

	(void)state;
	fake_nl_clear_requests(fh);
	fake_nl_clear_requests(fp);
	reply_link(fh, 5, "m0", 1500);
	assert_int_equal(run(CNI_CMD_ADD, BASE ",\"master\":\"m0\",\"mtu\":9000}", &out), 1);
	assert_non_null(strstr(out, "\"code\": 7"));
	assert_non_null(strstr(out, "invalid MTU 9000"));
	free(out);
	assert_int_equal(fake_nl_nrequests(fh), 1); /* only the GET */
	assert_int_equal(fake_nl_nrequests(fp), 0);
}

static void test_add_exists_is_103(void **state)
{
	char *out = NULL;

	(void)state;
	fake_nl_clear_requests(fh);
	reply_link(fh, 5, "m0", 1500);
	fake_nl_reply_error(fh, -EEXIST, NULL);
	assert_int_equal(run(CNI_CMD_ADD, BASE ",\"master\":\"m0\"}", &out), 1);
	assert_non_null(strstr(out, "\"code\": 103"));
	free(out);
}

static void test_del_missing_link_is_success(void **state)
{
	char *out = NULL;

	(void)state;
	fake_nl_clear_requests(fh);
	fake_nl_clear_requests(fp);
	fake_nl_reply_error(fp, -ENODEV, NULL); /* GET net1: gone */
	assert_int_equal(run(CNI_CMD_DEL, BASE ",\"master\":\"m0\"}", &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(fake_nl_nrequests(fh), 0); /* DEL never needs the master */
	assert_int_equal(fake_nl_nrequests(fp), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_and_keys),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_mac_precedence),
	    cmocka_unit_test(test_mtu_rule),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_add_l2),
	    cmocka_unit_test(test_add_mtu_above_master_sends_nothing),
	    cmocka_unit_test(test_add_exists_is_103),
	    cmocka_unit_test(test_del_missing_link_is_success),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
