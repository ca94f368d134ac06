/* SPDX-License-Identifier: Apache-2.0 */
/* run-etcd.c: placeholder until pwetcd is merged (replaced in the next commit). */
#include <errno.h>

#include "run.h"

int pwn_run_etcd(const struct pwn_conf *c, FILE *log, struct cni_error *e)
{
	(void)c;
	(void)log;
	return cni_errorf(e, CNI_ERR_PLUGIN, -ENOTSUP,
			  "etcd: this podwire-node was built without the etcd client (pwetcd)");
}
