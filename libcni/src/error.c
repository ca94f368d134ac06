/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cni/error.h"

static _printf_(1, 0) char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static char *join(const char *a, const char *sep, const char *b)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s", a, sep, b) < 0)
		return NULL;
	return s;
}

int cni_errorf(struct cni_error *e, unsigned code, int r, const char *fmt, ...)
{
	va_list ap;

	if (r >= 0)
		r = -EINVAL;
	if (!e || cni_error_isset(e))
		return r;
	va_start(ap, fmt);
	e->msg = vformat(fmt, ap);
	va_end(ap);
	e->code = code ? code : CNI_ERR_PLUGIN;
	/* EINVAL adds nothing to a message that already says what is wrong. */
	if (r != -EINVAL)
		e->details = strdup(strerror(-r));
	return r;
}

unsigned cni_error_code_for(int r)
{
	switch (-r) {
	case EAGAIN:
	case EBUSY:
	case ETIMEDOUT:
		return CNI_ERR_TRY_AGAIN;
	case EIO:
		return CNI_ERR_IO;
	default:
		return CNI_ERR_PLUGIN;
	}
}

void cni_error_from_errno(struct cni_error *e, int r)
{
	if (!e || cni_error_isset(e))
		return;
	if (r >= 0)
		r = -EIO;
	e->code = cni_error_code_for(r);
	e->msg = strdup(strerror(-r));
}

int cni_error_wrapf(struct cni_error *e, int r, const char *fmt, ...)
{
	_cleanup_free_ char *ctx = NULL;
	char *joined;
	va_list ap;

	if (r >= 0)
		r = -EINVAL;
	if (!e)
		return r;
	cni_error_from_errno(e, r);
	va_start(ap, fmt);
	ctx = vformat(fmt, ap);
	va_end(ap);
	if (!ctx)
		return r;
	joined = join(ctx, ": ", e->msg ? e->msg : "");
	if (joined) {
		free(e->msg);
		e->msg = joined;
	}
	return r;
}

void cni_error_add_detail(struct cni_error *e, const char *detail)
{
	char *joined;

	if (!e || !cni_error_isset(e) || !detail || !*detail)
		return;
	joined = e->details ? join(e->details, "; ", detail) : strdup(detail);
	if (joined) {
		free(e->details);
		e->details = joined;
	}
}

void cni_error_move(struct cni_error *dst, struct cni_error *src)
{
	if (!dst || !src)
		return;
	if (cni_error_isset(dst)) {
		cni_error_done(src);
		return;
	}
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

void cni_error_done(struct cni_error *e)
{
	if (!e)
		return;
	free(e->msg);
	free(e->details);
	memset(e, 0, sizeof(*e));
}
