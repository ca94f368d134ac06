/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podnet: the attachment framework every plugin that touches a pod is
 * written on. It is the one module that uses both libcni (the protocol) and
 * nlw (the kernel): plugins call podnet_* and keep only what is theirs (a
 * bridge, a route, a qdisc).
 *
 * podnet_plugin_main() runs one invocation: the skeleton reads and checks
 * the environment and stdin; podnet opens, once, what the command declares
 * it needs (the pod netns, a netlink socket in the host netns and one in
 * the pod netns) and hands that struct podnet to the handler and to every
 * undo step; when an ADD fails the undo list runs in reverse with all of it
 * still open; only then is it closed and the result or the error printed.
 *
 * Undo rule: every resource an ADD creates is pushed (podnet_undo_push)
 * right after it exists, and each undo step removes only what this
 * attachment owns exclusively. A resource other attachments may share (a
 * bridge, a gateway address, forwarding, an nftables table) is either left
 * in place or removed only under a lock that proves nobody else uses it. A
 * failed ADD then leaves nothing of its own behind and takes nothing from a
 * neighbour.
 *
 * All functions return 0 (or a documented positive value) or a negative
 * errno with ctx->err set.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cni/plugin.h"
#include "podnet/rules.h" /* the netns rules, podnet_fail, podnet_fail_ack */

struct nlw_sock;

struct podnet {
	struct cni_ctx *ctx;
	int netns_fd;	       /* -1: no pod netns */
	struct nlw_sock *host; /* the plugin's own netns; NULL when not needed */
	struct nlw_sock *pod;  /* NULL without a pod netns */
};

/* What a command needs opened before its handler runs. */
enum podnet_needs {
	PODNET_NOTHING, /* no netns, no socket */
	PODNET_HOST,	/* a socket in the plugin's own netns */
	/*
	 * The host socket, the pod netns (CNI_NETNS) and a socket in it.
	 * ADD and CHECK: the netns must exist (code 3 when it vanished after
	 * the skeleton's check, 4 when it cannot be opened). DEL and GC: an
	 * empty CNI_NETNS, a vanished netns, a path that is no longer a netns
	 * (an unmounted bind mount) and the plugin's own netns (a runtime
	 * mistake: links there are host links) all mean "no pod netns"
	 * (netns_fd -1, pod NULL), the last two with a warning; never an error.
	 */
	PODNET_POD,
};

struct podnet_cmd {
	int (*run)(struct podnet *pn); /* NULL: the command succeeds doing nothing */
	enum podnet_needs needs;
};

struct podnet_plugin_ops {
	const char *name;  /* plugin type, for logs and the about text */
	const char *about; /* printed to stderr when CNI_COMMAND is unset */
	/* Keys of CNI_ARGS the plugin reads (NULL-terminated; see cni_plugin_ops). */
	const char *const *cni_args_keys;
	struct podnet_cmd add, del, check, gc, status;
};

/*
 * Run one invocation from the process environment and stdin (main.c of a
 * plugin is `return podnet_plugin_main(&ops, argc, argv);`). Returns the
 * process exit code.
 */
int podnet_plugin_main(const struct podnet_plugin_ops *ops, int argc, char **argv);

/* The same with explicit inputs (tests): as cni_plugin_run. Returns the exit code. */
int podnet_plugin_run(const struct podnet_plugin_ops *ops, char *const *env, const char *stdin_buf,
		      size_t stdin_len, FILE *out);

/*
 * An undo step: runs, on a failed ADD, with everything pn holds still open.
 * Returns 0 or a negative errno (logged ", ignoring").
 */
typedef int (*podnet_undo_fn)(struct podnet *pn, void *arg);

/*
 * Push an undo step on the invocation's list; `what` names it in logs.
 * Takes ownership of arg (free_arg may be NULL), also on failure. pn must
 * be the one the framework handed to the handler. Returns 0 or -ENOMEM.
 */
int podnet_undo_push(struct podnet *pn, const char *what, podnet_undo_fn fn, void *arg,
		     void (*free_arg)(void *arg));

/* Undo steps for links: delete host link `name`, or the pod's link ifindex. */
int podnet_undo_host_link(struct podnet *pn, const char *name);
int podnet_undo_pod_link(struct podnet *pn, int ifindex);

/*
 * The seam for tests: how sockets and the netns are opened. Unit tests
 * plug in fake transports (test/fakes/); sriov-rdma's tests a recording PF
 * transport. NULL members fall back to the real kernel; with any seam in
 * place the own-netns check is skipped (fakes open no real netns).
 */
struct podnet_ops {
	int (*open_netns)(const char *path, int *ret_fd);
	int (*open_host)(struct nlw_sock **ret);
	int (*open_pod)(int netns_fd, struct nlw_sock **ret);
};

/* Replace the seam (NULL: the kernel). Not thread-safe; for tests. */
void podnet_set_ops(const struct podnet_ops *ops);

/*
 * DEL and GC of a plugin that records the pod netns path at ADD (sriov-rdma):
 * when pn has no pod netns (CNI_NETNS empty or gone, or a GC), open the
 * recorded one, with its socket. By DEL's netns rules it never fails: an
 * empty path, a vanished netns, a path that is no longer a netns and the
 * plugin's own netns all mean none (the last two logged as warnings), and so
 * does any other failure to open it (logged). A netns whose socket cannot be
 * opened is kept without pn->pod (logged). Returns 1 when pn has a pod netns
 * afterwards (pn->netns_fd >= 0), 0 when not.
 */
int podnet_open_recorded(struct podnet *pn, const char *path);
/* Close the pod netns and its socket only (netns_fd -1, pod NULL); the host socket stays. */
void podnet_close_pod(struct podnet *pn);
/* Close everything pn holds (safe on a zeroed or half-open struct). */
void podnet_done(struct podnet *pn);

/* Is there a pod netns (a socket in it)? */
static inline bool podnet_has_pod(const struct podnet *pn)
{
	return pn->pod != NULL;
}

/* DEL's error collection: remember the first failure, keep going. */
static inline void podnet_keep_first(int *first, int r)
{
	if (r < 0 && *first == 0)
		*first = r;
}
