/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox ("pause") process of the CRI e2e tests' image: PID 1 of the
 * pod, it holds the pod's namespaces open, reaps whatever gets re-parented to
 * it and exits 0 on SIGTERM or SIGINT. Built with `gcc -static` at test time,
 * so the image needs no libc.
 */
#include <signal.h>
#include <stddef.h>
#include <sys/wait.h>

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_child(int sig)
{
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int handle(int sig, void (*fn)(int))
{
	struct sigaction sa = {.sa_handler = fn};

	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

int main(void)
{
	sigset_t block, wait_set;

	/* Blocked outside sigsuspend: a signal between the test of `stop` and
	 * the wait cannot be lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, &wait_set) < 0)
		return 1;
	sigdelset(&wait_set, SIGTERM);
	sigdelset(&wait_set, SIGINT);
	if (handle(SIGTERM, on_stop) < 0 || handle(SIGINT, on_stop) < 0 ||
	    handle(SIGCHLD, on_child) < 0)
		return 1;
	while (!stop)
		sigsuspend(&wait_set);
	return 0;
}
