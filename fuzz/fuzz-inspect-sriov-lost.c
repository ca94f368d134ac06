/* fuzz-libs: podwire_inspect_lib */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-inspect's reader of sriov-rdma lost-VF records (untrusted: any
 * <stateDir>/lost/<BDF>.json), then the whole JSON document and the
 * Prometheus exposition built from what it accepted: the document must
 * always build.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz-inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pi_inv inv;

	pi_inv_init(&inv);
	if (pi_parse_sriov_lost(&inv, (const char *)data, size,
				"/fuzz/sriov/lost/0000:01:00.1.json") < 0)
		abort(); /* only ENOMEM may fail, and the fuzzer does not run out */
	fuzz_inspect_outputs(&inv);
	return 0;
}
