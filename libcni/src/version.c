/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "base/parse.h"
#include "cni/version.h"

static const char *const version_names[_CNI_V_MAX] = {
    [CNI_V010] = "0.1.0", [CNI_V020] = "0.2.0", [CNI_V030] = "0.3.0", [CNI_V031] = "0.3.1",
    [CNI_V040] = "0.4.0", [CNI_V100] = "1.0.0", [CNI_V110] = "1.1.0",
};

/* One dot-separated decimal component: digits only, no leading zeros, <= 9 digits. */
static int parse_component(const char *s, size_t len, unsigned *ret)
{
	unsigned v = 0;

	if (len == 0 || len > 9 || (len > 1 && s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*ret = v;
	return 0;
}

int cni_semver_parse(const char *s, struct cni_semver *ret)
{
	unsigned parts[3] = {0, 0, 0};
	size_t n = 0;

	if (isempty(s)) {
		*ret = (struct cni_semver){0, 1, 0};
		return 0;
	}
	for (const char *p = s;; n++) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (n >= 3 || parse_component(p, len, &parts[n]) < 0)
			return -EINVAL;
		if (!dot)
			break;
		p = dot + 1;
	}
	*ret = (struct cni_semver){parts[0], parts[1], parts[2]};
	return 0;
}

int cni_semver_cmp(const struct cni_semver *a, const struct cni_semver *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	return 0;
}

int cni_version_parse(const char *s, enum cni_version *ret)
{
	struct cni_semver want, have;

	if (cni_semver_parse(s, &want) < 0)
		return -EINVAL;
	for (int v = 0; v < _CNI_V_MAX; v++) {
		cni_semver_parse(version_names[v], &have);
		if (cni_semver_cmp(&want, &have) == 0) {
			*ret = (enum cni_version)v;
			return 0;
		}
	}
	return -EPROTONOSUPPORT;
}

const char *cni_version_str(enum cni_version v)
{
	if (v < 0 || v >= _CNI_V_MAX)
		return "?";
	return version_names[v];
}

bool cni_version_is_legacy(enum cni_version v)
{
	return v == CNI_V010 || v == CNI_V020;
}

bool cni_version_is_040(enum cni_version v)
{
	return v == CNI_V030 || v == CNI_V031 || v == CNI_V040;
}

bool cni_version_is_100(enum cni_version v)
{
	return v == CNI_V100 || v == CNI_V110;
}
