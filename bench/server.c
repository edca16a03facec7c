/* SPDX-License-Identifier: MIT */
/*
 * Finding, starting and stopping ivwl-server for the ring link.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "link.h"

static char *
executable_or_null(const char *path)
{
	if (!path || !*path || access(path, X_OK) != 0)
		return NULL;
	return strdup(path);
}

char *
ivwl_bench_server_find(const char *explicit_path)
{
	char self[PATH_MAX], candidate[PATH_MAX + 32];
	ssize_t n;

	if (explicit_path)
		return executable_or_null(explicit_path);
	if (getenv("IVWL_SERVER_BIN"))
		return executable_or_null(getenv("IVWL_SERVER_BIN"));

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	/* build/bench/ivwl-bench -> build/host/ivwl-server */
	snprintf(candidate, sizeof(candidate), "%s/../host/ivwl-server",
		 dirname(self));
	return executable_or_null(candidate);
}

static void
exec_server(const char *bin, const char *app_socket,
	    const char *display_socket, uint64_t region_size, bool quiet)
{
	char size[32];
	int devnull;

	/* The server must not outlive us, nor write into our JSON. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(quiet ? devnull : STDERR_FILENO, STDOUT_FILENO);
		if (quiet)
			dup2(devnull, STDERR_FILENO);
		close(devnull);
	} else {
		dup2(STDERR_FILENO, STDOUT_FILENO);
	}
	signal(SIGPIPE, SIG_DFL);
	snprintf(size, sizeof(size), "%llu", (unsigned long long)region_size);
	execl(bin, bin, "--socket", app_socket, "--size", size,
	      "--display-socket", display_socket, (char *)NULL);
	fprintf(stderr, "ivwl-bench: cannot run %s: %s\n", bin,
		strerror(errno));
	_exit(127);	/* unseen when quiet: the attach then times out */
}

int
ivwl_bench_server_start(const char *bin, const char *app_socket,
			const char *display_socket, uint64_t region_size,
			bool quiet, int *pid, const char **err)
{
	pid_t child;

	child = fork();
	if (child < 0) {
		*err = "fork failed";
		return -errno;
	}
	if (child == 0)
		exec_server(bin, app_socket, display_socket, region_size,
			    quiet);
	*pid = child;
	return 0;
}

void
ivwl_bench_server_stop(int pid)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int i, status;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (i = 0; i < 200; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return;
		nanosleep(&nap, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
