/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure reply parsers: `const struct nlmsghdr *` in, struct out, no I/O.
 * Exposed for tests and fuzzers. All return 0 or -EBADMSG (malformed or
 * wrong message type), -ENOMEM where they allocate.
 */
#pragma once

struct nlmsghdr;
struct nlw_link;
struct nlw_addr;
struct nlw_route;

int nlw_link_parse(const struct nlmsghdr *nlh, struct nlw_link *ret);
int nlw_addr_parse(const struct nlmsghdr *nlh, struct nlw_addr *ret);
int nlw_route_parse(const struct nlmsghdr *nlh, struct nlw_route *ret);
