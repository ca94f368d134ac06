/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-inspect: the state-file parsers, the directory scans (bad files
 * reported per file), the RDMA sysfs reader, leak decisions and the outputs,
 * all without netlink (fixtures in test/podwire-inspect/fixtures).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/codec.h"
#include "cni/runtime.h"
#include "inspect.h"

static struct pi_options fixture_opts(void)
{
	return (struct pi_options){
	    .cache_dir = FIXTURES "/cache",
	    .multinet_dir = FIXTURES "/multinet",
	    .state_dir = FIXTURES "/sriov",
	    .lease_dir = FIXTURES "/ipam",
	    .sysfs_root = FIXTURES "/sys",
	};
}

/* Sources, leaks, RDMA: what the tool does with --no-netlink. */
static void collect(struct pi_inv *inv, const struct pi_options *o)
{
	pi_inv_init(inv);
	assert_int_equal(pi_read_sources(inv, o), 0);
	assert_int_equal(pi_rdma_scan(inv, o->sysfs_root), 0);
	assert_int_equal(pi_find_leaks(inv), 0);
	assert_int_equal(pi_find_lease_leaks(inv, o->lease_dir), 0);
	pi_inv_sort(inv);
}

static void test_lease_parse(void **state)
{
	static const struct {
		const char *in;
		int r;
		const char *cid, *ifname;
	} v[] = {
	    {"abc\r\neth0", 0, "abc", "eth0"},
	    {"abc\neth0\n", 0, "abc", "eth0"},
	    {"abc", 0, "abc", NULL},
	    {"abc\r\n", 0, "abc", NULL},
	    {"", -EINVAL, NULL, NULL},
	    {"\r\neth0", -EINVAL, NULL, NULL},
	    {"a b\r\neth0", -EINVAL, NULL, NULL},
	    {"abc\r\neth0/x", -EINVAL, NULL, NULL},
	    {"abc\r\nifnamethatistoolong", -EINVAL, NULL, NULL},
	    {"ab\x01"
	     "c\r\neth0",
	     -EINVAL, NULL, NULL},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *cid = NULL, *ifname = NULL;
		int r = pi_parse_lease(v[i].in, strlen(v[i].in), &cid, &ifname);

		if (r != v[i].r)
			fail_msg("lease %zu: r=%d want %d", i, r, v[i].r);
		if (r == 0) {
			assert_string_equal(cid, v[i].cid);
			if (v[i].ifname)
				assert_string_equal(ifname, v[i].ifname);
			else
				assert_null(ifname);
		}
		free(cid);
		free(ifname);
	}
}

static void test_sriov_record(void **state)
{
	const char *good =
	    "{\"version\":1,\"containerID\":\"c1\",\"ifname\":\"net1\","
	    "\"deviceID\":\"0000:3b:00.2\",\"network\":\"rail-a\",\"netns\":\"/x\","
	    "\"pf\":{\"bdf\":\"0000:3b:00.0\",\"name\":\"ens1\"},\"rdmaDevice\":\"mlx5_3\","
	    "\"complete\":true}";
	static const char *const bad[] = {
	    "{\"version\":2,\"containerID\":\"c1\",\"ifname\":\"net1\",\"deviceID\":\"d\"}",
	    "{\"version\":1,\"ifname\":\"net1\",\"deviceID\":\"d\"}",
	    "{\"version\":1,\"containerID\":\"../etc\",\"ifname\":\"net1\",\"deviceID\":\"d\"}",
	    "{\"version\":1,\"containerID\":\"c\",\"ifname\":\"net1\"}",
	    "{\"version\":1,\"version\":1}",
	    "[1,2]",
	    "{\"version\":1,",
	};
	struct pi_inv inv;
	struct pi_att *a;

	(void)state;
	pi_inv_init(&inv);
	assert_int_equal(pi_parse_sriov(&inv, good, strlen(good), "s.json"), 0);
	assert_int_equal(inv.n_atts, 1);
	a = &inv.atts[0];
	assert_string_equal(a->container_id, "c1");
	assert_string_equal(a->vf_pci, "0000:3b:00.2");
	assert_string_equal(a->pf, "ens1");
	assert_string_equal(a->rdma_dev, "mlx5_3");
	assert_string_equal(a->network, "rail-a");
	assert_false(a->sriov_incomplete);
	assert_int_equal(a->sources, PI_SRC_SRIOV);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pi_parse_sriov(&inv, bad[i], strlen(bad[i]), "bad.json"), 0);
	assert_int_equal(inv.n_atts, 1);
	assert_int_equal(inv.n_errors, sizeof(bad) / sizeof(bad[0]));
	assert_string_equal(inv.errors[0].path, "bad.json");
	pi_inv_done(&inv);
}

