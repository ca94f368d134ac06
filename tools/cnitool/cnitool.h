/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnitool: upstream's CLI over podwire's runtime side. The pieces worth
 * testing on their own are exported for test/cnitool.
 */
#pragma once

#include <stddef.h>

#include "cni/error.h"
#include "cni/runtime.h"

/* "cnitool-" + 20 hex chars + NUL */
#define CNITOOL_CONTAINER_ID_LEN 29

/*
 * Make path absolute and clean (as Go's filepath.Abs: join with the current
 * directory, drop "." and empty components, resolve ".." lexically; no
 * symlink resolution, no existence check). Returns 0 and an owned string.
 */
int cnitool_abs_path(const char *path, char **ret);

/* The upstream container ID: "cnitool-" + first 10 bytes of SHA-512(abs_netns) in hex. */
void cnitool_container_id(const char *abs_netns, char ret[CNITOOL_CONTAINER_ID_LEN]);

/*
 * Parse CNI_ARGS the way upstream cnitool does: "K=V;K=V", every pair with
 * exactly one '=' and non-empty key and value (code 4 naming the pair).
 * Empty string: no pairs. Returns 0, an owned array and its length.
 */
int cnitool_parse_cni_args(const char *s, struct cni_runtime_arg **ret, size_t *ret_n,
			   struct cni_error *err);
void cnitool_args_free(struct cni_runtime_arg *args, size_t n);

/*
 * Parse a --timeout value: "<n>" seconds, or "<n>ms" / "<n>s" / "<n>m".
 * 0 means no timeout. Returns 0 and milliseconds, or -EINVAL / -ERANGE.
 */
int cnitool_parse_timeout(const char *s, int *ret_ms);

/* The whole program; returns the process exit code. */
int cnitool_main(int argc, char **argv);
