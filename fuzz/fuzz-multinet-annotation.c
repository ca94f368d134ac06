/* fuzz-libs: multinet_plugin */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A pod's k8s.v1.cni.cncf.io/networks annotation (written by any user who
 * can create pods): both forms through mn_annot_parse. Every parsed element
 * must have a DNS-1123 name and namespace and a valid ifname when one is set.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/conf.h"
#include "cni/log.h"
#include "multinet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size);
	struct cni_error err = {0};
	struct mn_sel *v = NULL;
	size_t n = 0;

	if (!s)
		return 0;
	cni_log_set_level(CNI_LOG_ERROR);
	if (mn_annot_parse(s, "podns", &v, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++)
			if (!mn_dns_label(v[i].name) || !mn_dns_label(v[i].namespace) ||
			    (v[i].ifname && !cni_valid_ifname(v[i].ifname)))
				abort();
		mn_sels_free(v, n);
	}
	cni_error_done(&err);
	free(s);
	return 0;
}
