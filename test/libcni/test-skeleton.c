/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The plugin skeleton: environment validation, version rules, dispatch,
 * rollback and exactly one JSON document on stdout — every spec error code
 * the skeleton owns.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cni/log.h"
#include "cni/plugin.h"

static int undo_ran;
static int add_calls;
static bool add_fails;
static bool add_no_ip;
static bool add_renders; /* renders its result early (cni_plugin_render_result) */
static bool add_fails_after_render;

static int undo_mark(void *arg)
{
	(void)arg;
	undo_ran++;
	return 0;
}

static int fake_add(struct cni_ctx *ctx)
{
	struct cni_ip ip = {.interface = -1};

	add_calls++;
	cni_undo_push(&ctx->undo, "mark", undo_mark, NULL, NULL);
	if (add_fails)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EEXIST, "create veth 'x'");
	ctx->result = cni_result_new(ctx->conf.version);
	if (!add_no_ip) {
		ip_prefix_parse("10.0.0.5/24", &ip.address);
		cni_result_add_ip(ctx->result, &ip);
	}
	if (add_renders) {
		int r = cni_plugin_render_result(ctx);

		if (r < 0)
			return r;
	}
	if (add_fails_after_render)
		return cni_errorf(&ctx->err, CNI_ERR_PLUGIN, -EEXIST, "add host route");
	return 0;
}

static int fake_del(struct cni_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static const char *const arg_keys[] = {"MAC", NULL};

static const struct cni_plugin_ops ops = {
    .name = "fake",
    .cni_args_keys = arg_keys,
    .add = fake_add,
    .del = fake_del,
    .check = fake_del,
};

static char out_buf[8192];
static json_t *out_json;

/* Run the skeleton with env (NULL-terminated) and stdin; returns exit code. */
static int run(const char *const *env, const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	cni_log_set_sink(NULL, NULL);
	rc = cni_plugin_run(&ops, (char *const *)env, in, strlen(in), f);
	fclose(f);
	snprintf(out_buf, sizeof(out_buf), "%s", buf ? buf : "");
	free(buf);
	json_decref(out_json);
	out_json = out_buf[0] ? json_loads(out_buf, 0, NULL) : NULL;
	return rc;
}

static const char *pod_netns;

#define CONF_V(v) "{\"cniVersion\":\"" v "\",\"name\":\"net\",\"type\":\"fake\"}"
#define CONF CONF_V("1.0.0")

static void expect_error(unsigned code, const char *substr)
{
	const char *msg = json_string_value(json_object_get(out_json, "msg"));

	assert_non_null(out_json);
	print_message("  -> %s\n", out_buf);
	assert_int_equal(json_integer_value(json_object_get(out_json, "code")), code);
	assert_non_null(msg);
	assert_non_null(strstr(msg, substr));
}

static void test_missing_env_all_named(void **state)
{
	const char *env[] = {"CNI_COMMAND=ADD", NULL};

	(void)state;
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV,
		     "required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME] missing");
}

static void test_del_needs_less(void **state)
{
	const char *env[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0",
			     "CNI_NETNS=", NULL};

	(void)state;
	assert_int_equal(run(env, CONF), 0);
	assert_string_equal(out_buf, "");
}

static void test_gc_needs_path(void **state)
{
	const char *env[] = {"CNI_COMMAND=GC", NULL};

	(void)state;
	assert_int_equal(run(env, CONF_V("1.1.0")), 1);
	expect_error(CNI_ERR_INVALID_ENV, "[CNI_PATH] missing");
}

