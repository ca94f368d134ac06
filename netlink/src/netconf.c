/* SPDX-License-Identifier: Apache-2.0 */
/* RTM_GETNETCONF: forwarding of a link, of "all" or of "default". */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/netconf.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "internal.h"
#include "nlw/netconf.h"

static const struct nlw_policy netconf_policy[NETCONFA_MAX + 1] = {
    [NETCONFA_IFINDEX] = {NLW_ATTR_U32, 0, 0},
    [NETCONFA_FORWARDING] = {NLW_ATTR_U32, 0, 0},
};

static int forwarding_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NETCONFA_MAX + 1];
	int *ret = data;
	int r;

	if (nlh->nlmsg_type != RTM_NEWNETCONF ||
	    nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct netconfmsg)))
		return -EBADMSG;
	r = nlw_attr_parse(nlh, sizeof(struct netconfmsg), netconf_policy, NETCONFA_MAX, tb);
	if (r < 0)
		return r;
	if (tb[NETCONFA_FORWARDING])
		*ret = mnl_attr_get_u32(tb[NETCONFA_FORWARDING]) ? 1 : 0;
	return 0;
}

int nlw_netconf_get_forwarding(struct nlw_sock *sock, int family, int ifindex, int *ret)
{
	union nlw_req req;
	struct nlmsghdr *nlh;
	struct netconfmsg *ncm;

	if (!sock || !ret || (family != AF_INET && family != AF_INET6) ||
	    ifindex < NLW_NETCONF_DEFAULT || ifindex == 0)
		return -EINVAL;
	*ret = -1;
	nlh = nlw_req_init(&req, RTM_GETNETCONF, NLM_F_ACK, sizeof(*ncm), (void **)&ncm);
	ncm->ncm_family = (uint8_t)family;
	if (!nlw_put_u32(nlh, NETCONFA_IFINDEX, (uint32_t)ifindex))
		return -EMSGSIZE;
	/* ret is the caller's (never a local here), so the request can wait in a batch. */
	return nlw_talk_batchable(sock, nlh, forwarding_cb, ret);
}
