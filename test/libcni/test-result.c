/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result model: parsing every version's shape, printing to every
 * version (the conversion table of the spec), round trips, and every parse
 * error naming its JSON path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cni/result.h"

static json_t *load(const char *s)
{
	json_error_t jerr;
	json_t *j = json_loads(s, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);

	if (!j)
		fail_msg("test JSON does not load: %s: %s", jerr.text, s);
	return j;
}

static void assert_json_equal(const json_t *got, const char *want_text)
{
	json_t *want = load(want_text);

	if (!json_equal(got, want)) {
		char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);

		print_error("got:  %s\nwant: %s\n", g, want_text);
		free(g);
		json_decref(want);
		fail();
	}
	json_decref(want);
}

static struct cni_result *parse_ok(const char *text, enum cni_version v)
{
	struct cni_error err = {0};
	struct cni_result *r = NULL;
	json_t *j = load(text);
	int rc = cni_result_from_json(j, v, "prevResult", &r, &err);

	if (rc < 0)
		fail_msg("parse failed: %d %s", rc, err.msg ? err.msg : "(no msg)");
	json_decref(j);
	cni_error_done(&err);
	return r;
}

/* A 1.1 result using every field. */
#define FULL_110 "{\"cniVersion\":\"1.1.0\"," FULL_110_BODY
#define FULL_110_BODY                                                                              \
	"\"interfaces\":[{\"name\":\"cni0\",\"mac\":\"00:11:22:33:44:55\"},"                       \
	"{\"name\":\"eth0\",\"mac\":\"0a:58:0a:01:00:05\",\"mtu\":1400,"                           \
	"\"sandbox\":\"/var/run/netns/blue\",\"socketPath\":\"/x.sock\","                          \
	"\"pciID\":\"0000:04:00.5\"}],"                                                            \
	"\"ips\":[{\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\",\"interface\":1},"         \
	"{\"address\":\"10.2.0.5/24\",\"interface\":1},"                                           \
	"{\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\",\"interface\":1}],"                   \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\",\"mtu\":1300,\"advmss\":1260,"     \
	"\"priority\":100,\"table\":100,\"scope\":0},"                                             \
	"{\"dst\":\"::/0\",\"gw\":\"fd00::1\"},{\"dst\":\"192.168.0.0/16\"}],"                     \
	"\"dns\":{\"nameservers\":[\"10.1.0.1\"],\"domain\":\"x\",\"search\":[\"a\"],"             \
	"\"options\":[\"ndots:5\"]}}"

#define FULL_040_BODY                                                                              \
	"\"interfaces\":[{\"name\":\"cni0\",\"mac\":\"00:11:22:33:44:55\"},"                       \
	"{\"name\":\"eth0\",\"mac\":\"0a:58:0a:01:00:05\",\"sandbox\":\"/var/run/netns/blue\"}],"  \
	"\"ips\":[{\"version\":\"4\",\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\","        \
	"\"interface\":1},"                                                                        \
	"{\"version\":\"4\",\"address\":\"10.2.0.5/24\",\"interface\":1},"                         \
	"{\"version\":\"6\",\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\",\"interface\":1}]," \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\",\"mtu\":1300,\"advmss\":1260,"     \
	"\"priority\":100,\"table\":100,\"scope\":0},"                                             \
	"{\"dst\":\"::/0\",\"gw\":\"fd00::1\"},{\"dst\":\"192.168.0.0/16\"}],"                     \
	"\"dns\":{\"nameservers\":[\"10.1.0.1\"],\"domain\":\"x\",\"search\":[\"a\"],"             \
	"\"options\":[\"ndots:5\"]}}"

#define FULL_LEGACY_BODY                                                                           \
	"\"ip4\":{\"ip\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\","                                \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\"},{\"dst\":\"192.168.0.0/16\"}]},"  \
	"\"ip6\":{\"ip\":\"fd00::5/64\",\"gateway\":\"fd00::1\","                                  \
	"\"routes\":[{\"dst\":\"::/0\",\"gw\":\"fd00::1\"}]},"                                     \
	"\"dns\":{\"nameservers\":[\"10.1.0.1\"],\"domain\":\"x\",\"search\":[\"a\"],"             \
	"\"options\":[\"ndots:5\"]}}"

/* 0.2 shape read back into the model: ip4 then ip6, routes ip4's then ip6's. */
#define LEGACY_AS_040_BODY                                                                         \
	"\"ips\":[{\"version\":\"4\",\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\"},"       \
	"{\"version\":\"6\",\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\"}],"                 \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\"},{\"dst\":\"192.168.0.0/16\"},"    \
	"{\"dst\":\"::/0\",\"gw\":\"fd00::1\"}],"                                                  \
	"\"dns\":{\"nameservers\":[\"10.1.0.1\"],\"domain\":\"x\",\"search\":[\"a\"],"             \
	"\"options\":[\"ndots:5\"]}}"

