/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The logger. A plugin process lives for one call, so the state is a few
 * globals; nothing here ever writes to stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/parse.h"
#include "cni/log.h"

#define SHORT_ID_LEN 12

static struct {
	enum cni_log_level level;
	char plugin[32];
	char command[16];
	char cid[SHORT_ID_LEN + 1];
	int file_fd;
	cni_log_sink_fn sink;
	void *userdata;
} logger = {.level = CNI_LOG_WARNING, .file_fd = -1};

static const char *const level_names[] = {
    [CNI_LOG_ERROR] = "error",
    [CNI_LOG_WARNING] = "warning",
    [CNI_LOG_INFO] = "info",
    [CNI_LOG_DEBUG] = "debug",
};

static void copy_field(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

void cni_log_set_identity(const char *plugin, const char *command, const char *container_id)
{
	copy_field(logger.plugin, sizeof(logger.plugin), plugin);
	copy_field(logger.command, sizeof(logger.command), command);
	copy_field(logger.cid, sizeof(logger.cid), container_id);
}

void cni_log_set_level(enum cni_log_level level)
{
	logger.level = level;
}

int cni_log_level_parse(const char *s, enum cni_log_level *ret)
{
	for (size_t i = 0; i < ARRAY_SIZE(level_names); i++) {
		if (ascii_strcaseeq(s, level_names[i])) {
			*ret = (enum cni_log_level)i;
			return 0;
		}
	}
	if (ascii_strcaseeq(s, "warn")) {
		*ret = CNI_LOG_WARNING;
		return 0;
	}
	return -EINVAL;
}

/*
 * Plugins run as root: the last component must not be a symlink (a planted
 * link in a shared directory would redirect the appends), and the target must
 * be a regular file (never a device or a FIFO that could block the call).
 */
int cni_log_open_file(const char *path)
{
	int fd = open(
	    path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
	    0600);
	struct stat st;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	if (r < 0) {
		close(fd);
		return r;
	}
	if (logger.file_fd >= 0)
		close(logger.file_fd);
	logger.file_fd = fd;
	return 0;
}

void cni_log_set_sink(cni_log_sink_fn fn, void *userdata)
{
	logger.sink = fn;
	logger.userdata = userdata;
}

void cni_log_reset(void)
{
	if (logger.file_fd >= 0)
		close(logger.file_fd);
	logger.file_fd = -1;
	logger.level = CNI_LOG_WARNING;
	logger.sink = NULL;
	logger.userdata = NULL;
	logger.plugin[0] = logger.command[0] = logger.cid[0] = '\0';
}

static void emit_file(const char *line)
{
	char stamp[40];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	dprintf(logger.file_fd, "%s.%03ldZ %s\n", stamp, ts.tv_nsec / 1000000, line);
}

__attribute__((format(printf, 3, 0))) static void logv(enum cni_log_level level, bool to_stderr,
						       const char *fmt, va_list ap)
{
	char msg[1024], line[1200];
	int n;

	/* The file gets everything up to the configured level, stderr too. */
	if (level > logger.level)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = snprintf(line, sizeof(line), "%s %s %s: %s: %s",
		     logger.plugin[0] ? logger.plugin : "cni",
		     logger.command[0] ? logger.command : "-", logger.cid[0] ? logger.cid : "-",
		     level_names[level], msg);
	if (n < 0)
		return;
	if (logger.sink) {
		logger.sink(level, line, logger.userdata);
		return;
	}
	if (logger.file_fd >= 0)
		emit_file(line);
	if (!to_stderr)
		return;
	(void)fd_write_all(STDERR_FILENO, line, strlen(line));
	(void)fd_write_all(STDERR_FILENO, "\n", 1);
}

void cni_logv(enum cni_log_level level, const char *fmt, va_list ap)
{
	logv(level, true, fmt, ap);
}

void cni_log_file(enum cni_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	logv(level, false, fmt, ap);
	va_end(ap);
}

void cni_log(enum cni_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cni_logv(level, fmt, ap);
	va_end(ap);
}
