/* SPDX-License-Identifier: Apache-2.0 */
/* The skeleton's own log lines (plugin-log.c). */
#pragma once

#include <stdbool.h>
#include <time.h>

#include "cni/plugin.h"

/* Apply logLevel and logFile: an unknown level is code 7 on ADD, CHECK, STATUS. */
int cni_plugin_setup_logging(struct cni_ctx *ctx);
/* The error result, at error level, with the attachment it concerns. */
void cni_plugin_log_error(const struct cni_ctx *ctx);
/* One info line: outcome, addresses (ADD), duration since start (CLOCK_MONOTONIC). */
void cni_plugin_log_outcome(const struct cni_ctx *ctx, bool ok, const struct timespec *start);
double cni_plugin_elapsed_ms(const struct timespec *start);
