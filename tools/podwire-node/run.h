/* SPDX-License-Identifier: Apache-2.0 */
/* Internals shared by the subcommands (cmd.c, run.c). */
#pragma once
#include <stdbool.h>
#include <stdio.h>

#include "pwnode.h"

/* Print e to err ("podwire-node: msg" + details), release it; returns 1. */
int pwn_fail(FILE *err, struct cni_error *e);
/*
 * getopt for "--node-config FILE [--output FILE]" (ret_output NULL: no
 * --output). Returns 0, 2 for --help, or -EINVAL after a message on err.
 */
int pwn_parse_opts(int argc, char **argv, const char **ret_node, const char **ret_output,
		   FILE *err);
/* Render from the static peers and write it (see pwn_bird_write). */
int pwn_render_static(const struct pwn_conf *c, const char *path, FILE *out, FILE *warn,
		      bool require_bird, struct cni_error *e);
/* True when path holds exactly text. */
bool pwn_file_equals(const char *path, const char *text);
/* Write text to birdConfig if it changed and reload BIRD (run.c). */
int pwn_apply(const struct pwn_conf *c, const char *text, bool reload, FILE *log,
	      struct cni_error *e);
/* The etcd loop (run-etcd.c); returns when SIGTERM/SIGINT arrived (0) or on error. */
int pwn_run_etcd(const struct pwn_conf *c, FILE *log, struct cni_error *e);
