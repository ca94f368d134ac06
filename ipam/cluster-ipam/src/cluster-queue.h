/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cluster-ipam internals: the node's ADD queue. An ADD that finds the node
 * lock taken leaves its request in <dataDir>/queue/<tag>.req; whoever holds
 * the lock next (the "leader") takes every waiting request with the same
 * batch key, allocates for all of them in its one txn and answers each in
 * <tag>.res before it lets the lock go. Waiters sleep on inotify (the lock
 * file closed, a result renamed in), not on a timer.
 */
#pragma once

#include <stdint.h>

#include "cluster-add.h"

#define CIPAM_MAX_BATCH 16
#define CIPAM_QUEUE_TAG_LEN 48

/*
 * Wakeups: an IN_CLOSE_WRITE of the lock file. Everyone opens the lock
 * read-only, so ADDs exiting wake nobody; a holder letting the lock go
 * (after answering the queue) opens and closes it for writing once. A
 * holder that dies does not: its waiters wake at the 100 ms cap.
 */
struct cipam_waiter {
	int fd; /* inotify, or -1: then waiting is a 1 ms sleep */
};
void cipam_waiter_open(struct cipam_waiter *w, const char *lock_path);
/* Sleep until an event, until_ms (CLOCK_MONOTONIC) or 100 ms, whichever comes first. */
void cipam_waiter_wait(struct cipam_waiter *w, uint64_t until_ms);
void cipam_waiter_close(struct cipam_waiter *w);
uint64_t cipam_mono_ms(void);

/*
 * What must be equal for two ADDs to share a txn: etcd (endpoints, TLS
 * files), prefix, node, pools, maxBlocksPerNode, strictAffinity,
 * blockRouteProtocol and the network namespace (the blackholes go there).
 * NULL when the ADD cannot be batched (requested IPs) or out of memory.
 */
char *cipam_queue_key(const struct cipam_conf *c);

/* A queued request (strings owned). */
struct cipam_qreq {
	char tag[CIPAM_QUEUE_TAG_LEN]; /* "<pid>-<16 hex>" */
	char *key;
	long pid;
	uint64_t deadline_ms; /* CLOCK_MONOTONIC: the requester gives up then */
	char *container_id, *ifname, *network, *pod;
};
void cipam_qreq_done(struct cipam_qreq *q);
char *cipam_qreq_json(const struct cipam_qreq *q);
/* Parse a request file (written by another ADD of this node). 0 or -EBADMSG. */
int cipam_qreq_parse(const char *json, size_t len, struct cipam_qreq *ret);

/* An answer: r (0 or a negative errno), the error (when r < 0), the allocation. */
char *cipam_qres_json(int r, const struct cni_error *err, const struct cipam_add_out *out);
/* 0 with *r, *err and *out filled, or -EBADMSG. */
int cipam_qres_parse(const char *json, size_t len, int *r, struct cni_error *err,
		     struct cipam_add_out *out);

/*
 * The queue directory <dataDir>/queue as a dirfd; `create`: made (0700)
 * when missing (by the first ADD that has to wait), else -ENOENT.
 */
int cipam_queue_open(const char *data_dir, bool create);
/* Make a fresh tag for this process. */
void cipam_queue_tag(char tag[CIPAM_QUEUE_TAG_LEN]);
/* Write q as <tag>.req (atomically). */
int cipam_queue_submit(int qfd, const struct cipam_qreq *q);
/* Take <tag>.req back: 0 withdrawn (no leader has it), -ENOENT a leader took it. */
int cipam_queue_withdraw(int qfd, const char *tag);
/* <tag>.res: 1 read (and removed) into r, err and out; 0 not there (yet). */
int cipam_queue_fetch(int qfd, const char *tag, int *r, struct cni_error *err,
		      struct cipam_add_out *out);
/* Write the answer <tag>.res (atomically). */
int cipam_queue_answer(int qfd, const char *tag, int r, const struct cni_error *err,
		       const struct cipam_add_out *out);
/*
 * Leader, under the node lock: take (remove) up to max waiting requests
 * whose key is `key`, whose requester is alive and whose deadline has not
 * passed; drop stale files of dead processes. Returns how many are in ret.
 */
size_t cipam_queue_take(int qfd, const char *key, struct cipam_qreq *ret, size_t max);
