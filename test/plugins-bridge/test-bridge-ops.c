/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bridge ADD and DEL through the whole skeleton, against the fake netlink
 * transport plugged in with podnet_set_ops(): the requests each step sends,
 * the result, and what the undo list sends when a step fails (the bridge
 * this ADD created is deleted only when no port joined it).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <net/if.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include <jansson.h>

#include "bridge.h"
#include "cni/plugin.h"
#include "fake-nl.h"
#include "podnet/podnet.h"

#define BR_IDX 10
#define HV_IDX 11
#define POD_IDX 3
#define HOST_VETH "veth63f78586" /* derived from ("c1", "eth0") */
#define L2_CONF                                                                                    \
	"{\"cniVersion\":\"1.0.0\",\"name\":\"unit\",\"type\":\"bridge\","                         \
	"\"bridge\":\"pwub0\",\"ipam\":{}}"

struct fx {
	struct fake_nl *host, *pod;
	char lockdir[64];
};

static struct fx *g;

static int t_open_netns(const char *path, int *fd)
{
	(void)path;
	*fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

static int t_open_host(struct nlw_sock **s)
{
	return fake_nl_sock(g->host, NETLINK_ROUTE, s);
}

static int t_open_pod(int fd, struct nlw_sock **s)
{
	(void)fd;
	return fake_nl_sock(g->pod, NETLINK_ROUTE, s);
}

static const struct podnet_ops fake_ops = {
    .open_netns = t_open_netns,
    .open_host = t_open_host,
    .open_pod = t_open_pod,
};

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	x->host = fake_nl_new();
	x->pod = fake_nl_new();
	snprintf(x->lockdir, sizeof(x->lockdir), "/tmp/pw-unit-locks.XXXXXX");
	assert_non_null(mkdtemp(x->lockdir));
	setenv("PODWIRE_LOCK_DIR", x->lockdir, 1);
	g = x;
	podnet_set_ops(&fake_ops);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;
	char cmd[128];

	podnet_set_ops(NULL);
	fake_nl_free(x->host);
	fake_nl_free(x->pod);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", x->lockdir);
	assert_int_equal(system(cmd), 0);
	free(x);
	return 0;
}

/* A GET's answer: one RTM_NEWLINK, then the ACK. */
static void reply_link_flags(struct fake_nl *f, int idx, const char *name, const char *kind,
			     int master, const char *alias, unsigned flags)
{
	static const unsigned char mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nlattr *li;

	ifi->ifi_index = idx;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, mac);
	mnl_attr_put_u8(nlh, IFLA_OPERSTATE, 6 /* IF_OPER_UP */);
	if (master)
		mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
	if (alias)
		mnl_attr_put_strz(nlh, IFLA_IFALIAS, alias);
	li = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, kind);
	mnl_attr_nest_end(nlh, li);
	fake_nl_msg_end(f);
	fake_nl_flush(f);
	fake_nl_reply_ack(f);
}

static void reply_link(struct fake_nl *f, int idx, const char *name, const char *kind, int master,
		       const char *alias)
{
	reply_link_flags(f, idx, name, kind, master, alias, IFF_UP);
}

static char *run(enum cni_command cmd, const char *conf, int *rc)
{
	char cmd_env[32], cid[] = "CNI_CONTAINERID=c1", netns[] = "CNI_NETNS=/proc/self/ns/net",
			  override[] = "CNI_NETNS_OVERRIDE=1", ifname[] = "CNI_IFNAME=eth0",
			  path[] = "CNI_PATH=/nonexistent";
	char *const env[] = {cmd_env, cid, netns, override, ifname, path, NULL};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	snprintf(cmd_env, sizeof(cmd_env), "CNI_COMMAND=%s", cni_command_str(cmd));
	*rc = podnet_plugin_run(&bridge_ops, env, conf, strlen(conf), f);
	fclose(f);
	return out;
}

static uint16_t req_type(struct fake_nl *f, size_t i)
{
	const struct nlmsghdr *nlh = fake_nl_request(f, i);

	assert_non_null(nlh);
	return nlh->nlmsg_type;
}

