/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The PF-side plan on the recording fake transport: one RTM_SETLINK per key
 * with the exact attribute and struct size (802.1Q legacy IFLA_VF_VLAN,
 * 802.1ad the 16-byte list form, proto big-endian), restores to the recorded
 * original or the fresh-VF values, refusals naming the key, and the
 * teardown order (RDMA device first, PF keys in reverse, then the netdev).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "fake-nl.h"
#include "nlw/altname.h"
#include "nlw/sock.h"

#define IFI_LEN sizeof(struct ifinfomsg)
#define PF_IFINDEX 7
#define VF 3

struct fx {
	struct fake_nl *f;
	struct cni_ctx ctx;
	struct podnet pn;
	struct sr_run r;
};

static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));

	x->f = fake_nl_new();
	assert_int_equal(fake_nl_sock(x->f, NETLINK_ROUTE, &x->pn.host), 0);
	x->ctx.command = CNI_CMD_ADD;
	x->pn = (struct podnet){.ctx = &x->ctx, .netns_fd = -1, .host = x->pn.host};
	x->r = (struct sr_run)SR_RUN_INIT(&x->pn);
	x->r.st.vf.index = VF;
	x->r.st.pf_ifindex = PF_IFINDEX;
	strcpy(x->r.st.vf.pf_name, "ens1f0");
	strcpy(x->r.st.vf.bdf, "0000:3b:00.2");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	sr_run_done(&x->r);
	podnet_done(&x->pn);
	cni_error_done(&x->ctx.err);
	fake_nl_free(x->f);
	free(x);
	return 0;
}

/* The one attribute inside IFLA_VFINFO_LIST/IFLA_VF_INFO of request i; checks the envelope. */
static const struct nlattr *only_attr(struct fx *x, size_t i, uint16_t want_type, size_t want_len)
{
	const struct nlmsghdr *req = fake_nl_request(x->f, i);
	const struct nlattr *list, *info, *a, *found = NULL;
	unsigned n = 0;

	assert_non_null(req);
	assert_int_equal(req->nlmsg_type, RTM_SETLINK);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_index,
			 PF_IFINDEX);
	list = fake_nl_attr(req, IFI_LEN, IFLA_VFINFO_LIST);
	assert_int_equal(fake_nl_nested_count(list, IFLA_VF_INFO), 1);
	info = fake_nl_nested(list, IFLA_VF_INFO);
	mnl_attr_for_each_nested (a, info) {
		n++;
		found = a;
	}
	assert_int_equal(n, 1);
	assert_int_equal(mnl_attr_get_type(found), want_type);
	assert_int_equal(mnl_attr_get_payload_len(found), want_len);
	return found;
}

static void apply(struct fx *x, unsigned key)
{
	fake_nl_reply_ack(x->f);
	assert_int_equal(sr_pf_apply(&x->r, key), 0);
}

static void test_apply_each_key(void **state)
{
	struct fx *x = *state;
	struct sr_conf *c = &x->r.conf;
	const struct nlattr *a;

	*c = (struct sr_conf){.vlan = 210,
			      .qos = 5,
			      .vlan_proto = NLW_VLAN_PROTO_8021Q,
			      .mac = {0x0a, 0x3b, 0, 0, 2, 1},
			      .spoofchk = true,
			      .trust = false,
			      .link_state = NLW_VF_LINK_DISABLE,
			      .min_tx_rate = 10,
			      .max_tx_rate = 100};
	apply(x, SR_PF_VLAN);
	a = only_attr(x, 0, IFLA_VF_VLAN, 12);
	assert_memory_equal(mnl_attr_get_payload(a),
			    (&(struct ifla_vf_vlan){.vf = VF, .vlan = 210, .qos = 5}), 12);
	apply(x, SR_PF_MAC);
	a = only_attr(x, 1, IFLA_VF_MAC, 36);
	assert_int_equal(((const struct ifla_vf_mac *)mnl_attr_get_payload(a))->vf, VF);
	assert_memory_equal(((const struct ifla_vf_mac *)mnl_attr_get_payload(a))->mac, c->mac, 6);
	apply(x, SR_PF_RATE);
	a = only_attr(x, 2, IFLA_VF_RATE, 12);
	assert_memory_equal(mnl_attr_get_payload(a), (&(struct ifla_vf_rate){VF, 10, 100}), 12);
	apply(x, SR_PF_SPOOFCHK);
	a = only_attr(x, 3, IFLA_VF_SPOOFCHK, 8);
	assert_memory_equal(mnl_attr_get_payload(a), (&(struct ifla_vf_spoofchk){VF, 1}), 8);
	apply(x, SR_PF_TRUST);
	a = only_attr(x, 4, IFLA_VF_TRUST, 8);
	assert_memory_equal(mnl_attr_get_payload(a), (&(struct ifla_vf_trust){VF, 0}), 8);
	apply(x, SR_PF_LINK_STATE);
	a = only_attr(x, 5, IFLA_VF_LINK_STATE, 8);
	assert_memory_equal(mnl_attr_get_payload(a), (&(struct ifla_vf_link_state){VF, 2}), 8);
}

