/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cni/log.h"
#include "cni/undo.h"

int cni_undo_push(struct cni_undo *u, const char *what, cni_undo_fn fn, void *arg,
		  cni_undo_free_fn free_arg)
{
	struct cni_undo_step *steps;
	char *name;

	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 8;

		steps = reallocarray_safe(u->steps, cap, sizeof(*steps));
		if (!steps)
			goto out_nomem;
		u->steps = steps;
		u->cap = cap;
	}
	name = strdup(what ? what : "?");
	if (!name)
		goto out_nomem;
	u->steps[u->n++] = (struct cni_undo_step){name, fn, arg, free_arg};
	return 0;

out_nomem:
	if (free_arg)
		free_arg(arg);
	return -ENOMEM;
}

static void step_done(struct cni_undo_step *s)
{
	if (s->free_arg)
		s->free_arg(s->arg);
	free(s->what);
}

size_t cni_undo_run(struct cni_undo *u)
{
	size_t failed = 0;

	while (u->n > 0) {
		struct cni_undo_step *s = &u->steps[--u->n];
		int r = s->fn(s->arg);

		if (r < 0) {
			cni_log_warning("undo '%s' failed: %s, ignoring", s->what, strerror(-r));
			failed++;
		} else {
			cni_log_debug("undo '%s' done", s->what);
		}
		step_done(s);
	}
	cni_undo_commit(u);
	return failed;
}

void cni_undo_commit(struct cni_undo *u)
{
	for (size_t i = 0; i < u->n; i++)
		step_done(&u->steps[i]);
	free(u->steps);
	memset(u, 0, sizeof(*u));
}
