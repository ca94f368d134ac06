/* SPDX-License-Identifier: Apache-2.0 */
/* Alternative interface names (link properties). */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "internal.h"
#include "nlw/altname.h"

#define ALTIFNAMSIZ_ 128 /* ALTIFNAMSIZ of <linux/if.h>, which clashes with <net/if.h> */

static int link_prop(struct nlw_sock *sock, uint16_t type, int ifindex, const char *name)
{
	union nlw_req req;
	struct ifinfomsg *ifi;
	struct nlmsghdr *nlh;
	struct nlattr *list;

	if (!sock || ifindex <= 0 || !name || !name[0] || strlen(name) >= ALTIFNAMSIZ_)
		return -EINVAL;
	nlh = nlw_req_init(&req, type,
			   NLM_F_ACK | (type == RTM_NEWLINKPROP ? NLM_F_CREATE | NLM_F_EXCL : 0),
			   sizeof(*ifi), (void **)&ifi);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	list = nlw_nest_start(nlh, IFLA_PROP_LIST);
	if (!list || !nlw_put_str(nlh, IFLA_ALT_IFNAME, name))
		return -EMSGSIZE;
	nlw_nest_end(nlh, list);
	return nlw_talk(sock, nlh, NULL, NULL);
}

int nlw_link_del_altname(struct nlw_sock *sock, int ifindex, const char *name)
{
	return link_prop(sock, RTM_DELLINKPROP, ifindex, name);
}

int nlw_link_add_altname(struct nlw_sock *sock, int ifindex, const char *name)
{
	return link_prop(sock, RTM_NEWLINKPROP, ifindex, name);
}