static void test_sriov_lost_record(void **state)
{
	const char *good =
	    "{\"version\":1,\"deviceID\":\"0000:3b:00.4\",\"pf\":\"ens1\",\"vf\":4,"
	    "\"containerID\":\"c1\",\"ifname\":\"net1\",\"network\":\"rail-a\",\"netns\":\"/x\","
	    "\"netdev\":\"ens1v4\",\"ifindex\":9,\"podIfindex\":9,\"mac\":\"02:00:00:00:00:04\","
	    "\"mtu\":1500,\"up\":true,\"rdmaDevice\":\"\",\"lostAt\":0,\"reason\":\"why\"}";
	static const char *const bad[] = {
	    "{\"version\":2,\"deviceID\":\"0000:3b:00.4\",\"containerID\":\"c\",\"ifname\":\"n\"}",
	    "{\"version\":1,\"deviceID\":\"0000:3b:00.4\",\"containerID\":\"c\"}",
	    "{\"version\":1,\"containerID\":\"a b\",\"ifname\":\"net1\"}",
	    "[]",
	    "{",
	};
	struct pi_inv inv;
	const struct pi_lost_vf *l;

	(void)state;
	pi_inv_init(&inv);
	assert_int_equal(pi_parse_sriov_lost(&inv, good, strlen(good), "l.json"), 0);
	assert_int_equal(inv.n_lost, 1);
	assert_int_equal(inv.n_atts, 0); /* a lost VF is no attachment */
	l = &inv.lost[0];
	assert_string_equal(l->pci, "0000:3b:00.4");
	assert_string_equal(l->pf, "ens1");
	assert_int_equal(l->vf, 4);
	assert_string_equal(l->netdev, "ens1v4");
	assert_string_equal(l->mac, "02:00:00:00:00:04");
	assert_int_equal(l->mtu, 1500);
	assert_string_equal(l->container_id, "c1");
	assert_string_equal(l->ifname, "net1");
	assert_string_equal(l->reason, "why");
	assert_string_equal(l->file, "l.json");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pi_parse_sriov_lost(&inv, bad[i], strlen(bad[i]), "bad.json"), 0);
	assert_int_equal(inv.n_lost, 1);
	assert_int_equal(inv.n_errors, sizeof(bad) / sizeof(bad[0]));
	pi_inv_done(&inv);
}

