/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Undo list: every resource ADD creates is pushed as it is created; on
 * failure the steps run in reverse; on success they are dropped.
 */
#pragma once

#include <stddef.h>

/* Undo step: returns 0 or a negative errno (logged ", ignoring"). */
typedef int (*cni_undo_fn)(void *arg);
/* Frees arg; called after the step ran or when the list is committed. */
typedef void (*cni_undo_free_fn)(void *arg);

struct cni_undo_step {
	char *what;
	cni_undo_fn fn;
	void *arg;
	cni_undo_free_fn free_arg;
};

struct cni_undo {
	struct cni_undo_step *steps;
	size_t n, cap;
};

/*
 * Push a step; `what` (copied) names it in logs. Takes ownership of arg even
 * on failure (free_arg is called). Returns 0 or -ENOMEM.
 */
int cni_undo_push(struct cni_undo *u, const char *what, cni_undo_fn fn, void *arg,
		  cni_undo_free_fn free_arg);
/* Run all steps in reverse order, then empty the list. Returns the count that failed. */
size_t cni_undo_run(struct cni_undo *u);
/* Drop all steps without running them (success). */
void cni_undo_commit(struct cni_undo *u);
