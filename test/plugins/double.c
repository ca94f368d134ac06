/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/parse.h"
#include "double.h"

const char *const double_keys[] = {"recordFile", "result", "code",	  "msg",
				   "details",	 "failOn", "hangSeconds", NULL};

/* Inherited fds: everything open except what the skeleton opened itself. */
static json_t *open_fds(const struct cni_ctx *ctx)
{
	json_t *fds = json_array();
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (!d)
		return fds;
	while ((de = readdir(d))) {
		uint32_t fd;

		if (safe_atou32_max(de->d_name, 1u << 20, &fd) < 0 || (int)fd == dirfd(d) ||
		    (int)fd == ctx->sysfs_fd || (int)fd == ctx->procfs_fd)
			continue;
		json_array_append_new(fds, json_integer(fd));
	}
	closedir(d);
	return fds;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int double_record(struct cni_ctx *ctx)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	const char *file = NULL;
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *line = NULL, *withnl = NULL;
	json_t *rec;
	ssize_t n;

	if (cni_conf_get_string(&rd, "recordFile", &file, NULL) < 0)
		return -EINVAL;
	if (!file)
		return 0;
	rec = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:O, s:o}", "command", ctx->command_str,
			"containerID", str_or_null(ctx->container_id), "netns",
			str_or_null(ctx->netns), "ifname", str_or_null(ctx->ifname), "args",
			str_or_null(ctx->args_raw), "path", str_or_null(ctx->path), "stdin",
			ctx->conf.root, "fds", open_fds(ctx));
	if (!rec)
		return -ENOMEM;
	line = json_dumps(rec, JSON_COMPACT);
	json_decref(rec);
	if (!line)
		return -ENOMEM;
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return cni_errorf(&ctx->err, CNI_ERR_IO, -errno, "recordFile: cannot open '%s'",
				  file);
	/* One write of the whole line, so concurrent appenders never interleave. */
	if (asprintf(&withnl, "%s\n", line) < 0)
		return -ENOMEM;
	n = write(fd, withnl, strlen(withnl));
	return n < 0 ? cni_errorf(&ctx->err, CNI_ERR_IO, -errno, "recordFile: write") : 0;
}

int double_succeed(struct cni_ctx *ctx)
{
	const struct cni_conf_reader rd = cni_ctx_reader(ctx, ctx->conf.root, "");
	const json_t *res = NULL;
	int r;

	r = double_record(ctx);
	if (r < 0 || ctx->command != CNI_CMD_ADD)
		return r;
	if (cni_conf_get_object(&rd, "result", &res, NULL) < 0)
		return -EINVAL;
	if (res)
		return cni_result_from_json_any(res, ctx->conf.version, "result", &ctx->result,
						&ctx->err);
	ctx->result =
	    ctx->prev_result ? cni_result_dup(ctx->prev_result) : cni_result_new(ctx->conf.version);
	return ctx->result ? 0 : -ENOMEM;
}
