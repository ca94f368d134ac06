/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the skeleton logs about a command as a whole, for the operator who
 * reads logFile when a pod is stuck: every error result at error level (code,
 * msg, details and the attachment), one info line per command (outcome,
 * addresses, duration), and the logLevel / logFile rules.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/parse.h"
#include "cni/log.h"
#include "cni/plugin.h"
#include "plugin-log.h"

#define IPS_LEN 512

static const char *or_dash(const char *s)
{
	return isempty(s) ? "-" : s;
}

void cni_plugin_log_error(const struct cni_ctx *ctx)
{
	const struct cni_error *e = &ctx->err;

	/* stderr goes to the runtime, which has the same error as JSON on stdout. */
	cni_log_file(
	    CNI_LOG_ERROR, "%s failed: code %u: %s%s%s (container %s, ifname %s, network %s)",
	    or_dash(ctx->command_str), e->code, e->msg ? e->msg : "",
	    isempty(e->details) ? "" : "; details: ", isempty(e->details) ? "" : e->details,
	    or_dash(ctx->container_id), or_dash(ctx->ifname), or_dash(ctx->conf.name));
}

static void format_ips(const struct cni_result *res, char *buf, size_t len)
{
	char one[IP_PREFIX_STRLEN];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; res && i < res->n_ips && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 ip_prefix_fmt(&res->ips[i].address, one));

		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

double cni_plugin_elapsed_ms(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) * 1e3 +
	       (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

void cni_plugin_log_outcome(const struct cni_ctx *ctx, bool ok, const struct timespec *start)
{
	char ips[IPS_LEN] = "";
	double ms = cni_plugin_elapsed_ms(start);

	if (ok && ctx->command == CNI_CMD_ADD)
		format_ips(ctx->result, ips, sizeof(ips));
	if (ok)
		cni_log_info("%s ok in %.1f ms (container %s, ifname %s, network %s%s%s)",
			     or_dash(ctx->command_str), ms, or_dash(ctx->container_id),
			     or_dash(ctx->ifname), or_dash(ctx->conf.name), ips[0] ? ", ips " : "",
			     ips);
	else
		cni_log_info("%s failed with code %u in %.1f ms (container %s, ifname %s, "
			     "network %s)",
			     or_dash(ctx->command_str), ctx->err.code, ms,
			     or_dash(ctx->container_id), or_dash(ctx->ifname),
			     or_dash(ctx->conf.name));
}

/* logFile first, so that an error about logLevel lands in it too. */
static void open_log_file(const char *path)
{
	int r;

	if (path[0] != '/') {
		/* Relative to the runtime's working directory, which nobody knows: refused. */
		cni_log_warning("logFile: '%s' is not an absolute path, ignoring", path);
		return;
	}
	r = cni_log_open_file(path);
	if (r < 0)
		cni_log_warning("logFile: cannot open '%s': %s, ignoring", path, strerror(-r));
}

int cni_plugin_setup_logging(struct cni_ctx *ctx)
{
	const struct cni_conf *c = &ctx->conf;
	enum cni_log_level level;

	if (c->log_file)
		open_log_file(c->log_file);
	if (!c->log_level)
		return 0;
	if (cni_log_level_parse(c->log_level, &level) == 0) {
		cni_log_set_level(level);
		return 0;
	}
	if (cni_ctx_strict(ctx))
		return cni_errorf(
		    &ctx->err, CNI_ERR_INVALID_CONFIG, -EINVAL,
		    "logLevel: unknown level '%s' (want error, warning, info or debug)",
		    c->log_level);
	cni_log_warning("logLevel: unknown level '%s', ignoring", c->log_level);
	return 0;
}
