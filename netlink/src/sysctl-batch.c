/* SPDX-License-Identifier: Apache-2.0 */
/* sysctl writes collected and done in one visit of a netns. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "nlw/netns.h"
#include "nlw/sysctl.h"

void nlw_sysctl_batch_init(struct nlw_sysctl_batch *b, int procfs_fd)
{
	b->procfs_fd = procfs_fd;
	b->n = 0;
}

int nlw_sysctl_batch_put(struct nlw_sysctl_batch *b, const char *value, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (b->n >= NLW_SYSCTL_BATCH_MAX)
		return -ENOBUFS;
	va_start(ap, fmt);
	len = vsnprintf(b->path[b->n], sizeof(b->path[b->n]), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(b->path[b->n]))
		return -ENOBUFS;
	b->value[b->n] = value;
	b->err[b->n++] = 0;
	return 0;
}

/* Runs inside the netns: /proc/sys/net files belong to the opener's netns. */
static int batch_write_here(void *arg)
{
	struct nlw_sysctl_batch *b = arg;

	for (size_t i = 0; i < b->n; i++)
		b->err[i] = nlw_sysctl_set(b->procfs_fd, b->path[i], b->value[i]);
	return 0;
}

int nlw_sysctl_batch_write(struct nlw_sysctl_batch *b, int netns_fd)
{
	if (netns_fd < 0)
		return batch_write_here(b);
	return nlw_netns_run(netns_fd, batch_write_here, b);
}
