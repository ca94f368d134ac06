/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The attachment framework (podnet_plugin_run) on the fake transports: what
 * each command's needs open, the netns rules and their codes, undo steps
 * that run in reverse with the netns and both sockets still open, and the
 * close after them; the one error helper's code policy; reopening a recorded
 * netns for DEL.
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

#include <jansson.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "cni/log.h"
#include "fake-nl.h"
#include "nlw/link.h"
#include "podnet/podnet.h"

/* ---- the seam: fake netns and sockets, with counters ---- */

static struct fake_nl *fh, *fp;
static int netns_ret;	   /* what open_netns answers (0: a /dev/null fd) */
static int netns_opened;   /* open_netns calls */
static int last_netns_fd;  /* the fd it handed out */
static char last_path[64]; /* the path it was asked for */

static int t_open_netns(const char *path, int *fd)
{
	snprintf(last_path, sizeof(last_path), "%s", path);
	netns_opened++;
	if (netns_ret < 0)
		return netns_ret;
	*fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	last_netns_fd = *fd;
	return *fd < 0 ? -errno : 0;
}

static int t_open_host(struct nlw_sock **s)
{
	return fake_nl_sock(fh, NETLINK_ROUTE, s);
}

static int t_open_pod(int fd, struct nlw_sock **s)
{
	(void)fd;
	return fake_nl_sock(fp, NETLINK_ROUTE, s);
}

static const struct podnet_ops fake_ops = {t_open_netns, t_open_host, t_open_pod};

/* ---- a plugin whose handlers record what they were given ---- */

struct seen {
	bool ran;
	bool host, pod;
	int netns_fd;
};

static struct seen seen;
static char order[8];	      /* undo steps, in the order they ran */
static size_t closed_in_undo; /* sockets closed when the last undo step ran */
static bool fd_open_in_undo;
static int add_fails; /* ADD's return (0: success with a result) */
static bool add_no_result;

static void record(struct podnet *pn)
{
	seen = (struct seen){true, pn->host != NULL, pn->pod != NULL, pn->netns_fd};
}

static int undo_step(struct podnet *pn, void *arg)
{
	size_t n = strlen(order);

	order[n] = *(const char *)arg;
	closed_in_undo = fake_nl_nclosed(fh) + fake_nl_nclosed(fp);
	fd_open_in_undo = fcntl(pn->netns_fd, F_GETFD) >= 0;
	/* Both sockets usable: a request through each. */
	(void)nlw_link_del(pn->host, 42);
	(void)nlw_link_del(pn->pod, 43);
	return 0;
}

static int h_add(struct podnet *pn)
{
	static const char names[] = "abc";

	record(pn);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(podnet_undo_push(pn, "step", undo_step, (void *)&names[i], NULL),
				 0);
	if (add_fails)
		return podnet_fail(pn->ctx, NULL, add_fails, "create thing");
	if (!add_no_result)
		pn->ctx->result = cni_result_new(pn->ctx->conf.version);
	return 0;
}

static int h_record(struct podnet *pn)
{
	record(pn);
	return 0;
}

static struct podnet_plugin_ops plugin = {
    .name = "fw",
    .add = {h_add, PODNET_POD},
    .del = {h_record, PODNET_POD},
    .check = {h_record, PODNET_POD},
    .gc = {NULL, PODNET_POD},
    .status = {h_record, PODNET_NOTHING},
};

static json_t *out;

static int run(const char *cmd, const char *netns)
{
	char cmd_env[32], netns_env[128];
	char cid[] = "CNI_CONTAINERID=c1", ov[] = "CNI_NETNS_OVERRIDE=1", ifn[] = "CNI_IFNAME=eth0",
	     path[] = "CNI_PATH=/nonexistent";
	char *const env[] = {cmd_env, netns_env, cid, ov, ifn, path, NULL};
	const char *conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"fw\",\"type\":\"fw\"}";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	snprintf(cmd_env, sizeof(cmd_env), "CNI_COMMAND=%s", cmd);
	snprintf(netns_env, sizeof(netns_env), "CNI_NETNS=%s", netns);
	rc = podnet_plugin_run(&plugin, env, conf, strlen(conf), f);
	fclose(f);
	json_decref(out);
	out = len ? json_loads(buf, 0, NULL) : NULL;
	free(buf);
	return rc;
}

static json_int_t code(void)
{
	return json_integer_value(json_object_get(out, "code"));
}

