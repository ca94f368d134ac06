/* SPDX-License-Identifier: Apache-2.0 */
/* RTM_GETROUTE for one destination. */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "internal.h"
#include "nlw/route-get.h"

static const struct nlw_policy oif_policy[RTA_MAX + 1] = {
    [RTA_OIF] = {.kind = NLW_ATTR_U32},
};

static int oif_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RTA_MAX + 1];
	int r;

	if (nlh->nlmsg_type != RTM_NEWROUTE)
		return 0;
	r = nlw_attr_parse(nlh, sizeof(struct rtmsg), oif_policy, RTA_MAX, tb);
	if (r < 0)
		return r;
	if (tb[RTA_OIF])
		*(int *)data = (int)mnl_attr_get_u32(tb[RTA_OIF]);
	return 0;
}

int nlw_route_get_oif(struct nlw_sock *sock, int family, const union ip_addr *dst, int *ret_oif)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	int oif = 0, r;

	if ((family != AF_INET && family != AF_INET6) || !dst || !ret_oif)
		return -EINVAL;
	nlh = nlw_req_init(&req, RTM_GETROUTE, NLM_F_ACK, sizeof(*rtm), (void **)&rtm);
	rtm->rtm_family = (unsigned char)family;
	rtm->rtm_dst_len = (unsigned char)ip_family_bits(family);
	if (!nlw_put(nlh, RTA_DST, ip_addr_len(family), dst->bytes))
		return -EMSGSIZE;
	r = nlw_talk(sock, nlh, oif_cb, &oif);
	if (r < 0)
		return r;
	*ret_oif = oif;
	return 0;
}
