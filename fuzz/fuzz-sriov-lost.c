/* fuzz-libs: sriov_rdma_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sriov-rdma's lost-VF record (<stateDir>/lost/<BDF>.json, read back by GC
 * and by the ADD that takes the VF) through sr_lost_parse. A record that
 * parses must be safe to act on (a valid BDF, names usable as interface
 * names and container IDs) and must survive a format/parse round trip
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
	struct sr_lost l, back;
	char *text;

	if (sr_lost_parse((const char *)data, size, &l) < 0)
		return 0;
	if (!sr_bdf_valid(l.bdf) || !cni_valid_name(l.container_id) ||
	    !cni_valid_ifname(l.ifname) || !cni_valid_ifname(l.netdev) || l.mtu > SR_MTU_MAX)
		abort();
	text = sr_lost_format(&l);
	if (!text)
		return 0;
	if (sr_lost_parse(text, strlen(text), &back) < 0 || memcmp(&l, &back, sizeof(l)) != 0)
		abort();
	free(text);
	return 0;
}
