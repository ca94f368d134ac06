/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bird.conf rendering against golden files (test/podwire-node/golden/<name>.conf,
 * each also checked by `bird -p` when bird is installed), the peer plan over
 * registry records, the records' JSON, and the atomic write.
 * PODWIRE_UPDATE_GOLDEN=1 rewrites the golden files.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pwnode.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ch;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((ch = fgetc(f)) != EOF)
		fputc(ch, m);
	fclose(m);
	fclose(f);
	return buf;
}

static void load(const char *path, struct pwn_conf *c)
{
	struct cni_error err = {0};

	if (pwn_conf_load(path, NULL, c, &err) < 0)
		print_error("%s: %s\n", path, err.msg);
	assert_null(err.msg);
}

static void golden_one(const char *dir, const char *name)
{
	char json[4400], conf[4400], *text, *want;
	struct cni_error err = {0};
	struct pwn_peer *peers = NULL;
	FILE *null = fopen("/dev/null", "we");
	struct pwn_conf c;
	int n;

	snprintf(json, sizeof(json), "%s/%s.json", dir, name);
	snprintf(conf, sizeof(conf), "%s/%s.conf", dir, name);
	load(json, &c);
	n = pwn_plan_peers(&c, NULL, 0, NULL, &peers);
	assert_true(n >= 0);
	text = pwn_bird_render_str(&c, peers, (size_t)n);
	assert_non_null(text);
	if (getenv("PODWIRE_UPDATE_GOLDEN")) {
		FILE *f = fopen(conf, "we");

		fputs(text, f);
		fclose(f);
	}
	want = slurp(conf);
	if (!want || strcmp(want, text) != 0) {
		print_error("%s differs from the rendering:\n%s\n", conf, text);
		fail();
	}
	/* bird -p (skipped with a warning when bird is not installed). */
	if (pwn_bird_write(text, NULL, null, NULL, false, &err) < 0)
		print_error("%s: %s\n%s\n", name, err.msg, err.details ? err.details : "");
	assert_null(err.msg);
	fclose(null);
	free(want);
	free(text);
	free(peers);
	pwn_conf_done(&c);
}

static void test_golden(void **state)
{
	const char *src = getenv("PODWIRE_SRC");
	char dir[4096];
	struct dirent *de;
	unsigned count = 0;
	DIR *d;

	(void)state;
	assert_non_null(src);
	snprintf(dir, sizeof(dir), "%s/test/podwire-node/golden", src);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char name[256];

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 ||
		    len - 5 >= sizeof(name))
			continue;
		memcpy(name, de->d_name, len - 5);
		name[len - 5] = '\0';
		golden_one(dir, name);
		count++;
	}
	closedir(d);
	assert_true(count >= 5);
}

static void parse(const char *json, struct pwn_conf *c)
{
	struct cni_error err = {0};

	if (pwn_conf_parse(json, strlen(json), "t", NULL, c, &err) < 0)
		print_error("%s\n", err.msg);
	assert_null(err.msg);
}

static void node(struct pwn_node *n, const char *name, const char *rid, const char *v6, bool rr)
{
	struct cni_error err = {0};
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "{\"nodeName\":\"%s\",\"routerId\":\"%s\",\"asNumber\":64512,"
		 "\"addresses\":[\"%s\"%s%s%s],\"routeReflector\":%s}",
		 name, rid, rid, v6 ? ",\"" : "", v6 ? v6 : "", v6 ? "\"" : "",
		 rr ? "true" : "false");
	assert_int_equal(pwn_node_decode(buf, strlen(buf), n, &err), 0);
}

static const char *fmt(const struct pwn_peer *p, char *buf)
{
	char a[INET6_ADDRSTRLEN];

	snprintf(buf, 96, "%s as %u%s%s%s", ip_addr_fmt(p->family, &p->addr, a), p->as,
		 p->rr_client ? " client" : "", *p->node ? " " : "", p->node);
	return buf;
}

#define ME "{\"nodeName\":\"b\",\"routerId\":\"10.0.0.2\",\"asNumber\":64512,"

static void test_plan_mesh(void **state)
{
	struct pwn_node nodes[4];
	struct pwn_peer *p = NULL;
	struct pwn_conf c;
	char buf[96], *warn = NULL;
	size_t len = 0;
	FILE *w = open_memstream(&warn, &len);
	int n;

	(void)state;
	parse(ME "\"addresses\":[\"10.0.0.2\",\"fd00::2\"],\"peers\":[{\"address\":\"10.0.0.3\","
		 "\"asNumber\":65000}]}",
	      &c);
	node(&nodes[0], "c", "10.0.0.3", NULL, false);
	node(&nodes[1], "b", "10.0.0.2", "fd00::2", false);
	node(&nodes[2], "a", "10.0.0.1", "fd00::1", false);
	node(&nodes[3], "dup", "10.0.0.2", NULL, false);
	n = pwn_plan_peers(&c, nodes, 4, w, &p);
	fclose(w);
	assert_int_equal(n, 3);
	assert_string_equal(fmt(&p[0], buf), "10.0.0.1 as 64512 a");
	/* The static peer wins over node c's record of the same address. */
	assert_string_equal(fmt(&p[1], buf), "10.0.0.3 as 65000");
	assert_string_equal(fmt(&p[2], buf), "fd00::1 as 64512 a");
	assert_non_null(strstr(warn, "node dup registers this node's router id"));
	free(warn);
	free(p);
	pwn_conf_done(&c);
}

