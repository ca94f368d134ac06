/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Locks on shared host resources (a bridge that ADDs create, join and may
 * remove): flock() on a file per resource and network namespace, so
 * plugins in different namespaces never wait for each other. The kernel
 * drops the lock when the process dies, SIGKILL included.
 *
 * Files live in /run/podwire (created 0700); PODWIRE_LOCK_DIR (test-only)
 * names another directory.
 */
#pragma once

#include "cni/plugin.h"

/*
 * Take the exclusive lock "<kind>.<netns-id>.<name>" (blocking). *ret_fd
 * holds it until podnet_unlock. Errors recorded in ctx->err (code 100).
 */
int podnet_lock(struct cni_ctx *ctx, const char *kind, const char *name, int *ret_fd);

/* The same without a context (undo steps): 0 or a negative errno. */
int podnet_lock_fd(const char *kind, const char *name, int *ret_fd);

/* Release a lock from podnet_lock (fd < 0: nothing). Returns -1. */
int podnet_unlock(int fd);