#define LEGACY_AS_100_BODY                                                                         \
	"\"ips\":[{\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\"},"                         \
	"{\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\"}],"                                   \
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\"},{\"dst\":\"192.168.0.0/16\"},"    \
	"{\"dst\":\"::/0\",\"gw\":\"fd00::1\"}],"                                                  \
	"\"dns\":{\"nameservers\":[\"10.1.0.1\"],\"domain\":\"x\",\"search\":[\"a\"],"             \
	"\"options\":[\"ndots:5\"]}}"

struct conv_case {
	const char *name;
	const char *in;
	enum cni_version in_version;
	enum cni_version target;
	const char *want;
};

static const struct conv_case conv_cases[] = {
    {"1.1 -> 1.1 unchanged", FULL_110, CNI_V110, CNI_V110, FULL_110},
    /* The reference's one 1.x type keeps the 1.1 fields on a 1.0.0 label. */
    {"1.1 -> 1.0 relabel only", FULL_110, CNI_V110, CNI_V100,
     "{\"cniVersion\":\"1.0.0\"," FULL_110_BODY},
    {"1.1 -> 0.4 drops interface extras, adds version", FULL_110, CNI_V110, CNI_V040,
     "{\"cniVersion\":\"0.4.0\"," FULL_040_BODY},
    {"1.1 -> 0.3.1", FULL_110, CNI_V110, CNI_V031, "{\"cniVersion\":\"0.3.1\"," FULL_040_BODY},
    {"1.1 -> 0.3.0", FULL_110, CNI_V110, CNI_V030, "{\"cniVersion\":\"0.3.0\"," FULL_040_BODY},
    {"1.1 -> 0.2 keeps first v4 and v6, routes by family", FULL_110, CNI_V110, CNI_V020,
     "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY},
    {"1.1 -> 0.1", FULL_110, CNI_V110, CNI_V010, "{\"cniVersion\":\"0.1.0\"," FULL_LEGACY_BODY},
    {"1.0 -> 1.1 relabel", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/24\"}]}",
     CNI_V100, CNI_V110, "{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":\"10.0.0.2/24\"}]}"},
    {"0.4 -> 1.0 drops version", "{\"cniVersion\":\"0.4.0\"," FULL_040_BODY, CNI_V040, CNI_V100,
     "{\"cniVersion\":\"1.0.0\","
     "\"interfaces\":[{\"name\":\"cni0\",\"mac\":\"00:11:22:33:44:55\"},"
     "{\"name\":\"eth0\",\"mac\":\"0a:58:0a:01:00:05\",\"sandbox\":\"/var/run/netns/blue\"}],"
     "\"ips\":[{\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\",\"interface\":1},"
     "{\"address\":\"10.2.0.5/24\",\"interface\":1},"
     "{\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\",\"interface\":1}],"
     "\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\",\"mtu\":1300,\"advmss\":1260,"
     "\"priority\":100,\"table\":100,\"scope\":0},"
     "{\"dst\":\"::/0\",\"gw\":\"fd00::1\"},{\"dst\":\"192.168.0.0/16\"}],"
     "\"dns\":{\"nameservers\":[\"10.1.0.1\"],\"domain\":\"x\",\"search\":[\"a\"],"
     "\"options\":[\"ndots:5\"]}}"},
    {"0.4 -> 0.3.0 relabel", "{\"cniVersion\":\"0.4.0\"," FULL_040_BODY, CNI_V040, CNI_V030,
     "{\"cniVersion\":\"0.3.0\"," FULL_040_BODY},
    {"0.3.0 -> 0.4", "{\"cniVersion\":\"0.3.0\"," FULL_040_BODY, CNI_V030, CNI_V040,
     "{\"cniVersion\":\"0.4.0\"," FULL_040_BODY},
    {"0.3.1 -> 0.2", "{\"cniVersion\":\"0.3.1\"," FULL_040_BODY, CNI_V031, CNI_V020,
     "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY},
    {"0.2 -> 0.4", "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY, CNI_V020, CNI_V040,
     "{\"cniVersion\":\"0.4.0\"," LEGACY_AS_040_BODY},
    {"0.2 -> 0.3.1", "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY, CNI_V020, CNI_V031,
     "{\"cniVersion\":\"0.3.1\"," LEGACY_AS_040_BODY},
    {"0.1 -> 1.1", "{\"cniVersion\":\"0.1.0\"," FULL_LEGACY_BODY, CNI_V010, CNI_V110,
     "{\"cniVersion\":\"1.1.0\"," LEGACY_AS_100_BODY},
    {"0.2 -> 1.0", "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY, CNI_V020, CNI_V100,
     "{\"cniVersion\":\"1.0.0\"," LEGACY_AS_100_BODY},
    {"0.1 -> 0.2", "{\"cniVersion\":\"0.1.0\"," FULL_LEGACY_BODY, CNI_V010, CNI_V020,
     "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY},
    {"0.2 -> 0.1", "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY, CNI_V020, CNI_V010,
     "{\"cniVersion\":\"0.1.0\"," FULL_LEGACY_BODY},
    /* Legacy target: a route whose family has no address is dropped. */
    {"1.0 v6-only -> 0.2 drops v4 routes",
     "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"fd00::5/64\"}],"
     "\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.0.0.1\"},{\"dst\":\"fd01::/64\"}]}",
     CNI_V100, CNI_V020,
     "{\"cniVersion\":\"0.2.0\",\"ip6\":{\"ip\":\"fd00::5/64\","
     "\"routes\":[{\"dst\":\"fd01::/64\"}]},\"dns\":{}}"},
    {"0.2 ip6 only -> 0.4", "{\"cniVersion\":\"0.2.0\",\"ip6\":{\"ip\":\"fd00::5/64\"}}", CNI_V020,
     CNI_V040,
     "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"6\",\"address\":\"fd00::5/64\"}],"
     "\"dns\":{}}"},
    /* DNS emission: omitted on 1.x when empty, always present before. */
    {"empty dns omitted on 1.1", "{\"cniVersion\":\"1.1.0\",\"dns\":{}}", CNI_V110, CNI_V110,
     "{\"cniVersion\":\"1.1.0\"}"},
    {"empty dns omitted on 1.0", "{\"cniVersion\":\"1.1.0\"}", CNI_V110, CNI_V100,
     "{\"cniVersion\":\"1.0.0\"}"},
    {"empty dns present on 0.4", "{\"cniVersion\":\"1.1.0\"}", CNI_V110, CNI_V040,
     "{\"cniVersion\":\"0.4.0\",\"dns\":{}}"},
    {"dns domain only on 1.1", "{\"cniVersion\":\"1.1.0\",\"dns\":{\"domain\":\"d\"}}", CNI_V110,
     CNI_V110, "{\"cniVersion\":\"1.1.0\",\"dns\":{\"domain\":\"d\"}}"},
    /* Route extras: 0 mtu/advmss/priority omitted, table/scope 0 kept. */
    {"route zero fields",
     "{\"cniVersion\":\"1.1.0\",\"routes\":[{\"dst\":\"10.9.0.0/16\","
     "\"mtu\":0,\"advmss\":0,\"priority\":0,\"table\":0,\"scope\":253}]}",
     CNI_V110, CNI_V040,
     "{\"cniVersion\":\"0.4.0\",\"routes\":[{\"dst\":\"10.9.0.0/16\",\"table\":0,"
     "\"scope\":253}],\"dns\":{}}"},
    /* Interface mtu 0 means unset. */
    {"interface mtu 0 omitted",
     "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"a\","
     "\"mtu\":0,\"mac\":\"\"}]}",
     CNI_V110, CNI_V110, "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"a\"}]}"},
    /* Unknown keys and JSON nulls are ignored; host bits of address are kept. */
    {"unknown keys ignored",
     "{\"cniVersion\":\"1.0.0\",\"x\":1,\"ips\":[{\"address\":"
     "\"10.0.0.7/8\",\"gateway\":null,\"foo\":[1]}],\"routes\":null}",
     CNI_V100, CNI_V100, "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.7/8\"}]}"},
    /* 0.4 shapes carry no interface mtu: the key is ignored there. */
    {"0.4 interface mtu ignored",
     "{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"a\","
     "\"mtu\":9000,\"pciID\":\"x\"}]}",
     CNI_V040, CNI_V110, "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"a\"}]}"},
    /* Missing cniVersion means the requested version. */
    {"unlabelled prevResult", "{\"ips\":[{\"version\":\"4\",\"address\":\"10.0.0.2/24\"}]}",
     CNI_V040, CNI_V040,
     "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":\"10.0.0.2/24\"}],"
     "\"dns\":{}}"},
};

static void test_conversions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(conv_cases) / sizeof(conv_cases[0]); i++) {
		const struct conv_case *c = &conv_cases[i];
		struct cni_error err = {0};
		struct cni_result *r;
		json_t *out = NULL;

		print_message("case %zu: %s\n", i, c->name);
		r = parse_ok(c->in, c->in_version);
		assert_int_equal(cni_result_to_json(r, c->target, &out, &err), 0);
		assert_json_equal(out, c->want);
		json_decref(out);
		cni_result_free(r);
	}
}

/* Every version's own shape survives parse -> print to the same version. */
static void test_round_trips(void **state)
{
	static const struct {
		enum cni_version v;
		const char *text;
	} docs[] = {
	    {CNI_V110, FULL_110},
	    {CNI_V100, "{\"cniVersion\":\"1.0.0\"," FULL_110_BODY},
	    {CNI_V040, "{\"cniVersion\":\"0.4.0\"," FULL_040_BODY},
	    {CNI_V031, "{\"cniVersion\":\"0.3.1\"," FULL_040_BODY},
	    {CNI_V030, "{\"cniVersion\":\"0.3.0\"," FULL_040_BODY},
	    {CNI_V020, "{\"cniVersion\":\"0.2.0\"," FULL_LEGACY_BODY},
	    {CNI_V010, "{\"cniVersion\":\"0.1.0\"," FULL_LEGACY_BODY},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		struct cni_error err = {0};
		struct cni_result *r = parse_ok(docs[i].text, docs[i].v);
		json_t *out = NULL;

		assert_int_equal(r->version, docs[i].v);
		assert_int_equal(cni_result_to_json(r, docs[i].v, &out, &err), 0);
		assert_json_equal(out, docs[i].text);
		json_decref(out);
		cni_result_free(r);
	}
}

/* 1.1 -> 0.4 -> 1.1 loses exactly the 1.1-only interface fields. */
static void test_down_up_loses_iface_extras(void **state)
{
	struct cni_error err = {0};
	struct cni_result *r = parse_ok(FULL_110, CNI_V110), *r2;
	json_t *mid = NULL;

	(void)state;
	assert_int_equal(cni_result_to_json(r, CNI_V040, &mid, &err), 0);
	assert_int_equal(cni_result_from_json(mid, CNI_V040, "x", &r2, &err), 0);
	assert_int_equal(r2->n_ifaces, 2);
	assert_int_equal(r2->ifaces[1].mtu, 0);
	assert_null(r2->ifaces[1].socket_path);
	assert_null(r2->ifaces[1].pci_id);
	assert_string_equal(r2->ifaces[1].sandbox, "/var/run/netns/blue");
	assert_int_equal(r2->n_ips, 3);
	assert_int_equal(r2->n_routes, 3);
	assert_true(r2->routes[0].has_table);
	assert_int_equal(r2->routes[0].table, 100);
	assert_int_equal(r2->routes[0].advmss, 1260);
	json_decref(mid);
	cni_result_free(r);
	cni_result_free(r2);
}

static void test_legacy_no_ip(void **state)
{
	static const char *const docs[] = {
	    "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
	    "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}",
	    "{\"cniVersion\":\"1.1.0\"}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		for (enum cni_version t = CNI_V010; t <= CNI_V020; t++) {
			struct cni_error err = {0};
			struct cni_result *r = parse_ok(docs[i], CNI_V110);
			json_t *out = NULL;

			assert_int_equal(cni_result_to_json(r, t, &out, &err), -EINVAL);
			assert_null(out);
			assert_int_equal(err.code, CNI_ERR_PLUGIN);
			assert_string_equal(err.msg, "cannot convert: no valid IP addresses");
			cni_error_done(&err);
			cni_result_free(r);
		}
	}
}

