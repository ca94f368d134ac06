/* fuzz-libs: cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CNI_ARGS from the runtime's environment: split into pairs, check the keys
 * against a plugin's list, look a few up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cni/args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const known[] = {
    "IP", "GATEWAY", "MAC", "K8S_POD_NAMESPACE", "K8S_POD_NAME", NULL,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	struct cni_args args = {0};
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	/* An environment value ends at the first NUL; embedded ones are cut there. */
	memcpy(s, data, size);
	s[size] = '\0';
	if (cni_args_parse(s, &args, &err) >= 0) {
		for (size_t i = 0; i < args.n; i++)
			if (cni_args_get(&args, args.items[i].key) == NULL)
				abort(); /* every parsed key must be found again */
		(void)cni_args_check_known(&args, known, &err);
		(void)cni_args_get(&args, "IP");
	}
	cni_args_done(&args);
	cni_error_done(&err);
	free(s);
	return 0;
}