static int req_ifindex(struct fake_nl *f, size_t i)
{
	const struct nlmsghdr *nlh = fake_nl_request(f, i);
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);

	return ifi->ifi_index;
}

static const char *req_str(struct fake_nl *f, size_t i, uint16_t attr)
{
	const struct nlattr *a =
	    fake_nl_attr(fake_nl_request(f, i), sizeof(struct ifinfomsg), attr);

	return a ? mnl_attr_get_str(a) : NULL;
}

/* The host side up to the veth: bridge missing, created, read, set up. */
static void script_bridge_created(struct fx *x)
{
	fake_nl_reply_error(x->host, -ENODEV, NULL);			  /* GET pwub0 */
	fake_nl_reply_ack(x->host);					  /* NEWLINK bridge */
	reply_link_flags(x->host, BR_IDX, "pwub0", "bridge", 0, NULL, 0); /* new: down */
	fake_nl_reply_ack(x->host);					  /* SETLINK up */
}

static void test_add_l2(void **state)
{
	struct fx *x = *state;
	json_t *res;
	char *out;
	int rc;

	script_bridge_created(x);
	fake_nl_reply_ack(x->host); /* NEWLINK veth */
	reply_link(x->host, HV_IDX, HOST_VETH, "veth", BR_IDX, NULL);
	reply_link(x->pod, POD_IDX, "eth0", "veth", 0, NULL);
	fake_nl_reply_ack(x->host);				      /* alias */
	fake_nl_reply_ack(x->host);				      /* up */
	fake_nl_reply_ack(x->host);				      /* port flags */
	fake_nl_reply_ack(x->pod);				      /* pod end up */
	reply_link(x->host, HV_IDX, HOST_VETH, "veth", BR_IDX, NULL); /* oper-up */
	reply_link(x->host, BR_IDX, "pwub0", "bridge", 0, NULL);      /* final MACs */
	out = run(CNI_CMD_ADD, L2_CONF, &rc);
	assert_int_equal(rc, 0);
	res = json_loads(out, 0, NULL);
	assert_non_null(res);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(res, "interfaces"), 1), "name")),
			    HOST_VETH);
	assert_int_equal(fake_nl_pending(x->host), 0);
	assert_int_equal(fake_nl_pending(x->pod), 0);
	/* The veth: one NEWLINK, host end enslaved at creation. */
	assert_int_equal(req_type(x->host, 4), RTM_NEWLINK);
	assert_string_equal(req_str(x->host, 4, IFLA_IFNAME), HOST_VETH);
	/* Alias while down, then up. */
	assert_int_equal(strncmp(req_str(x->host, 6, IFLA_IFALIAS), "podwire:unit/c1/eth0", 20), 0);
	assert_int_equal(mnl_attr_get_payload_len(fake_nl_attr(
			     fake_nl_request(x->host, 6), sizeof(struct ifinfomsg), IFLA_IFALIAS)),
			 20); /* the alias attribute carries no NUL */
	assert_int_equal(req_type(x->host, 7), RTM_SETLINK);
	assert_int_equal(req_ifindex(x->host, 7), HV_IDX);
	assert_int_equal(req_type(x->pod, 1), RTM_SETLINK);
	assert_int_equal(req_ifindex(x->pod, 1), POD_IDX);
	json_decref(res);
	free(out);
}

/* The veth cannot be created: the bridge this ADD created goes, nobody joined. */
static void test_add_fails_bridge_undone(void **state)
{
	struct fx *x = *state;
	size_t n;
	char *out;
	int rc;

	script_bridge_created(x);
	fake_nl_reply_error(x->host, -EPERM, "no veth for you"); /* NEWLINK veth */
	/* undo: look up the bridge, dump its ports (none), delete it */
	reply_link(x->host, BR_IDX, "pwub0", "bridge", 0, NULL);
	fake_nl_reply_done(x->host, 0);
	fake_nl_reply_ack(x->host);
	out = run(CNI_CMD_ADD, L2_CONF, &rc);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "\"code\": 100"));
	assert_non_null(strstr(out, "create veth"));
	assert_non_null(strstr(out, "no veth for you"));
	n = fake_nl_nrequests(x->host);
	assert_int_equal(req_type(x->host, n - 2), RTM_GETLINK);
	assert_true(fake_nl_request(x->host, n - 2)->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(req_type(x->host, n - 1), RTM_DELLINK);
	assert_int_equal(req_ifindex(x->host, n - 1), BR_IDX);
	assert_int_equal(fake_nl_pending(x->host), 0);
	free(out);
}

