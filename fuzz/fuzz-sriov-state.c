/* fuzz-libs: sriov_rdma_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sriov-rdma's state file (<stateDir>/<BDF>.json, read back by DEL, GC and
 * the ownership check of ADD) through sr_state_parse. A record that parses
 * must be safe to act on (a valid BDF and names usable as path components
 * and interface names) and must survive a format/parse round trip
 * unchanged; otherwise the target aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/conf.h"
#include "sriov-rdma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sr_state s, back;
	char *text;

	if (sr_state_parse((const char *)data, size, &s) < 0)
		return 0;
	if (!sr_bdf_valid(s.vf.bdf) || !cni_valid_name(s.container_id) ||
	    !cni_valid_ifname(s.ifname) || (s.applied & ~SR_PF_ALL) || s.want.qos > 7)
		abort();
	text = sr_state_format(&s);
	if (!text)
		return 0;
	if (sr_state_parse(text, strlen(text), &back) < 0 || memcmp(&s, &back, sizeof(s)) != 0)
		abort();
	free(text);
	return 0;
}
