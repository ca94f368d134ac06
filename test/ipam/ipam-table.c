/* SPDX-License-Identifier: Apache-2.0 */
/* Runner for the shared IPAM table (see ipam-table.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "ipam-table.h"

extern char **environ;

static char *subst(const char *in, const char *dir)
{
	size_t cap = strlen(in) * 2 + 4 * strlen(dir) + 64, n = 0;
	char *out = malloc(cap);
	const char *p;

	for (p = in; *p;) {
		if (strncmp(p, "@DIR@", 5) == 0) {
			n += (size_t)snprintf(out + n, cap - n, "%s", dir);
			p += 5;
		} else {
			out[n++] = *p++;
		}
		assert_true(n < cap - 1);
	}
	out[n] = '\0';
	return out;
}

static void check_file(const struct ipam_step *s, const char *dir, const char *name)
{
	char *path = subst(s->file, dir), buf[512];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!s->content) {
		if (f)
			fail_msg("%s: %s should not exist", name, path);
		free(path);
		return;
	}
	if (!f)
		fail_msg("%s: %s missing", name, path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (strcmp(buf, s->content) != 0)
		fail_msg("%s: %s holds '%s', want '%s'", name, path, buf, s->content);
	free(path);
}

static void put_file(const struct ipam_step *s, const char *dir)
{
	char *path = subst(s->file, dir);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s->content, f);
	fclose(f);
	free(path);
}

static void set_env(const struct ipam_step *s)
{
	setenv("CNI_COMMAND", s->cmd, 1);
	setenv("CNI_CONTAINERID", s->cid, 1);
	setenv("CNI_IFNAME", s->ifname, 1);
	setenv("CNI_NETNS",
	       strcmp(s->cmd, "ADD") == 0 || strcmp(s->cmd, "CHECK") == 0 ? "/proc/self/ns/net"
									  : "",
	       1);
	setenv("CNI_NETNS_OVERRIDE", "1", 1);
	setenv("CNI_PATH", getenv("PODWIRE_BIN") ? getenv("PODWIRE_BIN") : "/nonexistent", 1);
	setenv("CNI_ARGS", s->cni_args ? s->cni_args : "", 1);
}

/* Run one step; returns the compact output (owned). */
static char *run_step(const struct ipam_step *s, const struct cni_plugin_ops *ops, const char *dir,
		      const char *name)
{
	char *conf = subst(s->conf, dir), *raw = NULL, *out;
	size_t len = 0;
	json_error_t jerr;
	json_t *doc;
	FILE *mem = open_memstream(&raw, &len);
	int rc;

	set_env(s);
	rc = cni_plugin_run(ops, environ, conf, strlen(conf), mem);
	fclose(mem);
	free(conf);
	doc = len ? json_loads(raw, 0, &jerr) : NULL;
	out = doc ? json_dumps(doc, JSON_COMPACT) : strdup("");
	if (rc != (s->want_code ? 1 : 0))
		fail_msg("%s: %s exit %d, output %s", name, s->cmd, rc, raw);
	if (s->want_code &&
	    json_integer_value(json_object_get(doc, "code")) != (json_int_t)s->want_code)
		fail_msg("%s: %s: want code %d, got %s", name, s->cmd, s->want_code, out);
	for (size_t i = 0; i < 4 && s->want[i]; i++)
		if (!strstr(out, s->want[i]))
			fail_msg("%s: %s: output %s lacks %s", name, s->cmd, out, s->want[i]);
	json_decref(doc);
	free(raw);
	return out;
}

static void reset_dir(const char *dir)
{
	char cmd[512];

	/* Test-only cleanup of the temporary directory's network state. */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/mynet'", dir);
	assert_int_equal(system(cmd), 0);
}

void ipam_table_run(const struct ipam_case *cases, size_t n, const struct cni_plugin_ops *ops,
		    const char *dir, char **outputs)
{
	for (size_t c = 0; c < n; c++) {
		reset_dir(dir);
		for (size_t i = 0; i < IPAM_MAX_STEPS; i++) {
			const struct ipam_step *s = &cases[c].steps[i];
			char *out;

			if (!s->cmd && !s->file)
				break;
			if (s->cmd && strcmp(s->cmd, "PUT") == 0) {
				put_file(s, dir);
				continue;
			}
			if (!s->cmd) {
				check_file(s, dir, cases[c].name);
				continue;
			}
			out = run_step(s, ops, dir, cases[c].name);
			if (outputs)
				outputs[c * IPAM_MAX_STEPS + i] = out;
			else
				free(out);
		}
	}
}
