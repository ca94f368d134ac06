/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Libraries loaded with dlopen() on first use, so a binary that links the
 * code using them names none in DT_NEEDED and maps none until it needs one:
 * libssl (pwhttp, https:// only) and libibverbs (sriov-rdma's
 * verification). One style for every loader: a
 * list of sonames to try, a table of symbols to resolve, one error text.
 */
#pragma once

#include <stddef.h>

/* A symbol to resolve: its name and the function pointer to store it in. */
struct dl_sym {
	const char *name;
	void **addr;
};

/* A dl_sym for the function pointer field ptr, named name. */
#define DL_SYM(name, ptr)                                                                          \
	{                                                                                          \
		(name), (void **)&(ptr)                                                            \
	}

/*
 * Opens the first of sonames (NULL-terminated) that loads (RTLD_NOW |
 * RTLD_LOCAL) and resolves each of syms[0..n) into its pointer. Returns the
 * handle, or NULL with why (why_len bytes, NUL-terminated) naming the
 * library and what failed: dlerror()'s text for a library none of the
 * names loads, "<soname> lacks <symbol>" for a missing symbol (the library
 * is closed again then).
 */
void *dl_load(const char *const *sonames, const struct dl_sym *syms, size_t n, char *why,
	      size_t why_len);