/* 802.1ad: IFLA_VF_VLAN_LIST with one 16-byte ifla_vf_vlan_info, proto in network order. */
static void test_apply_qinq(void **state)
{
	struct fx *x = *state;
	const struct nlattr *list, *info;
	const unsigned char *b;

	x->r.conf = (struct sr_conf){.vlan = 300, .qos = 2, .vlan_proto = NLW_VLAN_PROTO_8021AD};
	apply(x, SR_PF_VLAN);
	list = only_attr(x, 0, IFLA_VF_VLAN_LIST, 20);
	assert_int_equal(fake_nl_nested_count(list, IFLA_VF_VLAN_INFO), 1);
	info = fake_nl_nested(list, IFLA_VF_VLAN_INFO);
	assert_int_equal(mnl_attr_get_payload_len(info), 16);
	assert_int_equal(sizeof(struct ifla_vf_vlan_info), 16);
	b = mnl_attr_get_payload(info);
	assert_memory_equal(b, (&(uint32_t[3]){VF, 300, 2}), 12);
	assert_int_equal(b[12], 0x88);
	assert_int_equal(b[13], 0xa8);
}

static void test_restore(void **state)
{
	struct fx *x = *state;
	struct sr_orig *o = &x->r.st.orig;
	const struct nlattr *a;

	/* Recorded original. */
	*o = (struct sr_orig){.pf_known = true,
			      .pf = {.vf = VF,
				     .vlan = 7,
				     .qos = 1,
				     .vlan_proto = NLW_VLAN_PROTO_8021AD,
				     .spoofchk = -1,
				     .trust = 1,
				     .mac = {2, 0, 0, 0, 0, 9}}};
	fake_nl_reply_ack(x->f);
	assert_int_equal(sr_pf_restore(&x->r, SR_PF_VLAN), 0);
	a = fake_nl_nested(only_attr(x, 0, IFLA_VF_VLAN_LIST, 20), IFLA_VF_VLAN_INFO);
	assert_memory_equal(mnl_attr_get_payload(a), (&(uint32_t[3]){VF, 7, 1}), 12);
	fake_nl_reply_ack(x->f);
	assert_int_equal(sr_pf_restore(&x->r, SR_PF_SPOOFCHK), 0); /* ~0 reported: fresh value */
	assert_memory_equal(mnl_attr_get_payload(only_attr(x, 1, IFLA_VF_SPOOFCHK, 8)),
			    (&(struct ifla_vf_spoofchk){VF, 1}), 8);
	fake_nl_reply_ack(x->f);
	assert_int_equal(sr_pf_restore(&x->r, SR_PF_MAC), 0);
	assert_memory_equal(
	    ((const struct ifla_vf_mac *)mnl_attr_get_payload(only_attr(x, 2, IFLA_VF_MAC, 36)))
		->mac,
	    o->pf.mac, 6);
	/* A PF that did not report the VF: the values of a fresh VF. */
	o->pf_known = false;
	fake_nl_reply_ack(x->f);
	assert_int_equal(sr_pf_restore(&x->r, SR_PF_VLAN), 0);
	assert_memory_equal(mnl_attr_get_payload(only_attr(x, 3, IFLA_VF_VLAN, 12)),
			    (&(struct ifla_vf_vlan){VF, 0, 0}), 12);
	fake_nl_reply_ack(x->f);
	assert_int_equal(sr_pf_restore(&x->r, SR_PF_TRUST), 0);
	assert_memory_equal(mnl_attr_get_payload(only_attr(x, 4, IFLA_VF_TRUST, 8)),
			    (&(struct ifla_vf_trust){VF, 0}), 8);
}

