/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c: `podwire-node run`. Without "etcd" in the node config: render the
 * static peers once into birdConfig and exit. With it: see run-etcd.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/macro.h"
#include "pwnode.h"
#include "run.h"

static void run_usage(FILE *f)
{
	fprintf(f, "usage: podwire-node run --node-config FILE\n"
		   "Keep birdConfig current. With \"etcd\" in the node config: register this\n"
		   "node (lease kept alive), watch the node registry, re-render and run\n"
		   "`birdc configure` when membership changes, revoke the lease on SIGTERM.\n"
		   "Without it: render the static peers once and exit.\n");
}

/*
 * Write text to birdConfig when it differs, then reload BIRD when its
 * control socket is there (a BIRD that is not running yet reads the file
 * when it starts); with reload, BIRD is reconfigured even when the file
 * did not change (a previous reload failed). Returns 1 when BIRD was reconfigured, 0 when nothing
 * changed or BIRD is not running, or a negative errno with e set.
 */
int pwn_apply(const struct pwn_conf *c, const char *text, bool reload, FILE *log,
	      struct cni_error *e)
{
	struct stat st;
	int r;

	if (pwn_file_equals(c->bird_config, text)) {
		if (!reload)
			return 0;
	} else {
		r = pwn_bird_write(text, c->bird_config, NULL, log, true, e);
		if (r < 0)
			return r;
	}
	if (stat(c->bird_socket, &st) < 0) {
		fprintf(log, "podwire-node: wrote %s; BIRD is not running (no %s)\n",
			c->bird_config, c->bird_socket);
		return 0;
	}
	r = pwn_birdc_configure(c->bird_socket, e);
	if (r < 0)
		return r;
	fprintf(log, "podwire-node: wrote %s and reconfigured BIRD\n", c->bird_config);
	return 1;
}

static int run_static(const struct pwn_conf *c, FILE *log, struct cni_error *e)
{
	_cleanup_free_ struct pwn_peer *peers = NULL;
	_cleanup_free_ char *text = NULL;
	int n;

	n = pwn_plan_peers(c, NULL, 0, log, &peers);
	if (n < 0)
		return cni_errorf(e, CNI_ERR_PLUGIN, n, "out of memory");
	text = pwn_bird_render_str(c, peers, (size_t)n);
	if (!text)
		return cni_errorf(e, CNI_ERR_PLUGIN, -ENOMEM, "out of memory");
	n = pwn_apply(c, text, false, log, e);
	if (n == 0 && !e->msg)
		fprintf(log, "podwire-node: %s is current\n", c->bird_config);
	return n < 0 ? n : 0;
}

int pwn_cmd_run(int argc, char **argv, FILE *out, FILE *err)
{
	const char *node = NULL;
	struct cni_error e = {0};
	struct pwn_conf c;
	int r;

	r = pwn_parse_opts(argc, argv, &node, NULL, err);
	if (r == 2)
		run_usage(out);
	if (r != 0) {
		if (r < 0)
			run_usage(err);
		return r == 2 ? 0 : 2;
	}
	if (pwn_conf_load(node, err, &c, &e) < 0)
		return pwn_fail(err, &e);
	if (c.etcd)
		r = pwn_run_etcd(&c, err, &e);
	else
		r = run_static(&c, err, &e);
	pwn_conf_done(&c);
	return r < 0 ? pwn_fail(err, &e) : 0;
}
