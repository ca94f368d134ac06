/* SPDX-License-Identifier: Apache-2.0 */
/*
 * multinet's parsers and decisions: configuration defaults, the networks
 * annotation (both forms, every key, invalid input), kubeconfig, the device
 * checkpoint (both forms), network-status entries, the cache round trip,
 * delegate normalisation and default-route result edits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "multinet.h"

static json_t *js(const char *text)
{
	json_t *v = json_loads(text, 0, NULL);

	assert_non_null(v);
	return v;
}

/* ---- configuration ---- */

static void test_conf_defaults(void **state)
{
	json_t *root = js("{\"cniVersion\":\"1.0.0\",\"name\":\"m\",\"type\":\"multinet\","
			  "\"clusterNetwork\":\"k8s-pod-network\"}");
	struct cni_error err = {0};
	struct mn_conf c;

	(void)state;
	assert_int_equal(mn_conf_parse(root, true, &c, &err), 0);
	assert_string_equal(c.cni_dir, "/var/lib/cni/multinet");
	assert_string_equal(c.conf_dir, "/etc/cni/multus/net.d");
	assert_string_equal(c.bin_dir, "/opt/cni/bin");
	assert_string_equal(c.multus_namespace, "kube-system");
	assert_string_equal(c.device_checkpoint, MN_DEFAULT_CHECKPOINT);
	assert_string_equal(c.device_info_dir, "/var/run/k8s.cni.cncf.io/devinfo/dp");
	assert_int_equal(c.system_namespaces.n, 1);
	assert_string_equal(c.system_namespaces.v[0], "kube-system");
	assert_int_equal(c.global_namespaces.n, 1);
	assert_string_equal(c.global_namespaces.v[0], "default");
	assert_true(c.log_to_stderr);
	assert_false(c.namespace_isolation);
	assert_null(c.kubeconfig);
	mn_conf_done(&c);
	json_decref(root);
}

static void test_conf_keys(void **state)
{
	json_t *root =
	    js("{\"name\":\"m\",\"clusterNetwork\":\"x\",\"globalNamespaces\":\" a , b \","
	       "\"systemNamespaces\":[\"s1\",\"s2\"],\"namespaceIsolation\":true,"
	       "\"cniDir\":\"/c\",\"defaultNetworks\":[\"d1\"]}");
	struct cni_error err = {0};
	struct mn_conf c;

	(void)state;
	assert_int_equal(mn_conf_parse(root, true, &c, &err), 0);
	assert_int_equal(c.global_namespaces.n, 2);
	assert_string_equal(c.global_namespaces.v[0], "a");
	assert_string_equal(c.global_namespaces.v[1], "b");
	assert_true(mn_strv_contains(&c.system_namespaces, "s2"));
	assert_false(mn_strv_contains(&c.system_namespaces, "kube-system"));
	assert_true(c.namespace_isolation);
	assert_string_equal(c.cni_dir, "/c");
	assert_int_equal(c.default_networks.n, 1);
	mn_conf_done(&c);
	json_decref(root);
}

static void test_conf_errors(void **state)
{
	const char *bad[] = {
	    "{\"name\":\"m\"}",
	    "{\"name\":\"m\",\"clusterNetwork\":5}",
	    "{\"name\":\"m\",\"delegates\":[]}",
	    "{\"name\":\"m\",\"clusterNetwork\":\"x\",\"namespaceIsolation\":\"yes\"}",
	    "{\"name\":\"m\",\"clusterNetwork\":\"x\",\"systemNamespaces\":[1]}",
	};
	const char *key[] = {"clusterNetwork", "clusterNetwork", "delegates", "namespaceIsolation",
			     "systemNamespaces"};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *root = js(bad[i]);
		struct cni_error err = {0};
		struct mn_conf c;

		assert_true(mn_conf_parse(root, true, &c, &err) < 0);
		assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
		assert_non_null(strstr(err.msg, key[i]));
		mn_conf_done(&c);
		cni_error_done(&err);
		json_decref(root);
	}
}

static void test_conf_lenient(void **state)
{
	json_t *root = js("{\"name\":\"m\",\"clusterNetwork\":\"x\",\"cniDir\":7}");
	struct cni_error err = {0};
	struct mn_conf c;

	(void)state;
	assert_int_equal(mn_conf_parse(root, false, &c, &err), 0);
	assert_string_equal(c.cni_dir, MN_DEFAULT_CNI_DIR);
	mn_conf_done(&c);
	json_decref(root);
	/* DEL from the cache needs neither clusterNetwork nor delegates. */
	root = js("{\"name\":\"m\"}");
	assert_int_equal(mn_conf_parse(root, false, &c, &err), 0);
	mn_conf_done(&c);
	json_decref(root);
}

