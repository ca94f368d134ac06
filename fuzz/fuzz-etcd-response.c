/* fuzz-libs: pwetcd cni_base */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * etcd JSON-gateway responses (untrusted: whatever answers on the etcd
 * endpoint): every pwetcd parser over the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/codec.h"
#include "pwetcd/etcd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct pwetcd_range_result rr;
	struct pwetcd_txn_result tr;
	struct pwetcd_watch_batch wb;
	int64_t a, b;
	char *msg = NULL;
	int code;

	if (pwetcd_parse_range(s, size, &rr, NULL) == 0)
		pwetcd_range_result_done(&rr);
	if (pwetcd_parse_txn(s, size, &tr, NULL) == 0)
		pwetcd_txn_result_done(&tr);
	if (pwetcd_parse_watch_message(s, size, &wb, NULL) == 0)
		pwetcd_watch_batch_done(&wb);
	(void)pwetcd_parse_put(s, size, &a, NULL);
	(void)pwetcd_parse_delete(s, size, &a, NULL);
	(void)pwetcd_parse_lease(s, size, &a, &b, NULL);
	if (pwetcd_parse_error(s, size, &code, &msg) == 0)
		free(msg);
	{
		char *out = malloc(B64_DECODED_MAX(size) + 1);

		if (out)
			(void)b64_decode(s, size, out);
		free(out);
	}
	return 0;
}