static void test_refusal_names_key(void **state)
{
	struct fx *x = *state;

	x->r.conf = (struct sr_conf){.trust = true};
	fake_nl_reply_error(x->f, -EOPNOTSUPP, "VF trust not supported");
	assert_int_equal(sr_pf_apply(&x->r, SR_PF_TRUST), -EOPNOTSUPP);
	assert_int_equal(x->ctx.err.code, CNI_ERR_PLUGIN);
	assert_string_equal(x->ctx.err.msg, "trust: PF 'ens1f0' refused trust on on VF 3: "
					    "Operation not supported");
	assert_non_null(strstr(x->ctx.err.details, "VF trust not supported"));
}

static void test_matches(void **state)
{
	struct nlw_vf_info want = {
	    .vlan = 5, .qos = 1, .vlan_proto = NLW_VLAN_PROTO_8021Q, .spoofchk = 1, .trust = 0};
	struct nlw_vf_info have = want;

	(void)state;
	assert_true(sr_plan_matches(&want, &have, SR_PF_VLAN));
	have.qos = 2;
	assert_false(sr_plan_matches(&want, &have, SR_PF_VLAN));
	have.spoofchk = -1; /* the driver cannot tell: not a difference */
	assert_true(sr_plan_matches(&want, &have, SR_PF_SPOOFCHK));
	have.trust = 1;
	assert_false(sr_plan_matches(&want, &have, SR_PF_TRUST));
}

/* ---- teardown order: RDMA device, PF keys in reverse, netdev (DPDK here: none) ---- */

static struct fake_nl *rdma_fake;

static int open_fake(int netns_fd, struct nlw_sock **ret)
{
	(void)netns_fd;
	return fake_nl_sock(rdma_fake, NETLINK_RDMA, ret);
}

static void queue_rdma_dev(struct fake_nl *f, uint32_t index, const char *name)
{
	struct nlmsghdr *nlh =
	    fake_nl_msg_begin(f, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), NLM_F_MULTI);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	fake_nl_msg_end(f);
	fake_nl_flush(f);
	fake_nl_reply_done(f, 0);
}

static void test_teardown_order(void **state)
{
	struct fx *x = *state;
	char dir[64] = "/tmp/sriov-plan.XXXXXX";
	const struct nlmsghdr *req;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(sr_state_dir_open(dir, &x->r.dir_fd), 0);
	x->r.st.vf.dpdk = true;
	x->r.st.rdma_move = true;
	strcpy(x->r.st.vf.rdma_dev, "mlx5_3");
	x->r.st.applied = SR_PF_VLAN | SR_PF_TRUST | SR_PF_LINK_STATE;
	/* Any fd that is not our own netns stands for the pod's (the fake ignores it). */
	x->pn.netns_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	x->r.host_ns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_int_equal(sr_state_save(x->r.dir_fd, &x->r.st), 0);
	/* One transport for both protocols records the global order. */
	rdma_fake = x->f;
	sr_rdma_set_open(open_fake);
	queue_rdma_dev(x->f, 9, "mlx5_3");	  /* found in the pod netns */
	fake_nl_reply_ack(x->f);		  /* moved to the host netns */
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* refresh_pf: PF by name (keeps ifindex 7) */
	for (int i = 0; i < 3; i++)
		fake_nl_reply_ack(x->f);
	assert_int_equal(sr_teardown(&x->r), 0);
	sr_rdma_set_open(NULL);
	assert_int_equal(fake_nl_nrequests(x->f), 6);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
	req = fake_nl_request(x->f, 1);
	assert_int_equal(req->nlmsg_type, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SET));
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_ATTR_DEV_INDEX)), 9);
	assert_int_equal(mnl_attr_get_u32(fake_nl_attr(req, 0, RDMA_NLDEV_NET_NS_FD)),
			 (uint32_t)x->r.host_ns_fd);
	assert_int_equal(fake_nl_request(x->f, 2)->nlmsg_type, RTM_GETLINK);
	only_attr(x, 3, IFLA_VF_LINK_STATE, 8);
	only_attr(x, 4, IFLA_VF_TRUST, 8);
	only_attr(x, 5, IFLA_VF_VLAN, 12);
	/* Every step succeeded: the state is gone. */
	assert_int_equal(faccessat(x->r.dir_fd, "0000:3b:00.2.json", F_OK, 0), -1);
	rmdir(dir);
}