struct err_case {
	const char *in;
	enum cni_version v;
	unsigned code;
	const char *msg;
};

static const struct err_case err_cases[] = {
    {"[]", CNI_V110, 7, "prevResult: expected an object, got []"},
    {"{\"ips\":{}}", CNI_V110, 7,
     "prevResult.ips: expected a list of at most 1024 entries, got {}"},
    {"{\"ips\":[1]}", CNI_V110, 7, "prevResult.ips[0]: expected an object, got 1"},
    {"{\"ips\":[{}]}", CNI_V110, 7, "prevResult.ips[0].address: missing"},
    {"{\"ips\":[{\"address\":\"10.0.0.1/24\"},{\"address\":\"10.0.0.5\"}]}", CNI_V110, 7,
     "prevResult.ips[1].address: not a CIDR: '10.0.0.5'"},
    {"{\"ips\":[{\"address\":\"10.0.0.5/33\"}]}", CNI_V110, 7,
     "prevResult.ips[0].address: not a CIDR: '10.0.0.5/33'"},
    {"{\"ips\":[{\"address\":5}]}", CNI_V110, 7,
     "prevResult.ips[0].address: expected a string, got 5"},
    {"{\"ips\":[{\"address\":\"10.0.0.5/24\",\"gateway\":\"fd00::1\"}]}", CNI_V110, 7,
     "prevResult.ips[0].gateway: 'fd00::1' is not of the same family as '10.0.0.5/24'"},
    {"{\"ips\":[{\"address\":\"10.0.0.5/24\",\"gateway\":\"10.0.0.1/24\"}]}", CNI_V110, 7,
     "prevResult.ips[0].gateway: not an IP address: '10.0.0.1/24'"},
    {"{\"interfaces\":[{\"name\":\"a\"}],\"ips\":[{\"address\":\"10.0.0.5/24\","
     "\"interface\":1}]}",
     CNI_V110, 7, "prevResult.ips[0].interface: index 1 out of range (1 interfaces)"},
    {"{\"ips\":[{\"address\":\"10.0.0.5/24\",\"interface\":-1}]}", CNI_V110, 7,
     "prevResult.ips[0].interface: expected an integer from 0 to 2147483647, got -1"},
    {"{\"ips\":[{\"address\":\"10.0.0.5/24\",\"interface\":\"0\"}]}", CNI_V110, 7,
     "prevResult.ips[0].interface: expected an integer from 0 to 2147483647, got \"0\""},
    {"{\"ips\":[{\"address\":\"10.0.0.5/24\"}]}", CNI_V040, 7,
     "prevResult.ips[0].version: missing"},
    {"{\"ips\":[{\"version\":\"6\",\"address\":\"10.0.0.5/24\"}]}", CNI_V040, 7,
     "prevResult.ips[0].version: '6' does not match address '10.0.0.5/24'"},
    {"{\"ips\":[{\"version\":\"v4\",\"address\":\"10.0.0.5/24\"}]}", CNI_V031, 7,
     "prevResult.ips[0].version: must be \"4\" or \"6\": 'v4'"},
    {"{\"ips\":[{\"version\":4,\"address\":\"10.0.0.5/24\"}]}", CNI_V030, 7,
     "prevResult.ips[0].version: expected a string, got 4"},
    {"{\"interfaces\":[{\"mac\":\"x\"}]}", CNI_V110, 7, "prevResult.interfaces[0].name: missing"},
    {"{\"interfaces\":[{\"name\":\"a\",\"mtu\":\"1500\"}]}", CNI_V110, 7,
     "prevResult.interfaces[0].mtu: expected an integer from 0 to 2147483647, got \"1500\""},
    {"{\"interfaces\":[{\"name\":\"a\",\"mtu\":1500.5}]}", CNI_V110, 7,
     "prevResult.interfaces[0].mtu: expected an integer from 0 to 2147483647, got 1500.5"},
    {"{\"interfaces\":[{\"name\":\"a\",\"sandbox\":[]}]}", CNI_V040, 7,
     "prevResult.interfaces[0].sandbox: expected a string, got []"},
    {"{\"routes\":[{\"gw\":\"10.0.0.1\"}]}", CNI_V110, 7, "prevResult.routes[0].dst: missing"},
    {"{\"routes\":[{\"dst\":\"default\"}]}", CNI_V110, 7,
     "prevResult.routes[0].dst: not a CIDR: 'default'"},
    {"{\"routes\":[{\"dst\":\"::/0\",\"gw\":\"10.0.0.1\"}]}", CNI_V110, 7,
     "prevResult.routes[0].gw: '10.0.0.1' is not of the same family as '::/0'"},
    {"{\"routes\":[{\"dst\":\"::/0\",\"scope\":256}]}", CNI_V110, 7,
     "prevResult.routes[0].scope: expected an integer from 0 to 255, got 256"},
    {"{\"routes\":[{\"dst\":\"::/0\",\"table\":true}]}", CNI_V040, 7,
     "prevResult.routes[0].table: expected an integer from 0 to 2147483647, got true"},
    {"{\"dns\":[]}", CNI_V110, 7, "prevResult.dns: expected an object, got []"},
    {"{\"dns\":{\"nameservers\":\"8.8.8.8\"}}", CNI_V110, 7,
     "prevResult.dns.nameservers: expected a list of at most 1024 entries, got \"8.8.8.8\""},
    {"{\"dns\":{\"search\":[\"a\",2]}}", CNI_V110, 7,
     "prevResult.dns.search[1]: expected a string, got 2"},
    {"{\"dns\":{\"domain\":false}}", CNI_V040, 7,
     "prevResult.dns.domain: expected a string, got false"},
    {"{\"ip4\":{}}", CNI_V020, 7, "prevResult.ip4.ip: missing"},
    {"{\"ip4\":\"10.0.0.5/24\"}", CNI_V020, 7,
     "prevResult.ip4: expected an object, got \"10.0.0.5/24\""},
    {"{\"ip4\":{\"ip\":\"fd00::5/64\"}}", CNI_V010, 7,
     "prevResult.ip4.ip: 'fd00::5/64' is not an IPv4 address"},
    {"{\"ip6\":{\"ip\":\"fd00::5/64\",\"gateway\":\"10.0.0.1\"}}", CNI_V020, 7,
     "prevResult.ip6.gateway: '10.0.0.1' is not of the same family as 'fd00::5/64'"},
    {"{\"ip6\":{\"ip\":\"fd00::5/64\",\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}", CNI_V020, 7,
     "prevResult.ip6.routes[0].dst: '0.0.0.0/0' is not an IPv6 address"},
    {"{\"ip4\":{\"ip\":\"10.0.0.5/24\",\"routes\":[{\"dst\":\"10.1.0.0/16\",\"gw\":1}]}}", CNI_V020,
     7, "prevResult.ip4.routes[0].gw: expected a string, got 1"},
    {"{\"cniVersion\":1}", CNI_V110, 7, "prevResult.cniVersion: expected a string, got 1"},
    /* Cross-family labels are refused, as the reference's ParsePrevResult does. */
    {"{\"cniVersion\":\"1.0.0\"}", CNI_V040, 1,
     "prevResult.cniVersion: result version '1.0.0' is incompatible with version '0.4.0'"},
    {"{\"cniVersion\":\"0.4.0\"}", CNI_V110, 1,
     "prevResult.cniVersion: result version '0.4.0' is incompatible with version '1.1.0'"},
    {"{\"cniVersion\":\"0.2.0\"}", CNI_V031, 1,
     "prevResult.cniVersion: result version '0.2.0' is incompatible with version '0.3.1'"},
    {"{\"cniVersion\":\"0.3.0\"}", CNI_V010, 1,
     "prevResult.cniVersion: result version '0.3.0' is incompatible with version '0.1.0'"},
    {"{\"cniVersion\":\"2.0.0\"}", CNI_V110, 1,
     "prevResult.cniVersion: result version '2.0.0' is incompatible with version '1.1.0'"},
    {"{\"cniVersion\":\"x.y\"}", CNI_V110, 1,
     "prevResult.cniVersion: result version 'x.y' is incompatible with version '1.1.0'"},
};

