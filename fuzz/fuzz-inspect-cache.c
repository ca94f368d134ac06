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
#include <stdlib.h>

#include "cni/runtime.h"
#include "fuzz-inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_cache_entry *e = NULL;
	struct cni_error err = {0};
	struct pi_inv inv;

	pi_inv_init(&inv);
	if (cni_cache_entry_parse((const char *)data, size, "fuzz", &e, &err) == 0 &&
	    pi_merge_cache_entry(&inv, e, "/fuzz/results/n-c-eth0") < 0)
		abort(); /* only ENOMEM may fail, and the fuzzer does not run out */
	cni_error_done(&err);
	fuzz_inspect_outputs(&inv);
	return 0;
}
