/* fuzz-libs: ipam_host_local ipam_static bridge_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime-supplied capability arguments: what a container runtime (and,
 * through pod annotations, a cluster user) puts into runtimeConfig
 * (ipRanges, ips, mac), args.cni and CNI_ARGS, run through the parsers the
 * shipped plugins use: host-local's config parser (ranges and requested
 * addresses), static's result builder (ips replace or extend the configured
 * addresses, GATEWAY) and the bridge's (MAC precedence).
 *
 * Input: "<CNI_ARGS>\n<JSON value>". The JSON value becomes runtimeConfig
 * and, the same bytes, args.cni of an otherwise valid network config, so
 * one seed exercises both spellings of the capability keys. Without a
 * newline the whole input is the JSON value and CNI_ARGS is empty.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bridge.h"
#include "cni/args.h"
#include "cni/conf.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "ipam/host-local.h"
#include "ipam/static.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Network configs the parsers accept; the fuzzed value is grafted onto them. */
static const char static_conf[] =
    "{\"cniVersion\":\"1.1.0\",\"name\":\"fuzznet\",\"type\":\"bridge\","
    "\"capabilities\":{\"ips\":true,\"mac\":true},"
    "\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":\"10.1.0.5/24\","
    "\"gateway\":\"10.1.0.1\"}]}}";
static const char base_conf[] =
    "{\"cniVersion\":\"1.1.0\",\"name\":\"fuzznet\",\"type\":\"bridge\","
    "\"capabilities\":{\"ipRanges\":true,\"ips\":true,\"mac\":true},"
    "\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"/nonexistent/podwire-fuzz\","
    "\"ranges\":[[{\"subnet\":\"10.1.0.0/24\"}],[{\"subnet\":\"fd00:1::/64\"}]]}}";

/* Split data into a NUL-terminated CNI_ARGS string and the JSON part. */
static char *split_args(const uint8_t *data, size_t size, const uint8_t **json, size_t *json_len)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)(nl - data) : 0;
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	memcpy(s, data, n);
	s[n] = '\0';
	/* An environment value ends at its first NUL, as execve would cut it. */
	*json = nl ? nl + 1 : data;
	*json_len = nl ? size - n - 1 : size;
	return s;
}

/* conf with runtimeConfig = value and args = {"cni": value}. NULL on failure. */
static json_t *build_conf(const char *conf, json_t *value)
{
	json_t *root = json_loads(conf, JSON_REJECT_DUPLICATES, NULL);

	if (!root)
		return NULL;
	if (json_object_set(root, "runtimeConfig", value) < 0 ||
	    json_object_set_new(root, "args", json_pack("{s:O}", "cni", value)) < 0) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* One command's worth of parsing, as the plugins do it before any side effect. */
static void parse_as(json_t *root, const char *cni_args, enum cni_command cmd)
{
	struct cni_ctx ctx = {.command = cmd, .sysfs_fd = -1, .procfs_fd = -1};
	struct host_local_conf hl = {0};
	struct bridge_conf bc = {0};
	unsigned what = HOST_LOCAL_PARSE_RANGES;

	if (cmd == CNI_CMD_ADD)
		what |= HOST_LOCAL_PARSE_REQUESTS;
	else if (cmd == CNI_CMD_DEL)
		what = HOST_LOCAL_PARSE_STORE;
	if (cni_conf_parse_ex(root, !cni_ctx_strict(&ctx), &ctx.conf, &ctx.err) < 0)
		goto out;
	if (cni_args_parse(cni_args, &ctx.args, &ctx.err) < 0)
		goto out;
	if (ctx.conf.ipam_type && strcmp(ctx.conf.ipam_type, "static") == 0) {
		struct cni_result *r = NULL;

		if (cmd == CNI_CMD_ADD && static_build_result(&ctx, &r) >= 0)
			cni_result_free(r);
	} else if (host_local_conf_parse(&ctx, what, &hl) >= 0) {
		host_local_conf_done(&hl);
	}
	cni_error_done(&ctx.err);
	if (bridge_conf_parse(&ctx, &bc) >= 0)
		bridge_conf_done(&bc);
out:
	cni_args_done(&ctx.args);
	cni_conf_done(&ctx.conf);
	cni_error_done(&ctx.err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *json;
	size_t json_len;
	json_t *value, *root;
	char *cni_args;

	/* Unknown-key warnings for every input would drown the fuzzer's output. */
	cni_log_set_level(CNI_LOG_ERROR);
	cni_args = split_args(data, size, &json, &json_len);
	if (!cni_args)
		return 0;
	value = json_loadb((const char *)json, json_len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
			   NULL);
	root = value ? build_conf(base_conf, value) : NULL;
	if (root) {
		parse_as(root, cni_args, CNI_CMD_ADD);
		parse_as(root, cni_args, CNI_CMD_CHECK);
		parse_as(root, cni_args, CNI_CMD_DEL);
	}
	json_decref(root);
	root = value ? build_conf(static_conf, value) : NULL;
	if (root)
		parse_as(root, cni_args, CNI_CMD_ADD);
	json_decref(root);
	json_decref(value);
	free(cni_args);
	return 0;
}