/* A failing step keeps the state (a retried DEL finishes the job) but the others still run. */
static void test_teardown_keeps_state(void **state)
{
	struct fx *x = *state;
	char dir[64] = "/tmp/sriov-plan.XXXXXX";

	assert_non_null(mkdtemp(dir));
	assert_int_equal(sr_state_dir_open(dir, &x->r.dir_fd), 0);
	x->r.st.vf.dpdk = true;
	x->r.st.applied = SR_PF_VLAN | SR_PF_MAC;
	assert_int_equal(sr_state_save(x->r.dir_fd, &x->r.st), 0);
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* refresh_pf */
	fake_nl_reply_error(x->f, -EBUSY, NULL);  /* mac restore refused */
	fake_nl_reply_ack(x->f);		  /* vlan restored anyway */
	assert_int_equal(sr_teardown(&x->r), -EBUSY);
	assert_int_equal(fake_nl_nrequests(x->f), 3);
	only_attr(x, 1, IFLA_VF_MAC, 36);
	only_attr(x, 2, IFLA_VF_VLAN, 12);
	assert_int_equal(x->ctx.err.code, CNI_ERR_TRY_AGAIN);
	assert_non_null(strstr(x->ctx.err.msg, "mac: restore mac 00:00:00:00:00:00 on VF 3"));
	assert_int_equal(faccessat(x->r.dir_fd, "0000:3b:00.2.json", F_OK, 0), 0);
	assert_int_equal(sr_state_remove(x->r.dir_fd, "0000:3b:00.2"), 0);
	rmdir(dir);
}

/* ---- a VF the kernel does not return: bounded wait, PF keys best effort, lost record ---- */

static void test_decisions(void **state)
{
	(void)state;
	/* A refused restore keeps the record, unless the PF is gone or the VF is lost. */
	assert_false(sr_plan_restore_fatal(0, false));
	assert_true(sr_plan_restore_fatal(-EBUSY, false));
	assert_true(sr_plan_restore_fatal(-EOPNOTSUPP, false));
	assert_false(sr_plan_restore_fatal(-ENODEV, false));
	assert_false(sr_plan_restore_fatal(-EBUSY, true));
	assert_false(sr_plan_restore_fatal(-ENODEV, true));
	/* Poll steps: 5, 10, 20, 40, 50, 50, never past what is left, 0 when used up. */
	assert_int_equal(sr_plan_poll_ms(0, 2000), 5);
	assert_int_equal(sr_plan_poll_ms(5, 2000), 10);
	assert_int_equal(sr_plan_poll_ms(10, 2000), 20);
	assert_int_equal(sr_plan_poll_ms(20, 2000), 40);
	assert_int_equal(sr_plan_poll_ms(40, 2000), 50);
	assert_int_equal(sr_plan_poll_ms(50, 2000), 50);
	assert_int_equal(sr_plan_poll_ms(40, 7), 7);
	assert_int_equal(sr_plan_poll_ms(0, 3), 3);
	assert_int_equal(sr_plan_poll_ms(50, 0), 0);
	assert_int_equal(sr_plan_poll_ms(0, -4), 0);
}

/* A netdev VF whose netns is gone, in a state directory, with an empty sysfs tree. */
static void lost_fixture(struct fx *x, char *dir, char *sys)
{
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(sys));
	assert_int_equal(sr_state_dir_open(dir, &x->r.dir_fd), 0);
	x->r.sysfs_fd = open(sys, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(x->r.sysfs_fd >= 0);
	strcpy(x->r.st.container_id, "ctr1");
	strcpy(x->r.st.ifname, "net1");
	strcpy(x->r.st.netns, "");
	strcpy(x->r.st.network, "rail-a");
	strcpy(x->r.st.orig.netdev, "ens1f0v3");
	x->r.st.orig.ifindex = x->r.st.pod_ifindex = 12;
	x->r.st.orig.mtu = 1500;
	memcpy(x->r.st.orig.mac, (unsigned char[6]){2, 0, 0, 0, 6, 3}, 6);
	assert_int_equal(sr_state_save(x->r.dir_fd, &x->r.st), 0);
}

