/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nodelay.c: the cgroup v2 mount and own-cgroup parsers, and the shape of
 * the sock_ops program (every jump inside it, one call, ends in exit).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nodelay.h"

#define HYBRID                                                                                     \
	"24 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"                                            \
	"30 24 0:26 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"                               \
	"31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid shared:9 - cgroup2 cgroup2 rw\n"            \
	"32 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"

static void test_cgroup2_mount(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(pwn_cgroup2_mount(HYBRID, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/unified");
	/* unified only, no optional fields, last line without a newline */
	assert_int_equal(pwn_cgroup2_mount("29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw",
					   buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/sys/fs/cgroup");
	/* octal escapes in the mount point */
	assert_int_equal(
	    pwn_cgroup2_mount("5 1 0:3 / /mnt/cg\\040two rw - cgroup2 none rw\n", buf, sizeof(buf)),
	    0);
	assert_string_equal(buf, "/mnt/cg two");
	/* "cgroup" (v1) and an fstype that only starts with cgroup2 are not it */
	assert_int_equal(pwn_cgroup2_mount("32 30 0:28 / /cg rw - cgroup cgroup rw\n"
					   "33 30 0:29 / /x rw - cgroup2x none rw\n",
					   buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(pwn_cgroup2_mount("", buf, sizeof(buf)), -ENOENT);
	/* a line cut before the separator */
	assert_int_equal(pwn_cgroup2_mount("31 30 0:27 /\n", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(pwn_cgroup2_mount(HYBRID, buf, 10), -ENAMETOOLONG);
}

static void test_cgroup_self_path(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(pwn_cgroup_self_path("12:cpu:/a\n1:name=systemd:/b\n0::/user.slice/x\n",
					      buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/user.slice/x");
	assert_int_equal(pwn_cgroup_self_path("0::/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(pwn_cgroup_self_path("12:cpu:/a\n", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(pwn_cgroup_self_path("0::relative\n", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(pwn_cgroup_self_path("0::/abcdefgh\n", buf, 9), -ENAMETOOLONG);
}

static void test_prog_shape(void **state)
{
	struct bpf_insn p[PWN_NODELAY_MAX_INSNS];
	size_t n = pwn_nodelay_prog(p, PWN_NODELAY_MAX_INSNS), calls = 0;

	(void)state;
	assert_true(n > 4);
	assert_int_equal(p[n - 1].code, BPF_JMP | BPF_EXIT);
	/* r0 = 1 before exit: the socket operation goes on as usual */
	assert_int_equal(p[n - 2].code, BPF_ALU64 | BPF_MOV | BPF_K);
	assert_int_equal(p[n - 2].dst_reg, BPF_REG_0);
	assert_int_equal(p[n - 2].imm, 1);
	for (size_t i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(p[i].code);

		if (p[i].code == (BPF_JMP | BPF_CALL)) {
			assert_int_equal(p[i].imm, BPF_FUNC_setsockopt);
			calls++;
		} else if ((cls == BPF_JMP || cls == BPF_JMP32) &&
			   p[i].code != (BPF_JMP | BPF_EXIT)) {
			long target = (long)i + 1 + p[i].off;
			assert_true(p[i].off > 0);
			assert_true(target < (long)n);
		}
	}
	assert_int_equal(calls, 1);
	/* too small a buffer: nothing */
	assert_int_equal(pwn_nodelay_prog(p, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cgroup2_mount),
	    cmocka_unit_test(test_cgroup_self_path),
	    cmocka_unit_test(test_prog_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
