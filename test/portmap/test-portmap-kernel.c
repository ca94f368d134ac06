/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pwnft portmap against the real nf_tables, inside a private network
 * namespace (root): the largest attachment, a repeated ADD (replace path),
 * CHECK, a clash with another attachment, a stale DEL, DEL, GC.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "portmap.h"
#include "pwnft/portmap.h"

#define N_PORTS (2 * PORTMAP_MAX_MAPPINGS)

static int setup(void **state)
{
	struct pw_nft *nft = NULL;

	/* A fresh netns for the whole process: nothing of the host is touched. */
	if (unshare(CLONE_NEWNET) < 0)
		return -1;
	if (pw_nft_open(&nft) < 0)
		return -1;
	*state = nft;
	return 0;
}

static int teardown(void **state)
{
	pw_nft_free(*state);
	return 0;
}

/* The largest attachment: every entry in both families, snat and masqAll. */
static void fill(struct pw_nft_hostport *p, uint16_t base)
{
	for (size_t i = 0; i < N_PORTS; i++) {
		bool v4 = i < PORTMAP_MAX_MAPPINGS;

		memset(&p[i], 0, sizeof(p[i]));
		assert_int_equal(
		    ip_addr_parse(v4 ? "10.0.0.5" : "fd00::5", &p[i].family, &p[i].pod_ip), 0);
		p[i].proto = i % 2 ? IPPROTO_UDP : IPPROTO_TCP;
		p[i].host_port = (uint16_t)(base + i);
		p[i].container_port = (uint16_t)(2000 + i);
		p[i].has_host_ip = i % 3 == 0;
		p[i].host_ip = p[i].pod_ip;
	}
}

static bool keep_none(const char *cid, const char *ifname, void *userdata)
{
	(void)cid;
	(void)ifname;
	(void)userdata;
	return false;
}

static void test_lifecycle(void **state)
{
	struct pw_nft *nft = *state;
	struct pw_nft_hostport p[N_PORTS], q[1];
	struct pw_nft_portmap pm = {.network = "net",
				    .container_id = "c1",
				    .ifname = "eth0",
				    .ports = p,
				    .n_ports = N_PORTS,
				    .snat = true,
				    .masq_all = true};
	struct pw_nft_portmap other = pm;
	char owner[PW_NFT_PORTMAP_TAG_MAX + 1] = "";
	size_t which = 99;

	fill(p, 1000);
	assert_int_equal(pw_nft_portmap_add(nft, &pm, owner, &which), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &pm, &which), 1);
	/* a repeated ADD replaces the attachment's own elements */
	assert_int_equal(pw_nft_portmap_add(nft, &pm, owner, &which), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &pm, &which), 1);
	/* another attachment claiming host port 1005: refused, nothing added */
	q[0] = p[5];
	q[0].container_port = 7;
	other.container_id = "c2";
	other.ports = q;
	other.n_ports = 1;
	assert_int_equal(pw_nft_portmap_add(nft, &other, owner, &which), -EEXIST);
	assert_string_equal(owner, "net/c1/eth0");
	assert_int_equal(which, 0);
	assert_int_equal(pw_nft_portmap_check(nft, &other, NULL), 0);
	/* c2's DEL (stale) leaves c1's elements */
	assert_int_equal(pw_nft_portmap_del(nft, &other), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &pm, &which), 1);
	/* a changed container port is noticed */
	p[3].container_port = 9;
	assert_int_equal(pw_nft_portmap_check(nft, &pm, &which), 0);
	assert_int_equal(which, 3);
	p[3].container_port = 2003;
	assert_int_equal(pw_nft_portmap_del(nft, &pm), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &pm, &which), 0);
	assert_int_equal(pw_nft_portmap_del(nft, &pm), 0); /* idempotent */
}

static void test_del_by_tag_and_gc(void **state)
{
	struct pw_nft *nft = *state;
	struct pw_nft_hostport p[N_PORTS];
	struct pw_nft_portmap a = {.network = "gcnet",
				   .container_id = "a",
				   .ifname = "eth0",
				   .ports = p,
				   .n_ports = 2,
				   .snat = true};
	struct pw_nft_portmap b = a, scan = a;

	fill(p, 3000);
	assert_int_equal(pw_nft_portmap_add(nft, &a, NULL, NULL), 0);
	b.container_id = "b";
	b.ports = p + 2;
	assert_int_equal(pw_nft_portmap_add(nft, &b, NULL, NULL), 0);
	/* DEL without ports: scan for a's tag */
	scan.n_ports = 0;
	assert_int_equal(pw_nft_portmap_del(nft, &scan), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &a, NULL), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &b, NULL), 1);
	/* GC of another network leaves b; GC of gcnet removes b's elements */
	assert_int_equal(pw_nft_portmap_gc(nft, "othernet", keep_none, NULL), 0);
	assert_int_equal(pw_nft_portmap_check(nft, &b, NULL), 1);
	assert_true(pw_nft_portmap_gc(nft, "gcnet", keep_none, NULL) > 0);
	assert_int_equal(pw_nft_portmap_check(nft, &b, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lifecycle),
	    cmocka_unit_test(test_del_by_tag_and_gc),
	};

	return cmocka_run_group_tests_name("portmap-kernel", tests, setup, teardown);
}