static void test_log_levels(void **state)
{
	enum cni_log_level l;

	(void)state;
	assert_int_equal(mn_log_level_parse("panic", &l), 0);
	assert_int_equal(l, CNI_LOG_ERROR);
	assert_int_equal(mn_log_level_parse("VERBOSE", &l), 0);
	assert_int_equal(l, CNI_LOG_INFO);
	assert_int_equal(mn_log_level_parse("debug", &l), 0);
	assert_int_equal(l, CNI_LOG_DEBUG);
	assert_true(mn_log_level_parse("loud", &l) < 0);
}

/* ---- annotation ---- */

static void parse_ok(const char *v, struct mn_sel **s, size_t *n)
{
	struct cni_error err = {0};

	if (mn_annot_parse(v, "podns", s, n, &err) < 0)
		fail_msg("'%s': %s", v, err.msg);
}

static void parse_bad(const char *v, const char *want)
{
	struct cni_error err = {0};
	struct mn_sel *s;
	size_t n;

	assert_true(mn_annot_parse(v, "podns", &s, &n, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	if (!strstr(err.msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", v, err.msg, want);
	cni_error_done(&err);
}

static void test_annot_comma(void **state)
{
	struct mn_sel *s;
	size_t n;

	(void)state;
	parse_ok("net-a", &s, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].namespace, "podns");
	assert_string_equal(s[0].name, "net-a");
	assert_null(s[0].ifname);
	mn_sels_free(s, n);
	parse_ok("other/net-a@eth7", &s, &n);
	assert_string_equal(s[0].namespace, "other");
	assert_string_equal(s[0].ifname, "eth7");
	mn_sels_free(s, n);
	parse_ok("a,b , c", &s, &n);
	assert_int_equal(n, 3);
	assert_string_equal(s[1].name, "b");
	assert_string_equal(s[2].name, "c");
	mn_sels_free(s, n);
	parse_ok("a,a", &s, &n); /* the same NAD twice: two attachments */
	assert_int_equal(n, 2);
	mn_sels_free(s, n);
	parse_ok("a@abcdefghijklmno", &s, &n); /* 15 bytes */
	mn_sels_free(s, n);
}

static void test_annot_comma_bad(void **state)
{
	(void)state;
	parse_bad("a/b/c", "is not [namespace/]name");
	parse_bad("a@b@c", "is not [namespace/]name");
	parse_bad("Net", "DNS-1123");
	parse_bad("my_net", "DNS-1123");
	parse_bad("NS/net", "namespace 'NS'");
	parse_bad("a@abcdefghijklmnop", "interface");
	parse_bad("a@x/y", "is not [namespace/]name");
	parse_bad("a,,b", "element 1 is empty");
	parse_bad("", "empty value");
	parse_bad("   ", "empty value");
}

static void test_annot_json(void **state)
{
	struct mn_sel *s;
	size_t n;

	(void)state;
	parse_ok("[{\"name\":\"net-a\",\"namespace\":\"ns2\",\"interface\":\"rdma0\","
		 "\"ips\":[\"10.1.1.1/24\",\"fd00::1\"],\"mac\":\"02:00:00:00:00:01\","
		 "\"infiniband-guid\":\"c2:11:22:33:44:55:66:77\","
		 "\"portMappings\":[{\"hostPort\":80,\"containerPort\":8080}],"
		 "\"bandwidth\":{\"ingressRate\":1000},\"cni-args\":{\"k\":\"v\"},"
		 "\"default-route\":[\"10.1.1.254\"],\"deviceID\":\"0000:01:00.1\"},"
		 "{\"name\":\"net-b\",\"interfaceRequest\":\"old0\"}]",
		 &s, &n);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].namespace, "ns2");
	assert_string_equal(s[0].ifname, "rdma0");
	assert_int_equal(json_array_size(s[0].ips), 2);
	assert_string_equal(s[0].mac, "02:00:00:00:00:01");
	assert_string_equal(s[0].infiniband_guid, "c2:11:22:33:44:55:66:77");
	assert_int_equal(json_array_size(s[0].port_mappings), 1);
	assert_non_null(json_object_get(s[0].bandwidth, "ingressRate"));
	assert_string_equal(json_string_value(json_object_get(s[0].cni_args, "k")), "v");
	assert_int_equal(json_array_size(s[0].default_route), 1);
	assert_string_equal(s[0].device_id, "0000:01:00.1");
	assert_string_equal(s[1].namespace, "podns");
	assert_string_equal(s[1].ifname, "old0");
	assert_null(s[1].default_route);
	mn_sels_free(s, n);
	/* interface wins over the legacy interfaceRequest */
	parse_ok("[{\"name\":\"a\",\"interface\":\"new0\",\"interfaceRequest\":\"old0\"}]", &s, &n);
	assert_string_equal(s[0].ifname, "new0");
	mn_sels_free(s, n);
	parse_ok("[{\"name\":\"a\",\"default-route\":[]}]", &s, &n);
	assert_non_null(s[0].default_route);
	mn_sels_free(s, n);
}

static void test_annot_json_bad(void **state)
{
	(void)state;
	parse_bad("{\"name\":\"a\"}", "non-empty array");
	parse_bad("[]", "non-empty array");
	parse_bad("[{\"name\":\"a\"", "k8s.v1.cni.cncf.io/networks");
	parse_bad("[\"a\"]", "must be an object");
	parse_bad("[{\"namespace\":\"x\"}]", "name is required");
	parse_bad("[{\"name\":5}]", "name must be a string");
	parse_bad("[{\"name\":\"a\",\"mac\":\"zz:zz:zz:zz:zz:zz\"}]", "mac");
	parse_bad("[{\"name\":\"a\",\"mac\":\"02:00:00:00:00\"}]", "mac");
	parse_bad("[{\"name\":\"a\",\"infiniband-guid\":\"x\"}]", "infiniband-guid");
	parse_bad("[{\"name\":\"a\",\"ips\":[\"10.1.1.300\"]}]", "ips");
	parse_bad("[{\"name\":\"a\",\"ips\":\"10.1.1.1\"}]", "ips");
	parse_bad("[{\"name\":\"a\",\"default-route\":[\"10.0.0.1/24\"]}]", "default-route");
	parse_bad("[{\"name\":\"a\",\"portMappings\":{}}]", "portMappings");
	parse_bad("[{\"name\":\"a\",\"bandwidth\":[]}]", "bandwidth");
	parse_bad("[{\"name\":\"a\",\"cni-args\":\"x\"}]", "cni-args");
	parse_bad("[{\"name\":\"a\",\"interface\":\"a b\"}]", "interface");
	parse_bad("[{\"name\":\"a\",\"interface\":\"..\"}]", "interface");
	parse_bad("[{\"name\":\"a\",\"namespace\":\"Bad\"}]", "namespace");
}

static void test_hwaddr(void **state)
{
	(void)state;
	assert_true(mn_valid_hwaddr("02:00:00:00:00:01"));
	assert_true(mn_valid_hwaddr("02-00-00-00-00-01"));
	assert_true(mn_valid_hwaddr("c2:11:22:33:44:55:66:77"));
	assert_false(mn_valid_hwaddr("02:00:00-00:00:01"));
	assert_false(mn_valid_hwaddr("0200.0000.0001"));
	assert_false(mn_valid_hwaddr(""));
	assert_true(mn_dns_label("a-1"));
	assert_false(mn_dns_label("-a"));
	assert_false(mn_dns_label("a-"));
	assert_false(mn_dns_label("A"));
}

/* ---- kubeconfig ---- */

#define KC_HEAD                                                                                    \
	"apiVersion: v1\nkind: Config\ncurrent-context: c1\n"                                      \
	"contexts:\n- name: c0\n  context: {cluster: x, user: y}\n"                                \
	"- name: c1\n  context:\n    cluster: k\n    user: u\n"

static void test_kubeconfig_token_cafile(void **state)
{
	const char *y =
	    KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://10.0.0.1:6443/\n"
		    "    certificate-authority: ca.crt\n"
		    "users:\n- name: u\n  user:\n    token: abc\n";
	struct cni_error err = {0};
	struct mn_kubeconfig kc;

	(void)state;
	assert_int_equal(mn_kubeconfig_parse(y, strlen(y), "/etc/k", "t", &kc, &err), 0);
	assert_string_equal(kc.server, "https://10.0.0.1:6443");
	assert_string_equal(kc.ca_file, "/etc/k/ca.crt");
	assert_string_equal(kc.token, "abc");
	assert_null(kc.cert_file);
	mn_kubeconfig_done(&kc);
}

static void test_kubeconfig_data(void **state)
{
	/* "CA" "CERT" "KEY" in base64, the CA split over lines. */
	const char *y =
	    KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://h\n"
		    "    certificate-authority-data: Q0\n      E=\n"
		    "users:\n- name: u\n  user:\n    client-certificate-data: Q0VSVA==\n"
		    "    client-key-data: S0VZ\n";
	struct cni_error err = {0};
	struct mn_kubeconfig kc;

	(void)state;
	assert_int_equal(mn_kubeconfig_parse(y, strlen(y), "/d", "t", &kc, &err), 0);
	assert_int_equal(kc.ca_len, 2);
	assert_memory_equal(kc.ca_data, "CA", 2);
	assert_memory_equal(kc.cert_data, "CERT", 4);
	assert_memory_equal(kc.key_data, "KEY", 3);
	assert_null(kc.token);
	mn_kubeconfig_done(&kc);
}

static void kc_bad(const char *y, const char *want)
{
	struct cni_error err = {0};
	struct mn_kubeconfig kc;

	assert_true(mn_kubeconfig_parse(y, strlen(y), "/d", "t", &kc, &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	if (!strstr(err.msg, want))
		fail_msg("message '%s' lacks '%s'", err.msg, want);
	cni_error_done(&err);
}

static void test_kubeconfig_bad(void **state)
{
	(void)state;
	kc_bad(KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://h\n",
	       "no certificate-authority");
	kc_bad(KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: http://h\n"
		       "    certificate-authority: /ca\n",
	       "not https://");
	kc_bad(KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://h\n"
		       "    certificate-authority: /ca\n    insecure-skip-tls-verify: true\n",
	       "insecure-skip-tls-verify");
	kc_bad(KC_HEAD "clusters:\n- name: other\n  cluster: {server: https://h}\n",
	       "cluster 'k' not found");
	kc_bad("current-context: nope\ncontexts: []\n", "current-context 'nope'");
	kc_bad("apiVersion: v1\n", "current-context is not set");
	kc_bad("- a\n- b\n", "not a YAML mapping");
	kc_bad("a: [b\n", "YAML error");
	kc_bad(KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://h\n"
		       "    certificate-authority-data: '!!!'\n",
	       "not valid base64");
	kc_bad(KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://h\n"
		       "    certificate-authority: /ca\n"
		       "users:\n- name: u\n  user:\n    client-certificate: /c\n",
	       "needs its key");
	kc_bad(KC_HEAD "clusters:\n- name: k\n  cluster:\n    server: https://h\n"
		       "    certificate-authority: /ca\n"
		       "users:\n- name: u\n  user:\n    tokenFile: /nonexistent/token\n",
	       "tokenFile");
}

/* ---- checkpoint ---- */

static void test_checkpoint_forms(void **state)
{
	const char *cp = "{\"Data\":{\"PodDeviceEntries\":["
			 "{\"PodUID\":\"u1\",\"ContainerName\":\"a\",\"ResourceName\":\"r/x\","
			 "\"DeviceIDs\":{\"1\":[\"d3\"],\"-1\":[\"d1\"],\"0\":[\"d2\"]}},"
			 "{\"PodUID\":\"u2\",\"ContainerName\":\"a\",\"ResourceName\":\"r/"
			 "x\",\"DeviceIDs\":[\"z\"]},"
			 "{\"PodUID\":\"u1\",\"ContainerName\":\"b\",\"ResourceName\":\"r/"
			 "x\",\"DeviceIDs\":[\"d4\"]},"
			 "{\"PodUID\":\"u1\",\"ContainerName\":\"b\",\"ResourceName\":\"r/"
			 "y\",\"DeviceIDs\":[\"y1\"]}"
			 "]},\"Checksum\":1}";
	struct cni_error err = {0};
	struct mn_devices d;

	(void)state;
	assert_int_equal(mn_checkpoint_parse(cp, strlen(cp), "u1", "t", &d, &err), 0);
	assert_string_equal(mn_devices_take(&d, "r/x"), "d1");
	assert_string_equal(mn_devices_take(&d, "r/x"), "d2");
	assert_string_equal(mn_devices_take(&d, "r/y"), "y1");
	assert_string_equal(mn_devices_take(&d, "r/x"), "d3");
	assert_string_equal(mn_devices_take(&d, "r/x"), "d4");
	assert_null(mn_devices_take(&d, "r/x"));
	assert_null(mn_devices_take(&d, "r/y"));
	assert_null(mn_devices_take(&d, "r/none"));
	mn_devices_done(&d);
	assert_int_equal(mn_checkpoint_parse(cp, strlen(cp), "nobody", "t", &d, &err), 0);
	assert_int_equal(d.n, 0);
	mn_devices_done(&d);
	assert_int_equal(mn_checkpoint_parse("{}", 2, "u1", "t", &d, &err), 0);
	mn_devices_done(&d);
}

static void test_checkpoint_bad(void **state)
{
	const char *bad[] = {
	    "[",
	    "[]",
	    "{\"Data\":{\"PodDeviceEntries\":{}}}",
	    "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"u1\"}]}}",
	    "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"u1\",\"ResourceName\":\"r\","
	    "\"DeviceIDs\":\"x\"}]}}",
	    "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"u1\",\"ResourceName\":\"r\","
	    "\"DeviceIDs\":{\"numa\":[\"x\"]}}]}}",
	    "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"u1\",\"ResourceName\":\"r\","
	    "\"DeviceIDs\":[1]}]}}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cni_error err = {0};
		struct mn_devices d;

		assert_true(mn_checkpoint_parse(bad[i], strlen(bad[i]), "u1", "t", &d, &err) < 0);
		assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
		assert_non_null(strstr(err.msg, "checkpoint"));
		cni_error_done(&err);
	}
}

/* ---- network-status ---- */

static void test_status_entries(void **state)
{
	json_t *res =
	    js("{\"cniVersion\":\"1.0.0\",\"interfaces\":["
	       "{\"name\":\"br0\",\"mac\":\"00:00:00:00:00:01\"},"
	       "{\"name\":\"veth1\"},"
	       "{\"name\":\"eth0\",\"mac\":\"0a:00:00:00:00:02\",\"sandbox\":\"/ns\"}],"
	       "\"ips\":[{\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\",\"interface\":2},"
	       "{\"address\":\"fd00::5/64\",\"interface\":2}],"
	       "\"dns\":{\"nameservers\":[\"10.1.0.53\"]}}");
	json_t *di = js("{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"x\"}}");
	json_t *arr = json_array();
	struct cni_error err = {0};
	json_t *e;

	(void)state;
	assert_int_equal(mn_status_append(arr, &(struct mn_status_net){"ns/net", false, res, di},
					  CNI_V100, &err),
			 0);
	assert_int_equal(json_array_size(arr), 1);
	e = json_array_get(arr, 0);
	assert_string_equal(json_string_value(json_object_get(e, "name")), "ns/net");
	assert_string_equal(json_string_value(json_object_get(e, "interface")), "eth0");
	assert_string_equal(json_string_value(json_object_get(e, "mac")), "0a:00:00:00:00:02");
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "ips"), 0)),
			    "10.1.0.5");
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "ips"), 1)),
			    "fd00::5");
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "gateway"), 0)),
			    "10.1.0.1");
	assert_true(json_is_false(json_object_get(e, "default")));
	assert_non_null(json_object_get(json_object_get(e, "dns"), "nameservers"));
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(e, "device-info"), "type")), "pci");
	json_decref(res);
	json_decref(arr);
	json_decref(di);
}

