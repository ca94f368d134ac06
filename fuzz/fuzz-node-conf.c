/* fuzz-libs: podwire_node_lib cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * podwire-node's untrusted inputs: a node config (parsed, planned against
 * itself as a registry record, rendered) and a registry record read back
 * from etcd. Nothing touches the filesystem.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pwnode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void conf(const char *buf, size_t size)
{
	struct cni_error err = {0};
	struct pwn_peer *peers = NULL;
	struct pwn_node self, other;
	struct pwn_conf c;
	char *text, *rec;
	int n;

	if (pwn_conf_parse(buf, size, "fuzz", NULL, &c, &err) < 0) {
		cni_error_done(&err);
		return;
	}
	pwn_node_from_conf(&c, &self);
	other = self;
	memcpy(other.name, "other", 6);
	other.router_id.s_addr ^= 1;
	rec = pwn_node_encode(&self);
	if (rec && pwn_node_decode(rec, strlen(rec), &self, &err) < 0)
		abort(); /* our own record must read back */
	free(rec);
	n = pwn_plan_peers(&c, &other, 1, NULL, &peers);
	if (n >= 0) {
		text = pwn_bird_render_str(&c, peers, (size_t)n);
		free(text);
	}
	free(peers);
	pwn_conf_done(&c);
	cni_error_done(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_error err = {0};
	struct pwn_node n;

	conf((const char *)data, size);
	pwn_node_decode((const char *)data, size, &n, &err);
	cni_error_done(&err);
	return 0;
}
