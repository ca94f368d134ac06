/* fuzz-libs: ipam_cluster */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam's node queue files (the .req and .res files of <dataDir>/queue),
 * written by other ADDs of the node: a request and an answer parsed, then
 * written back and parsed again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../ipam/cluster-ipam/src/cluster-queue.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct cipam_qreq q, q2;
	struct cipam_add_out out, back;
	struct cni_error err = {0}, err2 = {0};
	int r = 0, r2 = 0;

	if (cipam_qreq_parse(s, size, &q) == 0) {
		char *json = cipam_qreq_json(&q);

		if (json && cipam_qreq_parse(json, strlen(json), &q2) == 0)
			cipam_qreq_done(&q2);
		free(json);
		cipam_qreq_done(&q);
	}
	if (cipam_qres_parse(s, size, &r, &err, &out) == 0) {
		char *json = cipam_qres_json(r, &err, &out);

		if (json)
			(void)cipam_qres_parse(json, strlen(json), &r2, &err2, &back);
		free(json);
	}
	cni_error_done(&err);
	cni_error_done(&err2);
	return 0;
}
