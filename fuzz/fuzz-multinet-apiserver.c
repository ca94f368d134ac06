/* fuzz-libs: multinet_plugin */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Apiserver response bodies: a Pod or a NetworkAttachmentDefinition object
 * (mn_k8s_parse_object), then what multinet reads from them: the networks
 * annotation, the resourceName annotation and spec.config turned into a
 * delegate. Also multinet's own cache file, read back from disk.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/log.h"
#include "multinet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use_pod(const json_t *pod)
{
	const char *v = mn_k8s_annotation(pod, MN_ANNOT_NETWORKS);
	struct cni_error err = {0};
	struct mn_sel *s = NULL;
	size_t n = 0;

	if (v && mn_annot_parse(v, "ns", &s, &n, &err) == 0)
		mn_sels_free(s, n);
	cni_error_done(&err);
}

static void use_nad(const json_t *nad)
{
	const char *text =
	    json_string_value(json_object_get(json_object_get(nad, "spec"), "config"));
	struct cni_error err = {0};
	struct mn_delegate d = {0};
	json_t *conf;

	(void)mn_k8s_annotation(nad, MN_ANNOT_RESOURCE);
	if (!text)
		return;
	conf = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	d.device_id = strdup("0000:3b:00.2");
	if (conf && mn_delegate_set_conf(&d, conf, "nad", NULL, "fuzz", &err) == 0 &&
	    (!d.list || d.list->n_plugins == 0))
		abort();
	mn_delegate_done(&d);
	json_decref(conf);
	cni_error_done(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	struct mn_plan p;
	json_t *o = NULL;

	cni_log_set_level(CNI_LOG_ERROR);
	if (mn_k8s_parse_object((const char *)data, size, "Pod", "fuzz", &o, &err) == 0) {
		use_pod(o);
		json_decref(o);
	}
	cni_error_done(&err);
	if (mn_k8s_parse_object((const char *)data, size, "NetworkAttachmentDefinition", "fuzz", &o,
				&err) == 0) {
		use_nad(o);
		json_decref(o);
	}
	cni_error_done(&err);
	if (mn_cache_parse((const char *)data, size, "fuzz", &p, &err) == 0)
		mn_plan_done(&p);
	cni_error_done(&err);
	return 0;
}
