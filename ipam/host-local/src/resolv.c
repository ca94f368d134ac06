/* SPDX-License-Identifier: Apache-2.0 */
/* resolv.conf into a result's dns, with the reference's rules. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "ipam/host-local.h"

#define RESOLV_MAX_ENTRIES 64

static int push(char ***arr, size_t *n, const char *s)
{
	char **m, *d;

	if (*n >= RESOLV_MAX_ENTRIES)
		return 0; /* glibc reads at most a few; more is noise, not an error */
	d = strdup(s);
	m = d ? reallocarray_safe(*arr, *n + 1, sizeof(**arr)) : NULL;
	if (!m) {
		free(d);
		return -ENOMEM;
	}
	m[(*n)++] = d;
	*arr = m;
	return 0;
}

/* Apply one line split into fields. */
static int apply_line(char **f, size_t nf, struct cni_dns *dns)
{
	int r = 0;

	if (nf < 2)
		return 0;
	if (streq(f[0], "nameserver"))
		return push(&dns->nameservers, &dns->n_nameservers, f[1]);
	if (streq(f[0], "domain")) {
		char *d = strdup(f[1]);

		if (!d)
			return -ENOMEM;
		free(dns->domain);
		dns->domain = d;
		return 0;
	}
	for (size_t i = 1; i < nf && r >= 0; i++) {
		if (streq(f[0], "search"))
			r = push(&dns->search, &dns->n_search, f[i]);
		else if (streq(f[0], "options"))
			r = push(&dns->options, &dns->n_options, f[i]);
	}
	return r;
}

int host_local_parse_resolv_conf(const char *path, struct cni_dns *ret)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	_cleanup_free_ char *line = NULL;
	struct cni_dns dns = {0};
	size_t cap = 0;
	int r = 0;

	if (!f)
		return -errno;
	while (r >= 0 && getline(&line, &cap, f) >= 0) {
		char *fields[16], *save = NULL, *tok;
		size_t nf = 0;

		if (line[0] == '#' || line[0] == ';')
			continue;
		for (tok = strtok_r(line, " \t\r\n", &save); tok && nf < ARRAY_SIZE(fields);
		     tok = strtok_r(NULL, " \t\r\n", &save))
			fields[nf++] = tok;
		r = apply_line(fields, nf, &dns);
	}
	if (r >= 0 && ferror(f))
		r = -EIO;
	if (r < 0) {
		cni_dns_done(&dns);
		return r;
	}
	*ret = dns;
	return 0;
}