static void test_status_ip_only_and_legacy(void **state)
{
	/* An IP-only result still gets an entry (Multus drops it). */
	json_t *res = js("{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.2.0.3/24\"}}");
	json_t *arr = json_array(), *e;
	struct cni_error err = {0};

	(void)state;
	assert_int_equal(
	    mn_status_append(arr, &(struct mn_status_net){"c", true, res, NULL}, CNI_V100, &err),
	    0);
	e = json_array_get(arr, 0);
	assert_true(json_is_true(json_object_get(e, "default")));
	assert_null(json_object_get(e, "interface"));
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "ips"), 0)),
			    "10.2.0.3");
	assert_non_null(json_object_get(e, "dns"));
	json_decref(res);
	json_decref(arr);
}

static void test_status_two_sandbox_ifaces(void **state)
{
	/* IPs follow their interface index; index-less ones go to the last. */
	json_t *res = js("{\"cniVersion\":\"1.0.0\",\"interfaces\":["
			 "{\"name\":\"a0\",\"sandbox\":\"/ns\"},{\"name\":\"host\"},"
			 "{\"name\":\"a1\",\"sandbox\":\"/ns\"}],"
			 "\"ips\":[{\"address\":\"10.0.0.1/24\",\"interface\":0},"
			 "{\"address\":\"10.0.1.1/24\",\"interface\":2},"
			 "{\"address\":\"10.0.2.1/24\"}]}");
	json_t *arr = json_array(), *e0, *e1;
	struct cni_error err = {0};

	(void)state;
	assert_int_equal(
	    mn_status_append(arr, &(struct mn_status_net){"n", false, res, NULL}, CNI_V100, &err),
	    0);
	assert_int_equal(json_array_size(arr), 2);
	e0 = json_array_get(arr, 0);
	e1 = json_array_get(arr, 1);
	assert_string_equal(json_string_value(json_object_get(e0, "interface")), "a0");
	assert_int_equal(json_array_size(json_object_get(e0, "ips")), 1);
	assert_string_equal(json_string_value(json_object_get(e1, "interface")), "a1");
	assert_int_equal(json_array_size(json_object_get(e1, "ips")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(e1, "ips"), 1)),
			    "10.0.2.1");
	json_decref(res);
	json_decref(arr);
}

