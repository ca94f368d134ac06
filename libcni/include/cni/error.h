/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one error slot of an invocation and the CNI error codes (SPEC.md).
 */
#pragma once

#include <stdbool.h>

#include "base/macro.h"

enum cni_error_code {
	CNI_ERR_NONE = 0,
	CNI_ERR_INCOMPATIBLE_VERSION = 1,
	CNI_ERR_UNSUPPORTED_FIELD = 2,
	CNI_ERR_UNKNOWN_CONTAINER = 3,
	CNI_ERR_INVALID_ENV = 4,
	CNI_ERR_IO = 5,
	CNI_ERR_DECODE = 6,
	CNI_ERR_INVALID_CONFIG = 7,
	CNI_ERR_TRY_AGAIN = 11,
	CNI_ERR_NOT_AVAILABLE = 50,
	CNI_ERR_LIMITED_CONNECTIVITY = 51,
	/* podwire's own codes, >= 100; each is documented in the plugin READMEs. */
	CNI_ERR_PLUGIN = 100,	      /* generic failure of a plugin operation (kernel, files) */
	CNI_ERR_IPAM_EXHAUSTED = 101, /* no address left in a range set */
	CNI_ERR_IPAM_CONFLICT = 102,  /* address or attachment already allocated */
	CNI_ERR_EXISTS = 103,	      /* interface/resource already exists in the pod or host */
	CNI_ERR_DELEGATE = 104,	      /* a delegate plugin could not be found or run */
	CNI_ERR_CHECK_FAILED = 105,   /* CHECK found a difference from prevResult */
	CNI_ERR_TIMEOUT = CNI_ERR_TRY_AGAIN,
};

struct cni_error {
	unsigned code;
	char *msg;
	char *details;
};

/* True when an error has been recorded. */
static inline bool cni_error_isset(const struct cni_error *e)
{
	return e && e->code != 0;
}

/*
 * Record an error and return r (a negative errno, or -EINVAL when r >= 0) so
 * call sites can `return cni_errorf(err, CODE, r, "key: bad value '%s'", v);`.
 * msg is the formatted text; details gets strerror(-r) for r other than
 * -EINVAL. The first recorded error wins: later calls only return r.
 */
int cni_errorf(struct cni_error *e, unsigned code, int r, const char *fmt, ...) _printf_(4, 5);

/*
 * Prepend context to an already-recorded error's msg ("create veth 'x': ...").
 * Records a generic error from r when none is recorded yet. Returns r.
 */
int cni_error_wrapf(struct cni_error *e, int r, const char *fmt, ...) _printf_(3, 4);

/* Append a line of detail (e.g. kernel extended-ACK text). No-op if unset. */
void cni_error_add_detail(struct cni_error *e, const char *detail);

/*
 * The code of a failed operation from its negative errno, podwire's one
 * policy: EAGAIN, EBUSY, ETIMEDOUT -> 11 (try again), EIO -> 5, anything
 * else -> CNI_ERR_PLUGIN.
 */
unsigned cni_error_code_for(int r);

/* Fill an unset error from a bare negative errno (cni_error_code_for, strerror as msg). */
void cni_error_from_errno(struct cni_error *e, int r);

/* Take over another error (moves strings). dst must be unset. */
void cni_error_move(struct cni_error *dst, struct cni_error *src);

void cni_error_done(struct cni_error *e);