static void test_multinet_entry(void **state)
{
	const char *doc =
	    "{\"kind\":\"multinetCacheV1\",\"containerId\":\"c9\",\"netns\":\"/n\","
	    "\"pod\":{\"namespace\":\"ns\",\"name\":\"p\",\"uid\":\"u\"},\"delegates\":["
	    "{\"ifname\":\"eth0\",\"state\":\"added\",\"config\":{\"name\":\"cluster\","
	    "\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"portmap\"}]},\"result\":{"
	    "\"interfaces\":[{\"name\":\"br0\"},{\"name\":\"veth1\"},{\"name\":\"eth0\","
	    "\"mac\":\"0a:00:00:00:00:01\",\"sandbox\":\"/n\"}],\"ips\":[{\"address\":\"10.0.0.2/"
	    "24\"}]}},"
	    "{\"ifname\":\"net1\",\"state\":\"pending\",\"deviceID\":\"0000:01:00.1\","
	    "\"config\":{\"name\":\"rail\",\"type\":\"sriov-rdma\"}},"
	    "{\"state\":\"added\"}, 5]}";
	struct pi_inv inv;
	struct pi_att *a;

	(void)state;
	pi_inv_init(&inv);
	assert_int_equal(pi_parse_multinet(&inv, doc, strlen(doc), "m"), 0);
	assert_int_equal(inv.n_atts, 2);
	a = pi_inv_find(&inv, "c9", "eth0");
	assert_non_null(a);
	assert_string_equal(a->network, "cluster");
	assert_int_equal(a->n_plugins, 3);
	assert_string_equal(a->plugins[0], "multinet");
	assert_string_equal(a->plugins[2], "portmap");
	assert_string_equal(a->pod_name, "p");
	assert_string_equal(a->mac, "0a:00:00:00:00:01");
	assert_string_equal(a->bridge, "br0");
	assert_string_equal(a->host_ifname, "veth1");
	assert_string_equal(a->ips[0], "10.0.0.2/24");
	assert_int_equal(a->n_problems, 0);
	a = pi_inv_find(&inv, "c9", "net1");
	assert_non_null(a);
	assert_string_equal(a->vf_pci, "0000:01:00.1");
	assert_int_equal(a->n_problems, 1);
	/* two bad delegates, each reported */
	assert_int_equal(inv.n_errors, 2);
	/* wrong kind, not JSON */
	assert_int_equal(pi_parse_multinet(&inv, "{\"kind\":\"x\"}", 12, "m2"), 0);
	assert_int_equal(pi_parse_multinet(&inv, "{", 1, "m3"), 0);
	assert_int_equal(inv.n_errors, 4);
	pi_inv_done(&inv);
}

/* multinet appends its updates: the folded entry is what counts. */
static void test_multinet_journal(void **state)
{
	const char *doc =
	    "{\"kind\":\"multinetCacheV1\",\"containerId\":\"c9\",\"delegates\":["
	    "{\"ifname\":\"eth0\",\"state\":\"pending\",\"config\":{\"name\":\"cluster\","
	    "\"type\":\"bridge\"}}]}\n"
	    "{\"index\":0,\"value\":{\"ifname\":\"eth0\",\"state\":\"added\",\"config\":{"
	    "\"name\":\"cluster\",\"type\":\"bridge\"},\"result\":{\"ips\":[{\"address\":"
	    "\"10.0.0.2/24\"}]}}}\n"
	    "{\"index\":0,\"value\":{\"ifname\":\"torn";
	struct pi_inv inv;
	struct pi_att *a;

	(void)state;
	pi_inv_init(&inv);
	assert_int_equal(pi_parse_multinet(&inv, doc, strlen(doc), "m"), 0);
	assert_int_equal(inv.n_atts, 1);
	assert_int_equal(inv.n_errors, 0);
	a = pi_inv_find(&inv, "c9", "eth0");
	assert_non_null(a);
	assert_string_equal(a->ips[0], "10.0.0.2/24");
	assert_int_equal(a->n_problems, 0);
	pi_inv_done(&inv);
}

