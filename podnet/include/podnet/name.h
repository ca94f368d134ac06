/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names and tags of host-side devices: deterministic, so DEL, CHECK and GC
 * find an attachment's host device without state.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * prefix + `hex` hex digits of a hash of container ID and ifname (NUL
 * included, so ("ab","c") and ("a","bc") differ); attempt > 0 perturbs the
 * hash for a retry after -EEXIST. Up to 8 digits the hash is 32-bit FNV-1a
 * (bridge's "veth%08x" names stay as they always were), beyond it 64-bit
 * FNV-1a (bgp-route's "pwr" + 11). strlen(prefix) + hex must be < IFNAMSIZ
 * and hex at most 16: -EINVAL otherwise (buf untouched).
 */
int podnet_host_ifname(const char *prefix, unsigned hex, const char *container_id,
		       const char *ifname, unsigned attempt, char buf[IFNAMSIZ]);

/*
 * The tag (IFLA_IFALIAS) of a host device podwire created for one
 * attachment: "podwire:<network>/<containerID>/<ifname>". Network names and
 * container IDs cannot hold '/', so the three parts split unambiguously. A
 * tag longer than NLW_ALIAS_MAX - 1 bytes is cut, alike on ADD and DEL;
 * GC only acts on a tag that is whole (see podnet_alias_parse).
 */
void podnet_alias(const char *network, const char *container_id, const char *ifname, char *buf);

/*
 * Does `alias` tag this attachment? Also true for the tag of podwire before
 * networks were part of it ("podwire:<containerID>/<ifname>"), so DEL still
 * removes devices an older version created.
 */
bool podnet_alias_matches(const char *alias, const char *network, const char *container_id,
			  const char *ifname);

/*
 * Split a whole (not cut, current format) tag. Pointers go into `copy`
 * (a buffer of NLW_ALIAS_MAX bytes the caller provides). Returns 0, or
 * -EINVAL for anything that is not such a tag.
 */
int podnet_alias_parse(const char *alias, char *copy, const char **network,
		       const char **container_id, const char **ifname);
