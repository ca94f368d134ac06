/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The second half of every podwire-inspect fuzz target: from whatever the
 * reader under test accepted into inv, the leak finder, the JSON document
 * (as an object and as text), the Prometheus exposition and the table must
 * always build: a parsed file never makes the tool print half a document.
 * Frees inv.
 */
#pragma once

#include <stdio.h>
#include <stdlib.h>

#include "inspect.h"

static void fuzz_inspect_outputs(struct pi_inv *inv)
{
	char *buf = NULL;
	size_t len = 0;
	json_t *doc;
	FILE *f;

	(void)pi_find_leaks(inv);
	doc = pi_json(inv, true);
	if (!doc)
		abort();
	json_decref(doc);
	buf = pi_json_text(inv, true);
	if (!buf)
		abort();
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (f) {
		pi_print_prometheus(f, inv);
		pi_print_table(f, inv, true);
		fclose(f);
	}
	free(buf);
	pi_inv_done(inv);
}
