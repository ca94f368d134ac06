/* SPDX-License-Identifier: Apache-2.0 */
/* Private declarations of the portmap part of the nft module. */
#pragma once

#include "internal.h"
#include "pwnft/portmap.h"

#define PM_CHAIN_DNAT "hostports"
#define PM_CHAIN_PRE "hostports-pre"
#define PM_CHAIN_OUT "hostports-out"
#define PM_CHAIN_POST "hostports-post"

enum pm_rule_kind {
	PM_RULE_JUMP_LOCAL, /* fib daddr type local jump hostports */
	PM_RULE_DNAT,	    /* dnat to <key> map @set */
	PM_RULE_MASQ,	    /* ct status dnat <key> @set masquerade */
};

struct pm_rule {
	const char *chain;
	enum pm_rule_kind kind;
	enum pw_nft_portmap_set set;
	int family;
};

/* Objects built into the current batch (portmap-rules.c). */
int pm_add_set(struct pw_nft *nft, enum pw_nft_portmap_set which, int family);
int pm_add_rule(struct pw_nft *nft, const struct pm_rule *pr);
