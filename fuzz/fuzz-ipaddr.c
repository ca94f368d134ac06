/* fuzz-libs: cni_base */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Addresses from configs, CNI_ARGS and lease names: ip_addr_parse and
 * ip_prefix_parse against glibc's inet_pton. Aborts when the two accept
 * different strings or give different bytes, or when a parsed address does
 * not print as inet_ntop prints it and parse back to the same bytes.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/ipaddr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(int family, const union ip_addr *a)
{
	char ours[INET6_ADDRSTRLEN], theirs[INET6_ADDRSTRLEN];
	union ip_addr back;
	int fam;

	if (!inet_ntop(family, a, theirs, sizeof(theirs)))
		abort();
	if (strcmp(ip_addr_fmt(family, a, ours), theirs) != 0)
		abort();
	if (ip_addr_parse(ours, &fam, &back) != 0 || fam != family ||
	    memcmp(&back, a, ip_addr_len(family)) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	union ip_addr ours, theirs;
	struct ip_prefix p;
	int fam = 0, want = 0;
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(&theirs, 0, sizeof(theirs));
	if (inet_pton(AF_INET, s, &theirs.in) == 1)
		want = AF_INET;
	else if (inet_pton(AF_INET6, s, &theirs.in6) == 1)
		want = AF_INET6;
	if ((ip_addr_parse(s, &fam, &ours) == 0) != (want != 0))
		abort();
	if (want && (fam != want || memcmp(&ours, &theirs, ip_addr_len(fam)) != 0))
		abort();
	if (want)
		check_roundtrip(fam, &ours);
	/* Raw bytes as an address: formatting must match for any value. */
	if (size >= 16) {
		memcpy(theirs.bytes, data, 16);
		check_roundtrip(AF_INET6, &theirs);
		check_roundtrip(AF_INET, &theirs);
	}
	if (ip_prefix_parse_full(s, true, &p) == 0) {
		char buf[IP_PREFIX_STRLEN];
		struct ip_prefix again;

		if (ip_prefix_parse(ip_prefix_fmt(&p, buf), &again) != 0 ||
		    again.family != p.family || again.prefixlen != p.prefixlen ||
		    memcmp(&again.addr, &p.addr, ip_addr_len(p.family)) != 0)
			abort();
	}
	free(s);
	return 0;
}
