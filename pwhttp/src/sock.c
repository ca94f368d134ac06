/* SPDX-License-Identifier: Apache-2.0 */
/* Sockets with deadlines: connect, write everything, read what is there. */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

uint64_t pwhttp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int pwhttp_wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = pwhttp_now_ms();
		struct pollfd p = {.fd = fd, .events = events};
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		/* a timeout comes back to the check above; UINT64_MAX: for ever, in steps */
		r = poll(&p, 1, deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now));
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/* A non-blocking socket with its connect started: fd (connected or in progress) or -errno. */
static int connect_begin(int family, const struct sockaddr *sa, socklen_t len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), r;

	if (fd < 0)
		return -errno;
	if (connect(fd, sa, len) == 0 || errno == EINPROGRESS)
		return fd;
	r = -errno;
	close(fd);
	return r == -ENOENT ? -ECONNREFUSED : r;
}

/* A connect started (fd, or -errno passed on), waited for: fd, or -errno and closed. */
static int connect_wait(int fd, bool tcp, uint64_t deadline)
{
	socklen_t el = sizeof(int);
	int r = fd < 0 ? fd : pwhttp_wait_fd(fd, POLLOUT, deadline), err = 0;

	if (r == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		r = -errno;
	if (r == 0 && err)
		r = -err;
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (tcp) {
		int one = 1;

		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

/* A connect to the unix socket started: fd or -errno. */
static int unix_begin(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	return connect_begin(AF_UNIX, (struct sockaddr *)&sun, sizeof(sun));
}

int pwhttp_connect(const char *host, const char *port, const char *unix_path, uint64_t deadline)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	int fd = -ECONNREFUSED;

	if (unix_path)
		return connect_wait(unix_begin(unix_path), false, deadline);
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -EHOSTUNREACH;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = connect_wait(connect_begin(ai->ai_family, ai->ai_addr, ai->ai_addrlen), true,
				  deadline);
	freeaddrinfo(res);
	return fd;
}

int pwhttp_write_all(int fd, const char *p, size_t n, uint64_t deadline)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		int r;

		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		r = pwhttp_wait_fd(fd, POLLOUT, deadline);
		if (r < 0)
			return r;
	}
	return 0;
}

long pwhttp_io_read(struct pwhttp_io *io, char *buf, size_t cap, uint64_t deadline)
{
	if (io->tls)
		return pwhttp_tls_read(io->tls, io->fd, buf, cap, deadline);
	for (;;) {
		int r = pwhttp_wait_fd(io->fd, POLLIN, deadline);
		ssize_t k;

		if (r < 0)
			return r;
		k = read(io->fd, buf, cap);
		if (k >= 0)
			return (long)k;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
	}
}

int pwhttp_io_write_all(struct pwhttp_io *io, const char *p, size_t n, uint64_t deadline)
{
	if (!io->tls)
		return pwhttp_write_all(io->fd, p, n, deadline);
	while (n > 0) {
		long k = pwhttp_tls_write(io->tls, io->fd, p, n, deadline);

		if (k < 0)
			return (int)k;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}
