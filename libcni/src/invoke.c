/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The invoker: find a plugin in CNI_PATH and run it with an environment and
 * stdin, under a timeout, collecting stdout and passing stderr through.
 *
 * The child is started with posix_spawn in its own process group so a
 * timeout can kill it together with anything it started. Its stdin is one
 * end of a socketpair rather than a pipe so that a child exiting before it
 * read everything gives us EPIPE from send(MSG_NOSIGNAL) instead of a
 * SIGPIPE that would kill the runtime. A pidfd tells us when the child
 * exits even if it leaves stdout open in a grandchild.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/parse.h"
#include "cni/invoke.h"
#include "cni/plugin.h"

extern char **environ;

/* libcni retries a binary that is still being written 6 times, 1 s apart. */
#define EXEC_TXTBSY_ATTEMPTS 6
#define EXEC_TXTBSY_DELAY_MS 1000

static bool path_is_regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int cni_find_plugin(const char *type, const char *path_list, char **ret, struct cni_error *err)
{
	const char *p, *end;

	if (!type || !*type)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL, "no plugin name provided");
	if (strchr(type, '/') || strcmp(type, ".") == 0 || strcmp(type, "..") == 0)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "invalid plugin name \"%s\": must not contain '/'", type);
	if (!path_list || !*path_list)
		return cni_errorf(err, CNI_ERR_INVALID_CONFIG, -EINVAL,
				  "no paths provided to find plugin \"%s\" (CNI_PATH is empty)",
				  type);

	for (p = path_list; *p; p = *end ? end + 1 : end) {
		_cleanup_free_ char *cand = NULL;
		int len;

		end = strchrnul(p, ':');
		len = (int)(end - p);
		if (len == 0)
			continue;
		if (asprintf(&cand, "%.*s/%s", len, p, type) < 0)
			return -ENOMEM;
		if (path_is_regular_file(cand)) {
			*ret = TAKE_PTR(cand);
			return 0;
		}
	}
	return cni_errorf(err, CNI_ERR_DELEGATE, -ENOENT,
			  "failed to find plugin \"%s\" in path [%s]", type, path_list);
}

/* ---- environment ---- */

void cni_env_free(char **env)
{
	if (!env)
		return;
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}

static size_t env_key_len(const char *kv)
{
	const char *eq = strchr(kv, '=');

	return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* Index of the entry with kv's key in env[0..n), or -1. */
static ssize_t env_find(char **env, size_t n, const char *kv)
{
	size_t klen = env_key_len(kv);

	for (size_t i = 0; i < n; i++)
		if (env_key_len(env[i]) == klen && strncmp(env[i], kv, klen) == 0)
			return (ssize_t)i;
	return -1;
}

static size_t env_count(char *const *env)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	return n;
}

/* Add or replace kv in env (which has room). Returns 0 or -ENOMEM. */
static int env_set(char **env, size_t *n, const char *kv)
{
	ssize_t i = env_find(env, *n, kv);
	char *copy = strdup(kv);

	if (!copy)
		return -ENOMEM;
	if (i >= 0) {
		free(env[i]);
		env[i] = copy;
	} else {
		env[(*n)++] = copy;
	}
	return 0;
}

char **cni_env_build(char *const *base, char *const *overrides)
{
	size_t nb, no, n = 0;
	char **env;

	if (!base)
		base = environ;
	nb = env_count(base);
	no = env_count(overrides);
	env = calloc(nb + no + 1, sizeof(char *));
	if (!env)
		return NULL;
	for (size_t i = 0; i < nb; i++)
		if (env_set(env, &n, base[i]) < 0)
			goto out_free;
	for (size_t i = 0; i < no; i++)
		if (env_set(env, &n, overrides[i]) < 0)
			goto out_free;
	return env;

out_free:
	cni_env_free(env);
	return NULL;
}

/* ---- spawning ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct child {
	pid_t pid;
	int pidfd;     /* -1 when pidfd_open is unavailable */
	int stdin_fd;  /* our end of the socketpair, -1 once done */
	int stdout_fd; /* -1 after EOF */
	int stderr_fd; /* -1 after EOF */
	bool exited;
	bool status_lost; /* reaped by someone else (SIGCHLD ignored by the runtime) */
	int status;
};