static void test_plan_args_order(void **state)
{
	struct cni_ctx ctx;
	struct cni_error err = {0};
	struct mn_plan p = {0};
	const char *want[][2] = {
	    {"IgnoreUnknown", "true"}, {"K8S_POD_NAMESPACE", "ns"},
	    {"K8S_POD_NAME", "pod"},   {"K8S_POD_INFRA_CONTAINER_ID", ""},
	    {"K8S_POD_UID", "u1"},     {"X", "1"},
	};

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	assert_int_equal(cni_args_parse("K8S_POD_UID=u1;X=1;IgnoreUnknown=1;K8S_POD_NAME=pod;"
					"K8S_POD_NAMESPACE=ns",
					&ctx.args, &err),
			 0);
	assert_int_equal(mn_plan_args(&p, &ctx), 0);
	assert_int_equal(p.n_args, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(p.args[i].key, want[i][0]);
		assert_string_equal(p.args[i].value, want[i][1]);
	}
	assert_int_equal(mn_pod_from_args(&ctx, &p.pod), 0);
	assert_string_equal(p.pod.namespace, "ns");
	assert_string_equal(p.pod.uid, "u1");
	assert_null(p.pod.infra_id);
	mn_plan_done(&p);
	cni_args_done(&ctx.args);
}

