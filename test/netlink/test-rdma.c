/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA nldev requests and replies (fake transport only: no RDMA on the CI kernel). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake-nl.h"
#include "nlw/nlw.h"

#define T_GET RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET)

/* Per-test fixture: a fake transport and an RDMA netlink socket on it. */
#define setup fake_fx_setup_rdma
#define teardown fake_fx_teardown

static const struct nlmsghdr *last_req(struct fake_fx *x)
{
	assert_int_equal(fake_nl_pending(x->f), 0);
	return fake_nl_request(x->f, fake_nl_nrequests(x->f) - 1);
}

static void add_dev_msg(struct fake_nl *f, uint32_t index, const char *name, uint16_t flags)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(f, T_GET, flags);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_NODE_GUID, 0x1122334455667788ULL);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
	fake_nl_msg_end(f);
}

static void test_get_by_index(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_rdma_dev d;
	const struct nlmsghdr *req;

	add_dev_msg(x->f, 3, "mlx5_3", 0);
	fake_nl_flush(x->f);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_rdma_dev_get_by_index(x->s, 3, &d), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, 0x1401);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	/* nldev: attributes right after the netlink header. */
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_ATTR_DEV_INDEX)), 3);
	assert_int_equal(d.index, 3);
	assert_string_equal(d.name, "mlx5_3");
	assert_int_equal(d.nports, 1);
	assert_true(d.node_guid == 0x1122334455667788ULL);
	assert_string_equal(d.protocol, "roce");
	/* Unknown index: nldev says EINVAL, we say ENODEV. */
	fake_nl_reply_error(x->f, -EINVAL, NULL);
	assert_int_equal(nlw_rdma_dev_get_by_index(x->s, 9, &d), -ENODEV);
}

static void test_get_by_name_dump(void **state)
{
	struct fake_fx *x = *state;
	struct nlw_rdma_dev d;

	add_dev_msg(x->f, 1, "mlx5_0", NLM_F_MULTI);
	add_dev_msg(x->f, 2, "mlx5_1", NLM_F_MULTI);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_rdma_dev_get_by_name(x->s, "mlx5_1", &d), 0);
	assert_int_equal(d.index, 2);
	assert_true(last_req(x)->nlmsg_flags & NLM_F_DUMP);
	add_dev_msg(x->f, 1, "mlx5_0", NLM_F_MULTI);
	fake_nl_flush(x->f);
	fake_nl_reply_done(x->f, 0);
	assert_int_equal(nlw_rdma_dev_get_by_name(x->s, "mlx5_9", &d), -ENODEV);
	assert_int_equal(nlw_rdma_dev_get_by_name(x->s, "", &d), -EINVAL);
}

static void queue_mode(struct fake_nl *f, int mode)
{
	struct nlmsghdr *nlh =
	    fake_nl_msg_begin(f, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET), 0);

	if (mode >= 0)
		mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, (uint8_t)mode);
	fake_nl_msg_end(f);
	fake_nl_flush(f);
	fake_nl_reply_ack(f);
}

static void test_netns_mode(void **state)
{
	struct fake_fx *x = *state;

	queue_mode(x->f, 0);
	assert_int_equal(nlw_rdma_netns_mode(x->s), 0);
	assert_int_equal(last_req(x)->nlmsg_type, 0x1406);
	queue_mode(x->f, 1);
	assert_int_equal(nlw_rdma_netns_mode(x->s), 1);
	queue_mode(x->f, -1);
	assert_int_equal(nlw_rdma_netns_mode(x->s), -EOPNOTSUPP);
}

static void test_set_netns(void **state)
{
	struct fake_fx *x = *state;
	const struct nlmsghdr *req;

	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_rdma_dev_set_netns(x->s, 4, 12), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, 0x1402);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_ATTR_DEV_INDEX)), 4);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_NET_NS_FD)), 12);
	fake_nl_reply_error(x->f, -EOPNOTSUPP, "shared mode");
	assert_int_equal(nlw_rdma_dev_set_netns(x->s, 4, 12), -EOPNOTSUPP);
	assert_string_equal(nlw_sock_ext_ack(x->s), "shared mode");
	assert_int_equal(nlw_rdma_dev_set_netns(x->s, 4, -1), -EINVAL);
}

static void test_parse_rejects(void **state)
{
	struct fake_fx *x = *state;
	struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, T_GET, 0);
	struct nlw_rdma_dev d;
	char noz[3] = {'a', 'b', 'c'};

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	assert_int_equal(nlw_rdma_dev_parse(nlh, &d), -EBADMSG); /* no name */
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_DEV_NAME, sizeof(noz), noz);
	assert_int_equal(nlw_rdma_dev_parse(nlh, &d), -EBADMSG); /* name not NUL-terminated */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_get_by_index), T(test_get_by_name_dump), T(test_netns_mode),
	    T(test_set_netns),	  T(test_parse_rejects),
#undef T
	};

	return cmocka_run_group_tests_name("nlw-rdma", tests, NULL, NULL);
}
