/* SPDX-License-Identifier: Apache-2.0 */
/* cmd.c: the bird-config subcommand and the static part of run. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/parse.h"
#include "pwnode.h"
#include "run.h"

static void print_error(FILE *err, const struct cni_error *e)
{
	fprintf(err, "podwire-node: %s\n", e->msg ? e->msg : "failed");
	if (e->details)
		fprintf(err, "%s\n", e->details);
}

int pwn_fail(FILE *err, struct cni_error *e)
{
	print_error(err, e);
	cni_error_done(e);
	return 1;
}

static const struct option bird_opts[] = {
    {"node-config", required_argument, NULL, 'n'},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {0},
};

static void bird_config_usage(FILE *f)
{
	fprintf(f, "usage: podwire-node bird-config --node-config FILE [--output FILE]\n"
		   "Render this node's bird.conf from its node config (static peers only),\n"
		   "check it with `bird -p` when bird is installed, and print it (or write it\n"
		   "to --output through a temp file and a rename).\n");
}

/* getopt over argv[0] = subcommand; *ret_node and *ret_output may stay NULL. */
int pwn_parse_opts(int argc, char **argv, const char **ret_node, const char **ret_output, FILE *err)
{
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n:o:h", bird_opts, NULL)) != -1) {
		if (c == 'n')
			*ret_node = optarg;
		else if (c == 'o' && ret_output)
			*ret_output = optarg;
		else if (c == 'h')
			return 2;
		else {
			fprintf(err, "podwire-node %s: unknown or incomplete option '%s'\n",
				argv[0], argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(err, "podwire-node %s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return -EINVAL;
	}
	if (!*ret_node) {
		fprintf(err, "podwire-node %s: --node-config FILE is required\n", argv[0]);
		return -EINVAL;
	}
	return 0;
}

/* Render from the static peers, check and write (path) or print (out). */
int pwn_render_static(const struct pwn_conf *c, const char *path, FILE *out, FILE *warn,
		      bool require_bird, struct cni_error *e)
{
	_cleanup_free_ struct pwn_peer *peers = NULL;
	_cleanup_free_ char *text = NULL;
	int n;

	n = pwn_plan_peers(c, NULL, 0, warn, &peers);
	if (n < 0)
		return cni_errorf(e, CNI_ERR_PLUGIN, n, "out of memory");
	text = pwn_bird_render_str(c, peers, (size_t)n);
	if (!text)
		return cni_errorf(e, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	return pwn_bird_write(text, path, out, warn, require_bird, e);
}

int pwn_cmd_bird_config(int argc, char **argv, FILE *out, FILE *err)
{
	const char *node = NULL, *output = NULL;
	struct cni_error e = {0};
	struct pwn_conf c;
	int r;

	r = pwn_parse_opts(argc, argv, &node, &output, err);
	if (r == 2)
		bird_config_usage(out);
	if (r != 0) {
		if (r < 0)
			bird_config_usage(err);
		return r == 2 ? 0 : 2;
	}
	if (pwn_conf_load(node, err, &c, &e) < 0)
		return pwn_fail(err, &e);
	r = pwn_render_static(&c, output, out, err, false, &e);
	pwn_conf_done(&c);
	return r < 0 ? pwn_fail(err, &e) : 0;
}

/* Same bytes as the file at path? */
bool pwn_file_equals(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = strlen(text), got = 0;
	_cleanup_free_ char *buf = NULL;
	ssize_t n;

	if (fd < 0 || !(buf = malloc(len + 1)))
		return false;
	while (got <= len && (n = read(fd, buf + got, len + 1 - got)) > 0)
		got += (size_t)n;
	return got == len && memcmp(buf, text, len) == 0;
}
