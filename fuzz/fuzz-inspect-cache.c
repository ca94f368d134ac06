/* fuzz-libs: podwire_inspect_lib */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-inspect's use of a libcni result-cache entry (libcni's parser,
 * then the merge: pod from CNI_ARGS, chain from the config, IPs, MAC and
 * host devices from the result), then the whole JSON document and the Prometheus
 * exposition built from what it accepted: the document must always build
 * (a parsed file never makes the tool print half a document).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cni/runtime.h"
#include "inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pi_inv inv;
	json_t *doc;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};

	pi_inv_init(&inv);
	if (cni_cache_entry_parse((const char *)data, size, "fuzz", &e, &err) == 0 &&
	    pi_merge_cache_entry(&inv, e, "/fuzz/results/n-c-eth0") < 0)
		abort(); /* only ENOMEM may fail, and the fuzzer does not run out */
	cni_error_done(&err);
	(void)pi_find_leaks(&inv);
	doc = pi_json(&inv, true);
	if (!doc)
		abort();
	json_decref(doc);
	buf = pi_json_text(&inv, true);
	if (!buf)
		abort();
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		pi_print_prometheus(f, &inv);
		pi_print_table(f, &inv, true);
		fclose(f);
	}
	free(buf);
	pi_inv_done(&inv);
	return 0;
}
