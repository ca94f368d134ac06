/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One logger: stderr and an optional log file. Never stdout (it carries
 * exactly one JSON document). Lines carry plugin name, command and a short
 * container ID. The sink can be replaced so tests can capture lines.
 */
#pragma once

#include <stdarg.h>

#include "base/macro.h"

enum cni_log_level {
	CNI_LOG_ERROR,
	CNI_LOG_WARNING,
	CNI_LOG_INFO,
	CNI_LOG_DEBUG,
};

typedef void (*cni_log_sink_fn)(enum cni_log_level level, const char *line, void *userdata);

void cni_log(enum cni_log_level level, const char *fmt, ...) _printf_(2, 3);
void cni_logv(enum cni_log_level level, const char *fmt, va_list ap) _printf_(2, 0);

/*
 * The same, but to the log file (and a replaced sink) only, never stderr:
 * for what the caller already gets another way (the error result on stdout).
 */
void cni_log_file(enum cni_log_level level, const char *fmt, ...) _printf_(2, 3);

#define cni_log_error(...) cni_log(CNI_LOG_ERROR, __VA_ARGS__)
#define cni_log_warning(...) cni_log(CNI_LOG_WARNING, __VA_ARGS__)
#define cni_log_info(...) cni_log(CNI_LOG_INFO, __VA_ARGS__)
#define cni_log_debug(...) cni_log(CNI_LOG_DEBUG, __VA_ARGS__)

/* Identity printed in front of every line; strings are copied. */
void cni_log_set_identity(const char *plugin, const char *command, const char *container_id);
/* Lines above this level are dropped (default CNI_LOG_WARNING on stderr). */
void cni_log_set_level(enum cni_log_level level);
/* Parse "error|warning|info|debug" (case-insensitive). Returns 0 or -EINVAL. */
int cni_log_level_parse(const char *s, enum cni_log_level *ret);
/* Also append lines to this file (opened O_APPEND|O_CLOEXEC, 0600). Returns 0 or -errno. */
int cni_log_open_file(const char *path);
/* Replace the sink (NULL restores stderr + file). */
void cni_log_set_sink(cni_log_sink_fn fn, void *userdata);
/* Close the log file and reset to defaults. */
void cni_log_reset(void);
