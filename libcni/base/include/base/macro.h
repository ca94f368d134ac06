/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Header-only base helpers shared by libcni, netlink and the plugins:
 * cleanup attributes, ownership transfer, ARRAY_SIZE.
 */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_ __attribute__((warn_unused_result))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* Move ownership out of a cleanup-scoped variable. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _tp = (p);                                                           \
		(p) = NULL;                                                                        \
		_tp;                                                                               \
	})

#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _tf = (fd);                                                                    \
		(fd) = -1;                                                                         \
		_tf;                                                                               \
	})

/* Free and reset; returns NULL so destructors can be written as `x = mfree(x)`. */
static inline void *mfree(void *p)
{
	free(p);
	return NULL;
}

/* Overflow-checked n * size allocation helpers. */
static inline void *malloc_multiply(size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total))
		return NULL;
	return malloc(total ? total : 1);
}

static inline void *reallocarray_safe(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total))
		return NULL;
	return realloc(p, total ? total : 1);
}

static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}
