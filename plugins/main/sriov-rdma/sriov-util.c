/* SPDX-License-Identifier: Apache-2.0 */
/* The per-invocation working set: what it owns, and our own netns. */
#include <unistd.h>

#include "nlw/netns.h"
#include "nlw/sock.h"
#include "sriov-rdma.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void sr_run_borrow(struct sr_run *r, struct podnet *pn, const struct sr_run *base)
{
	*pn = (struct podnet){.ctx = base->ctx, .netns_fd = -1, .host = base->pn->host};
	*r = (struct sr_run)SR_RUN_INIT(pn);
	r->sysfs_fd = base->sysfs_fd;
	r->dir_fd = base->dir_fd;
	r->host_ns_fd = base->host_ns_fd;
}

void sr_run_done(struct sr_run *r)
{
	sr_conf_done(&r->conf);
	r->rdma = nlw_sock_free(r->rdma);
	close_fd(&r->lock_fd);
	close_fd(&r->dir_fd);
	close_fd(&r->host_ns_fd);
	r->result = cni_result_free(r->result);
}

int sr_host_ns_open(struct sr_run *r)
{
	int e = nlw_netns_open_self(&r->host_ns_fd);

	return e < 0 ? podnet_fail(r->ctx, NULL, e, "open the host netns") : 0;
}