static void fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void child_done(struct child *c)
{
	fd_close(&c->pidfd);
	fd_close(&c->stdin_fd);
	fd_close(&c->stdout_fd);
	fd_close(&c->stderr_fd);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int spawn_attrs_init(posix_spawnattr_t *attr)
{
	sigset_t none, all_default;
	int r;

	sigemptyset(&none);
	/* Undo an ignored SIGPIPE etc. the runtime may have set for itself. */
	sigemptyset(&all_default);
	sigaddset(&all_default, SIGPIPE);
	sigaddset(&all_default, SIGCHLD);
	sigaddset(&all_default, SIGINT);
	sigaddset(&all_default, SIGTERM);
	sigaddset(&all_default, SIGHUP);
	r = posix_spawnattr_init(attr);
	if (r)
		return -r;
	r = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					       POSIX_SPAWN_SETSIGDEF);
	if (!r)
		r = posix_spawnattr_setpgroup(attr, 0);
	if (!r)
		r = posix_spawnattr_setsigmask(attr, &none);
	if (!r)
		r = posix_spawnattr_setsigdefault(attr, &all_default);
	if (r) {
		posix_spawnattr_destroy(attr);
		return -r;
	}
	return 0;
}

static int spawn_actions_init(posix_spawn_file_actions_t *fa, int in, int out, int errfd)
{
	int r = posix_spawn_file_actions_init(fa);

	if (r)
		return -r;
	/* dup2 clears FD_CLOEXEC on the target, everything else stays closed. */
	r = posix_spawn_file_actions_adddup2(fa, in, STDIN_FILENO);
	if (!r)
		r = posix_spawn_file_actions_adddup2(fa, out, STDOUT_FILENO);
	if (!r)
		r = posix_spawn_file_actions_adddup2(fa, errfd, STDERR_FILENO);
	/* Belt and braces against fds opened without O_CLOEXEC by a library. */
	if (!r)
		r = posix_spawn_file_actions_addclosefrom_np(fa, STDERR_FILENO + 1);
	if (r) {
		posix_spawn_file_actions_destroy(fa);
		return -r;
	}
	return 0;
}

/*
 * posix_spawn, retrying a binary that is being written (ETXTBSY), but never
 * sleeping past the deadline (0: none). Returns 0 or -errno.
 */
static int spawn_retry(const char *path, posix_spawn_file_actions_t *fa, posix_spawnattr_t *attr,
		       char *const *env, int64_t deadline, pid_t *ret_pid)
{
	char *const argv[] = {(char *)path, NULL};
	int r = 0;

	for (int attempt = 0; attempt < EXEC_TXTBSY_ATTEMPTS; attempt++) {
		if (attempt > 0) {
			struct timespec ts = {EXEC_TXTBSY_DELAY_MS / 1000,
					      (EXEC_TXTBSY_DELAY_MS % 1000) * 1000000L};

			if (deadline > 0 && now_ms() + EXEC_TXTBSY_DELAY_MS >= deadline)
				break;
			nanosleep(&ts, NULL);
		}
		r = posix_spawn(ret_pid, path, fa, attr, argv, env);
		if (r != ETXTBSY)
			break;
	}
	return -r;
}

static int child_start(const char *path, char *const *env, int64_t deadline, struct child *c)
{
	_cleanup_close_ int in_child = -1, out_child = -1, err_child = -1;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int sv[2], po[2], pe[2];
	int r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	c->stdin_fd = sv[0];
	in_child = sv[1];
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	c->stdout_fd = po[0];
	out_child = po[1];
	if (pipe2(pe, O_CLOEXEC) < 0)
		return -errno;
	c->stderr_fd = pe[0];
	err_child = pe[1];

	r = spawn_attrs_init(&attr);
	if (r < 0)
		return r;
	r = spawn_actions_init(&fa, in_child, out_child, err_child);
	if (r < 0) {
		posix_spawnattr_destroy(&attr);
		return r;
	}
	r = spawn_retry(path, &fa, &attr, env, deadline, &c->pid);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (r < 0)
		return r;

	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (set_nonblock(c->stdin_fd) < 0 || set_nonblock(c->stdout_fd) < 0 ||
	    set_nonblock(c->stderr_fd) < 0)
		return -errno;
	return 0;
}

/* ---- processes started ahead of their request ---- */

struct cni_exec_started {
	struct child c;
	char *path;
	char **env;
};

static void child_kill(struct child *c);