static void test_parse_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct cni_error err = {0};
		struct cni_result *r = NULL;
		json_t *j = load(c->in);

		print_message("case %zu: %s\n", i, c->in);
		assert_int_equal(cni_result_from_json(j, c->v, "prevResult", &r, &err), -EINVAL);
		assert_null(r);
		assert_int_equal(err.code, c->code);
		assert_string_equal(err.msg, c->msg);
		cni_error_done(&err);
		json_decref(j);
	}
}

/* Same family, other label: accepted and kept. */
static void test_same_family_label(void **state)
{
	struct cni_result *r;

	(void)state;
	r = parse_ok("{\"cniVersion\":\"1.0.0\"}", CNI_V110);
	assert_int_equal(r->version, CNI_V100);
	cni_result_free(r);
	r = parse_ok("{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"4\",\"address\":"
		     "\"10.0.0.1/8\"}]}",
		     CNI_V040);
	assert_int_equal(r->version, CNI_V031);
	cni_result_free(r);
	r = parse_ok("{\"cniVersion\":\"\"}", CNI_V110);
	assert_int_equal(r->version, CNI_V110);
	cni_result_free(r);
	r = parse_ok("{}", CNI_V020);
	assert_int_equal(r->version, CNI_V020);
	assert_int_equal(r->n_ips, 0);
	cni_result_free(r);
}

