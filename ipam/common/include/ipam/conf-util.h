/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Config helpers shared by the IPAM plugins: routes, address lists and the
 * sources of requested addresses.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cni/error.h"
#include "cni/result.h"

/*
 * Parse a "routes" array ({dst, gw, mtu, advmss, priority, table, scope})
 * with libcni's result rules and append the routes to res. `path` is the
 * array's parent ("ipam"), so messages read "ipam.routes[1].dst: ...".
 * Returns 0 or a negative errno with err set (code 7).
 */
int ipam_parse_routes(const json_t *routes, const char *path, struct cni_result *res,
		      struct cni_error *err);

/*
 * Parse "ip" or "ip/len" as a requested address (the prefix is ignored, as
 * the reference does). Returns 0 or -EINVAL.
 */
int ipam_parse_requested(const char *s, struct ip_prefix *ret);

/* Append to a growing array of prefixes. Returns 0, -E2BIG past max, -ENOMEM. */
int ipam_prefix_push(struct ip_prefix **arr, size_t *n, size_t max, const struct ip_prefix *p);
