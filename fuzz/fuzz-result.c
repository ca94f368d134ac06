/* fuzz-libs: cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Results from untrusted JSON (prevResult, a delegate's stdout, a cache
 * file): parse in the shape of every version, print to every version, and
 * check that what podwire prints it can read back and prints identically.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cni/conf.h"
#include "cni/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *print(const struct cni_result *r, enum cni_version v)
{
	struct cni_error err = {0};
	json_t *out = NULL;

	if (cni_result_to_json(r, v, &out, &err) < 0)
		out = NULL;
	cni_error_done(&err);
	return out;
}

/* Printing is a fixed point: print(parse(print(r))) == print(r). */
static void check_reparse(const json_t *out, enum cni_version v)
{
	struct cni_error err = {0};
	struct cni_result *again = NULL;
	json_t *out2;

	if (cni_result_from_json(out, v, "printed", &again, &err) < 0) {
		fprintf(stderr, "printed %s result does not parse: %s\n", cni_version_str(v),
			err.msg ? err.msg : "?");
		abort();
	}
	out2 = print(again, v);
	if (!out2 || !json_equal(out, out2)) {
		fprintf(stderr, "printing %s is not stable\n", cni_version_str(v));
		abort();
	}
	json_decref(out2);
	cni_result_free(again);
	cni_error_done(&err);
}

static void parse_as(const json_t *root, enum cni_version v)
{
	struct cni_error err = {0};
	struct cni_result *r = NULL, *dup;

	if (cni_result_from_json(root, v, "prevResult", &r, &err) < 0) {
		cni_error_done(&err);
		return;
	}
	dup = cni_result_dup(r);
	for (int t = 0; t < _CNI_V_MAX; t++) {
		json_t *out = print(dup ? dup : r, (enum cni_version)t);

		if (out)
			check_reparse(out, (enum cni_version)t);
		json_decref(out);
	}
	cni_result_free(dup);
	cni_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	struct cni_result *r = NULL;
	json_t *root = NULL;

	if (cni_json_loadb((const char *)data, size, "fuzz", &root, &err) < 0) {
		cni_error_done(&err);
		return 0;
	}
	for (int v = 0; v < _CNI_V_MAX; v++)
		parse_as(root, (enum cni_version)v);
	if (cni_result_from_json_any(root, CNI_V110, "stdout", &r, &err) >= 0)
		cni_result_free(r);
	cni_error_done(&err);
	json_decref(root);
	return 0;
}
