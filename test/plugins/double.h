/* SPDX-License-Identifier: Apache-2.0 */
/* Shared behaviour of the noop and fail test-double plugins. */
#pragma once

#include "cni/plugin.h"

/*
 * Append one JSON line describing this invocation to the file named by the
 * config key "recordFile" (if set): command, containerID, netns, ifname,
 * args, path, the parsed stdin and the open file descriptors.
 */
int double_record(struct cni_ctx *ctx);

/*
 * Behave like a well-mannered plugin: record; on ADD set the result from
 * the config key "result", else prevResult, else an empty result.
 */
int double_succeed(struct cni_ctx *ctx);

/* Keys the doubles understand (for unknown-key warnings). */
extern const char *const double_keys[];