static int setup(void **state)
{
	(void)state;
	fh = fake_nl_new();
	fp = fake_nl_new();
	podnet_set_ops(&fake_ops);
	cni_log_set_sink(NULL, NULL);
	netns_ret = netns_opened = 0;
	last_netns_fd = -1;
	seen = (struct seen){0};
	memset(order, 0, sizeof(order));
	closed_in_undo = 99;
	fd_open_in_undo = false;
	add_fails = 0;
	add_no_result = false;
	plugin.del.needs = PODNET_POD;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	podnet_set_ops(NULL);
	fake_nl_free(fh);
	fake_nl_free(fp);
	json_decref(out);
	out = NULL;
	return 0;
}

#define SELF "/proc/self/ns/net"

/* A failed ADD: the steps run in reverse, each with netns and both sockets open. */
static void test_undo_runs_with_everything_open(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		fake_nl_reply_ack(fh);
		fake_nl_reply_ack(fp);
	}
	add_fails = -EEXIST;
	assert_int_equal(run("ADD", SELF), 1);
	assert_int_equal(code(), CNI_ERR_PLUGIN);
	assert_string_equal(order, "cba");
	assert_int_equal(closed_in_undo, 0);
	assert_true(fd_open_in_undo);
	/* Each step's two requests went out on the invocation's own sockets. */
	assert_int_equal(fake_nl_nrequests(fh), 3);
	assert_int_equal(fake_nl_nrequests(fp), 3);
	assert_int_equal(fake_nl_request(fh, 0)->nlmsg_type, RTM_DELLINK);
	/* Closed afterwards, once each. */
	assert_int_equal(fake_nl_nclosed(fh), 1);
	assert_int_equal(fake_nl_nclosed(fp), 1);
	assert_int_equal(fcntl(last_netns_fd, F_GETFD), -1);
}

/* An ADD whose result cannot be printed (none) is rolled back the same way. */
static void test_no_result_rolls_back(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++) {
		fake_nl_reply_ack(fh);
		fake_nl_reply_ack(fp);
	}
	add_no_result = true;
	assert_int_equal(run("ADD", SELF), 1);
	assert_string_equal(order, "cba");
	assert_int_equal(closed_in_undo, 0);
}

/* Success: the steps are dropped, never run; the result is printed; all closed. */
static void test_success_drops_undo(void **state)
{
	(void)state;
	assert_int_equal(run("ADD", SELF), 0);
	assert_string_equal(order, "");
	assert_non_null(json_object_get(out, "cniVersion"));
	assert_null(json_object_get(out, "code"));
	assert_int_equal(fake_nl_nrequests(fh), 0);
	assert_int_equal(fake_nl_nclosed(fh), 1);
	assert_int_equal(fake_nl_nclosed(fp), 1);
}

/* What each declared need opens. */
static void test_needs(void **state)
{
	(void)state;
	assert_int_equal(run("STATUS", ""), 0); /* PODNET_NOTHING */
	assert_true(seen.ran);
	assert_false(seen.host);
	assert_false(seen.pod);
	assert_int_equal(seen.netns_fd, -1);
	assert_int_equal(netns_opened, 0);

	plugin.del.needs = PODNET_HOST;
	assert_int_equal(run("DEL", SELF), 0);
	assert_true(seen.host);
	assert_false(seen.pod);
	assert_int_equal(netns_opened, 0);

	plugin.del.needs = PODNET_POD;
	assert_int_equal(run("CHECK", SELF), 0);
	assert_true(seen.host);
	assert_true(seen.pod);
	assert_true(seen.netns_fd >= 0);
	assert_int_equal(netns_opened, 1);
}

/* No handler: success, nothing opened. */
static void test_no_handler(void **state)
{
	(void)state;
	assert_int_equal(run("GC", ""), 0);
	assert_false(seen.ran);
	assert_int_equal(netns_opened, 0);
	assert_int_equal(fake_nl_nclosed(fh), 0);
}

/* DEL: no netns, a vanished one, a stale path: no pod, the handler runs, success. */
static void test_del_netns_gone(void **state)
{
	static const int gone[] = {-ENOENT, -EINVAL};

	(void)state;
	assert_int_equal(run("DEL", ""), 0);
	assert_true(seen.ran && seen.host && !seen.pod);
	assert_int_equal(netns_opened, 0);
	for (size_t i = 0; i < 2; i++) {
		seen.ran = false;
		netns_ret = gone[i];
		assert_int_equal(run("DEL", "/var/run/netns/x"), 0);
		assert_true(seen.ran && seen.host && !seen.pod);
		assert_int_equal(seen.netns_fd, -1);
	}
}

