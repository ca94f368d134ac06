/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The netns rules, once: what the outcome of opening CNI_NETNS means for
 * the command. podnet applies them for every plugin on podnet_plugin_main;
 * loopback, a static binary without libmnl, opens the netns itself and
 * applies the same rules through this (it links only libcni).
 */
#pragma once

#include <stdbool.h>

#include "cni/plugin.h"

/* ADD and CHECK need the pod netns; DEL, GC and STATUS make do without. */
static inline bool podnet_netns_required(enum cni_command c)
{
	return c == CNI_CMD_ADD || c == CNI_CMD_CHECK;
}

/*
 * required: podnet_netns_required(command).
 * r: 0 when CNI_NETNS was opened, else the negative errno of opening or
 * entering it (-EINVAL: not a network namespace). own: it is the plugin's
 * own netns. Returns 1 "use it", 0 "no pod netns" or a negative errno with
 * ctx->err set:
 * - required (ADD, CHECK): -ENOENT (vanished since the skeleton's check) is code 3,
 *   any other failure code 4; own is the skeleton's to refuse (it passes
 *   only with CNI_NETNS_OVERRIDE).
 * - otherwise (DEL, GC, STATUS): an empty CNI_NETNS (r ignored), -ENOENT, -EINVAL (an
 *   unmounted bind mount), own and any other failure to open it all mean
 *   "no pod netns", all but the first two with a warning: DEL never fails
 *   on the pod's side.
 */
int podnet_netns_rule(struct cni_ctx *ctx, bool required, int r, bool own);

/*
 * DEL and GC: log why the netns at `path` (named `what` in the message:
 * "CNI_NETNS", "recorded netns") counts as gone: r is the errno of opening
 * it (-ENOENT: debug only), or own when it is the plugin's own netns.
 */
void podnet_netns_log_gone(const char *what, const char *path, int r, bool own);
