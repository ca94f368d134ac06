/* SPDX-License-Identifier: Apache-2.0 */
/* Link dumps (RTM_GETLINK with NLM_F_DUMP), filtered by master and kind. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "base/macro.h"
#include "internal.h"
#include "nlw/link.h"
#include "nlw/parse.h"

struct link_list {
	struct nlw_link_filter f;
	struct nlw_link *v;
	unsigned n, cap;
};

static bool link_matches(const struct nlw_link_filter *f, const struct nlw_link *l)
{
	if (f->master && l->master != f->master)
		return false;
	if (f->kind && strcmp(l->kind, f->kind) != 0)
		return false;
	return true;
}

static int link_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_list *l = data;
	struct nlw_link link;
	int err;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return 0;
	err = nlw_link_parse(nlh, &link);
	if (err < 0)
		return err;
	if (!link_matches(&l->f, &link))
		return 0;
	if (nlw_grow((void **)&l->v, l->n, &l->cap, sizeof(*l->v)) < 0)
		return -ENOMEM;
	l->v[l->n++] = link;
	return 0;
}

static void link_list_reset(void *data)
{
	struct link_list *l = data;

	l->n = 0;
}

int nlw_link_list(struct nlw_sock *sock, const struct nlw_link_filter *f, struct nlw_link **ret,
		  unsigned *ret_n)
{
	struct link_list l = {0};
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifi;
	int err;

	if (!sock || !ret || !ret_n)
		return -EINVAL;
	if (f)
		l.f = *f;
	nlh = nlw_req_init(&req, RTM_GETLINK, NLM_F_DUMP, sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	/* The kernel filters a strict dump by master; kind is re-checked here. */
	if (l.f.master && !nlw_put_u32(nlh, IFLA_MASTER, (uint32_t)l.f.master))
		return -EMSGSIZE;
	err = nlw_dump(sock, nlh, link_list_cb, link_list_reset, &l);
	if (err < 0) {
		free(l.v);
		return err;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}
