/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A table of IPAM invocations and what each must produce, shared by the
 * direct handler tests and the delegation tests (which run it in-process
 * and exec'd and require identical output).
 *
 * Configs and paths may contain @DIR@, replaced by the test's temporary
 * directory. A step with cmd NULL checks a file instead: `file` must hold
 * exactly `content` (NULL: must not exist); cmd "PUT" writes `content` to
 * `file` (a lease written behind the plugin's back, e.g. by the reference).
 */
#pragma once

#include "cni/plugin.h"

#include <stdbool.h>
#include <stddef.h>

struct ipam_step {
	const char *cmd; /* ADD DEL CHECK GC STATUS, or NULL for a file check */
	const char *cid;
	const char *ifname;
	const char *cni_args;
	const char *conf;
	int want_code;           /* 0 = success */
	const char *want[4];     /* substrings of the output */
	const char *file;
	const char *content;
};

/* Steps list only the fields they use; the rest are zero by design. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define IPAM_MAX_STEPS 12

struct ipam_case {
	const char *name;
	struct ipam_step steps[IPAM_MAX_STEPS];
};

#define DUAL_RANGES                                                                        \
	"\"ranges\":[[{\"subnet\":\"10.1.2.0/24\"},{\"subnet\":\"10.2.2.0/24\"}],"          \
	"[{\"subnet\":\"2001:db8:1::/64\"}]]"
#define ROUTES4                                                                            \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"::/0\"},"                           \
	"{\"dst\":\"192.168.0.0/16\",\"gw\":\"1.1.1.1\"},{\"dst\":\"2001:db8:2::0/64\","     \
	"\"gw\":\"2001:db8:3::1\"}]"
#define HL(ver, extra)                                                                     \
	"{\"cniVersion\":\"" ver "\",\"name\":\"mynet\",\"type\":\"ipvlan\",\"master\":\"x\"," \
	"\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"@DIR@\"," extra "}}"
#define HL2(ver, ipam_extra, top)                                                          \
	"{\"cniVersion\":\"" ver "\",\"name\":\"mynet\",\"type\":\"ipvlan\"," top ","         \
	"\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"@DIR@\"," ipam_extra "}}"
#define NET1 "\"ranges\":[[{\"subnet\":\"10.1.2.0/24\"}]]"

#define FILE_IS(path, c) { .file = "@DIR@/mynet/" path, .content = c }
#define PUT(path, c) { .cmd = "PUT", .file = "@DIR@/mynet/" path, .content = c }

static const struct ipam_case host_local_cases[] = {
	{ "dual-stack add/check/del (reference case 1)",
	  { { "ADD", "dummy", "eth0", NULL,
	      HL("1.0.0", DUAL_RANGES "," ROUTES4 ",\"resolvConf\":\"@DIR@/resolv.conf\""), 0,
	      { "\"address\":\"10.1.2.2/24\",\"gateway\":\"10.1.2.1\"",
		"\"address\":\"2001:db8:1::2/64\",\"gateway\":\"2001:db8:1::1\"",
		"{\"dst\":\"2001:db8:2::/64\",\"gw\":\"2001:db8:3::1\"}",
		"\"nameservers\":[\"192.0.2.3\"]" } },
	    FILE_IS("10.1.2.2", "dummy\r\neth0"),
	    FILE_IS("2001:db8:1::2", "dummy\r\neth0"),
	    FILE_IS("last_reserved_ip.0", "10.1.2.2"),
	    FILE_IS("last_reserved_ip.1", "2001:db8:1::2"),
	    { "CHECK", "dummy", "eth0", NULL, HL("1.0.0", DUAL_RANGES), 0, { NULL } },
	    { "DEL", "dummy", "eth0", NULL, HL("1.0.0", DUAL_RANGES), 0, { NULL } },
	    FILE_IS("10.1.2.2", NULL),
	    FILE_IS("2001:db8:1::2", NULL),
	    { "CHECK", "dummy", "eth0", NULL, HL("1.0.0", DUAL_RANGES), 105,
	      { "host-local: Failed to find address added by container dummy" } },
	    { "DEL", "dummy", "eth0", NULL, HL("1.0.0", DUAL_RANGES), 0, { NULL } } } },
	{ "0.3.1 output carries version (reference case 1)",
	  { { "ADD", "dummy", "eth0", NULL, HL("0.3.1", DUAL_RANGES), 0,
	      { "\"version\":\"4\"", "\"version\":\"6\"" } } } },
	{ "0.2.0 output (ip4/ip6 sections)",
	  { { "ADD", "dummy", "eth0", NULL,
	      HL("0.2.0", DUAL_RANGES ",\"routes\":[{\"dst\":\"0.0.0.0/0\"}]"), 0,
	      { "\"ip4\":{\"ip\":\"10.1.2.2/24\",\"gateway\":\"10.1.2.1\"",
		"\"ip6\":{\"ip\":\"2001:db8:1::2/64\"" } } } },
	{ "duplicate ADD fails, another container gets .3 (reference case 3)",
	  { { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1), 0, { "10.1.2.2/24" } },
	    { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1), 102,
	      { "10.1.2.2 has been allocated to c1, duplicate allocation is not allowed" } },
	    FILE_IS("10.1.2.2", "c1\r\neth0"),
	    { "ADD", "c2", "eth0", NULL, HL("1.1.0", NET1), 0, { "10.1.2.3/24" } },
	    { "DEL", "c1", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    { "DEL", "c2", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    FILE_IS("10.1.2.3", NULL) } },
	{ "same container, two ifnames (reference case 2)",
	  { { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1), 0, { "10.1.2.2/24" } },
	    { "ADD", "c1", "eth1", NULL, HL("1.1.0", NET1), 0, { "10.1.2.3/24" } },
	    FILE_IS("10.1.2.3", "c1\r\neth1"),
	    { "DEL", "c1", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    FILE_IS("10.1.2.2", NULL),
	    FILE_IS("10.1.2.3", "c1\r\neth1") } },
	{ "legacy ID-only lease: CHECK finds it, DEL frees it (reference case 4)",
	  { { "ADD", "other", "eth0", NULL, HL("1.1.0", NET1), 0, { "10.1.2.2/24" } },
	    PUT("10.1.2.9", "dummy"),
	    { "CHECK", "dummy", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    { "ADD", "dummy", "eth0", NULL, HL("1.1.0", NET1), 102,
	      { "10.1.2.9 has been allocated to dummy" } },
	    { "DEL", "dummy", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    FILE_IS("10.1.2.9", NULL),
	    FILE_IS("10.1.2.2", "other\r\neth0") } },
	{ "a lease the reference wrote is seen by the duplicate check and DEL",
	  { { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1), 0, { "10.1.2.2/24" } },
	    PUT("10.1.2.50", "c9\r\neth0"),
	    { "ADD", "c9", "eth0", NULL, HL("1.1.0", NET1), 102,
	      { "10.1.2.50 has been allocated to c9" } },
	    { "DEL", "c9", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    FILE_IS("10.1.2.50", NULL),
	    FILE_IS("10.1.2.2", "c1\r\neth0") } },
	{ "DEL needs no valid ranges: a broken config still releases",
	  { { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1), 0, { "10.1.2.2/24" } },
	    { "DEL", "c1", "eth0", NULL, HL("1.1.0", "\"ranges\":\"garbage\",\"routes\":7"), 0,
	      { NULL } },
	    FILE_IS("10.1.2.2", NULL) } },
	{ "DEL of unknown container succeeds (reference case 5)",
	  { { "DEL", "nobody", "eth0", NULL, HL("1.1.0", NET1), 0, { NULL } },
	    FILE_IS("lock", NULL), /* DEL created nothing */
	    { "CHECK", "nobody", "eth0", NULL, HL("1.1.0", NET1), 105,
	      { "Failed to find address added by container nobody" } } } },
	{ "requested IP via args.cni.ips (reference case 8)",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0", NET1, "\"args\":{\"cni\":{\"ips\":[\"10.1.2.88\"]}}"), 0,
	      { "10.1.2.88/24" } },
	    FILE_IS("last_reserved_ip.0", "10.1.2.88") } },
	{ "requested IPs over two sets (reference case 9)",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0",
		  "\"ranges\":[[{\"subnet\":\"10.1.2.0/24\"}],[{\"subnet\":\"10.1.3.0/24\"}]]",
		  "\"args\":{\"cni\":{\"ips\":[\"10.1.2.88\",\"10.1.3.77\"]}}"),
	      0, { "10.1.2.88/24", "10.1.3.77/24" } },
	    { "ADD", "c2", "eth0", NULL,
	      HL("0.2.0",
		 "\"ranges\":[[{\"subnet\":\"10.1.2.0/24\"}],[{\"subnet\":\"10.1.3.0/24\"}]]"),
	      7, { "CNI version 0.2.0 does not support more than 1 address per family" } } } },
	{ "requested v4 and v6 (reference case 10)",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0",
		  "\"ranges\":[[{\"subnet\":\"172.16.1.0/24\"},{\"subnet\":\"10.1.2.0/24\"}],"
		  "[{\"subnet\":\"2001:db8:1::/48\"}]]",
		  "\"args\":{\"cni\":{\"ips\":[\"10.1.2.88\",\"2001:db8:1::999\"]}}"),
	      0, { "10.1.2.88/24", "2001:db8:1::999/48" } } } },
	{ "two requested IPs in one set (reference case 11)",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0", NET1, "\"args\":{\"cni\":{\"ips\":[\"10.1.2.88\",\"10.1.2.99\"]}}"),
	      7, { "failed to allocate all requested IPs: 10.1.2." } },
	    FILE_IS("10.1.2.88", NULL) } },
	{ "CNI_ARGS IP with and without prefix (reference case 20)",
	  { { "ADD", "c1", "eth0", "IP=10.1.2.10", HL("1.1.0", NET1), 0, { "10.1.2.10/24" } },
	    { "ADD", "c2", "eth0", "IP=10.1.2.11/24", HL("1.1.0", NET1), 0, { "10.1.2.11/24" } },
	    { "ADD", "c3", "eth0", "IP=10.1.2.11", HL("1.1.0", NET1), 102,
	      { "requested IP address 10.1.2.11 is not available in range set "
		"10.1.2.1-10.1.2.254" } },
	    { "ADD", "c4", "eth0", "IP=nonsense", HL("1.1.0", NET1), 4,
	      { "CNI_ARGS IP: not an IP address: 'nonsense'" } },
	    { "ADD", "c5", "eth0", "MAC=00:11:22:33:44:55", HL("1.1.0", NET1), 4,
	      { "unknown args" } } } },
	{ "args.cni.ips wins over CNI_ARGS IP (CONVENTIONS.md)",
	  { { "ADD", "c1", "eth0", "IP=10.1.2.10",
	      HL2("1.1.0", NET1, "\"args\":{\"cni\":{\"ips\":[\"10.1.2.20/24\"]}}"), 0,
	      { "10.1.2.20/24" } },
	    FILE_IS("10.1.2.10", NULL) } },
	{ "Multus: the same address in args.cni.ips, runtimeConfig.ips and CNI_ARGS IP is one request",
	  { { "ADD", "c1", "eth0", "IgnoreUnknown=1;IP=10.1.2.10/24",
	      HL2("1.0.0", NET1,
		  "\"args\":{\"cni\":{\"ips\":[\"10.1.2.10\"]}},"
		  "\"runtimeConfig\":{\"ips\":[\"10.1.2.10/24\",\"10.1.2.10\"]}"),
	      0, { "\"ips\":[{\"address\":\"10.1.2.10/24\",\"gateway\":\"10.1.2.1\"}]" } },
	    FILE_IS("10.1.2.10", "c1\r\neth0") } },
	{ "runtimeConfig.ips (reference case 24)",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0",
		  "\"ranges\":[[{\"subnet\":\"192.168.0.0/24\"}],[{\"subnet\":\"2001:db8::/64\"}]]",
		  "\"runtimeConfig\":{\"ips\":[\"192.168.0.5/24\",\"2001:db8::1/64\"]}"),
	      7, { "requested ip 2001:db8::1 is subnet's gateway" } },
	    { "ADD", "c2", "eth0", NULL,
	      HL2("1.1.0",
		  "\"ranges\":[[{\"subnet\":\"192.168.0.0/24\"}],[{\"subnet\":\"2001:db8::/64\"}]]",
		  "\"runtimeConfig\":{\"ips\":[\"192.168.0.5/24\",\"2001:db8::7/64\"]}"),
	      0, { "192.168.0.5/24", "2001:db8::7/64" } },
	    FILE_IS("192.168.0.5", "c2\r\neth0") } },
	{ "set order: runtimeConfig.ipRanges, legacy subnet, ranges (reference case 19)",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0",
		  "\"subnet\":\"10.2.0.0/24\",\"ranges\":[[{\"subnet\":\"10.3.0.0/24\"}]]",
		  "\"runtimeConfig\":{\"ipRanges\":[[{\"subnet\":\"10.1.0.0/24\"}]]}"),
	      0,
	      { "\"ips\":[{\"address\":\"10.1.0.2/24\",\"gateway\":\"10.1.0.1\"},"
		"{\"address\":\"10.2.0.2/24\",\"gateway\":\"10.2.0.1\"},"
		"{\"address\":\"10.3.0.2/24\",\"gateway\":\"10.3.0.1\"}]" } },
	    FILE_IS("last_reserved_ip.2", "10.3.0.2") } },
	{ "containerd's flat, capitalised ipRanges",
	  { { "ADD", "c1", "eth0", NULL,
	      HL2("1.1.0", "\"routes\":[]",
		  "\"runtimeConfig\":{\"ipRanges\":[{\"Subnet\":\"10.9.0.0/24\",\"RangeStart\":"
		  "\"10.9.0.50\",\"RangeEnd\":\"\",\"Gateway\":\"\"},{\"Subnet\":\"fd00:9::/64\","
		  "\"RangeStart\":\"\",\"RangeEnd\":\"\",\"Gateway\":\"\"}]}"),
	      0, { "10.9.0.50/24", "fd00:9::2/64" } } } },
	{ "config errors name key and value",
	  { { "ADD", "c1", "eth0", NULL, HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.0.0.0/33\"}]]"),
	      7, { "ipam.ranges[0][0].subnet: not a CIDR: '10.0.0.0/33'" } },
	    { "ADD", "c1", "eth0", NULL,
	      HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.0.0.0/24\",\"rangeStart\":\"10.0.1.5\"}]]"),
	      7, { "ipam.ranges[0][0].rangeStart: '10.0.1.5' not in network 10.0.0.0/24" } },
	    { "ADD", "c1", "eth0", NULL,
	      HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.1.0.0/22\"},{\"subnet\":\"10.1.2.0/24\"}]]"),
	      7, { "ipam.ranges[0]: subnets 10.1.0.1-10.1.3.254 and 10.1.2.1-10.1.2.254 overlap" } },
	    { "ADD", "c1", "eth0", NULL,
	      HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.1.0.0/22\"}],[{\"subnet\":\"10.1.2.0/24\"}]]"),
	      7, { "range set 0 (ipam.ranges[0]) overlaps with 1 (ipam.ranges[1])" } },
	    { "ADD", "c1", "eth0", NULL,
	      HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.1.0.0/24\"},{\"subnet\":\"fd00::/64\"}]]"),
	      7, { "ipam.ranges[0]: mixed address families" } },
	    { "ADD", "c1", "eth0", NULL, HL("1.1.0", "\"ranges\":[]"), 7,
	      { "no IP ranges specified" } },
	    { "ADD", "c1", "eth0", NULL, HL("1.1.0", "\"ranges\":[5]"), 7,
	      { "ipam.ranges[0]: expected a list of ranges, got 5" } },
	    { "ADD", "c1", "eth0", NULL,
	      "{\"cniVersion\":\"1.1.0\",\"name\":\"mynet\",\"type\":\"x\",\"ipam\":{\"type\":"
	      "\"host-local\",\"dataDir\":\"rel/dir\"," NET1 "}}",
	      7, { "ipam.dataDir: not an absolute path: 'rel/dir'" } },
	    { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1 ",\"routes\":[{\"dst\":\"nope\"}]"), 7,
	      { "ipam.routes[0].dst" } },
	    { "ADD", "c1", "eth0", NULL, HL("1.1.0", NET1 ",\"resolvConf\":\"@DIR@/missing\""), 5,
	      { "ipam.resolvConf: cannot read" } },
	    FILE_IS("10.1.2.2", NULL) } },
	{ "exhaustion is 101, STATUS 50; GC keeps only valid attachments",
	  { { "ADD", "c1", "eth0", NULL, HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]"),
	      0, { "10.5.0.2/30" } },
	    { "STATUS", "", "", NULL, HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]"),
	      50, { "range set 0 (ipam.ranges[0]) exhausted" } },
	    { "ADD", "c2", "eth0", NULL, HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]"),
	      101, { "no IP addresses available in range set: 10.5.0.1-10.5.0.2" } },
	    { "GC", "", "", NULL,
	      HL2("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]",
		  "\"cni.dev/valid-attachments\":[{\"containerID\":\"c9\",\"ifname\":\"eth0\"}]"),
	      0, { NULL } },
	    FILE_IS("10.5.0.2", NULL),
	    { "STATUS", "", "", NULL, HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]"),
	      0, { NULL } },
	    { "ADD", "c2", "eth0", NULL, HL("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]"),
	      0, { "10.5.0.2/30" } },
	    { "GC", "", "", NULL,
	      HL2("1.1.0", "\"ranges\":[[{\"subnet\":\"10.5.0.0/30\"}]]",
		  "\"cni.dev/valid-attachments\":[{\"containerID\":\"c2\",\"ifname\":\"eth0\"}]"),
	      0, { NULL } },
	    FILE_IS("10.5.0.2", "c2\r\neth0") } },
	{ "STATUS fails with 50 when dataDir cannot be used",
	  { { "STATUS", "", "", NULL,
	      "{\"cniVersion\":\"1.1.0\",\"name\":\"mynet\",\"type\":\"x\",\"ipam\":{\"type\":"
	      "\"host-local\",\"dataDir\":\"@DIR@/resolv.conf/sub\"," NET1 "}}",
	      50, { "ipam.dataDir: cannot open" } } } },
	{ "missing ipam",
	  { { "ADD", "c1", "eth0", NULL,
	      "{\"cniVersion\":\"1.1.0\",\"name\":\"mynet\",\"type\":\"x\"}", 7,
	      { "IPAM config missing 'ipam' key" } } } },
};

/*
 * Run every case with `ops` in a fresh temporary directory (dir, which
 * must exist and is emptied between cases). CNI_* go through the process
 * environment so exec'd delegates see them too. When outputs is non-NULL,
 * outputs[c * IPAM_MAX_STEPS + s] receives each step's compact output.
 */
void ipam_table_run(const struct ipam_case *cases, size_t n, const struct cni_plugin_ops *ops,
		    const char *dir, char **outputs);
