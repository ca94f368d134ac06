/* SPDX-License-Identifier: Apache-2.0 */
/*
 * static IPAM: addresses, routes and DNS straight from the config (or from
 * args.cni.ips, runtimeConfig.ips, CNI_ARGS IP/GATEWAY). Usable as the
 * `static` binary and in-process through ipam_static_ops.
 */
#pragma once

#include "cni/plugin.h"
#include "cni/result.h"

extern const struct cni_plugin_ops ipam_static_ops;

/*
 * Build the result static would return for ctx (addresses with gateways in
 * source order, routes, dns) without touching anything. Errors are code 7
 * naming the key and value, code 4 for CNI_ARGS. Returns 0 and a new result
 * in *ret, or a negative errno with ctx->err set.
 */
int static_build_result(struct cni_ctx *ctx, struct cni_result **ret);
