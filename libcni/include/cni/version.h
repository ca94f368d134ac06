/* SPDX-License-Identifier: Apache-2.0 */
/* CNI spec versions. */
#pragma once

#include <stdbool.h>

enum cni_version {
	CNI_V010,
	CNI_V020,
	CNI_V030,
	CNI_V031,
	CNI_V040,
	CNI_V100,
	CNI_V110,
	_CNI_V_MAX,
	CNI_V_INVALID = -1,
};

#define CNI_VERSION_CURRENT CNI_V110

/* A parsed semantic version, for versions podwire does not know by name. */
struct cni_semver {
	unsigned major, minor, patch;
};

/*
 * Parse "X.Y.Z" (also "X.Y" and "X", as the reference's ParseVersion does).
 * Empty or NULL means 0.1.0. Returns 0 or -EINVAL.
 */
int cni_semver_parse(const char *s, struct cni_semver *ret);
int cni_semver_cmp(const struct cni_semver *a, const struct cni_semver *b);

/*
 * Map a version string to a known version. Returns 0, -EINVAL for a
 * malformed string, -EPROTONOSUPPORT for a well-formed but unknown one.
 * NULL/"" is 0.1.0.
 */
int cni_version_parse(const char *s, enum cni_version *ret);
const char *cni_version_str(enum cni_version v);

/* Result families: 0.1/0.2 ("legacy"), 0.3.x/0.4 ("040"), 1.x ("100"). */
bool cni_version_is_legacy(enum cni_version v);
bool cni_version_is_040(enum cni_version v);
bool cni_version_is_100(enum cni_version v);
