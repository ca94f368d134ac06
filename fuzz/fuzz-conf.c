/* fuzz-libs: cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plugin's network config from stdin: strict load (cni_conf_loadb, which
 * names the key of an integer beyond 64 bits), the protocol keys in
 * strict (ADD) and lenient (DEL) mode, and the prevResult it carries.
 */
#include <stdint.h>
#include <stdio.h>

#include "cni/conf.h"
#include "cni/log.h"
#include "cni/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_prev_result(const struct cni_conf *conf)
{
	struct cni_error err = {0};
	struct cni_result *r = NULL;
	json_t *out = NULL;

	if (!conf->prev_result || conf->version == CNI_V_INVALID)
		return;
	if (cni_result_from_json(conf->prev_result, conf->version, "prevResult", &r, &err) >= 0 &&
	    cni_result_to_json(r, conf->version, &out, &err) >= 0)
		json_decref(out);
	cni_result_free(r);
	cni_error_done(&err);
}

static void parse_conf(json_t *root, bool lenient)
{
	struct cni_error err = {0};
	struct cni_conf conf = {0};

	if (cni_conf_parse_ex(root, lenient, &conf, &err) >= 0)
		parse_prev_result(&conf);
	cni_conf_done(&conf);
	cni_error_done(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	json_t *root = NULL;

	/* Lenient parsing logs every ignored key; keep the fuzzer's output readable. */
	cni_log_set_level(CNI_LOG_ERROR);
	/* As the skeleton loads it: an overflowing integer is located by a second parse. */
	if (cni_conf_loadb((const char *)data, size, "stdin", &root, &err) < 0) {
		cni_error_done(&err);
		return 0;
	}
	parse_conf(root, false);
	parse_conf(root, true);
	json_decref(root);
	return 0;
}
