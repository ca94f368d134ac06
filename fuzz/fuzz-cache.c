/* fuzz-libs: cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result cache as read back from disk (it may have been written by
 * another runtime or be damaged): the cniCacheV1 parser with its base64
 * config and cniArgs pairs, then what DEL/CHECK do with the cached result
 * (parse in its own version, convert to the list's), and the base64 decoder
 * on the raw input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/codec.h"
#include "cni/log.h"
#include "cni/result.h"
#include "cni/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void convert_result(const json_t *result)
{
	static const enum cni_version targets[] = {CNI_V020, CNI_V040, CNI_V110};
	struct cni_error err = {0};
	struct cni_result *r = NULL;

	if (cni_result_from_json_any(result, CNI_V110, "cached result", &r, &err) >= 0) {
		for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
			json_t *out = NULL;

			if (cni_result_to_json(r, targets[i], &out, &err) >= 0)
				json_decref(out);
			cni_error_done(&err);
		}
	}
	cni_result_free(r);
	cni_error_done(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	char *decoded = NULL;
	size_t n;

	cni_log_set_level(CNI_LOG_ERROR);
	if (cni_cache_entry_parse((const char *)data, size, "fuzz", &e, &err) >= 0) {
		if (e->result)
			convert_result(e->result);
		cni_cache_entry_free(e);
	}
	cni_error_done(&err);

	if (b64_decode_dup((const char *)data, size, &decoded, &n) == 0)
		free(decoded);
	return 0;
}
