/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference for cluster-ipam's text writers (cipam_block_json,
 * cipam_handle_json): what they wrote when they built jansson trees and
 * dumped them compact with sorted keys. Shared by the unit test
 * (test-cluster-model.c) and the fuzz target (fuzz/fuzz-cluster-values.c),
 * which both require the text to be byte-identical to this.
 */
#pragma once

#include <stdio.h>

#include <jansson.h>

#include "ipam/cluster-ipam.h"

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
