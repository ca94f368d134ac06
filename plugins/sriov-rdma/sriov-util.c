/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers of the verbs: error recording and the per-invocation working set. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cni/log.h"
#include "nlw/sock.h"
#include "sriov-rdma.h"

int sr_fail(struct cni_ctx *ctx, struct nlw_sock *s, int r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r = cni_errorf(&ctx->err,
		       r == -ETIMEDOUT || r == -EAGAIN || r == -EBUSY ? CNI_ERR_TRY_AGAIN
								      : CNI_ERR_PLUGIN,
		       r, "%s: %s", msg, strerror(r < 0 ? -r : EINVAL));
	if (s && nlw_sock_ext_ack(s))
		cni_error_add_detail(&ctx->err, nlw_sock_ext_ack(s));
	return r;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void sr_run_done(struct sr_run *r)
{
	sr_conf_done(&r->conf);
	r->host = nlw_sock_free(r->host);
	r->pod = nlw_sock_free(r->pod);
	r->rdma = nlw_sock_free(r->rdma);
	close_fd(&r->lock_fd);
	close_fd(&r->dir_fd);
	close_fd(&r->host_ns_fd);
	close_fd(&r->pod_ns_fd);
	r->result = cni_result_free(r->result);
}
