/* SPDX-License-Identifier: Apache-2.0 */
/* The reference's sysctl allow list (/etc/cni/tuning/allowlist.conf). */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/parse.h"
#include "tuning.h"

#define ALLOW_LINE_MAX 1024

static char *trim(char *s)
{
	char *end;

	while (ascii_isspace(*s))
		s++;
	end = s + strlen(s);
	while (end > s && ascii_isspace(end[-1]))
		*--end = '\0';
	return s;
}

/* Does any pattern of f match key? >0 yes, 0 no, <0 error (bad pattern, recorded). */
static int match_any(struct cni_ctx *ctx, FILE *f, const char *file, const char *key)
{
	char line[ALLOW_LINE_MAX];
	unsigned lineno = 0;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *pat = trim(line);
		regex_t re;
		int m;

		lineno++;
		if (!*pat)
			continue;
		if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "%s:%u: invalid regular expression '%s'", file, lineno,
					  pat);
		m = regexec(&re, key, 0, NULL, 0);
		regfree(&re);
		if (m == 0)
			return 1;
	}
	return 0;
}

int tuning_allowlist_check(struct cni_ctx *ctx, const struct tuning_conf *c, const char *file)
{
	_cleanup_fclose_ FILE *f = NULL;

	if (c->n_sysctls == 0)
		return 0;
	f = fopen(file, "re");
	if (!f && errno == ENOENT)
		return 0; /* no allow list: every net.* sysctl is allowed */
	if (!f)
		return cni_errorf(&ctx->err, CNI_ERR_IO, -errno, "sysctl allow list '%s': %s", file,
				  strerror(errno));
	for (size_t i = 0; i < c->n_sysctls; i++) {
		int r = match_any(ctx, f, file, c->sysctls[i].key);

		if (r < 0)
			return r;
		if (r == 0)
			return cni_errorf(&ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
					  "sysctl: '%s' (value '%s') is not allowed by %s",
					  c->sysctls[i].key, c->sysctls[i].value, file);
	}
	return 0;
}
