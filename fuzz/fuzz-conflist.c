/* fuzz-libs: cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime's config list parser: a conflist (with and without required
 * "plugins"), the legacy single-config up-conversion, and building every
 * plugin's request from the parsed list with capability args and a
 * prevResult, as cnitool does before each exec.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cni/log.h"
#include "cni/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void build_all(const struct cni_netconf_list *l)
{
	json_t *caps = json_pack("{s:[{s:i}], s:s}", "portMappings", "hostPort", 80, "mac",
				 "02:00:00:00:00:01");
	json_t *prev = json_pack("{s:s, s:[]}", "cniVersion", "1.0.0", "ips");
	const struct cni_runtime_conf rc = {
	    .container_id = "c", .ifname = "eth0", .capability_args = caps};

	for (size_t i = 0; i < l->n_plugins; i++) {
		struct cni_error err = {0};
		json_t *req = NULL;
		char *text;

		if (cni_runtime_build_request(l, i, prev, &rc, &req, &err) >= 0) {
			text = json_dumps(req, JSON_COMPACT | JSON_SORT_KEYS);
			free(text);
			json_decref(req);
		}
		cni_error_done(&err);
	}
	json_decref(caps);
	json_decref(prev);
}

static void parse_list(const char *buf, size_t len, bool allow_no_plugins)
{
	struct cni_netconf_list *l = NULL;
	struct cni_error err = {0};

	if (cni_netconf_list_from_bytes(buf, len, "fuzz", allow_no_plugins, &l, &err) >= 0) {
		build_all(l);
		cni_netconf_list_free(l);
	}
	cni_error_done(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_netconf_list *l = NULL;
	struct cni_error err = {0};
	const char *buf = (const char *)data;

	cni_log_set_level(CNI_LOG_ERROR);
	parse_list(buf, size, false);
	parse_list(buf, size, true);
	if (cni_netconf_list_from_conf(buf, size, "fuzz", &l, &err) >= 0) {
		build_all(l);
		cni_netconf_list_free(l);
	}
	cni_error_done(&err);
	return 0;
}
