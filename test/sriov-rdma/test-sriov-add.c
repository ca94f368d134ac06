/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A whole ADD through the skeleton on fakes (sysfs tree in a temp dir,
 * podnet's socket seam and the RDMA seam on one recording transport, so the
 * order of every request is visible): the RDMA move fails last, and the undo
 * list runs in reverse: RDMA device, netdev back (down, altname, netns with
 * the original name, up), PF keys (trust, then vlan), state removed, lock
 * released.
 */
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "fake-nl.h"
#include "podnet/podnet.h"

#define T(cmd) ((uint16_t)RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd))
#define D "bus/pci/devices/"

static struct fake_nl *fake;
static char root[64];
static const unsigned char MAC[6] = {2, 0, 0, 0, 6, 0};

static int open_route(struct nlw_sock **ret)
{
	return fake_nl_sock(fake, NETLINK_ROUTE, ret);
}

static int open_pod(int netns_fd, struct nlw_sock **ret)
{
	(void)netns_fd;
	return fake_nl_sock(fake, NETLINK_ROUTE, ret);
}

static int open_rdma(int netns_fd, struct nlw_sock **ret)
{
	(void)netns_fd;
	return fake_nl_sock(fake, NETLINK_RDMA, ret);
}

/* Any fd that is not our netns stands for the pod's. */
static int open_netns(const char *path, int *ret_fd)
{
	(void)path;
	*ret_fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return *ret_fd < 0 ? -errno : 0;
}

static const struct podnet_ops fake_ops = {open_netns, open_route, open_pod};

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/sriov-add.XXXXXX");
	assert_non_null(mkdtemp(root));
	sh("cd %s && mkdir -p sys/" D "0000:af:00.0/net/pf0 sys/" D "0000:af:06.0/net/vf0 "
	   "sys/" D "0000:af:06.0/infiniband/mlx5_7 sys/bus/pci/drivers/mlx5_core && "
	   "echo 1 > sys/" D "0000:af:00.0/sriov_numvfs && "
	   "ln -s ../0000:af:06.0 sys/" D "0000:af:00.0/virtfn0 && "
	   "ln -s ../0000:af:00.0 sys/" D "0000:af:06.0/physfn && "
	   "ln -s ../../drivers/mlx5_core sys/" D "0000:af:06.0/driver",
	   root);
	fake = fake_nl_new();
	podnet_set_ops(&fake_ops);
	sr_rdma_set_open(open_rdma);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sr_rdma_set_open(NULL);
	podnet_set_ops(NULL);
	fake_nl_free(fake);
	sh("rm -rf '%s'", root);
	return 0;
}

static void link_reply(int ifindex, const char *name, unsigned flags)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(fake, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	ifi->ifi_index = ifindex;
	ifi->ifi_flags = flags;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
	mnl_attr_put(nlh, IFLA_ADDRESS, 6, MAC);
	fake_nl_msg_end(fake);
	fake_nl_flush(fake);
	fake_nl_reply_ack(fake);
}

static void rdma_dump(const char *name)
{
	if (name) {
		struct nlmsghdr *nlh = fake_nl_msg_begin(fake, T(RDMA_NLDEV_CMD_GET), NLM_F_MULTI);

		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
		fake_nl_msg_end(fake);
		fake_nl_flush(fake);
	}
	fake_nl_reply_done(fake, 0);
}

static void script(void)
{
	struct nlmsghdr *nlh = fake_nl_msg_begin(fake, T(RDMA_NLDEV_CMD_SYS_GET), 0);

	/* checks before any change */
	mnl_attr_put_u8(nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0);
	fake_nl_msg_end(fake);
	fake_nl_flush(fake);
	fake_nl_reply_ack(fake);
	rdma_dump("mlx5_7");
	/* original state: PF (no VF list reported), VF netdev (up) */
	link_reply(3, "pf0", 0);
	link_reply(3, "pf0", 0);
	link_reply(8, "vf0", IFF_UP);
	/* PF keys vlan, trust */
	fake_nl_reply_ack(fake);
	fake_nl_reply_ack(fake);
	/* net1 free in the pod; down, move, look up twice; up */
	fake_nl_reply_error(fake, -ENODEV, NULL);
	fake_nl_reply_ack(fake);
	fake_nl_reply_ack(fake);
	link_reply(8, "net1", 0);
	link_reply(8, "net1", 0);
	fake_nl_reply_ack(fake);
	/* the RDMA move fails */
	fake_nl_reply_error(fake, -EOPNOTSUPP, "cannot disassociate");
	/* undo: RDMA not in the pod, in the host */
	rdma_dump(NULL);
	rdma_dump("mlx5_7");
	/* undo: netdev in the pod (up): down, altname none, back; then up in the host */
	link_reply(8, "net1", IFF_UP);
	fake_nl_reply_ack(fake);
	fake_nl_reply_error(fake, -ENOENT, NULL);
	fake_nl_reply_ack(fake);
	link_reply(8, "vf0", 0);
	fake_nl_reply_ack(fake);
	/* undo: trust, vlan */
	fake_nl_reply_ack(fake);
	fake_nl_reply_ack(fake);
}

