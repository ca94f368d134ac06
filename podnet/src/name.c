/* SPDX-License-Identifier: Apache-2.0 */
/* Deterministic host device names and attachment tags. */
#include <errno.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nlw/link.h"
#include "podnet/name.h"

#define ALIAS_PREFIX "podwire:"

/* FNV-1a parameters: 32 bits for up to 8 hex digits, 64 bits above. */
struct fnv {
	uint64_t basis, prime, mask;
};

static const struct fnv fnv32 = {2166136261u, 16777619u, 0xffffffffu};
static const struct fnv fnv64 = {14695981039346656037ull, 1099511628211ull, ~0ull};

/* FNV-1a: stable across runs and builds, enough to spread names. */
static uint64_t fnv1a(const struct fnv *f, uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = ((h ^ p[i]) * f->prime) & f->mask;
	return h;
}

static uint64_t name_hash(unsigned hex, const char *container_id, const char *ifname,
			  unsigned attempt)
{
	const struct fnv *f = hex <= 8 ? &fnv32 : &fnv64;
	uint64_t h = f->basis;

	h = fnv1a(f, h, container_id, strlen(container_id) + 1);
	h = fnv1a(f, h, ifname, strlen(ifname) + 1);
	if (attempt)
		h = fnv1a(f, h, &attempt, sizeof(attempt));
	return h;
}

int podnet_host_ifname(const char *prefix, unsigned hex, const char *container_id,
		       const char *ifname, unsigned attempt, char buf[IFNAMSIZ])
{
	size_t plen = strlen(prefix);
	uint64_t h;

	if (hex == 0 || hex > 16 || plen + hex >= IFNAMSIZ)
		return -EINVAL;
	h = name_hash(hex, container_id, ifname, attempt);
	memcpy(buf, prefix, plen);
	if (hex < 16)
		h &= (1ull << (hex * 4)) - 1; /* the low `hex` digits */
	snprintf(buf + plen, IFNAMSIZ - plen, "%0*" PRIx64, (int)hex, h);
	return 0;
}

void podnet_alias(const char *network, const char *container_id, const char *ifname, char *buf)
{
	snprintf(buf, NLW_ALIAS_MAX, ALIAS_PREFIX "%s/%s/%s", network, container_id, ifname);
}

bool podnet_alias_matches(const char *alias, const char *network, const char *container_id,
			  const char *ifname)
{
	char want[NLW_ALIAS_MAX];

	podnet_alias(network, container_id, ifname, want);
	if (strcmp(alias, want) == 0)
		return true;
	/* The tag before networks were part of it. */
	snprintf(want, sizeof(want), ALIAS_PREFIX "%s/%s", container_id, ifname);
	return strcmp(alias, want) == 0;
}

int podnet_alias_parse(const char *alias, char *copy, const char **network,
		       const char **container_id, const char **ifname)
{
	size_t len = strlen(alias);
	char *net, *cid, *ifn;

	if (strncmp(alias, ALIAS_PREFIX, strlen(ALIAS_PREFIX)) != 0 || len >= NLW_ALIAS_MAX - 1)
		return -EINVAL; /* not ours, or possibly cut */
	memcpy(copy, alias + strlen(ALIAS_PREFIX), len - strlen(ALIAS_PREFIX) + 1);
	net = copy;
	cid = strchr(net, '/');
	if (!cid)
		return -EINVAL;
	*cid++ = '\0';
	ifn = strchr(cid, '/');
	if (!ifn)
		return -EINVAL;
	*ifn++ = '\0';
	if (!net[0] || !cid[0] || !ifn[0] || strchr(ifn, '/'))
		return -EINVAL;
	*network = net;
	*container_id = cid;
	*ifname = ifn;
	return 0;
}
