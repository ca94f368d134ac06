/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The RDMA device steps on the recording fake transport: the checks before
 * any change (exclusive mode, the device in the host), the nldev move, the
 * verification in the pod, and the way back.
 */
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "fake-nl.h"

#define T(cmd) ((uint16_t)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd))

static struct fake_nl *fake;
static int opened_in[8], n_opened;

static int open_fake(int netns_fd, struct nlw_sock **ret)
{
	if (n_opened < 8)
		opened_in[n_opened++] = netns_fd;
	return fake_nl_sock(fake, NETLINK_RDMA, ret);
}

struct fx {
	struct cni_ctx ctx;
	struct podnet pn;
	struct sr_run r;
};

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	fake = fake_nl_new();
	n_opened = 0;
	sr_rdma_set_open(open_fake);
	x->ctx.command = CNI_CMD_ADD;
	x->ctx.netns = "/var/run/netns/pod";
	x->pn = (struct podnet){.ctx = &x->ctx, .netns_fd = -1, .host = x->pn.host};
	x->r = (struct sr_run)SR_RUN_INIT(&x->pn);
	strcpy(x->r.st.vf.bdf, "0000:3b:00.2");
	strcpy(x->r.st.vf.rdma_dev, "mlx5_3");
	strcpy(x->r.st.netns, "/var/run/netns/pod");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	sr_rdma_set_open(NULL);
	sr_run_done(&x->r);
	podnet_done(&x->pn);
	cni_error_done(&x->ctx.err);
	fake_nl_free(fake);
	free(x);
	return 0;
}

static void queue_mode(int mode)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(fake, T(RDMA_NLDEV_CMD_SYS_GET), 0);

	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, (uint8_t)mode);
	fake_nl_msg_end(fake);
	fake_nl_flush(fake);
	fake_nl_reply_ack(fake);
}

/* A dump listing the given devices (NULL-terminated names, indexes 1..). */
static void queue_devs(const char *const *names)
{
	for (uint32_t i = 0; names[i]; i++) {
		struct nlmsghdr *nlh = fake_nl_msg_begin(fake, T(RDMA_NLDEV_CMD_GET), NLM_F_MULTI);

		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, i + 1);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, names[i]);
		fake_nl_msg_end(fake);
	}
	if (names[0]) /* an empty dump is DONE alone */
		fake_nl_flush(fake);
	fake_nl_reply_done(fake, 0);
}

static void test_precheck_and_move(void **state)
{
	struct fx *x = *state;
	const struct nlmsghdr *req;

	queue_mode(0);
	queue_devs((const char *[]){"mlx5_0", "mlx5_3", NULL});
	assert_int_equal(sr_rdma_precheck(&x->r), 0);
	assert_true(x->r.st.rdma_move);
	assert_int_equal(x->r.rdma_index, 2);
	assert_int_equal(opened_in[0], -1); /* host netns */
	assert_int_equal(fake_nl_request(fake, 0)->nlmsg_type, 0x1406);
	req = fake_nl_request(fake, 1);
	assert_int_equal(req->nlmsg_type, 0x1401);
	assert_true(req->nlmsg_flags & NLM_F_DUMP);
	/* The move: SET with the index and the pod's netns fd. */
	x->pn.netns_fd = 42;
	fake_nl_reply_ack(fake);
	assert_int_equal(sr_rdma_to_pod(&x->r), 0);
	req = fake_nl_request(fake, 2);
	assert_int_equal(req->nlmsg_type, 0x1402);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_ATTR_DEV_INDEX)), 2);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_NET_NS_FD)), 42);
	/* Verification: a socket opened in the pod netns sees the device. */
	queue_devs((const char *[]){"mlx5_3", NULL});
	assert_int_equal(sr_rdma_verify(&x->r), 0);
	assert_int_equal(opened_in[1], 42);
	x->pn.netns_fd = -1;
}

static void test_shared_mode(void **state)
{
	struct fx *x = *state;

	queue_mode(1);
	assert_int_equal(sr_rdma_precheck(&x->r), -EOPNOTSUPP);
	assert_non_null(strstr(x->ctx.err.msg, "netns mode is \"shared\""));
	assert_non_null(strstr(x->ctx.err.msg, "rdma system set netns exclusive"));
	assert_false(x->r.st.rdma_move);
}

