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

/* ---- the lost-VF record ---- */

static struct sr_lost lost_sample(void)
{
	struct sr_state s = sample();
	struct sr_lost l;

	sr_lost_from_state(&s, 1765000000, "netdev not back in the host (netns gone)", &l);
	return l;
}

/* From the state: what restoring the netdev needs; back to a state: the same fields. */
static void test_lost_from_state(void **state)
{
	struct sr_state s = sample(), back;
	struct sr_lost l = lost_sample();

	(void)state;
	assert_string_equal(l.bdf, "0000:3b:00.2");
	assert_string_equal(l.pf_name, "ens1f0np0");
	assert_int_equal(l.vf_index, 2);
	assert_string_equal(l.container_id, "abc123");
	assert_string_equal(l.ifname, "rdma0");
	assert_string_equal(l.netdev, "ens1f0v2");
	assert_memory_equal(l.mac, s.orig.mac, 6);
	assert_int_equal(l.mtu, 1500);
	assert_true(l.up);
	assert_int_equal(l.ifindex, 12);
	assert_int_equal(l.pod_ifindex, 12);
	assert_string_equal(l.rdma_dev, "mlx5_3");
	sr_lost_to_state(&l, &back);
	assert_string_equal(back.vf.bdf, s.vf.bdf);
	assert_string_equal(back.orig.netdev, s.orig.netdev);
	assert_memory_equal(back.orig.mac, s.orig.mac, 6);
	assert_int_equal(back.orig.mtu, s.orig.mtu);
	assert_int_equal(back.orig.ifindex, s.orig.ifindex);
	assert_int_equal(back.pod_ifindex, s.pod_ifindex);
	assert_string_equal(back.ifname, s.ifname);
	assert_false(back.vf.dpdk);
	assert_int_equal(back.applied, 0);
	/* A device that ADD did not move is not the VF's to wait for. */
	s.rdma_move = false;
	sr_lost_from_state(&s, 1, "x", &l);
	assert_string_equal(l.rdma_dev, "");
}

static void test_lost_round_trip(void **state)
{
	struct sr_lost l = lost_sample(), back;
	char *text = sr_lost_format(&l);

	(void)state;
	assert_non_null(text);
	assert_int_equal(sr_lost_parse(text, strlen(text), &back), 0);
	assert_memory_equal(&l, &back, sizeof(l));
	assert_non_null(strstr(text, "\"lostAt\":1765000000"));
	assert_non_null(strstr(text, "\"netdev\":\"ens1f0v2\""));
	free(text);
}

static void test_lost_rejects(void **state)
{
	static const char *const bad[][2] = {
	    {"\"version\":1", "\"version\":2"},
	    {"\"containerID\":\"abc123\"", "\"containerID\":\"a b\""},
	    {"\"ifname\":\"rdma0\"", "\"ifname\":\"../x\""},
	    {"\"netdev\":\"ens1f0v2\"", "\"netdev\":\"\""},
	    {"\"deviceID\":\"0000:3b:00.2\"", "\"deviceID\":\"../../etc\""},
	    {"\"mac\":\"02:01:02:03:04:05\"", "\"mac\":\"zz\""},
	    {"\"mtu\":1500", "\"mtu\":70000"},
	    {"\"up\":true", "\"up\":1"},
	    {"\"lostAt\":1765000000", "\"lostAt\":-1"},
	    {"\"vf\":2", "\"vf\":4096"},
	};
	struct sr_lost l = lost_sample(), back;
	char *text = sr_lost_format(&l);

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[4096], *at = strstr(text, bad[i][0]);

		assert_non_null(at);
		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - text), text, bad[i][1],
			 at + strlen(bad[i][0]));
		if (sr_lost_parse(buf, strlen(buf), &back) != -EBADMSG)
			fail_msg("accepted: %s", bad[i][1]);
	}
	assert_int_equal(sr_lost_parse("", 0, &back), -EBADMSG);
	assert_int_equal(sr_lost_parse("{}", 2, &back), -EBADMSG);
	assert_int_equal(sr_lost_parse(text, strlen(text) - 1, &back), -EBADMSG);
	/* A state record is not a lost record. */
	free(text);
	{
		struct sr_state s = sample();

		text = sr_state_format(&s);
		assert_int_equal(sr_lost_parse(text, strlen(text), &back), -EBADMSG);
		free(text);
	}
}

static void test_lost_files(void **state)
{
	char dir[64] = "/tmp/sriov-lost.XXXXXX", cmd[128];
	struct sr_lost l = lost_sample(), back;
	struct sr_state s = sample(), sback;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sr_state_dir_open(dir, &fd), 0);
	assert_int_equal(sr_lost_load(fd, l.bdf, &back), -ENOENT); /* no lost/ yet */
	assert_int_equal(sr_lost_remove(fd, l.bdf), 0);
	assert_int_equal(sr_lost_save(fd, &l), 0);
	assert_int_equal(fstatat(fd, "lost", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(fstatat(fd, "lost/0000:3b:00.2.json", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(sr_lost_load(fd, l.bdf, &back), 0);
	assert_memory_equal(&l, &back, sizeof(l));
	assert_int_equal(sr_lost_load(fd, "0000:3b:00.3", &back), -ENOENT);
	assert_int_equal(sr_lost_load(fd, "../x", &back), -EINVAL);
	/* The lost record is not a state record: lookups by attachment do not see it. */
	assert_int_equal(sr_state_find(fd, "abc123", "rdma0", &sback), -ENOENT);
	assert_int_equal(sr_state_save(fd, &s), 0);
	assert_int_equal(sr_state_find(fd, "abc123", "rdma0", &sback), 0);
	assert_int_equal(sr_lost_remove(fd, l.bdf), 0);
	assert_int_equal(sr_lost_load(fd, l.bdf, &back), -ENOENT);
	assert_int_equal(sr_lost_remove(fd, l.bdf), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),	    cmocka_unit_test(test_rejects),
	    cmocka_unit_test(test_files),	    cmocka_unit_test(test_lost_from_state),
	    cmocka_unit_test(test_lost_round_trip), cmocka_unit_test(test_lost_rejects),
	    cmocka_unit_test(test_lost_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