/* ---- delegates and cache ---- */

static void test_delegate_normalise(void **state)
{
	json_t *conf =
	    js("{\"cniVersion\":\"1.0.0\",\"type\":\"sriov\",\"capabilities\":{\"mac\":true}}");
	json_t *list = js("{\"cniVersion\":\"1.0.0\",\"name\":\"r\",\"plugins\":["
			  "{\"type\":\"sriov\",\"args\":{\"cni\":{\"a\":\"nad\",\"b\":\"nad\"}}},"
			  "{\"type\":\"rdma\"}]}");
	json_t *extra = js("{\"a\":\"pod\"}");
	struct cni_error err = {0};
	struct mn_delegate d = {0};
	json_t *p;

	(void)state;
	assert_int_equal(mn_delegate_set_conf(&d, conf, "nadname", NULL, "t", &err), 0);
	assert_string_equal(d.list->name, "nadname");
	assert_int_equal(d.list->n_plugins, 1);
	assert_true(mn_delegate_has_cap(&d, "mac"));
	assert_false(mn_delegate_has_cap(&d, "ips"));
	mn_delegate_done(&d);

	d.device_id = strdup("0000:3b:00.2");
	assert_int_equal(mn_delegate_set_conf(&d, list, "other", extra, "t", &err), 0);
	assert_string_equal(d.list->name, "r");
	for (size_t i = 0; i < 2; i++) {
		p = d.list->plugins[i];
		assert_string_equal(json_string_value(json_object_get(p, "deviceID")),
				    "0000:3b:00.2");
		assert_string_equal(json_string_value(json_object_get(p, "pciBusID")),
				    "0000:3b:00.2");
		assert_string_equal(json_string_value(json_object_get(
					json_object_get(json_object_get(p, "args"), "cni"), "a")),
				    "pod");
	}
	p = json_object_get(json_object_get(d.list->plugins[0], "args"), "cni");
	assert_string_equal(json_string_value(json_object_get(p, "b")), "nad");
	mn_delegate_done(&d);

	json_t *bad = js("{\"cniVersion\":\"1.0.0\",\"name\":\"x\",\"plugins\":[{}]}");
	assert_true(mn_delegate_set_conf(&d, bad, NULL, NULL, "t", &err) < 0);
	assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
	cni_error_done(&err);
	mn_delegate_done(&d);
	json_decref(bad);
	json_decref(conf);
	json_decref(list);
	json_decref(extra);
}

