/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host-local IPAM: a file-backed allocator with the reference's config keys
 * and on-disk layout. Usable as the `host-local` binary and in-process
 * through ipam_host_local_ops (see podnet/ipam.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cni/plugin.h"
#include "cni/result.h"
#include "ipam/range.h"

#define HOST_LOCAL_DEFAULT_DATA_DIR "/var/lib/cni/networks"

extern const struct cni_plugin_ops ipam_host_local_ops;

/* What the handlers need from the config, all owned. */
struct host_local_conf {
	struct ipam_range_set *sets; /* runtimeConfig.ipRanges, legacy range, ranges */
	char **set_paths;	     /* JSON path of each set, for messages */
	size_t n_sets;
	struct cni_result *extra; /* routes (and dns from resolvConf, on ADD) */
	char *data_dir;
	char *resolv_conf;	     /* NULL when unset */
	struct ip_prefix *requested; /* requested addresses, in precedence order */
	size_t n_requested;
	/*
	 * DEL or GC with a dataDir ADD would refuse (relative, not a string):
	 * no lease can exist under it, so the command skips IPAM (warned).
	 */
	bool skip_store;
};

enum host_local_parse {
	HOST_LOCAL_PARSE_STORE = 0,	     /* dataDir only (DEL, GC) */
	HOST_LOCAL_PARSE_RANGES = 1u << 0,   /* ranges and routes (CHECK, STATUS) */
	HOST_LOCAL_PARSE_REQUESTS = 1u << 1, /* requested addresses (ADD) */
};

/*
 * Parse the host-local part of ctx->conf (and CNI_ARGS IP from ctx->args)
 * into ret; `what` is a mask of enum host_local_parse. Errors are code 7
 * naming the key and value ("ipam.ranges[0][0].subnet: not a CIDR:
 * '10.0.0.0/33'"), code 4 for CNI_ARGS. On DEL and GC bad types are only
 * warned about (cni_conf_get_*), and a bad dataDir sets ret->skip_store
 * instead of falling back to the default. Returns 0 or a negative errno with
 * ctx->err set; ret is untouched on failure.
 */
int host_local_conf_parse(struct cni_ctx *ctx, unsigned what, struct host_local_conf *ret);
void host_local_conf_done(struct host_local_conf *c);

/*
 * Parse a resolv.conf the reference's way into ret (nameserver, domain -
 * the last wins -, search, options; '#' and ';' comments). Returns 0 or the
 * -errno of reading path.
 */
int host_local_parse_resolv_conf(const char *path, struct cni_dns *ret);
