/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPAM delegation for podwire's main plugins (bridge, ...).
 *
 * Each call looks at ctx->conf.ipam_type:
 *   - "host-local" or "static": podwire's own implementation runs
 *     in-process (no fork/exec). A child context is made with
 *     cni_ctx_init_child() and the IPAM's exported cni_plugin_ops handler
 *     (ipam_host_local_ops / ipam_static_ops) is called on it; the result
 *     and error are moved into the caller.
 *   - anything else: the plugin named by the type is found in CNI_PATH and
 *     exec'd per the spec's delegation rules: the caller's environment
 *     with CNI_COMMAND set to the verb, stdin = the caller's stdin bytes
 *     unchanged. An error document printed by the delegate is returned with
 *     its code, message and details preserved.
 *
 * PODWIRE_IPAM_EXEC=1 in the environment forces the exec path even for
 * host-local and static (the binaries of those names are then looked up in
 * CNI_PATH); tests use it to run one table both ways.
 *
 * Undo rule: ipam_delegate_add() allocates. The plugin that calls it is
 * responsible for calling ipam_delegate_del(ctx) when a later ADD step
 * fails (the bridge pushes it on its undo list right after a successful
 * ipam_delegate_add()). ipam_delegate_add() itself leaves nothing behind
 * when it fails.
 *
 * All functions return 0 or a negative errno with ctx->err set.
 */
#pragma once

#include "cni/plugin.h"
#include "cni/result.h"

/*
 * Run the IPAM's ADD. On success *ret is the result in the
 * ctx->conf.version model (caller frees with cni_result_free()).
 */
int ipam_delegate_add(struct cni_ctx *ctx, struct cni_result **ret);

/* Run the IPAM's DEL (release the attachment's addresses; idempotent). */
int ipam_delegate_del(struct cni_ctx *ctx);

/* Run the IPAM's CHECK (the attachment still holds its addresses). */
int ipam_delegate_check(struct cni_ctx *ctx);

/* Run the IPAM's GC (release what cni.dev/valid-attachments does not list). */
int ipam_delegate_gc(struct cni_ctx *ctx);

/* Run the IPAM's STATUS (ready to allocate?). */
int ipam_delegate_status(struct cni_ctx *ctx);
