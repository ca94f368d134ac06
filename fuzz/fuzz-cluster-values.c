/* fuzz-libs: ipam_cluster */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam values and keys read from etcd (untrusted: any client of
 * the cluster's etcd can write them): block, handle, pool, key tails.
 * A parsed block or handle is also written again, and what is written must
 * parse back to the same value; a parsed block is allocated from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/cluster-ipam.h"

/* b written and parsed back: the same block (a value that is not UTF-8 writes nothing). */
static void block_again(const struct cipam_block *b)
{
	char *s = cipam_block_json(b);
	struct cipam_block c;
	const char *why;

	if (!s)
		return;
	if (cipam_block_parse(s, strlen(s), &b->cidr, &c, &why) != 0 || c.n_used != b->n_used ||
	    c.next != b->next || c.seq != b->seq || (!c.node != !b->node) ||
	    (c.node && strcmp(c.node, b->node) != 0))
		abort();
	for (unsigned i = 0; i < b->size; i++)
		if (!c.used[i] != !b->used[i] || (c.used[i] && strcmp(c.used[i], b->used[i]) != 0))
			abort();
	cipam_block_done(&c);
	free(s);
}

static void handle_again(const struct cipam_handle *h)
{
	char *s = cipam_handle_json(h);
	struct cipam_handle g;
	const char *why;

	if (!s)
		return;
	if (cipam_handle_parse(s, strlen(s), &g, &why) != 0 || strcmp(g.id, h->id) != 0 ||
	    g.n_ips != h->n_ips)
		abort();
	for (size_t i = 0; i < h->n_ips; i++)
		if (g.ips[i].family != h->ips[i].family ||
		    g.ips[i].prefixlen != h->ips[i].prefixlen ||
		    !ip_addr_equal(h->ips[i].family, &g.ips[i].addr, &h->ips[i].addr))
			abort();
	cipam_handle_done(&g);
	free(s);
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

		block_again(&b);
		if (ord >= 0)
			(void)cipam_block_take(&b, (unsigned)ord, "fuzz", 1);
		cipam_block_done(&b);
	}
	if (cipam_handle_parse(s, size, &h, &why) == 0) {
		handle_again(&h);
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
