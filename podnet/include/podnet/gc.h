/* SPDX-License-Identifier: Apache-2.0 */
/*
 * GC of host devices: the host ends of attachments that are no longer in
 * cni.dev/valid-attachments (a DEL that never came, an ADD killed after the
 * veth was created).
 */
#pragma once

#include "nlw/link.h"
#include "podnet/podnet.h"

/*
 * Among the host links matching f (e.g. veths on one bridge), delete each
 * one whose tag is whole, names ctx->conf.name as its network, and names an
 * attachment cni.dev/valid-attachments does not list. A link with another
 * network's tag, a cut tag or no tag is never touched. Without
 * cni.dev/valid-attachments nothing is compared and nothing deleted.
 * Returns the number deleted, or a negative errno with ctx->err set.
 */
int podnet_gc_host_links(struct podnet *pn, const struct nlw_link_filter *f);
