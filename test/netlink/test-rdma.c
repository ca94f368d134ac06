/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA nldev requests and replies (fake transport only: no RDMA on the CI kernel). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
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

#define T_STAT RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET)

struct counters_seen {
	char names[4][32];
	uint64_t values[4];
	int n;
};

static int count_cb(const char *name, uint64_t value, void *userdata)
{
	struct counters_seen *c = userdata;

	if (c->n >= 4)
		return -E2BIG;
	snprintf(c->names[c->n], sizeof(c->names[c->n]), "%s", name);
	c->values[c->n++] = value;
	return 0;
}

static void put_hwc(struct nlmsghdr *nlh, const char *name, uint64_t value)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
	mnl_attr_nest_end(nlh, e);
}

/* STAT_GET of one port: request bytes, the counters of the reply, errors. */
static void test_stat_get(void **state)
{
	struct fake_fx *x = *state;
	struct counters_seen c = {0};
	const struct nlmsghdr *req;
	struct nlmsghdr *nlh = fake_nl_msg_begin(x->f, T_STAT, 0);
	struct nlattr *n;

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	n = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	put_hwc(nlh, "out_of_sequence", 14);
	put_hwc(nlh, "np_cnp_sent", 1ULL << 40);
	/* an entry without a value is skipped */
	{
		struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "novalue");
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, n);
	fake_nl_msg_end(x->f);
	fake_nl_flush(x->f);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_rdma_stat_get(x->s, 3, 1, count_cb, &c), 0);
	req = last_req(x);
	assert_int_equal(req->nlmsg_type, T_STAT);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_ATTR_DEV_INDEX)), 3);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_ATTR_PORT_INDEX)), 1);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.names[0], "out_of_sequence");
	assert_true(c.values[0] == 14);
	assert_true(c.values[1] == 1ULL << 40);
	/* a device that is not in the socket's netns */
	fake_nl_reply_error(x->f, -EINVAL, NULL);
	assert_int_equal(nlw_rdma_stat_get(x->s, 9, 1, count_cb, &c), -ENODEV);
	assert_int_equal(nlw_rdma_stat_get(x->s, 3, 0, count_cb, &c), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_get_by_index), T(test_get_by_name_dump), T(test_netns_mode),
	    T(test_set_netns),	  T(test_parse_rejects),    T(test_stat_get),
#undef T
	};

	return cmocka_run_group_tests_name("nlw-rdma", tests, NULL, NULL);
}