static void lost_fixture_done(struct fx *x, const char *dir, const char *sys)
{
	char path[128];

	close(x->r.sysfs_fd);
	x->r.sysfs_fd = -1;
	snprintf(path, sizeof(path), "%s/lost/0000:3b:00.2.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lost", dir);
	rmdir(path);
	rmdir(dir);
	rmdir(sys);
}

/*
 * vfReturnTimeoutMs 0: one look (original name, pod name, dev<ifindex> twice),
 * then the PF key restored best effort (refused: only logged), the VF
 * recorded as lost, the state removed, and success.
 */
static void test_teardown_lost(void **state)
{
	struct fx *x = *state;
	char dir[64] = "/tmp/sriov-plan.XXXXXX", sys[64] = "/tmp/sriov-sys.XXXXXX";
	const struct nlmsghdr *req;
	struct sr_lost l;

	lost_fixture(x, dir, sys);
	x->r.st.applied = SR_PF_VLAN;
	assert_int_equal(sr_state_save(x->r.dir_fd, &x->r.st), 0);
	for (int i = 0; i < 4; i++)
		fake_nl_reply_error(x->f, -ENODEV, NULL);
	fake_nl_reply_error(x->f, -ENODEV, NULL);     /* refresh_pf */
	fake_nl_reply_error(x->f, -EOPNOTSUPP, NULL); /* vlan restore refused */
	assert_int_equal(sr_teardown(&x->r), 0);
	assert_false(cni_error_isset(&x->ctx.err));
	assert_int_equal(fake_nl_nrequests(x->f), 6);
	for (int i = 0; i < 5; i++) {
		req = fake_nl_request(x->f, (size_t)i);
		assert_int_equal(req->nlmsg_type, RTM_GETLINK);
	}
	only_attr(x, 5, IFLA_VF_VLAN, 12);
	assert_int_equal(faccessat(x->r.dir_fd, "0000:3b:00.2.json", F_OK, 0), -1);
	assert_int_equal(sr_lost_load(x->r.dir_fd, "0000:3b:00.2", &l), 0);
	assert_string_equal(l.container_id, "ctr1");
	assert_string_equal(l.ifname, "net1");
	assert_string_equal(l.netdev, "ens1f0v3");
	assert_int_equal(l.mtu, 1500);
	assert_int_equal(l.ifindex, 12);
	assert_non_null(strstr(l.reason, "not back in the host (netns gone) within 0 ms"));
	lost_fixture_done(x, dir, sys);
}

/* The wait is bounded: nothing answers (the fake times out each look), DEL gives up on time. */
static void test_teardown_wait_bounded(void **state)
{
	struct fx *x = *state;
	char dir[64] = "/tmp/sriov-plan.XXXXXX", sys[64] = "/tmp/sriov-sys.XXXXXX";
	struct timespec t0, t1;
	long ms;

	lost_fixture(x, dir, sys);
	x->r.conf.vf_return_timeout_ms = 60;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(sr_teardown(&x->r), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 60);
	assert_true(ms < 400);
	/* Pauses of 5, 10, 20 and the rest: at most five looks of four lookups each. */
	assert_int_equal(fake_nl_nrequests(x->f) % 4, 0);
	assert_in_range(fake_nl_nrequests(x->f), 2 * 4, 5 * 4);
	assert_int_equal(faccessat(x->r.dir_fd, "0000:3b:00.2.json", F_OK, 0), -1);
	lost_fixture_done(x, dir, sys);
}