/* DEL with a netns that exists but cannot be opened: no pod, the host side still cleaned. */
static void test_del_netns_unreadable(void **state)
{
	(void)state;
	netns_ret = -EACCES;
	assert_int_equal(run("DEL", "/var/run/netns/x"), 0);
	assert_true(seen.ran && seen.host && !seen.pod);
	assert_int_equal(seen.netns_fd, -1);
}

/* ADD and CHECK: a netns gone since the skeleton's check is code 3, other failures 4. */
static void test_add_netns_codes(void **state)
{
	(void)state;
	netns_ret = -ENOENT;
	assert_int_equal(run("ADD", SELF), 1);
	assert_int_equal(code(), CNI_ERR_UNKNOWN_CONTAINER);
	assert_false(seen.ran);
	netns_ret = -EINVAL;
	assert_int_equal(run("CHECK", SELF), 1);
	assert_int_equal(code(), CNI_ERR_INVALID_ENV);
	assert_false(seen.ran);
	assert_int_equal(fake_nl_nclosed(fh), 0); /* nothing opened after the netns */
}

/* The one error policy: 11 for EAGAIN, EBUSY, ETIMEDOUT; 5 for EIO; else 100. */
static void test_fail_codes(void **state)
{
	static const struct {
		int r;
		unsigned code;
	} t[] = {{-EAGAIN, 11}, {-EBUSY, 11}, {-ETIMEDOUT, 11}, {-EIO, 5}, {-EPERM, 100}};
	struct cni_ctx ctx;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&ctx, 0, sizeof(ctx));
		assert_int_equal(podnet_fail_ack(&ctx, "kernel says no", t[i].r, "op %zu", i),
				 t[i].r);
		assert_int_equal(ctx.err.code, t[i].code);
		assert_non_null(strstr(ctx.err.msg, "op "));
		assert_non_null(strstr(ctx.err.details, "kernel says no"));
		cni_error_done(&ctx.err);
	}
}

/* A DEL that reopens the netns its plugin recorded at ADD, when CNI_NETNS gave none. */
static void test_open_recorded(void **state)
{
	struct cni_ctx ctx = {.netns = ""};
	struct podnet pn = {.ctx = &ctx, .netns_fd = -1};

	(void)state;
	assert_int_equal(t_open_host(&pn.host), 0);
	/* nothing recorded: nothing opened */
	assert_int_equal(podnet_open_recorded(&pn, ""), 0);
	assert_int_equal(podnet_open_recorded(&pn, NULL), 0);
	assert_int_equal(netns_opened, 0);
	/* gone, or no longer a netns: none, never an error */
	netns_ret = -ENOENT;
	assert_int_equal(podnet_open_recorded(&pn, "/run/netns/gone"), 0);
	netns_ret = -EINVAL;
	assert_int_equal(podnet_open_recorded(&pn, "/run/netns/unmounted"), 0);
	netns_ret = -EACCES;
	assert_int_equal(podnet_open_recorded(&pn, "/run/netns/denied"), 0);
	assert_int_equal(netns_opened, 3);
	assert_int_equal(pn.netns_fd, -1);
	assert_null(pn.pod);
	assert_false(cni_error_isset(&ctx.err));
	/* there: the netns and a socket in it */
	netns_ret = 0;
	assert_int_equal(podnet_open_recorded(&pn, "/run/netns/pod"), 1);
	assert_string_equal(last_path, "/run/netns/pod");
	assert_int_equal(pn.netns_fd, last_netns_fd);
	assert_non_null(pn.pod);
	/* closing the pod side keeps the host socket */
	podnet_close_pod(&pn);
	assert_int_equal(pn.netns_fd, -1);
	assert_null(pn.pod);
	assert_non_null(pn.host);
	assert_int_equal(fake_nl_nclosed(fp), 1);
	/* CNI_NETNS already opened wins over the record: only its socket is added */
	pn.netns_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(podnet_open_recorded(&pn, "/run/netns/other"), 1);
	assert_int_equal(netns_opened, 4);
	assert_non_null(pn.pod);
	podnet_done(&pn);
	assert_null(pn.host);
	assert_int_equal(pn.netns_fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_undo_runs_with_everything_open, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_result_rolls_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_success_drops_undo, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_needs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_handler, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_del_netns_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_del_netns_unreadable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_add_netns_codes, setup, teardown),
	    cmocka_unit_test(test_fail_codes),
	    cmocka_unit_test_setup_teardown(test_open_recorded, setup, teardown),
	};

	return cmocka_run_group_tests_name("podnet-plugin", tests, NULL, NULL);
}
