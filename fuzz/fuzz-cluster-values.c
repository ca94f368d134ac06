/* fuzz-libs: ipam_cluster */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam values and keys read from etcd (untrusted: any client of
 * the cluster's etcd can write them): block, handle, pool, key tails.
 * A parsed block or handle is also re-serialised, and must come out as the
 * bytes jansson's dump of the same value gives (the values are written as
 * text); a parsed block is allocated from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ipam/cluster-ipam.h"
#include "../test/cluster-ipam/jansson-ref.h"

static void same(char *ours, char *theirs)
{
	if ((ours == NULL) != (theirs == NULL) || (ours && strcmp(ours, theirs) != 0))
		abort();
	free(ours);
	free(theirs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct cipam_block b;
	struct cipam_handle h;
	struct cipam_pool p;
	struct ip_prefix k;
	const char *why;
	char *z = malloc(size + 1);

	if (cipam_block_parse(s, size, NULL, &b, &why) == 0) {
		int ord = cipam_block_pick(&b);

		same(cipam_block_json(&b), jansson_block(&b));
		if (ord >= 0)
			(void)cipam_block_take(&b, (unsigned)ord, "fuzz", 1);
		cipam_block_done(&b);
	}
	if (cipam_handle_parse(s, size, &h, &why) == 0) {
		same(cipam_handle_json(&h), jansson_handle(&h));
		cipam_handle_done(&h);
	}
	if (cipam_pool_parse(s, size, &p, &why) == 0)
		free(cipam_pool_json(&p));
	if (z) {
		memcpy(z, data, size);
		z[size] = '\0';
		(void)cipam_keypart_parse(z, &k);
		free(z);
	}
	return 0;
}