/* The runtime's entry (chain "multinet") is re-labelled by multinet's cache. */
static void test_multinet_over_runtime_cache(void **state)
{
	const char *conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"mn\",\"plugins\":[{\"type\":"
			   "\"multinet\"}]}";
	_cleanup_free_ char *b64 = b64_encode_dup(conf, strlen(conf));
	_cleanup_free_ char *entry = NULL;
	const char *mn =
	    "{\"kind\":\"multinetCacheV1\",\"containerId\":\"c1\",\"delegates\":["
	    "{\"ifname\":\"eth0\",\"state\":\"added\",\"config\":{\"name\":\"cluster\","
	    "\"type\":\"bridge\"}}]}";
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	struct pi_inv inv;
	struct pi_att *a;

	(void)state;
	pi_inv_init(&inv);
	inv.keep_cache = true;
	assert_true(asprintf(&entry,
			     "{\"kind\":\"cniCacheV1\",\"containerId\":\"c1\",\"ifName\":\"eth0\","
			     "\"networkName\":\"mn\",\"config\":\"%s\"}",
			     b64) > 0);
	assert_int_equal(cni_cache_entry_parse(entry, strlen(entry), "e", &e, &err), 0);
	assert_int_equal(pi_merge_cache_entry(&inv, e, "/c/results/mn-c1-eth0"), 0);
	a = pi_inv_find(&inv, "c1", "eth0");
	assert_string_equal(a->network, "mn");
	assert_int_equal(a->n_plugins, 1);
	assert_int_equal(pi_parse_multinet(&inv, mn, strlen(mn), "/m/c1"), 0);
	a = pi_inv_find(&inv, "c1", "eth0");
	assert_string_equal(a->network, "cluster");
	assert_int_equal(a->n_plugins, 2);
	assert_string_equal(a->plugins[0], "multinet");
	assert_string_equal(a->plugins[1], "bridge");
	assert_int_equal(a->sources, PI_SRC_CACHE | PI_SRC_MULTINET);
	assert_int_equal(a->n_files, 2);
	assert_non_null(a->cache); /* kept for --check */
	pi_inv_done(&inv);
}

