/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Alternative interface names (RTM_NEWLINKPROP / RTM_DELLINKPROP with
 * IFLA_PROP_LIST -> IFLA_ALT_IFNAME). udev may give a renamed device an
 * altname equal to its old name; renaming it back then fails with -EEXIST
 * until that altname is gone.
 */
#pragma once

struct nlw_sock;

/*
 * Delete the altname `name` (1..ALTIFNAMSIZ-1 bytes) of link ifindex.
 * Errors: -ENOENT (the link has no such altname), -ENODEV, -EINVAL,
 * -EOPNOTSUPP (kernel before 5.5).
 */
int nlw_link_del_altname(struct nlw_sock *sock, int ifindex, const char *name);

/* Add an altname (tests). Errors: -EEXIST (name in use in the netns), as above. */
int nlw_link_add_altname(struct nlw_sock *sock, int ifindex, const char *name);
