/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podnet: the pod-attachment layer every main plugin is written on. It is
 * the one module that uses both libcni (the protocol) and nlw (the kernel):
 * plugins call podnet_* and keep only what is theirs (a bridge, a route, a
 * VF).
 *
 * One attachment operation holds a struct podnet: the pod netns fd and one
 * netlink socket in the host netns and one in the pod netns, opened once.
 *
 * Undo rule (also in cni/undo.h): every resource an ADD creates is pushed on
 * ctx->undo right after it exists, and each undo step removes only what
 * this attachment owns exclusively. A resource other attachments may share
 * (a bridge, a gateway address, forwarding, an nftables table) is either
 * left in place or removed only under a lock that proves nobody else uses
 * it. A failed ADD then leaves nothing of its own behind and takes nothing
 * from a neighbour.
 *
 * All functions return 0 (or a documented positive value) or a negative
 * errno with ctx->err set.
 */
#pragma once

#include <stdbool.h>

#include "cni/plugin.h"

struct nlw_sock;

enum podnet_mode {
	/* ADD, CHECK: CNI_NETNS must name an existing netns (code 3 / 4). */
	PODNET_NEED_NETNS,
	/*
	 * DEL, GC: an empty CNI_NETNS, a vanished netns, or the plugin's own
	 * netns (a runtime mistake: links there are host links) mean "no pod
	 * netns": netns_fd is -1 and pod is NULL, which is not an error.
	 */
	PODNET_MAY_LACK_NETNS,
};

struct podnet {
	struct cni_ctx *ctx;
	int netns_fd;	       /* -1: no pod netns */
	struct nlw_sock *host; /* the plugin's own netns */
	struct nlw_sock *pod;  /* NULL without a pod netns */
};

/*
 * The seam for tests: how sockets and the netns are opened. Unit tests
 * plug in fake transports (test/fakes/); sriov-rdma's tests a recording PF
 * transport. NULL members fall back to the real kernel.
 */
struct podnet_ops {
	int (*open_netns)(const char *path, int *ret_fd);
	int (*open_host)(struct nlw_sock **ret);
	int (*open_pod)(int netns_fd, struct nlw_sock **ret);
};

/* Replace the seam (NULL: the kernel). Not thread-safe; for tests. */
void podnet_set_ops(const struct podnet_ops *ops);

/*
 * A socket in the plugin's own netns through the seam, for code that runs
 * after podnet_done (undo steps). Returns 0 or a negative errno.
 */
int podnet_open_host_sock(struct nlw_sock **ret);

/* Open the pod netns (CNI_NETNS) and both sockets, as `mode` says. */
int podnet_open(struct podnet *pn, struct cni_ctx *ctx, enum podnet_mode mode);
/* Close what podnet_open opened (safe on a zeroed or half-open struct). */
void podnet_done(struct podnet *pn);
/* A podnet that owns nothing yet (netns_fd -1). */
#define PODNET_INIT                                                                                \
	{                                                                                          \
		.netns_fd = -1                                                                     \
	}

/* Is there a pod netns (podnet_open found one)? */
static inline bool podnet_has_pod(const struct podnet *pn)
{
	return pn->pod != NULL;
}

/*
 * Record "<what>: <strerror>" (code 11 for EAGAIN/EBUSY/ETIMEDOUT, else
 * 100) with the kernel's extended-ACK text from sock (may be NULL) in
 * details. Returns r.
 */
int podnet_fail(struct cni_ctx *ctx, struct nlw_sock *sock, int r, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* DEL's error collection: remember the first failure, keep going. */
static inline void podnet_keep_first(int *first, int r)
{
	if (r < 0 && *first == 0)
		*first = r;
}
