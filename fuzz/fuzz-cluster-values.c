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

/* jansson's compact, key-sorted dump of the block (what the text must equal). */
static char *jansson_block(const struct cipam_block *b)
{
	char cidr[IP_PREFIX_STRLEN], ord[12], *s;
	json_t *used = json_object(), *o;

	for (unsigned i = 0; used && i < b->size; i++) {
		if (!b->used[i])
			continue;
		snprintf(ord, sizeof(ord), "%u", i);
		if (json_object_set_new(used, ord, json_string(b->used[i])) < 0)
			used = (json_decref(used), NULL);
	}
	if (!used)
		return NULL;
	o = json_pack("{sssosIsIsIsIso}", "cidr", ip_prefix_fmt(&b->cidr, cidr), "node",
		      b->node ? json_string(b->node) : json_null(), "claimed",
		      (json_int_t)b->claimed, "updated", (json_int_t)b->updated, "seq",
		      (json_int_t)b->seq, "next", (json_int_t)b->next, "used", used);
	s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	return s;
}

static char *jansson_handle(const struct cipam_handle *h)
{
	json_t *o, *ips = json_array();
	char buf[IP_PREFIX_STRLEN], *s;

	for (size_t i = 0; i < h->n_ips; i++)
		json_array_append_new(ips, json_string(ip_prefix_fmt(&h->ips[i], buf)));
	o = json_pack("{sssssssssIso}", "id", h->id, "node", h->node, "containerID",
		      h->container_id, "ifname", h->ifname, "created", (json_int_t)h->created,
		      "ips", ips);
	if (o && h->network)
		json_object_set_new(o, "network", json_string(h->network));
	if (o && h->pod)
		json_object_set_new(o, "pod", json_string(h->pod));
	s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	return s;
}

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