/* A DPDK VF on a PF that is gone: the PF keys cannot be restored, DEL still succeeds. */
static void test_teardown_pf_gone(void **state)
{
	struct fx *x = *state;
	char dir[64] = "/tmp/sriov-plan.XXXXXX";
	struct sr_lost l;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(sr_state_dir_open(dir, &x->r.dir_fd), 0);
	x->r.st.vf.dpdk = true;
	x->r.st.applied = SR_PF_VLAN | SR_PF_MAC;
	assert_int_equal(sr_state_save(x->r.dir_fd, &x->r.st), 0);
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* refresh_pf */
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* mac */
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* vlan */
	assert_int_equal(sr_teardown(&x->r), 0);
	assert_false(cni_error_isset(&x->ctx.err));
	assert_int_equal(fake_nl_nrequests(x->f), 3);
	assert_int_equal(faccessat(x->r.dir_fd, "0000:3b:00.2.json", F_OK, 0), -1);
	assert_int_equal(sr_lost_load(x->r.dir_fd, "0000:3b:00.2", &l), -ENOENT);
	rmdir(dir);
}

/* A fatal error recorded first stays the one reported when a later key is only logged. */
static void test_teardown_first_error_kept(void **state)
{
	struct fx *x = *state;
	char dir[64] = "/tmp/sriov-plan.XXXXXX";

	assert_non_null(mkdtemp(dir));
	assert_int_equal(sr_state_dir_open(dir, &x->r.dir_fd), 0);
	x->r.st.vf.dpdk = true;
	x->r.st.applied = SR_PF_VLAN | SR_PF_MAC;
	assert_int_equal(sr_state_save(x->r.dir_fd, &x->r.st), 0);
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* refresh_pf */
	fake_nl_reply_error(x->f, -EBUSY, NULL);  /* mac: keeps the record */
	fake_nl_reply_error(x->f, -ENODEV, NULL); /* vlan: PF gone, logged */
	assert_int_equal(sr_teardown(&x->r), -EBUSY);
	assert_non_null(strstr(x->ctx.err.msg, "mac: restore"));
	assert_int_equal(faccessat(x->r.dir_fd, "0000:3b:00.2.json", F_OK, 0), 0);
	assert_int_equal(sr_state_remove(x->r.dir_fd, "0000:3b:00.2"), 0);
	rmdir(dir);
}

/* RTM_DELLINKPROP: ifinfomsg of the link, IFLA_PROP_LIST -> IFLA_ALT_IFNAME "name\0". */
static void test_altname_request(void **state)
{
	struct fx *x = *state;
	const struct nlmsghdr *req;
	const struct nlattr *list, *a;

	fake_nl_reply_error(x->f, -ENOENT, NULL);
	assert_int_equal(nlw_link_del_altname(x->pn.host, 12, "ens1f0v2"), -ENOENT);
	req = fake_nl_request(x->f, 0);
	assert_int_equal(req->nlmsg_type, RTM_DELLINKPROP);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(((const struct ifinfomsg *)mnl_nlmsg_get_payload(req))->ifi_index, 12);
	list = fake_nl_attr(req, IFI_LEN, IFLA_PROP_LIST);
	assert_int_equal(fake_nl_nested_count(list, IFLA_ALT_IFNAME), 1);
	a = fake_nl_nested(list, IFLA_ALT_IFNAME);
	assert_int_equal(mnl_attr_get_payload_len(a), 9);
	assert_string_equal(mnl_attr_get_str(a), "ens1f0v2");
	assert_int_equal(nlw_link_del_altname(x->pn.host, 12, ""), -EINVAL);
	fake_nl_reply_ack(x->f);
	assert_int_equal(nlw_link_add_altname(x->pn.host, 12, "x"), 0);
	req = fake_nl_request(x->f, 1);
	assert_int_equal(req->nlmsg_type, RTM_NEWLINKPROP);
	assert_int_equal(req->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_apply_each_key, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_apply_qinq, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_restore, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusal_names_key, setup, teardown),
	    cmocka_unit_test(test_matches),
	    cmocka_unit_test_setup_teardown(test_teardown_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_teardown_keeps_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_altname_request, setup, teardown),
	    cmocka_unit_test(test_decisions),
	    cmocka_unit_test_setup_teardown(test_teardown_lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_teardown_wait_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_teardown_pf_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_teardown_first_error_kept, setup, teardown),
	};

	cni_log_set_level(CNI_LOG_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
