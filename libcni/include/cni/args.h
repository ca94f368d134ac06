/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CNI_ARGS: "K=V;K2=V2". Strict like the reference: each pair has exactly one
 * '=', keys are case-sensitive, unknown keys are an error unless
 * IgnoreUnknown is true (1/true, case-insensitive; 0/false is false).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cni/error.h"

struct cni_arg {
	char *key;
	char *value;
};

struct cni_args {
	struct cni_arg *items;
	size_t n;
	bool ignore_unknown;
};

#define CNI_ARGS_MAX 64

/*
 * Split CNI_ARGS into pairs, without checking keys. Empty/NULL gives no
 * pairs. Errors (code 4, naming CNI_ARGS and the pair): a pair without
 * exactly one '=', an empty key, more than CNI_ARGS_MAX pairs, or an
 * IgnoreUnknown value that is not a boolean. Returns 0 or -EINVAL.
 */
int cni_args_parse(const char *s, struct cni_args *ret, struct cni_error *err);

/*
 * Check keys against a NULL-terminated list of the keys this plugin reads
 * (IgnoreUnknown is always known). Unknown keys with IgnoreUnknown unset ->
 * code 4 'ARGS: unknown args ["K=V", ...]'. Returns 0 or -EINVAL.
 */
int cni_args_check_known(const struct cni_args *a, const char *const *known, struct cni_error *err);

/* Value of key (case-sensitive), or NULL. Borrowed. */
const char *cni_args_get(const struct cni_args *a, const char *key);

void cni_args_done(struct cni_args *a);
