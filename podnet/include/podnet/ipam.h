/* SPDX-License-Identifier: Apache-2.0 */
/*
 * IPAM delegation: one path for every main plugin.
 *
 * Each binary names the IPAM types it runs in-process in its main.c
 * (podnet_set_ipam_types): bridge links host-local and static, bgp-route
 * adds cluster-ipam (and with it the etcd client) while bridge links neither. A type
 * in the table runs in-process: a child context (cni_ctx_init_child) is
 * handed to the IPAM's cni_plugin_ops, and the result and error are moved
 * into the caller, passed through the JSON of the config's version as an
 * exec'd binary's stdout would be. Any other type is found in CNI_PATH and
 * exec'd per the spec's delegation rules: the caller's environment with
 * CNI_COMMAND set, stdin the caller's bytes unchanged; an error document it
 * prints keeps its code, message and details.
 *
 * PODWIRE_IPAM_EXEC=1 (test-only) forces the exec path for every type.
 *
 * Undo rule: podnet_ipam_add allocates and pushes "IPAM DEL" on ctx->undo
 * itself, so a later failed step releases the address; when it fails it
 * leaves nothing behind.
 */
#pragma once

#include "cni/plugin.h"
#include "cni/result.h"

struct podnet_ipam_type {
	const char *type;		  /* ipam.type value */
	const struct cni_plugin_ops *ops; /* its handlers */
};

/* The in-process table, terminated by { NULL, NULL } (NULL: exec everything). */
void podnet_set_ipam_types(const struct podnet_ipam_type *types);

/*
 * IPAM ADD. *ret is the result in the ctx->conf.version model (caller
 * frees); the "IPAM DEL" undo step is pushed. An IPAM answer without an IP
 * is refused (code 100) after releasing it. Route destinations come back
 * with their host bits cleared, as the kernel installs them.
 */
int podnet_ipam_add(struct cni_ctx *ctx, struct cni_result **ret);
/* podnet_ipam_add with its ips, routes and DNS taken into dst (cni_result_take_ipam). */
int podnet_ipam_add_to(struct cni_ctx *ctx, struct cni_result *dst);

/*
 * DEL, CHECK, GC or STATUS on the IPAM plugin. On DEL and GC an exec'd IPAM
 * plugin that cannot be found or run (code 104) is a warning, not an error.
 */
int podnet_ipam_run(struct cni_ctx *ctx, enum cni_command cmd);
