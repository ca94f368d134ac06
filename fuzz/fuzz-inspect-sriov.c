/* fuzz-libs: podwire_inspect_lib */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-inspect's reader of sriov-rdma state records (untrusted: any
 * <stateDir>/<BDF>.json), then the whole JSON document and the Prometheus
 * exposition built from what it accepted: the document must always build
 * (a parsed file never makes the tool print half a document).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pi_inv inv;
	json_t *doc;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	pi_inv_init(&inv);
	if (pi_parse_sriov(&inv, (const char *)data, size, "/fuzz/sriov/0000:01:00.1.json") < 0)
		abort(); /* only ENOMEM may fail, and the fuzzer does not run out */
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
