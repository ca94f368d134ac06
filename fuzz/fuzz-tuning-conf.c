/* fuzz-libs: tuning_plugin cni */
/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tuning's config through tuning_conf_parse, strict (ADD) and lenient (DEL):
 * the sysctl map and args.cni.sysctl (every key normalized, IFNAME
 * substituted, checked to stay below net/), mac from its four sources,
 * mtu, promisc, allmulti, txQLen, dataDir; and the backup file parser on
 * the same bytes.
 *
 * Input: the network config; if the first line does not start with '{',
 * it is CNI_ARGS and the config follows it. No kernel calls are made.
 */

#include "fuzz-plugin-conf.h"
#include "tuning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A ".." component (not a name that merely starts with dots) would escape. */
static bool has_dotdot(const char *p)
{
	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

static void check_paths(const struct tuning_conf *c)
{
	for (size_t i = 0; i < c->n_sysctls; i++)
		if (strncmp(c->sysctls[i].path, "net/", 4) != 0 || has_dotdot(c->sysctls[i].path))
			abort(); /* a sysctl outside net/ must never reach the kernel */
}

static void parse(struct cni_ctx *ctx)
{
	struct tuning_conf c;

	if (tuning_conf_parse(ctx, &c) >= 0) {
		check_paths(&c);
		tuning_conf_done(&c);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_plugin fp = {"eth0.100", true, false, parse};
	struct tuning_backup b;

	(void)tuning_backup_parse((const char *)data, size, &b);
	return fuzz_plugin_conf(&fp, data, size);
}