/* Another ADD joined the new bridge before the undo: it stays. */
static void test_add_fails_bridge_kept_for_joiner(void **state)
{
	struct fx *x = *state;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	size_t n;
	char *out;
	int rc;

	script_bridge_created(x);
	fake_nl_reply_error(x->host, -EPERM, NULL);
	reply_link(x->host, BR_IDX, "pwub0", "bridge", 0, NULL);
	/* the dump finds the joiner's port */
	nlh = fake_nl_msg_begin(x->host, RTM_NEWLINK, NLM_F_MULTI);
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_index = 42;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, "vethjoiner");
	mnl_attr_put_u32(nlh, IFLA_MASTER, BR_IDX);
	fake_nl_msg_end(x->host);
	fake_nl_flush(x->host);
	fake_nl_reply_done(x->host, 0);
	out = run(CNI_CMD_ADD, L2_CONF, &rc);
	assert_int_equal(rc, 1);
	n = fake_nl_nrequests(x->host);
	assert_int_not_equal(req_type(x->host, n - 1), RTM_DELLINK);
	assert_true(fake_nl_request(x->host, n - 1)->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(fake_nl_pending(x->host), 0);
	free(out);
}

/* Every derived host name taken, CNI_IFNAME free in the pod: 103 says it is the host side. */
static void test_add_host_names_taken(void **state)
{
	struct fx *x = *state;
	char *out;
	int rc;

	script_bridge_created(x);
	for (int i = 0; i < 10; i++) {
		fake_nl_reply_error(x->host, -EEXIST, NULL); /* NEWLINK veth */
		fake_nl_reply_error(x->pod, -ENODEV, NULL);  /* is CNI_IFNAME taken? no */
	}
	reply_link(x->host, BR_IDX, "pwub0", "bridge", 0, NULL); /* undo: bridge unused */
	fake_nl_reply_done(x->host, 0);
	fake_nl_reply_ack(x->host);
	out = run(CNI_CMD_ADD, L2_CONF, &rc);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "\"code\": 103"));
	assert_non_null(strstr(out, "are all taken in the host netns"));
	assert_null(strstr(out, "container veth name"));
	free(out);
}

static void test_del_pod_end(void **state)
{
	struct fx *x = *state;
	char *out;
	int rc;

	fake_nl_reply_ack(x->pod); /* DELLINK eth0 */
	out = run(CNI_CMD_DEL, L2_CONF, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(req_type(x->pod, 0), RTM_DELLINK);
	assert_string_equal(req_str(x->pod, 0, IFLA_IFNAME), "eth0");
	assert_int_equal(fake_nl_nrequests(x->host), 0); /* the host end went with it */
	free(out);
}

/* The pod end is gone already: the host end goes only if it carries our tag. */
static void test_del_host_end_by_tag(void **state)
{
	struct fx *x = *state;
	char *out;
	int rc;

	fake_nl_reply_error(x->pod, -ENODEV, NULL);
	reply_link(x->host, HV_IDX, HOST_VETH, "veth", BR_IDX, "podwire:unit/c1/eth0");
	fake_nl_reply_ack(x->host);
	out = run(CNI_CMD_DEL, L2_CONF, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(req_type(x->host, 1), RTM_DELLINK);
	assert_int_equal(req_ifindex(x->host, 1), HV_IDX);
	free(out);

	fake_nl_clear_requests(x->host);
	fake_nl_reply_error(x->pod, -ENODEV, NULL);
	reply_link(x->host, HV_IDX, HOST_VETH, "veth", BR_IDX, "podwire:other/c9/eth0");
	out = run(CNI_CMD_DEL, L2_CONF, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(fake_nl_nrequests(x->host), 1); /* looked, did not delete */
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_add_l2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_fails_bridge_undone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_fails_bridge_kept_for_joiner, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_host_names_taken, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_del_pod_end, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_del_host_end_by_tag, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