static void test_cache_roundtrip(void **state)
{
	char dir[] = "/tmp/pw-mn-cache-XXXXXX";
	json_t *conf = js("{\"cniVersion\":\"1.0.0\",\"name\":\"n1\",\"type\":\"noop\"}");
	struct cni_error err = {0};
	struct mn_plan p = {0}, q = {0};
	struct mn_delegate *d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	p.container_id = strdup("cid1");
	p.netns = strdup("/run/netns/x");
	p.ifname = strdup("eth0");
	p.pod.namespace = strdup("ns");
	p.pod.name = strdup("pod");
	p.args = calloc(1, sizeof(*p.args));
	p.args[0].key = strdup("K8S_POD_NAME");
	p.args[0].value = strdup("pod");
	p.n_args = 1;
	d = mn_plan_push(&p);
	d->display = strdup("ns/n1");
	d->ifname = strdup("net1");
	d->device_id = strdup("dev1");
	d->resource_name = strdup("r/x");
	d->state = MN_ADDED;
	d->default_route = js("[\"10.0.0.1\"]");
	d->result = js("{\"cniVersion\":\"1.0.0\"}");
	d->cap_args = js("{\"mac\":\"02:00:00:00:00:01\"}");
	assert_int_equal(mn_delegate_set_conf(d, conf, NULL, NULL, "t", &err), 0);
	assert_int_equal(mn_cache_write(dir, &p, true, &err), 0);
	assert_int_equal(mn_cache_read(dir, "cid1", &q, &err), 1);
	assert_int_equal(q.n, 1);
	assert_string_equal(q.netns, "/run/netns/x");
	assert_string_equal(q.pod.name, "pod");
	assert_int_equal(q.n_args, 1);
	assert_string_equal(q.d[0].display, "ns/n1");
	assert_string_equal(q.d[0].ifname, "net1");
	assert_string_equal(q.d[0].device_id, "dev1");
	assert_string_equal(q.d[0].resource_name, "r/x");
	assert_int_equal(q.d[0].state, MN_ADDED);
	assert_string_equal(q.d[0].list->name, "n1");
	assert_non_null(q.d[0].result);
	assert_non_null(q.d[0].cap_args);
	/* The config is the one executed, device included. */
	assert_string_equal(json_string_value(json_object_get(q.d[0].list->plugins[0], "deviceID")),
			    "dev1");
	mn_plan_done(&q);
	/* An update is appended: it wins, and the first line stays as written. */
	d->state = MN_PENDING;
	json_decref(d->result);
	d->result = js("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.0.2/24\"}]}");
	assert_int_equal(mn_cache_update(dir, &p, 0, 1, &err), 0);
	assert_int_equal(mn_cache_read(dir, "cid1", &q, &err), 1);
	assert_int_equal(q.d[0].state, MN_PENDING);
	assert_non_null(json_object_get(q.d[0].result, "ips"));
	assert_string_equal(q.d[0].list->name, "n1");
	mn_plan_done(&q);
	assert_int_equal(mn_cache_update(dir, &p, 0, 0, &err), 0);
	assert_int_equal(mn_cache_read(dir, "cid1", &q, &err), 1);
	assert_int_equal(q.d[0].state, MN_PENDING);
	mn_plan_done(&q);
	/* No entry to append to: an error, nothing created. */
	free(p.container_id);
	p.container_id = strdup("cid2");
	assert_int_equal(mn_cache_update(dir, &p, 0, 1, &err), -ENOENT);
	assert_int_equal(err.code, CNI_ERR_IO);
	cni_error_done(&err);
	assert_int_equal(mn_cache_read(dir, "cid2", &q, &err), 0);
	assert_int_equal(mn_cache_read(dir, "nope", &q, &err), 0);
	assert_int_equal(mn_cache_remove(dir, "cid1"), 0);
	assert_int_equal(mn_cache_remove(dir, "cid1"), 0);
	assert_int_equal(mn_cache_parse("{\"kind\":\"x\"}", 12, "t", &q, &err), -EINVAL);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	cni_error_done(&err);
	mn_plan_done(&p);
	json_decref(conf);
	assert_int_equal(rmdir(dir), 0);
}