static void test_device_missing_in_host(void **state)
{
	struct fx *x = *state;

	queue_mode(0);
	queue_devs((const char *[]){"mlx5_0", NULL});
	assert_int_equal(sr_rdma_precheck(&x->r), -ENODEV);
	assert_non_null(strstr(x->ctx.err.msg, "RDMA device 'mlx5_3' of VF 0000:3b:00.2"));
}

static void test_modes_without_requests(void **state)
{
	struct fx *x = *state;

	x->r.conf.rdma = SR_RDMA_OFF;
	assert_int_equal(sr_rdma_precheck(&x->r), 0);
	assert_false(x->r.st.rdma_move);
	x->r.st.vf.rdma_dev[0] = '\0';
	x->r.conf.rdma = SR_RDMA_AUTO;
	assert_int_equal(sr_rdma_precheck(&x->r), 0);
	assert_false(x->r.st.rdma_move);
	assert_int_equal(fake_nl_nrequests(fake), 0);
	x->r.conf.rdma = SR_RDMA_ON;
	assert_int_equal(sr_rdma_precheck(&x->r), -ENODEV);
	assert_int_equal(x->ctx.err.code, CNI_ERR_INVALID_CONFIG);
	assert_non_null(
	    strstr(x->ctx.err.msg, "rdma: \"on\" but VF 0000:3b:00.2 has no RDMA device"));
}

static void test_verify_missing(void **state)
{
	struct fx *x = *state;

	x->pn.netns_fd = 42;
	queue_devs((const char *[]){NULL});
	assert_int_equal(sr_rdma_verify(&x->r), -ENODEV);
	assert_non_null(strstr(x->ctx.err.msg, "moved but nldev does not show it"));
	x->pn.netns_fd = -1;
}

static void test_release(void **state)
{
	struct fx *x = *state;
	const struct nlmsghdr *req;

	x->r.st.rdma_move = true;
	x->pn.netns_fd = 42;
	x->r.host_ns_fd = 7;
	/* In the pod: moved back on a socket opened there, to the host's netns fd. */
	queue_devs((const char *[]){"mlx5_3", NULL});
	fake_nl_reply_ack(fake);
	assert_int_equal(sr_rdma_release(&x->r), 0);
	assert_int_equal(opened_in[0], 42);
	req = fake_nl_request(fake, 1);
	assert_int_equal(req->nlmsg_type, 0x1402);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_NET_NS_FD)), 7);
	/* Not in the pod but in the host (already returned): done. */
	queue_devs((const char *[]){NULL});
	queue_devs((const char *[]){"mlx5_3", NULL});
	assert_int_equal(sr_rdma_release(&x->r), 0);
	assert_int_equal(opened_in[2], -1);
	/* Netns gone and not back yet: -ENODEV and no error, DEL decides how long to wait. */
	x->pn.netns_fd = -1;
	x->r.host_ns_fd = -1;
	queue_devs((const char *[]){NULL});
	assert_int_equal(sr_rdma_release(&x->r), -ENODEV);
	assert_false(cni_error_isset(&x->ctx.err));
	/* Another failure of the lookup is an error naming the device. */
	fake_nl_reply_error(fake, -EIO, NULL);
	assert_int_equal(sr_rdma_release(&x->r), -EIO);
	assert_non_null(strstr(x->ctx.err.msg, "rdma: look up 'mlx5_3' in the host"));
}

static int open_none(int netns_fd, struct nlw_sock **ret)
{
	(void)netns_fd;
	(void)ret;
	return -EPROTONOSUPPORT;
}

/* No RDMA netlink (ib_core gone): no device anywhere, nothing to wait for, no request. */
static void test_release_without_rdma_netlink(void **state)
{
	struct fx *x = *state;

	x->r.st.rdma_move = true;
	x->pn.netns_fd = 42;
	sr_rdma_set_open(open_none);
	assert_int_equal(sr_rdma_release(&x->r), -ENODEV);
	assert_false(cni_error_isset(&x->ctx.err));
	assert_int_equal(fake_nl_nrequests(fake), 0);
	x->pn.netns_fd = -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_precheck_and_move, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_shared_mode, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_device_missing_in_host, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_modes_without_requests, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_verify_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_release, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_release_without_rdma_netlink, setup, teardown),
	};

	cni_log_set_level(CNI_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