static void test_fixture_tree(void **state)
{
	struct pi_options o = fixture_opts();
	struct pi_inv inv;
	struct pi_att *a;
	const struct pi_counter *c;

	(void)state;
	collect(&inv, &o);
	assert_int_equal(inv.n_errors, 0);
	assert_int_equal(inv.n_atts, 5);
	a = pi_inv_find(&inv, "c0ffee00web", "eth0");
	assert_non_null(a);
	assert_string_equal(a->pod_namespace, "shop");
	assert_string_equal(a->pod_name, "web-0");
	assert_string_equal(a->pod_uid, "u-1");
	assert_string_equal(a->network, "pw");
	assert_int_equal(a->n_plugins, 2);
	assert_string_equal(a->host_ifname, "veth0a1b2c3d");
	assert_string_equal(a->bridge, "cni0");
	assert_string_equal(a->netns, "/var/run/netns/fixture-web");
	a = pi_inv_find(&inv, "beef00train", "rdma0");
	assert_non_null(a);
	assert_int_equal(a->sources, PI_SRC_MULTINET | PI_SRC_SRIOV);
	assert_string_equal(a->rdma_dev, "mlx5_3");
	assert_string_equal(a->pf, "ens1f0np0");
	assert_int_equal(a->n_rdma_ports, 1);
	assert_string_equal(a->rdma_ports[0].state, "4: ACTIVE");
	c = pi_counters_find(&a->rdma_ports[0].hw_counters, "out_of_sequence");
	assert_non_null(c);
	assert_int_equal(c->value, 14);
	assert_null(pi_counters_find(&a->rdma_ports[0].hw_counters, "lifespan"));
	assert_null(pi_counters_find(&a->rdma_ports[0].hw_counters, "garbage"));
	assert_int_equal(a->rdma_ports[0].counters.n, 4);
	assert_string_equal(a->rdma_ports[0].counters.v[0].name, "port_rcv_data"); /* sorted */
	/* leaks: the orphaned sriov record and the lease of no attachment */
	assert_int_equal(inv.n_leaks, 2);
	assert_string_equal(inv.leaks[0].kind, "sriov-state");
	assert_string_equal(inv.leaks[0].container_id, "dead00gone");
	assert_string_equal(inv.leaks[1].kind, "lease");
	assert_string_equal(inv.leaks[1].object, FIXTURES "/ipam/pw/10.97.0.6");
	/* the lost VF (stateDir lost/) is listed on its own, not as an attachment */
	assert_int_equal(inv.n_lost, 1);
	assert_string_equal(inv.lost[0].pci, "0000:3b:00.4");
	assert_string_equal(inv.lost[0].container_id, "f00d00lost");
	assert_string_equal(inv.lost[0].netdev, "ens1f0v4");
	assert_int_equal(inv.lost[0].lost_at, 1765135800);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		pi_print_table(f, &inv, false);
		fclose(f);
		assert_non_null(strstr(buf, "LOST-VF"));
		assert_non_null(strstr(buf, "0000:3b:00.4  ens1f0np0  4    ens1f0v4        "
					    "02:00:00:00:3b:04 1500  f00d00lost/net1          "
					    "2025-12-07T19:30:00Z netdev not back"));
		free(buf);
	}
	/* sorted by pod: the podless orphan first, then ml/..., then shop/... */
	assert_string_equal(inv.atts[0].container_id, "dead00gone");
	assert_string_equal(inv.atts[4].pod_namespace, "shop");
	pi_inv_done(&inv);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void write_file(const char *dir, const char *name, const char *content)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	free(path);
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* Bad files: one error each, the scan goes on, nothing else changes. */
static void test_bad_files(void **state)
{
	char root[] = "/tmp/pwi-test.XXXXXX";
	char dir[512];
	struct pi_options o;
	struct pi_inv inv;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/results", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	write_file(dir, "n-a-eth0", "{\"kind\":\"cniCacheV1\"");
	write_file(dir, "n-b-eth0", "{\"kind\":\"cniCacheV1\",\"containerId\":\"b\"}");
	write_file(dir, "n-c-eth0",
		   "{\"kind\":\"cniCacheV1\",\"containerId\":\"c\",\"ifName\":"
		   "\"eth0\",\"networkName\":\"n\",\"config\":\"!!!\"}");
	write_file(dir, ".n-d-eth0.tmp", "garbage"); /* an atomic write in progress: skipped */
	snprintf(dir, sizeof(dir), "%s/results/subdir", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	o = (struct pi_options){.cache_dir = root,
				.multinet_dir = root,
				.state_dir = "/nonexistent-pwi",
				.lease_dir = "/nonexistent-pwi",
				.sysfs_root = "/nonexistent-pwi"};
	pi_inv_init(&inv);
	assert_int_equal(pi_read_sources(&inv, &o), 0);
	assert_int_equal(inv.n_atts, 0);
	/* 3 bad cache files; the multinet scan of the same root sees "results" as a dir */
	assert_int_equal(inv.n_errors, 3);
	for (size_t i = 0; i < inv.n_errors; i++)
		assert_non_null(strstr(inv.errors[i].path, "/results/n-"));
	pi_inv_done(&inv);
	assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_rdma_missing_device(void **state)
{
	struct pi_att a = {.rdma_dev = (char *)"mlx5_9"};

	(void)state;
	assert_int_equal(pi_rdma_read(&a, FIXTURES "/sys"), 0);
	assert_int_equal(a.n_rdma_ports, 0);
	assert_non_null(a.rdma_error);
	assert_non_null(strstr(a.rdma_error, "exclusive mode"));
	free(a.rdma_error);
}

static char *capture(void (*fn)(FILE *, const struct pi_inv *), const struct pi_inv *inv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, inv);
	fclose(f);
	return buf;
}

static void test_prometheus_escaping(void **state)
{
	struct pi_inv inv;
	struct pi_att *a;
	char *out;

	(void)state;
	pi_inv_init(&inv);
	a = pi_inv_get(&inv, "c1", "eth0");
	a->pod_namespace = strdup("ns");
	a->pod_name = strdup("we\"ird\\na\nme");
	a->network = strdup("n");
	a->has_pod_stats = true;
	a->pod_stats.rx_bytes = 18446744073709551615ull;
	out = capture(pi_print_prometheus, &inv);
	assert_non_null(strstr(out, "pod=\"ns/we\\\"ird\\\\na\\nme\""));
	assert_non_null(strstr(out, "end=\"pod\"} 18446744073709551615\n"));
	assert_non_null(strstr(out, "# TYPE podwire_attachment_rx_bytes_total counter\n"));
	assert_null(strstr(out, "end=\"host\""));
	free(out);
	pi_inv_done(&inv);
}

static void test_json_document(void **state)
{
	struct pi_options o = fixture_opts();
	struct pi_inv inv;
	json_t *doc, *atts, *a;

	(void)state;
	collect(&inv, &o);
	doc = pi_json(&inv, true);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")),
			    "podwire-inspect/v1");
	atts = json_object_get(doc, "attachments");
	assert_int_equal(json_array_size(atts), 5);
	a = json_array_get(atts, 4);
	assert_string_equal(json_string_value(json_object_get(a, "containerId")), "c0ffee00web");
	assert_true(json_is_null(json_object_get(json_object_get(a, "counters"), "pod")));
	assert_string_equal(json_string_value(json_object_get(a, "netnsState")), "unknown");
	assert_int_equal(json_array_size(json_object_get(doc, "leaks")), 2);
	a = json_array_get(json_object_get(doc, "lostVfs"), 0);
	assert_string_equal(json_string_value(json_object_get(a, "pci")), "0000:3b:00.4");
	assert_string_equal(json_string_value(json_object_get(a, "lostAt")),
			    "2025-12-07T19:30:00Z");
	assert_int_equal(json_integer_value(json_object_get(a, "mtu")), 1500);
	{
		/* the text built piece by piece is the same document */
		char *text = pi_json_text(&inv, true);
		json_t *back = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;

		assert_non_null(back);
		assert_true(json_equal(back, doc));
		json_decref(back);
		free(text);
	}
	json_decref(doc);
	pi_inv_done(&inv);
}