/* ---- default route decisions ---- */

static void test_route_validate(void **state)
{
	struct mn_plan p = {0};
	struct cni_error err = {0};
	struct mn_delegate *a, *b;

	(void)state;
	assert_non_null(mn_plan_push(&p));
	assert_non_null(mn_plan_push(&p));
	a = &p.d[0];
	b = &p.d[1];
	a->display = strdup("a");
	b->display = strdup("b");
	a->default_route = js("[\"10.0.0.1\",\"fd00::1\"]");
	b->default_route = js("[]");
	assert_int_equal(mn_route_validate(&p, &err), 0);
	json_decref(b->default_route);
	b->default_route = js("[\"fd00::2\"]");
	assert_true(mn_route_validate(&p, &err) < 0);
	assert_non_null(strstr(err.msg, "ECMP"));
	assert_non_null(strstr(err.msg, "IPv6"));
	cni_error_done(&err);
	mn_plan_done(&p);
}

static void test_result_default_edit(void **state)
{
	json_t *r = js("{\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.0.0.1\"},"
		       "{\"dst\":\"10.5.0.0/16\"},{\"dst\":\"::/0\",\"gw\":\"fd00::1\"}]}");
	json_t *legacy = js("{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2/24\","
			    "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}");

	(void)state;
	mn_result_drop_default(r, AF_INET);
	assert_int_equal(json_array_size(json_object_get(r, "routes")), 2);
	assert_int_equal(mn_result_add_default(r, "10.9.0.1"), 0);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(r, "routes"), 2), "gw")),
			    "10.9.0.1");
	mn_result_drop_default(r, AF_INET6);
	assert_int_equal(json_array_size(json_object_get(r, "routes")), 2);
	mn_result_drop_default(legacy, AF_INET);
	assert_int_equal(json_array_size(json_object_get(json_object_get(legacy, "ip4"), "routes")),
			 0);
	assert_int_equal(mn_result_add_default(legacy, "10.0.0.1"), 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(legacy, "ip4"), "routes")),
			 1);
	assert_true(mn_result_add_default(legacy, "nope") < 0);
	json_decref(r);
	json_decref(legacy);
}