int cni_exec_start(const char *plugin_path, char *const *env, struct cni_exec_started **ret)
{
	struct cni_exec_started *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->c = (struct child){
	    .pid = -1, .pidfd = -1, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
	s->path = strdup(plugin_path);
	s->env = cni_env_build(env, NULL);
	if (!s->path || !s->env) {
		cni_exec_started_free(s);
		return -ENOMEM;
	}
	/* One attempt (a deadline that has passed): the caller's real run retries ETXTBSY. */
	r = child_start(plugin_path, env, now_ms(), &s->c);
	if (r < 0) {
		cni_exec_started_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

bool cni_exec_started_is(const struct cni_exec_started *s, const char *plugin_path,
			 char *const *env)
{
	size_t i = 0;

	if (!s || !streq(s->path, plugin_path))
		return false;
	for (; s->env[i] && env[i]; i++)
		if (!streq(s->env[i], env[i]))
			return false;
	return !s->env[i] && !env[i];
}

void cni_exec_started_free(struct cni_exec_started *s)
{
	if (!s)
		return;
	if (s->c.pid > 0)
		child_kill(&s->c);
	child_done(&s->c);
	free(s->path);
	cni_env_free(s->env);
	free(s);
}

/* Take over a started process: its child is the caller's from now on. */
static void started_take(struct cni_exec_started *s, struct child *c)
{
	*c = s->c;
	s->c.pid = -1;
	s->c.pidfd = s->c.stdin_fd = s->c.stdout_fd = s->c.stderr_fd = -1;
	cni_exec_started_free(s);
}

/* ---- the I/O loop ---- */

struct io_state {
	const char *in;
	size_t in_len, in_off;
	char *out;
	size_t out_len, out_cap;
	bool out_overflow;
};

static void feed_stdin(struct child *c, struct io_state *io)
{
	while (io->in_off < io->in_len) {
		ssize_t n =
		    send(c->stdin_fd, io->in + io->in_off, io->in_len - io->in_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			/* EPIPE: the child does not want the rest; that is its business. */
			break;
		}
		io->in_off += (size_t)n;
	}
	fd_close(&c->stdin_fd);
}

static int drain_stdout(struct child *c, struct io_state *io)
{
	for (;;) {
		char buf[16384];
		ssize_t n = read(c->stdout_fd, buf, sizeof(buf));

		if (n < 0)
			return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
		if (n == 0) {
			fd_close(&c->stdout_fd);
			return 0;
		}
		if (io->out_len + (size_t)n > CNI_STDIN_MAX) {
			/* Keep reading so the child does not block, but remember. */
			io->out_overflow = true;
			continue;
		}
		if (io->out_len + (size_t)n + 1 > io->out_cap) {
			size_t cap = io->out_cap ? io->out_cap * 2 : 4096;
			char *p;

			while (cap < io->out_len + (size_t)n + 1)
				cap *= 2;
			p = realloc(io->out, cap);
			if (!p)
				return -ENOMEM;
			io->out = p;
			io->out_cap = cap;
		}
		memcpy(io->out + io->out_len, buf, (size_t)n);
		io->out_len += (size_t)n;
	}
}

static void pass_stderr(struct child *c)
{
	for (;;) {
		char buf[4096];
		ssize_t n = read(c->stderr_fd, buf, sizeof(buf));

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			fd_close(&c->stderr_fd);
			return;
		}
		/* Best effort: a closed stderr of ours must not fail the plugin. */
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(STDERR_FILENO, buf + off, (size_t)(n - off));
			if (w <= 0)
				break;
			off += w;
		}
	}
}

static void reap_if_exited(struct child *c, bool block)
{
	int status;
	pid_t p;

	if (c->exited)
		return;
	do
		p = waitpid(c->pid, &status, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == c->pid) {
		c->exited = true;
		c->status = status;
		fd_close(&c->pidfd);
	} else if (p < 0 && errno == ECHILD) {
		/* With SIGCHLD set to SIG_IGN the kernel reaps children itself. */
		c->exited = true;
		c->status_lost = true;
		fd_close(&c->pidfd);
	}
}

static bool io_finished(const struct child *c)
{
	/* Without a pidfd we can only learn of the exit once the pipes close. */
	return c->stdout_fd < 0 && c->stderr_fd < 0 && (c->exited || c->pidfd < 0);
}

/*
 * Poll stdin/stdout/stderr/pidfd until the child has exited and closed its
 * output, or the deadline passes. Returns 0, -ETIMEDOUT or -errno.
 */
static int child_io_loop(struct child *c, struct io_state *io, int64_t deadline)
{
	while (!io_finished(c)) {
		struct pollfd pfd[4] = {
		    {.fd = c->stdin_fd, .events = POLLOUT},
		    {.fd = c->stdout_fd, .events = POLLIN},
		    {.fd = c->stderr_fd, .events = POLLIN},
		    {.fd = c->exited ? -1 : c->pidfd, .events = POLLIN},
		};
		int timeout = -1, n, r;

		if (deadline > 0) {
			int64_t left = deadline - now_ms();
			if (left <= 0)
				return -ETIMEDOUT;
			timeout = left > INT32_MAX ? INT32_MAX : (int)left;
		}
		n = poll(pfd, ARRAY_SIZE(pfd), timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (pfd[0].revents)
			feed_stdin(c, io);
		if (pfd[1].revents) {
			r = drain_stdout(c, io);
			if (r < 0)
				return r;
		}
		if (pfd[2].revents)
			pass_stderr(c);
		if (pfd[3].revents)
			reap_if_exited(c, false);
	}
	return 0;
}

static void child_kill(struct child *c)
{
	if (c->exited)
		return;
	/* The child leads its own process group: take its helpers down too. */
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	reap_if_exited(c, true);
}

/* ---- interpreting a failure ---- */

static char *json_str_dup(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? strdup(s) : NULL;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "wait status 0x%x", (unsigned)status);
}

/*
 * A failed plugin: its error JSON on stdout becomes err with its own code.
 * Anything else is a CNI_ERR_DELEGATE error naming the plugin and status.
 */
static int plugin_failure(const char *path, const struct io_state *io, int status,
			  struct cni_error *err)
{
	char st[96];
	json_t *j = NULL, *code;

	describe_status(status, st, sizeof(st));
	if (io->out_len > 0)
		j = json_loadb(io->out, io->out_len, 0, NULL);
	code = json_object_get(j, "code");
	if (json_is_object(j) && json_is_integer(code) && json_integer_value(code) > 0 &&
	    json_integer_value(code) <= UINT32_MAX && !cni_error_isset(err)) {
		err->code = (unsigned)json_integer_value(code);
		err->msg = json_str_dup(j, "msg");
		err->details = json_str_dup(j, "details");
		if (!err->msg && asprintf(&err->msg, "plugin %s failed (%s)", path, st) < 0)
			err->msg = NULL;
		json_decref(j);
		return -EPROTO;
	}
	json_decref(j);
	if (io->out_len > 0)
		return cni_errorf(
		    err, CNI_ERR_DELEGATE, -EPROTO,
		    "plugin %s failed (%s) and its error could not be parsed: \"%.*s\"", path, st,
		    io->out_len > 256 ? 256 : (int)io->out_len, io->out);
	return cni_errorf(err, CNI_ERR_DELEGATE, -EPROTO,
			  "plugin %s failed with no error message (%s)", path, st);
}

int cni_exec_plugin(const struct cni_exec_request *req, char **ret_out, size_t *ret_len,
		    struct cni_error *err)
{
	struct child c = {.pid = -1, .pidfd = -1, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
	struct io_state io = {.in = req->stdin_buf, .in_len = req->stdin_buf ? req->stdin_len : 0};
	int64_t deadline = req->timeout_ms > 0 ? now_ms() + req->timeout_ms : 0;
	int r = 0;

	if (req->started)
		started_take(req->started, &c);
	else
		r = child_start(req->plugin_path, req->env, deadline, &c);
	if (r < 0) {
		child_done(&c);
		if (c.pid > 0)
			child_kill(&c);
		return cni_errorf(err, CNI_ERR_DELEGATE, r, "cannot execute plugin %s: %s",
				  req->plugin_path, strerror(-r));
	}
	/* A request fits the socket buffer: usually written here, at once. */
	feed_stdin(&c, &io);
	if (req->running)
		req->running(req->running_data);
	r = child_io_loop(&c, &io, deadline);
	if (r < 0) {
		child_kill(&c);
		child_done(&c);
		free(io.out);
		if (r == -ETIMEDOUT)
			return cni_errorf(err, CNI_ERR_TRY_AGAIN, r,
					  "plugin %s timed out after %d ms and was killed",
					  req->plugin_path, req->timeout_ms);
		return cni_errorf(err, CNI_ERR_IO, r, "talking to plugin %s: %s", req->plugin_path,
				  strerror(-r));
	}
	reap_if_exited(&c, true);
	child_done(&c);

	if (c.status_lost) {
		free(io.out);
		return cni_errorf(err, CNI_ERR_DELEGATE, -ECHILD,
				  "plugin %s: exit status unavailable (is SIGCHLD ignored?)",
				  req->plugin_path);
	}
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
		r = plugin_failure(req->plugin_path, &io, c.status, err);
		free(io.out);
		return r;
	}
	if (io.out_overflow) {
		free(io.out);
		return cni_errorf(err, CNI_ERR_DELEGATE, -EMSGSIZE,
				  "plugin %s wrote more than %u bytes to stdout", req->plugin_path,
				  CNI_STDIN_MAX);
	}
	if (!io.out) {
		io.out = strdup("");
		if (!io.out)
			return -ENOMEM;
	}
	io.out[io.out_len] = '\0';
	*ret_out = io.out;
	if (ret_len)
		*ret_len = io.out_len;
	return 0;
}
