/* SPDX-License-Identifier: Apache-2.0 */
/* The state file: round trip, rejected input, atomic save, per-VF lock, lookup by attachment. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

static struct sr_state sample(void)
{
	struct sr_state s = {0};

	strcpy(s.container_id, "abc123");
	strcpy(s.ifname, "rdma0");
	strcpy(s.netns, "/var/run/netns/cni-1");
	strcpy(s.network, "rail-a");
	strcpy(s.vf.bdf, "0000:3b:00.2");
	strcpy(s.vf.pf_bdf, "0000:3b:00.0");
	strcpy(s.vf.pf_name, "ens1f0np0");
	s.vf.index = 2;
	strcpy(s.vf.netdev, "ens1f0v2");
	strcpy(s.vf.driver, "mlx5_core");
	strcpy(s.vf.rdma_dev, "mlx5_3");
	s.pf_ifindex = 4;
	s.orig = (struct sr_orig){.pf_known = true,
				  .pf = {.vf = 2,
					 .mac = {2, 0, 0, 0, 0, 9},
					 .vlan = 7,
					 .qos = 1,
					 .vlan_proto = NLW_VLAN_PROTO_8021AD,
					 .spoofchk = -1,
					 .trust = 0,
					 .min_tx_rate = 1,
					 .max_tx_rate = 99,
					 .link_state = NLW_VF_LINK_ENABLE},
				  .ifindex = 12,
				  .mtu = 1500,
				  .mac = {2, 1, 2, 3, 4, 5},
				  .up = true};
	strcpy(s.orig.netdev, "ens1f0v2");
	s.applied = SR_PF_VLAN | SR_PF_TRUST | SR_PF_LINK_STATE;
	s.want = (struct nlw_vf_info){
	    .vf = 2, .vlan = 210, .vlan_proto = NLW_VLAN_PROTO_8021Q, .trust = 1};
	s.pod_mtu = 9000;
	s.pod_ifindex = 12;
	memcpy(s.pod_mac, (unsigned char[6]){0x0a, 0x3b, 0, 0, 2, 1}, 6);
	s.has_ipam = true;
	s.rdma_move = true;
	s.complete = true;
	return s;
}

static void test_round_trip(void **state)
{
	struct sr_state s = sample(), back;
	char *text = sr_state_format(&s);

	(void)state;
	assert_non_null(text);
	assert_int_equal(sr_state_parse(text, strlen(text), &back), 0);
	assert_memory_equal(&s, &back, sizeof(s));
	/* The format is stable (sorted keys) and names what ADD changed. */
	assert_non_null(strstr(text, "\"applied\":[\"vlan\",\"trust\",\"link_state\"]"));
	assert_non_null(strstr(text, "\"version\":1"));
	free(text);
}

static void test_rejects(void **state)
{
	static const char *const bad[][2] = {
	    {"\"version\":1", "\"version\":2"},
	    {"\"containerID\":\"abc123\"", "\"containerID\":\"../x\""},
	    {"\"ifname\":\"rdma0\"", "\"ifname\":\"a/b\""},
	    {"\"deviceID\":\"0000:3b:00.2\"", "\"deviceID\":\"../../etc\""},
	    {"\"vf\":2", "\"vf\":-1"},
	    {"\"applied\":[\"vlan\"", "\"applied\":[\"bogus\""},
	    {"\"vlan\":7", "\"vlan\":4096"},
	    {"\"vlanProto\":34984", "\"vlanProto\":1"},
	    {"\"complete\":true", "\"complete\":1"},
	    {"\"mtu\":9000", "\"mtu\":\"9000\""},
	    {"\"netdevMac\":\"02:01:02:03:04:05\"", "\"netdevMac\":\"xx\""},
	};
	struct sr_state s = sample(), back;
	char *text = sr_state_format(&s);

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[4096], *at = strstr(text, bad[i][0]);

		assert_non_null(at);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, bad[i][1],
			 at + strlen(bad[i][0]));
		if (sr_state_parse(buf, strlen(buf), &back) != -EBADMSG)
			fail_msg("accepted: %s", bad[i][1]);
	}
	assert_int_equal(sr_state_parse("", 0, &back), -EBADMSG);
	assert_int_equal(sr_state_parse("[]", 2, &back), -EBADMSG);
	assert_int_equal(sr_state_parse("{\"a\":1,\"a\":1}", 13, &back), -EBADMSG);
	/* Truncated (a torn write would look like this; the save is atomic). */
	assert_int_equal(sr_state_parse(text, strlen(text) / 2, &back), -EBADMSG);
	free(text);
}

static void test_files(void **state)
{
	char dir[64] = "/tmp/sriov-state.XXXXXX", sub[96], cmd[128];
	struct sr_state s = sample(), back;
	struct stat st;
	int fd, lock1, lock2;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	assert_int_equal(sr_state_dir_open(sub, &fd), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(sr_state_load(fd, s.vf.bdf, &back), -ENOENT);
	assert_int_equal(sr_state_save(fd, &s), 0);
	assert_int_equal(fstatat(fd, "0000:3b:00.2.json", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(fstatat(fd, ".0000:3b:00.2.json.tmp", &st, 0), -1); /* renamed away */
	assert_int_equal(sr_state_load(fd, s.vf.bdf, &back), 0);
	assert_memory_equal(&s, &back, sizeof(s));
	/* Lookup by attachment (DEL without deviceID). */
	assert_int_equal(sr_state_find(fd, "abc123", "rdma0", &back), 0);
	assert_int_equal(sr_state_find(fd, "abc123", "rdma1", &back), -ENOENT);
	/* The per-VF lock excludes a second holder, and is free again once closed. */
	assert_int_equal(sr_state_lock(fd, s.vf.bdf, 0, &lock1), 0);
	assert_int_equal(sr_state_lock(fd, s.vf.bdf, 30, &lock2), -ETIMEDOUT);
	assert_int_equal(sr_state_lock(fd, "0000:3b:00.3", 0, &lock2), 0);
	close(lock2);
	close(lock1);
	assert_int_equal(sr_state_lock(fd, s.vf.bdf, 0, &lock2), 0);
	close(lock2);
	assert_int_equal(sr_state_remove(fd, s.vf.bdf), 0);
	assert_int_equal(sr_state_remove(fd, s.vf.bdf), 0);
	assert_int_equal(sr_state_load(fd, s.vf.bdf, &back), -ENOENT);
	assert_int_equal(sr_state_dir_open("relative", &lock1), -EINVAL);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_rejects),
	    cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