static const struct {
	uint16_t type;
	const char *what;
} want[] = {
    {T(RDMA_NLDEV_CMD_SYS_GET), "netns mode"},
    {T(RDMA_NLDEV_CMD_GET), "rdma dev in host"},
    {RTM_GETLINK, "PF"},
    {RTM_GETLINK, "PF VF list"},
    {RTM_GETLINK, "VF netdev"},
    {RTM_SETLINK, "vlan"},
    {RTM_SETLINK, "trust"},
    {RTM_GETLINK, "net1 free?"},
    {RTM_SETLINK, "down"},
    {RTM_SETLINK, "to the pod"},
    {RTM_GETLINK, "net1"},
    {RTM_GETLINK, "net1 by index"},
    {RTM_SETLINK, "up"},
    {T(RDMA_NLDEV_CMD_SET), "rdma to pod"},
    {T(RDMA_NLDEV_CMD_GET), "rdma in pod?"},
    {T(RDMA_NLDEV_CMD_GET), "rdma in host?"},
    {RTM_GETLINK, "net1 in pod"},
    {RTM_SETLINK, "down"},
    {RTM_DELLINKPROP, "altname"},
    {RTM_SETLINK, "back to host"},
    {RTM_GETLINK, "vf0 in host"},
    {RTM_SETLINK, "up"},
    {RTM_SETLINK, "restore trust"},
    {RTM_SETLINK, "restore vlan"},
};

static void test_add_fails_last_undo_in_reverse(void **state)
{
	char conf[512], env_sys[128], dir[128], *out = NULL;
	static char e0[] = "CNI_COMMAND=ADD", e1[] = "CNI_CONTAINERID=c1",
		    e2[] = "CNI_NETNS=/proc/self/ns/net", e3[] = "CNI_NETNS_OVERRIDE=1",
		    e4[] = "CNI_IFNAME=net1", e5[] = "CNI_PATH=/nonexistent";
	char *const env[] = {e0, e1, e2, e3, e4, e5, NULL};
	const struct nlmsghdr *req;
	size_t len = 0;
	FILE *f;
	int lock, dfd;

	(void)state;
	snprintf(env_sys, sizeof(env_sys), "%s/sys", root);
	setenv("PODWIRE_SYSFS_ROOT", env_sys, 1);
	snprintf(dir, sizeof(dir), "%s/state", root);
	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"sriov-rdma\","
		 "\"deviceID\":\"0000:af:06.0\",\"vlan\":10,\"trust\":\"on\",\"stateDir\":\"%s\"}",
		 dir);
	script();
	f = open_memstream(&out, &len);
	assert_int_equal(podnet_plugin_run(&sriov_rdma_ops, env, conf, strlen(conf), f), 1);
	fclose(f);
	unsetenv("PODWIRE_SYSFS_ROOT");
	assert_non_null(strstr(out, "rdma: move RDMA device 'mlx5_7' into netns"));
	assert_non_null(strstr(out, "cannot disassociate"));
	free(out);
	assert_int_equal(fake_nl_pending(fake), 0);
	assert_int_equal(fake_nl_nrequests(fake), sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		req = fake_nl_request(fake, i);
		if (req->nlmsg_type != want[i].type)
			fail_msg("request %zu: type %u, want %u (%s)", i, req->nlmsg_type,
				 want[i].type, want[i].what);
	}
	/* The move back carries the original name; the PF restores are fresh-VF values. */
	req = fake_nl_request(fake, 19);
	assert_string_equal(
	    mnl_attr_get_str(fake_nl_attr(req, sizeof(struct ifinfomsg), IFLA_IFNAME)), "vf0");
	for (size_t i = 22; i < 24; i++) {
		const struct nlattr *list = fake_nl_attr(
		    fake_nl_request(fake, i), sizeof(struct ifinfomsg), IFLA_VFINFO_LIST);
		const struct nlattr *info = fake_nl_nested(list, IFLA_VF_INFO);
		const struct nlattr *a =
		    fake_nl_nested(info, i == 22 ? IFLA_VF_TRUST : IFLA_VF_VLAN);
		const uint32_t *v = mnl_attr_get_payload(a);

		assert_int_equal(v[0], 0); /* VF 0 */
		assert_int_equal(v[1], 0); /* trust off / vlan 0 */
	}
	/* Nothing left: no state, the lock free. */
	snprintf(conf, sizeof(conf), "%s/0000:af:06.0.json", dir);
	assert_int_equal(access(conf, F_OK), -1);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(sr_state_lock(dfd, "0000:af:06.0", 0, &lock), 0);
	close(lock);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_fails_last_undo_in_reverse),
	};

	cni_log_set_level(CNI_LOG_ERROR);
	return cmocka_run_group_tests(tests, setup, teardown);
}