/* ---- apiserver responses ---- */

static void test_k8s_objects(void **state)
{
	const char *pod = "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"annotations\":"
			  "{\"k8s.v1.cni.cncf.io/networks\":\"a,b\"}}}";
	struct cni_error err = {0};
	json_t *o = NULL;

	(void)state;
	assert_int_equal(mn_k8s_parse_object(pod, strlen(pod), "Pod", "t", &o, &err), 0);
	assert_string_equal(mn_k8s_annotation(o, MN_ANNOT_NETWORKS), "a,b");
	assert_null(mn_k8s_annotation(o, "x"));
	json_decref(o);
	assert_true(mn_k8s_parse_object(pod, strlen(pod), "NetworkAttachmentDefinition", "t", &o,
					&err) < 0);
	assert_int_equal(err.code, CNI_ERR_DECODE);
	cni_error_done(&err);
	const char *bad = "{\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"a\":1}}}";
	assert_true(mn_k8s_parse_object(bad, strlen(bad), "Pod", "t", &o, &err) < 0);
	cni_error_done(&err);
	assert_true(mn_k8s_parse_object("nope", 4, "Pod", "t", &o, &err) < 0);
	cni_error_done(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_defaults),
	    cmocka_unit_test(test_conf_keys),
	    cmocka_unit_test(test_conf_errors),
	    cmocka_unit_test(test_conf_lenient),
	    cmocka_unit_test(test_log_levels),
	    cmocka_unit_test(test_annot_comma),
	    cmocka_unit_test(test_annot_comma_bad),
	    cmocka_unit_test(test_annot_json),
	    cmocka_unit_test(test_annot_json_bad),
	    cmocka_unit_test(test_hwaddr),
	    cmocka_unit_test(test_kubeconfig_token_cafile),
	    cmocka_unit_test(test_kubeconfig_data),
	    cmocka_unit_test(test_kubeconfig_bad),
	    cmocka_unit_test(test_checkpoint_forms),
	    cmocka_unit_test(test_checkpoint_bad),
	    cmocka_unit_test(test_status_entries),
	    cmocka_unit_test(test_status_ip_only_and_legacy),
	    cmocka_unit_test(test_status_two_sandbox_ifaces),
	    cmocka_unit_test(test_plan_args_order),
	    cmocka_unit_test(test_delegate_normalise),
	    cmocka_unit_test(test_cache_roundtrip),
	    cmocka_unit_test(test_route_validate),
	    cmocka_unit_test(test_result_default_edit),
	    cmocka_unit_test(test_k8s_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
