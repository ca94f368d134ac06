/* fuzz-libs: multinet_plugin */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kubelet device checkpoint (array and NUMA-map DeviceIDs) for pod UID
 * "u1", then every resource drained with mn_devices_take.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cni/log.h"
#include "multinet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	struct mn_devices d;

	cni_log_set_level(CNI_LOG_ERROR);
	if (mn_checkpoint_parse((const char *)data, size, "u1", "fuzz", &d, &err) == 0) {
		for (size_t i = 0; i < d.n; i++) {
			size_t got = 0;

			while (mn_devices_take(&d, d.v[i].name))
				got++;
			if (got != d.v[i].ids.n)
				abort();
		}
		mn_devices_done(&d);
	}
	cni_error_done(&err);
	return 0;
}