static void test_bad_container_id_and_ifname(void **state)
{
	const char *env1[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=../x", "CNI_IFNAME=eth0", NULL};
	const char *env2[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0/1", NULL};
	const char *env3[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1",
			      "CNI_IFNAME=averyveryverylongname", NULL};

	(void)state;
	assert_int_equal(run(env1, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "CNI_CONTAINERID: invalid characters in '../x'");
	assert_int_equal(run(env2, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "CNI_IFNAME: invalid interface name 'eth0/1'");
	assert_int_equal(run(env3, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "'averyveryverylongname'");
}

static void test_ifname_ascii_only(void **state)
{
	const char *env[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=\xc3\xa9th0",
			     NULL};

	(void)state;
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "invalid interface name '\xc3\xa9th0': ASCII only");
}

/* Over-long names: refused up front naming the limit; DEL/GC of one succeed doing nothing. */
static void test_length_limits(void **state)
{
	char cid[200], env_cid[256], env_check[256], conf[400], name[130];
	const char *del[] = {"CNI_COMMAND=DEL", env_cid, "CNI_IFNAME=eth0", NULL};
	const char *check[] = {"CNI_COMMAND=CHECK", env_cid, "CNI_IFNAME=eth0", env_check, NULL};
	const char *gc[] = {"CNI_COMMAND=GC", "CNI_PATH=/x", NULL};

	(void)state;
	memset(cid, 'a', CNI_CONTAINER_ID_MAX + 1);
	cid[CNI_CONTAINER_ID_MAX + 1] = '\0';
	snprintf(env_cid, sizeof(env_cid), "CNI_CONTAINERID=%s", cid);
	snprintf(env_check, sizeof(env_check), "CNI_NETNS=%s", pod_netns);
	assert_int_equal(run(check, CONF), 1);
	expect_error(
	    CNI_ERR_INVALID_ENV,
	    "CNI_CONTAINERID: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is 129 bytes, longer than "
	    "the limit of 128 bytes");
	assert_int_equal(run(del, CONF), 0);
	assert_string_equal(out_buf, "");
	cid[CNI_CONTAINER_ID_MAX] = '\0'; /* at the limit: fine */
	snprintf(env_cid, sizeof(env_cid), "CNI_CONTAINERID=%s", cid);
	assert_int_equal(run(check, CONF), 0);

	memset(name, 'n', CNI_NETWORK_NAME_MAX + 1);
	name[CNI_NETWORK_NAME_MAX + 1] = '\0';
	snprintf(conf, sizeof(conf), "{\"cniVersion\":\"1.1.0\",\"name\":\"%s\",\"type\":\"fake\"}",
		 name);
	assert_int_equal(run(check, conf), 1);
	expect_error(CNI_ERR_INVALID_CONFIG, "is 129 bytes, longer than the limit of 128 bytes");
	assert_int_equal(run(del, conf), 0);
	assert_string_equal(out_buf, "");
	assert_int_equal(run(gc, conf), 0);
}

static void test_log_level_unknown(void **state)
{
	const char *del[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", NULL};
	char env_check[256];
	const char *check[] = {"CNI_COMMAND=CHECK", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0",
			       env_check, NULL};
	static const char conf[] =
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"fake\",\"logLevel\":\"loud\"}";

	(void)state;
	snprintf(env_check, sizeof(env_check), "CNI_NETNS=%s", pod_netns);
	assert_int_equal(run(check, conf), 1);
	expect_error(CNI_ERR_INVALID_CONFIG, "logLevel: unknown level 'loud'");
	assert_int_equal(run(del, conf), 0); /* DEL: a warning only */
}

static void test_unknown_command(void **state)
{
	const char *env[] = {"CNI_COMMAND=FROB", NULL};

	(void)state;
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "unknown CNI_COMMAND: FROB");
}

static void test_no_command_prints_about(void **state)
{
	const char *env[] = {NULL};
	int saved = dup(STDERR_FILENO), devnull = open("/dev/null", O_WRONLY);

	(void)state;
	dup2(devnull, STDERR_FILENO);
	assert_int_equal(run(env, CONF), 0);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(devnull);
	assert_string_equal(out_buf, "");
}

static void test_version(void **state)
{
	const char *env[] = {"CNI_COMMAND=VERSION", NULL};
	const json_t *sv;

	(void)state;
	assert_int_equal(run(env, "{\"cniVersion\":\"0.4.0\"}"), 0);
	assert_string_equal(json_string_value(json_object_get(out_json, "cniVersion")), "0.4.0");
	sv = json_object_get(out_json, "supportedVersions");
	assert_int_equal(json_array_size(sv), 7);
	assert_string_equal(json_string_value(json_array_get(sv, 0)), "0.1.0");
	assert_string_equal(json_string_value(json_array_get(sv, 6)), "1.1.0");
	/* No or unusable stdin: answer with our own version. */
	assert_int_equal(run(env, ""), 0);
	assert_string_equal(json_string_value(json_object_get(out_json, "cniVersion")), "1.1.0");
	assert_int_equal(run(env, "garbage"), 0);
	assert_string_equal(json_string_value(json_object_get(out_json, "cniVersion")), "1.1.0");
}

static void test_bad_stdin(void **state)
{
	const char *env[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", NULL};

	(void)state;
	assert_int_equal(run(env, "{\"name\":"), 1);
	expect_error(CNI_ERR_DECODE, "stdin: invalid JSON at line 1");
	assert_int_equal(run(env, ""), 1);
	expect_error(CNI_ERR_DECODE, "stdin: invalid JSON");
	assert_int_equal(run(env, "{\"cniVersion\":\"1.0.0\",\"type\":\"x\"}"), 1);
	expect_error(CNI_ERR_INVALID_CONFIG, "missing network name");
	assert_int_equal(run(env, "{\"name\":\"n\",\"name\":\"m\"}"), 1);
	expect_error(CNI_ERR_DECODE, "duplicate object key");
}

static void test_version_rules(void **state)
{
	const char *del[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", NULL};
	const char *status[] = {"CNI_COMMAND=STATUS", NULL};
	const char *gc[] = {"CNI_COMMAND=GC", "CNI_PATH=/nonexistent", NULL};
	char env_check[256];
	const char *check[] = {"CNI_COMMAND=CHECK", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0",
			       env_check, NULL};

	(void)state;
	snprintf(env_check, sizeof(env_check), "CNI_NETNS=%s", pod_netns);
	assert_int_equal(run(del, CONF_V("0.5.0")), 1);
	expect_error(CNI_ERR_INCOMPATIBLE_VERSION, "cniVersion '0.5.0' is not supported");
	assert_non_null(
	    strstr(json_string_value(json_object_get(out_json, "details")), "plugin supports"));
	/* A string naming no version is incompatible (1), not undecodable (6), as the reference. */
	assert_int_equal(run(del, CONF_V("abc")), 1);
	expect_error(CNI_ERR_INCOMPATIBLE_VERSION, "cniVersion 'abc' is not supported");
	assert_int_equal(run(del, CONF_V("1.x")), 1);
	expect_error(CNI_ERR_INCOMPATIBLE_VERSION, "cniVersion '1.x' is not supported");
	assert_int_equal(run(check, CONF_V("0.3.1")), 1);
	expect_error(CNI_ERR_INCOMPATIBLE_VERSION, "does not allow CHECK");
	assert_int_equal(run(status, CONF_V("1.0.0")), 1);
	expect_error(CNI_ERR_INCOMPATIBLE_VERSION, "does not allow STATUS");
	assert_int_equal(run(gc, CONF_V("1.0.0")), 1);
	expect_error(CNI_ERR_INCOMPATIBLE_VERSION, "does not allow GC");
	/* No handler: STATUS and GC succeed silently. */
	assert_int_equal(run(status, CONF_V("1.1.0")), 0);
	assert_int_equal(run(gc, CONF_V("1.1.0")), 0);
	assert_string_equal(out_buf, "");
}

static void test_netns_checks(void **state)
{
	const char *env[] = {"CNI_COMMAND=ADD", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", NULL,
			     NULL};
	const char *own[] = {"CNI_COMMAND=ADD", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0",
			     "CNI_NETNS=/proc/self/ns/net", NULL};

	(void)state;
	env[3] = "CNI_NETNS=relative/path";
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "CNI_NETNS: 'relative/path' is not an absolute path");
	env[3] = "CNI_NETNS=/nonexistent/netns";
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "CNI_NETNS: '/nonexistent/netns': No such file");
	env[3] = "CNI_NETNS=/etc/hostname";
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "'/etc/hostname' is not a network namespace");
	assert_int_equal(run(own, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "is the plugin's own network namespace");
}

static void test_add_prints_result_in_conf_version(void **state)
{
	char netns[256];
	const char *env[] = {"CNI_COMMAND=ADD", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", netns,
			     NULL};
	const json_t *ip0;

	(void)state;
	snprintf(netns, sizeof(netns), "CNI_NETNS=%s", pod_netns);
	add_fails = add_no_ip = false;
	assert_int_equal(run(env, CONF_V("0.4.0")), 0);
	assert_string_equal(json_string_value(json_object_get(out_json, "cniVersion")), "0.4.0");
	ip0 = json_array_get(json_object_get(out_json, "ips"), 0);
	assert_string_equal(json_string_value(json_object_get(ip0, "address")), "10.0.0.5/24");
	assert_string_equal(json_string_value(json_object_get(ip0, "version")), "4");
}

static void test_add_failure_rolls_back(void **state)
{
	char netns[256];
	const char *env[] = {"CNI_COMMAND=ADD", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", netns,
			     NULL};

	(void)state;
	snprintf(netns, sizeof(netns), "CNI_NETNS=%s", pod_netns);
	undo_ran = 0;
	add_fails = true;
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_PLUGIN, "create veth 'x'");
	assert_string_equal(json_string_value(json_object_get(out_json, "details")), "File exists");
	assert_int_equal(undo_ran, 1);
	add_fails = false;

	/* A result that cannot be expressed in the config's version also rolls back. */
	undo_ran = 0;
	add_no_ip = true;
	assert_int_equal(run(env, CONF_V("0.2.0")), 1);
	expect_error(CNI_ERR_PLUGIN, "cannot convert: no valid IP addresses");
	assert_int_equal(undo_ran, 1);
	add_no_ip = false;

	/* Success: the undo list is dropped, not run. */
	undo_ran = 0;
	assert_int_equal(run(env, CONF), 0);
	assert_int_equal(undo_ran, 0);
}

static void test_add_renders_early(void **state)
{
	char netns[256], plain[sizeof(out_buf)];
	const char *env[] = {"CNI_COMMAND=ADD", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", netns,
			     NULL};

	(void)state;
	snprintf(netns, sizeof(netns), "CNI_NETNS=%s", pod_netns);
	add_fails = add_no_ip = add_fails_after_render = false;
	add_renders = false;
	assert_int_equal(run(env, CONF_V("0.4.0")), 0);
	snprintf(plain, sizeof(plain), "%s", out_buf);
	/* rendered inside ADD: byte for byte what the skeleton prints */
	add_renders = true;
	assert_int_equal(run(env, CONF_V("0.4.0")), 0);
	assert_string_equal(out_buf, plain);
	/* a failure after the rendering: the error is printed, not the result */
	undo_ran = 0;
	add_fails_after_render = true;
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_PLUGIN, "add host route");
	assert_null(json_object_get(out_json, "ips"));
	assert_int_equal(undo_ran, 1);
	/* and a result the version cannot express fails in the rendering */
	add_fails_after_render = false;
	add_no_ip = true;
	undo_ran = 0;
	assert_int_equal(run(env, CONF_V("0.2.0")), 1);
	expect_error(CNI_ERR_PLUGIN, "cannot convert: no valid IP addresses");
	assert_int_equal(undo_ran, 1);
	add_no_ip = add_renders = false;
}

static void test_cni_args_strictness(void **state)
{
	char netns[256];
	const char *env[] = {"CNI_COMMAND=ADD",		"CNI_CONTAINERID=c1",
			     "CNI_IFNAME=eth0",		netns,
			     "CNI_ARGS=K8S_POD_NAME=x", NULL};
	const char *env_ok[] = {"CNI_COMMAND=ADD",
				"CNI_CONTAINERID=c1",
				"CNI_IFNAME=eth0",
				netns,
				"CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAME=x;MAC=aa:bb:cc:dd:ee:ff",
				NULL};
	const char *del[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0",
			     "CNI_ARGS=garbage", NULL};

	(void)state;
	snprintf(netns, sizeof(netns), "CNI_NETNS=%s", pod_netns);
	assert_int_equal(run(env, CONF), 1);
	expect_error(CNI_ERR_INVALID_ENV, "unknown args [\"K8S_POD_NAME=x\"]");
	assert_int_equal(run(env_ok, CONF), 0);
	assert_int_equal(run(del, CONF), 0); /* DEL never wedges on bad CNI_ARGS */
}

static void test_prev_result_version_family(void **state)
{
	char netns[256];
	const char *env[] = {"CNI_COMMAND=CHECK", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", netns,
			     NULL};

	(void)state;
	snprintf(netns, sizeof(netns), "CNI_NETNS=%s", pod_netns);
	assert_int_equal(run(env, "{\"cniVersion\":\"0.4.0\",\"name\":\"n\",\"prevResult\":"
				  "{\"cniVersion\":\"1.0.0\",\"ips\":[]}}"),
			 1);
	assert_non_null(out_json);
	assert_true(json_integer_value(json_object_get(out_json, "code")) > 0);
	assert_int_equal(run(env,
			     "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":"
			     "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/24\"}]}}"),
			 0);
}

static void test_lenient_del(void **state)
{
	const char *env[] = {"CNI_COMMAND=DEL", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", NULL};

	(void)state;
	assert_int_equal(run(env, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"ipMasq\":\"on\"}"),
			 0);
	assert_int_equal(run(env, "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":"
				  "{\"ips\":[{\"address\":\"bogus\"}]}}"),
			 0);
}

/*
 * A network namespace that is not ours, for ADD/CHECK: a child process that
 * unshares one (with a user namespace when not root) and waits to be killed.
 */
static char netns_path[64];
static pid_t ns_child = -1;

static int group_setup(void **state)
{
	int pipefd[2];
	char ok = 0;

	(void)state;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	ns_child = fork();
	if (ns_child == 0) {
		if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
			_exit(1);
		ok = 1;
		if (write(pipefd[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &ok, 1) != 1 || !ok) {
		close(pipefd[0]);
		return -1;
	}
	close(pipefd[0]);
	snprintf(netns_path, sizeof(netns_path), "/proc/%d/ns/net", (int)ns_child);
	pod_netns = netns_path;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (ns_child > 0) {
		kill(ns_child, SIGKILL);
		waitpid(ns_child, NULL, 0);
	}
	json_decref(out_json);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_missing_env_all_named),
	    cmocka_unit_test(test_del_needs_less),
	    cmocka_unit_test(test_gc_needs_path),
	    cmocka_unit_test(test_bad_container_id_and_ifname),
	    cmocka_unit_test(test_ifname_ascii_only),
	    cmocka_unit_test(test_length_limits),
	    cmocka_unit_test(test_log_level_unknown),
	    cmocka_unit_test(test_unknown_command),
	    cmocka_unit_test(test_no_command_prints_about),
	    cmocka_unit_test(test_version),
	    cmocka_unit_test(test_bad_stdin),
	    cmocka_unit_test(test_version_rules),
	    cmocka_unit_test(test_netns_checks),
	    cmocka_unit_test(test_add_prints_result_in_conf_version),
	    cmocka_unit_test(test_add_failure_rolls_back),
	    cmocka_unit_test(test_add_renders_early),
	    cmocka_unit_test(test_cni_args_strictness),
	    cmocka_unit_test(test_prev_result_version_family),
	    cmocka_unit_test(test_lenient_del),
	};

	return cmocka_run_group_tests_name("cni_skeleton", tests, group_setup, group_teardown);
}
