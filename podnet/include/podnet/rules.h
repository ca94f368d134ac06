/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podnet's rules that need no struct podnet and no libmnl: the netns rules
 * and the one error helper (library podnet_rules: libcni and nlw_core).
 * podnet applies them for every plugin on podnet_plugin_main; loopback, a
 * static binary without libmnl, links this library and applies the same.
 */
#pragma once

#include <stdbool.h>

#include "cni/plugin.h"

struct nlw_sock;

/* ADD and CHECK need the pod netns; DEL, GC and STATUS make do without. */
static inline bool podnet_netns_required(enum cni_command c)
{
	return c == CNI_CMD_ADD || c == CNI_CMD_CHECK;
}

/*
 * Open CNI_NETNS with open_netns (nlw_netns_open, or a test's) by the netns
 * rules. required: podnet_netns_required(command). Returns 1 "use it" with
 * *ret_fd (the caller's to close), 0 "no pod netns" (*ret_fd -1), or a
 * negative errno with ctx->err set:
 * - required (ADD, CHECK): -ENOENT (vanished since the skeleton's check) is
 *   code 3, any other failure code 4; the plugin's own netns is the
 *   skeleton's to refuse (it passes only with CNI_NETNS_OVERRIDE).
 * - otherwise (DEL, GC, STATUS): an empty CNI_NETNS, -ENOENT, -EINVAL (not a
 *   network namespace: an unmounted bind mount), the plugin's own netns and
 *   any other failure to open it all mean "no pod netns", all but the first
 *   two with a warning: DEL never fails on the pod's side.
 */
int podnet_netns_open(struct cni_ctx *ctx, bool required, int (*open_netns)(const char *, int *),
		      int *ret_fd);

/*
 * DEL and GC: log why the netns at `path` (named `what` in the message:
 * "CNI_NETNS", "recorded netns") counts as gone: r is the errno of opening
 * it (-ENOENT: debug only), or own when it is the plugin's own netns.
 */
void podnet_netns_log_gone(const char *what, const char *path, int r, bool own);

/*
 * The one error helper for kernel and nftables failures: record
 * "<what>: <strerror>" with the code cni_error_code_for(r) gives (11 for
 * EAGAIN, EBUSY, ETIMEDOUT; 5 for EIO; 100 for the others), and the kernel's
 * extended-ACK text in details: from sock (may be NULL) for podnet_fail, or
 * given (may be NULL) for podnet_fail_ack. Returns r.
 */
int podnet_fail(struct cni_ctx *ctx, struct nlw_sock *sock, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int podnet_fail_ack(struct cni_ctx *ctx, const char *ext_ack, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
