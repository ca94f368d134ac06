/* SPDX-License-Identifier: Apache-2.0 */
/* Small shared constants, so callers need no <linux/rtnetlink.h>. */
#pragma once

/* Route/address scopes; values equal RT_SCOPE_*. */
enum nlw_scope {
	NLW_SCOPE_UNIVERSE = 0,
	NLW_SCOPE_SITE = 200,
	NLW_SCOPE_LINK = 253,
	NLW_SCOPE_HOST = 254,
};