static void test_json_text_empty(void **state)
{
	struct pi_inv inv;
	char *text;
	json_t *back;

	(void)state;
	pi_inv_init(&inv);
	text = pi_json_text(&inv, true);
	back = json_loads(text, 0, NULL);
	assert_non_null(back);
	assert_int_equal(json_array_size(json_object_get(back, "attachments")), 0);
	json_decref(back);
	free(text);
}

static void test_rates(void **state)
{
	struct pi_inv x, y;
	json_t *doc, *r;

	(void)state;
	pi_inv_init(&x);
	pi_inv_init(&y);
	pi_inv_get(&x, "c", "eth0")->has_pod_stats = true;
	x.atts[0].pod_stats.rx_bytes = 1000;
	pi_inv_get(&y, "c", "eth0")->has_pod_stats = true;
	y.atts[0].pod_stats.rx_bytes = 3000;
	y.atts[0].pod_stats.tx_bytes = 5; /* counter reset shows 0, never negative */
	x.atts[0].pod_stats.tx_bytes = 10;
	doc = pi_rates_json(&x, &y, 2.0);
	r = json_object_get(json_array_get(json_object_get(doc, "attachments"), 0), "rates");
	assert_true(json_real_value(json_object_get(r, "rx_bytes")) == 1000.0);
	assert_true(json_real_value(json_object_get(r, "tx_bytes")) == 0.0);
	json_decref(doc);
	pi_inv_done(&x);
	pi_inv_done(&y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lease_parse),
	    cmocka_unit_test(test_sriov_record),
	    cmocka_unit_test(test_sriov_lost_record),
	    cmocka_unit_test(test_multinet_entry),
	    cmocka_unit_test(test_multinet_journal),
	    cmocka_unit_test(test_multinet_over_runtime_cache),
	    cmocka_unit_test(test_fixture_tree),
	    cmocka_unit_test(test_bad_files),
	    cmocka_unit_test(test_rdma_missing_device),
	    cmocka_unit_test(test_prometheus_escaping),
	    cmocka_unit_test(test_json_document),
	    cmocka_unit_test(test_json_text_empty),
	    cmocka_unit_test(test_rates),
	};

	return cmocka_run_group_tests_name("podwire-inspect", tests, NULL, NULL);
}