static void test_path_variants(void **state)
{
	struct cni_error err = {0};
	struct cni_result *r = NULL;
	json_t *j = load("{\"ips\":[{\"address\":\"x\"}]}");

	(void)state;
	assert_int_equal(cni_result_from_json(j, CNI_V110, NULL, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "ips[0].address: not a CIDR: 'x'");
	cni_error_done(&err);
	assert_int_equal(cni_result_from_json(j, CNI_V110, "delegates[2].result", &r, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "delegates[2].result.ips[0].address: not a CIDR: 'x'");
	cni_error_done(&err);
	json_decref(j);
	j = load("5");
	assert_int_equal(cni_result_from_json(j, CNI_V110, "", &r, &err), -EINVAL);
	assert_string_equal(err.msg, "result: expected an object, got 5");
	cni_error_done(&err);
	assert_int_equal(cni_result_from_json(j, CNI_V_INVALID, "", &r, &err), -EINVAL);
	cni_error_done(&err);
	json_decref(j);
}

/* Build {"<key>": [n copies of entry]} wrapped in extra. */
static json_t *make_list(const char *key, size_t n, const char *entry)
{
	json_t *root = json_object(), *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, load(entry));
	json_object_set_new(root, key, a);
	return root;
}

static void test_caps(void **state)
{
	static const struct {
		const char *key, *entry, *msg;
	} lists[] = {
	    {"ips", "{\"address\":\"10.0.0.1/8\"}",
	     "prevResult.ips: expected a list of at most 1024 entries, got 1025"},
	    {"routes", "{\"dst\":\"10.0.0.0/8\"}",
	     "prevResult.routes: expected a list of at most 1024 entries, got 1025"},
	    {"interfaces", "{\"name\":\"eth0\"}",
	     "prevResult.interfaces: expected a list of at most 1024 entries, got 1025"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		struct cni_error err = {0};
		struct cni_result *r = NULL;
		json_t *j = make_list(lists[i].key, CNI_RESULT_MAX_ENTRIES, lists[i].entry);

		assert_int_equal(cni_result_from_json(j, CNI_V110, "prevResult", &r, &err), 0);
		cni_result_free(r);
		r = NULL;
		json_array_append_new(json_object_get(j, lists[i].key), load(lists[i].entry));
		assert_int_equal(cni_result_from_json(j, CNI_V110, "prevResult", &r, &err),
				 -EINVAL);
		assert_null(r);
		assert_int_equal(err.code, CNI_ERR_INVALID_CONFIG);
		assert_string_equal(err.msg, lists[i].msg);
		cni_error_done(&err);
		json_decref(j);
	}
}

static void test_dns_caps_and_parse(void **state)
{
	struct cni_error err = {0};
	struct cni_dns dns = {0}, copy = {0};
	json_t *j = json_object(), *a = json_array();

	(void)state;
	for (size_t i = 0; i <= CNI_RESULT_MAX_ENTRIES; i++)
		json_array_append_new(a, json_string("opt"));
	json_object_set_new(j, "options", a);
	assert_int_equal(cni_dns_from_json(j, "ipam.dns", &dns, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "ipam.dns.options: expected a list of at most 1024 entries, got 1025");
	cni_error_done(&err);
	json_decref(j);

	j = load("{\"nameservers\":[\"1.1.1.1\",\"fd00::53\"],\"search\":[\"svc\"],"
		 "\"unknown\":1}");
	assert_int_equal(cni_dns_from_json(j, "dns", &dns, &err), 0);
	assert_int_equal(dns.n_nameservers, 2);
	assert_string_equal(dns.nameservers[1], "fd00::53");
	assert_null(dns.domain);
	assert_false(cni_dns_is_empty(&dns));
	assert_int_equal(cni_dns_copy(&copy, &dns), 0);
	cni_dns_done(&dns);
	assert_true(cni_dns_is_empty(&dns));
	assert_string_equal(copy.search[0], "svc");
	json_decref(j);
	j = cni_dns_to_json(&copy);
	assert_json_equal(j, "{\"nameservers\":[\"1.1.1.1\",\"fd00::53\"],\"search\":[\"svc\"]}");
	json_decref(j);
	cni_dns_done(&copy);
	assert_true(cni_dns_is_empty(NULL));
}

struct any_case {
	const char *in;
	enum cni_version fallback;
	int want_r;
	unsigned code;
	enum cni_version want_version;
};

static void test_from_json_any(void **state)
{
	static const struct any_case cases[] = {
	    {"{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2/24\"}}", CNI_V110, 0, 0,
	     CNI_V020},
	    {"{\"cniVersion\":\"0.4.0\"}", CNI_V110, 0, 0, CNI_V040},
	    {"{\"ips\":[{\"address\":\"10.0.0.2/24\"}]}", CNI_V100, 0, 0, CNI_V100},
	    {"null", CNI_V040, 0, 0, CNI_V040},
	    {"{\"cniVersion\":\"\"}", CNI_V031, 0, 0, CNI_V031},
	    {"{\"cniVersion\":\"1.x\"}", CNI_V110, -EINVAL, CNI_ERR_DECODE, 0},
	    {"{\"cniVersion\":\"9.9.9\"}", CNI_V110, -EPROTONOSUPPORT, CNI_ERR_INCOMPATIBLE_VERSION,
	     0},
	    {"{\"cniVersion\":[]}", CNI_V110, -EINVAL, CNI_ERR_INVALID_CONFIG, 0},
	    {"[1]", CNI_V110, -EINVAL, CNI_ERR_INVALID_CONFIG, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cni_error err = {0};
		struct cni_result *r = NULL;
		json_t *j = load(cases[i].in);
		int rc = cni_result_from_json_any(j, cases[i].fallback, "stdout", &r, &err);

		print_message("case %zu: %s\n", i, cases[i].in);
		assert_int_equal(rc, cases[i].want_r);
		if (rc == 0) {
			assert_int_equal(r->version, cases[i].want_version);
		} else {
			assert_null(r);
			assert_int_equal(err.code, cases[i].code);
			assert_non_null(strstr(err.msg, "stdout"));
		}
		cni_result_free(r);
		cni_error_done(&err);
		json_decref(j);
	}
}

/* A result built by plugin code, as bridge would. */
static struct cni_result *build_result(void)
{
	struct cni_result *r = cni_result_new(CNI_V110);
	struct cni_ip ip = {.interface = -1};
	struct cni_route rt = {0};
	int idx, family;

	assert_non_null(r);
	assert_int_equal(cni_result_add_iface(r, "cni0", "00:11:22:33:44:55", NULL), 0);
	idx = cni_result_add_iface(r, "eth0", NULL, "/var/run/netns/p");
	assert_int_equal(idx, 1);
	r->ifaces[idx].mtu = 9000;
	assert_int_equal(ip_prefix_parse("10.0.0.5/24", &ip.address), 0);
	ip.has_gateway = true;
	assert_int_equal(ip_addr_parse("10.0.0.1", &family, &ip.gateway), 0);
	ip.interface = idx;
	assert_int_equal(cni_result_add_ip(r, &ip), 0);
	assert_int_equal(ip_prefix_parse("0.0.0.0/0", &rt.dst), 0);
	assert_int_equal(cni_result_add_route(r, &rt), 0);
	return r;
}

static void test_build_and_dup(void **state)
{
	struct cni_error err = {0};
	struct cni_result *r = build_result(), *d;
	json_t *out = NULL;

	(void)state;
	assert_int_equal(cni_result_add_iface(r, NULL, NULL, NULL), -EINVAL);
	d = cni_result_dup(r);
	assert_non_null(d);
	cni_result_free(r);
	assert_int_equal(cni_result_to_json(d, CNI_V110, &out, &err), 0);
	assert_json_equal(out, "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"cni0\","
			       "\"mac\":\"00:11:22:33:44:55\"},{\"name\":\"eth0\",\"mtu\":9000,"
			       "\"sandbox\":\"/var/run/netns/p\"}],\"ips\":[{\"address\":"
			       "\"10.0.0.5/24\",\"gateway\":\"10.0.0.1\",\"interface\":1}],"
			       "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}");
	json_decref(out);
	assert_null(cni_result_free(d));
	assert_null(cni_result_free(NULL));
}

static void test_print_errors(void **state)
{
	struct cni_error err = {0};
	struct cni_result *r = build_result();
	struct cni_ip bad = {.interface = -1};
	json_t *out = NULL;

	(void)state;
	assert_int_equal(cni_result_to_json(r, CNI_V_INVALID, &out, &err), -EINVAL);
	assert_int_equal(err.code, CNI_ERR_INCOMPATIBLE_VERSION);
	cni_error_done(&err);

	free(r->ifaces[1].sandbox);
	r->ifaces[1].sandbox = strdup("/run/netns/\xff\xfe");
	assert_int_equal(cni_result_to_json(r, CNI_V110, &out, &err), -EILSEQ);
	assert_null(out);
	assert_int_equal(err.code, CNI_ERR_PLUGIN);
	cni_error_done(&err);

	assert_int_equal(cni_result_add_ip(r, &bad), 1);
	assert_int_equal(cni_result_to_json(r, CNI_V040, &out, &err), -EINVAL);
	assert_string_equal(err.msg, "result: ips[1] has no address");
	cni_error_done(&err);
	cni_result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conversions),
	    cmocka_unit_test(test_round_trips),
	    cmocka_unit_test(test_down_up_loses_iface_extras),
	    cmocka_unit_test(test_legacy_no_ip),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_same_family_label),
	    cmocka_unit_test(test_path_variants),
	    cmocka_unit_test(test_caps),
	    cmocka_unit_test(test_dns_caps_and_parse),
	    cmocka_unit_test(test_from_json_any),
	    cmocka_unit_test(test_build_and_dup),
	    cmocka_unit_test(test_print_errors),
	};

	return cmocka_run_group_tests_name("cni_result", tests, NULL, NULL);
}