static void test_plan_rr(void **state)
{
	struct pwn_node nodes[4];
	struct pwn_peer *p = NULL;
	struct pwn_conf c;
	char buf[96];
	int n;

	(void)state;
	node(&nodes[0], "a", "10.0.0.1", NULL, false);
	node(&nodes[1], "b", "10.0.0.2", NULL, false);
	node(&nodes[2], "rr1", "10.0.0.10", NULL, true);
	node(&nodes[3], "rr2", "10.0.0.11", NULL, true);
	/* A client peers with the reflectors only. */
	parse(ME "\"exportMode\":\"blocks\"}", &c);
	n = pwn_plan_peers(&c, nodes, 4, NULL, &p);
	assert_int_equal(n, 2);
	assert_string_equal(fmt(&p[0], buf), "10.0.0.10 as 64512 rr1");
	assert_string_equal(fmt(&p[1], buf), "10.0.0.11 as 64512 rr2");
	free(p);
	pwn_conf_done(&c);
	/* A reflector peers with everyone; the non-reflectors are its clients. */
	parse("{\"nodeName\":\"rr1\",\"routerId\":\"10.0.0.10\",\"asNumber\":64512,"
	      "\"routeReflector\":{}}",
	      &c);
	n = pwn_plan_peers(&c, nodes, 4, NULL, &p);
	assert_int_equal(n, 3);
	assert_string_equal(fmt(&p[0], buf), "10.0.0.1 as 64512 client a");
	assert_string_equal(fmt(&p[1], buf), "10.0.0.2 as 64512 client b");
	assert_string_equal(fmt(&p[2], buf), "10.0.0.11 as 64512 rr2");
	free(p);
	pwn_conf_done(&c);
}

#define BAD_RID "{\"nodeName\":\"x\",\"routerId\":\"::1\",\"asNumber\":1}"

static void test_record(void **state)
{
	struct cni_error err = {0};
	struct pwn_node n, back;
	struct pwn_conf c;
	char *s;

	(void)state;
	parse(ME "\"addresses\":[\"10.0.0.2/24\",\"fd00::2\"],\"routeReflector\":{}}", &c);
	pwn_node_from_conf(&c, &n);
	s = pwn_node_encode(&n);
	assert_string_equal(
	    s, "{\"addresses\":[\"10.0.0.2\",\"fd00::2\"],\"asNumber\":64512,"
	       "\"nodeName\":\"b\",\"routeReflector\":true,\"routerId\":\"10.0.0.2\"}");
	assert_int_equal(pwn_node_decode(s, strlen(s), &back, &err), 0);
	assert_string_equal(back.name, "b");
	assert_int_equal(back.n_addresses, 2);
	assert_true(back.is_reflector);
	free(s);
	pwn_conf_done(&c);
	assert_int_equal(pwn_node_decode("{\"nodeName\":\"x\"}", 16, &back, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "required"));
	cni_error_done(&err);
	assert_int_equal(pwn_node_decode(BAD_RID, strlen(BAD_RID), &back, &err), -EINVAL);
	cni_error_done(&err);
}

/* A config bird rejects leaves nothing behind; an accepted one replaces the file. */
static void test_write(void **state)
{
	char dir[] = "/tmp/pwn-test-XXXXXX", path[64], *got;
	struct cni_error err = {0};
	struct dirent *de;
	unsigned entries = 0;
	DIR *d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bird.conf", dir);
	setenv("PODWIRE_BIRD", "/bin/false", 1);
	assert_int_equal(pwn_bird_write("x;\n", path, NULL, NULL, true, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "bird -p rejected the rendered config (exit 1)"));
	cni_error_done(&err);
	assert_int_equal(access(path, F_OK), -1);
	setenv("PODWIRE_BIRD", "/nonexistent/bird", 1);
	assert_int_equal(pwn_bird_write("x;\n", path, NULL, NULL, true, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "bird not installed"));
	cni_error_done(&err);
	setenv("PODWIRE_BIRD", "/bin/true", 1);
	assert_int_equal(pwn_bird_write("ok;\n", path, NULL, NULL, true, &err), 0);
	unsetenv("PODWIRE_BIRD");
	got = slurp(path);
	assert_string_equal(got, "ok;\n");
	free(got);
	d = opendir(dir);
	while ((de = readdir(d)))
		entries += de->d_name[0] != '.' || strncmp(de->d_name, ".bird", 5) == 0;
	closedir(d);
	assert_int_equal(entries, 1); /* no temp file left */
	unlink(path);
	rmdir(dir);
}

static void test_birdc_missing_socket(void **state)
{
	struct cni_error err = {0};

	(void)state;
	setenv("PODWIRE_BIRDC", "/bin/true", 1);
	assert_true(pwn_birdc_configure("/nonexistent/bird.ctl", &err) < 0);
	assert_non_null(
	    strstr(err.msg, "birdSocket /nonexistent/bird.ctl: no BIRD control socket"));
	cni_error_done(&err);
	unsetenv("PODWIRE_BIRDC");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_golden),  cmocka_unit_test(test_plan_mesh),
	    cmocka_unit_test(test_plan_rr), cmocka_unit_test(test_record),
	    cmocka_unit_test(test_write),   cmocka_unit_test(test_birdc_missing_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
