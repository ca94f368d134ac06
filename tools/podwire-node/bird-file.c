/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bird-file.c: find bird/birdc, check a config with `bird -p`, write it
 * atomically (temp file in the same directory + rename), ask the running
 * BIRD to reload it. Processes are started with posix_spawn, never a shell.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "base/macro.h"
#include "pwnode.h"

#define OUTPUT_MAX (64u * 1024)

extern char **environ;

static const char *find_prog(const char *env, const char *name, char *buf, size_t size)
{
	const char *over = getenv(env), *path = getenv("PATH");
	char dirs[4096];

	if (over && *over)
		return access(over, X_OK) == 0 ? over : NULL;
	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		if (*d != '/')
			continue;
		if ((size_t)snprintf(buf, size, "%s/%s", d, name) < size && access(buf, X_OK) == 0)
			return buf;
	}
	return NULL;
}

const char *pwn_find_bird(char *buf, size_t size)
{
	return find_prog("PODWIRE_BIRD", "bird", buf, size);
}

const char *pwn_find_birdc(char *buf, size_t size)
{
	return find_prog("PODWIRE_BIRDC", "birdc", buf, size);
}

/* Keep the first OUTPUT_MAX bytes; drain the rest so the child never blocks. */
static char *read_all(int fd)
{
	char *buf = malloc(OUTPUT_MAX + 1), sink[4096];
	size_t len = 0;
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		bool full = len == OUTPUT_MAX;

		n = full ? read(fd, sink, sizeof(sink)) : read(fd, buf + len, OUTPUT_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (!full)
			len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

int pwn_spawn(char *const *argv, char **ret_output, int *ret_status)
{
	posix_spawn_file_actions_t fa;
	int p[2], r, st = 0;
	char *out;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r != 0) {
		close(p[0]);
		return -r;
	}
	out = read_all(p[0]);
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*ret_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (ret_output)
		*ret_output = out;
	else
		free(out);
	return 0;
}

/* A new temp file next to path (or in $TMPDIR); its name in tmp. */
static int write_temp(const char *text, const char *path, char *tmp, size_t size,
		      struct cni_error *err)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *dir = getenv("TMPDIR");
	_cleanup_close_ int fd = -1;
	int r;

	if (path)
		snprintf(tmp, size, "%.*s.bird.conf.XXXXXX", slash ? (int)(slash - path + 1) : 0,
			 path);
	else
		snprintf(tmp, size, "%s/podwire-bird.conf.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return cni_errorf(err, CNI_ERR_IO, -errno, "%s: cannot create a temp file", tmp);
	r = fd_write_all(fd, text, strlen(text));
	if (r >= 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (r >= 0 && fsync(fd) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return cni_errorf(err, CNI_ERR_IO, r, "%s: cannot write", tmp);
	}
	return 0;
}

/* 0 when bird accepted it, 1 when bird is not installed, or -EINVAL. */
static int bird_check(const char *file, struct cni_error *err)
{
	char prog[4096], *argv[5], *output = NULL;
	const char *bird = pwn_find_bird(prog, sizeof(prog));
	int r, status;

	if (!bird)
		return 1;
	argv[0] = (char *)bird;
	argv[1] = (char *)"-p";
	argv[2] = (char *)"-c";
	argv[3] = (char *)file;
	argv[4] = NULL;
	r = pwn_spawn(argv, &output, &status);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_PLUGIN, r, "%s: cannot run", bird);
	if (status != 0) {
		r = cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
			       "bird -p rejected the rendered config (exit %d)", status);
		cni_error_add_detail(err, output && *output ? output : "(no output)");
	}
	free(output);
	return r;
}

int pwn_bird_write(const char *text, const char *path, FILE *out, FILE *warn, bool require_bird,
		   struct cni_error *err)
{
	char tmp[4200];
	int r;

	r = write_temp(text, path, tmp, sizeof(tmp), err);
	if (r < 0)
		return r;
	r = bird_check(tmp, err);
	if (r == 1 && require_bird)
		r = cni_errorf(
		    err, CNI_ERR_PLUGIN, -ENOENT,
		    "bird not installed: no bird in PATH, /usr/sbin or /sbin ($PODWIRE_BIRD)");
	else if (r == 1 && warn)
		fprintf(warn, "podwire-node: warning: bird not installed, config not checked\n");
	if (r >= 0 && path && rename(tmp, path) < 0)
		r = cni_errorf(err, CNI_ERR_IO, -errno, "%s: cannot rename %s to it", path, tmp);
	else if (r >= 0 && !path && (fputs(text, out) < 0 || fflush(out) != 0))
		r = cni_errorf(err, CNI_ERR_IO, -EIO, "cannot write the config to stdout");
	if (r < 0 || !path)
		unlink(tmp);
	return r < 0 ? r : 0;
}

int pwn_birdc_configure(const char *socket, struct cni_error *err)
{
	char prog[4096], *argv[5], *output = NULL;
	const char *birdc = pwn_find_birdc(prog, sizeof(prog));
	struct stat st;
	int r, status;

	if (!birdc)
		return cni_errorf(err, CNI_ERR_PLUGIN, -ENOENT,
				  "birdc not installed: no birdc in PATH, /usr/sbin or /sbin");
	if (stat(socket, &st) < 0 || !S_ISSOCK(st.st_mode))
		return cni_errorf(err, CNI_ERR_PLUGIN, -ENOENT,
				  "birdSocket %s: no BIRD control socket there (is bird running?)",
				  socket);
	argv[0] = (char *)birdc;
	argv[1] = (char *)"-s";
	argv[2] = (char *)socket;
	argv[3] = (char *)"configure";
	argv[4] = NULL;
	r = pwn_spawn(argv, &output, &status);
	if (r < 0)
		return cni_errorf(err, CNI_ERR_PLUGIN, r, "%s: cannot run", birdc);
	if (status != 0 || !output || !strstr(output, "Reconfigur") || strstr(output, "rror")) {
		r = cni_errorf(err, CNI_ERR_PLUGIN, -EIO, "birdc -s %s configure failed (exit %d)",
			       socket, status);
		cni_error_add_detail(err, output && *output ? output : "(no output)");
	}
	free(output);
	return r;
}
