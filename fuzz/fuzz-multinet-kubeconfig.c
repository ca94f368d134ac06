/* fuzz-libs: multinet_plugin */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kubeconfig YAML (libyaml document API): contexts, clusters, users, base64
 * data. A parsed config always has an https:// server and a CA.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/log.h"
#include "multinet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	struct mn_kubeconfig kc;

	cni_log_set_level(CNI_LOG_ERROR);
	if (mn_kubeconfig_parse((const char *)data, size, "/nonexistent", "fuzz", &kc, &err) == 0) {
		if (!kc.server || strncmp(kc.server, "https://", 8) != 0 ||
		    (!kc.ca_file && !kc.ca_data))
			abort();
		mn_kubeconfig_done(&kc);
	}
	cni_error_done(&err);
	return 0;
}
