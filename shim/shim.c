/* SPDX-License-Identifier: MIT */
/*
 * libivwl-shim.so: interposition only.  When a process connects a unix
 * socket to the Wayland display libwayland would use, the socket becomes
 * one end of a socketpair whose other end an ivwl-relay process serves
 * through an ivwl slot.  Every other connect() goes through untouched, so
 * processes that never speak Wayland do not notice the shim.
 *
 *   IVWL_AGENT   agent socket (default IVWL_AGENT_DEFAULT_SOCKET)
 *   IVWL_RELAY   the ivwl-relay program (default: beside this library,
 *                then IVWL_RELAY_DEFAULT)
 *   IVWL_SHIM    "off" disables the shim
 *   IVWL_DEBUG   "1" logs what the shim does on stderr
 *   IVWL_ZERO_COPY  auto, on or off: see zero-copy.c
 *   IVWL_IN_PROCESS  on: the process relays its connection itself, no
 *                ivwl-relay (in-process.c); off (the default)
 */
#include <dlfcn.h>
#include <libgen.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent-client.h"
#include "in-process.h"
#include "log.h"
#include "shim.h"
#include "zero-copy.h"

typedef int (*connect_func_t)(int, const struct sockaddr *, socklen_t);

static bool
shim_enabled(void)
{
	const char *v = getenv("IVWL_SHIM");

	return !(v && strcmp(v, "off") == 0);
}

/* The path libwayland-client connects to, resolved as it resolves it. */
static bool
wayland_socket_path(char *out, size_t size)
{
	const char *display = getenv("WAYLAND_DISPLAY");
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	int n;

	if (!display || !display[0])
		display = "wayland-0";
	if (display[0] == '/')
		n = snprintf(out, size, "%s", display);
	else if (runtime && runtime[0])
		n = snprintf(out, size, "%s/%s", runtime, display);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

static bool
is_wayland_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)addr;
	char path[sizeof(un->sun_path) + 1];
	size_t plen;
	int type;
	socklen_t tlen = sizeof(type);

	if (!addr || len <= offsetof(struct sockaddr_un, sun_path) ||
	    addr->sa_family != AF_UNIX)
		return false;
	plen = strnlen(un->sun_path, len - offsetof(struct sockaddr_un,
						    sun_path));
	if (plen == 0 || plen >= sizeof(un->sun_path))
		return false;	/* abstract or unterminated */
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0 ||
	    type != SOCK_STREAM)
		return false;
	if (!wayland_socket_path(path, sizeof(path)))
		return false;
	return strlen(path) == plen && memcmp(path, un->sun_path, plen) == 0;
}

/* Puts a fresh socketpair end where the client's socket was. */
static int
replace_with_pair(int fd, int *relay_end)
{
	int sv[2], fdflags, flflags;

	fdflags = fcntl(fd, F_GETFD);
	flflags = fcntl(fd, F_GETFL);
	if (fdflags < 0 || flflags < 0)
		return -errno;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (dup3(sv[0], fd, (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	close(sv[0]);
	/* The client's socket keeps its O_NONBLOCK, or libwayland blocks
	 * where it expects EAGAIN (or the reverse). */
	if (fcntl(fd, F_SETFL, flflags) < 0) {
		int err = -errno;

		close(sv[1]);
		return err;
	}
	*relay_end = sv[1];
	return 0;
}

/*
 * The relay answers within its own open timeout, after waiting for a
 * display up to ivwl_display_wait_ms(); this bounds the wait.
 */
#define RELAY_STATUS_MARGIN_MS 8000

extern char **environ;

static void
relay_path(char *out, size_t size)
{
	const char *env = getenv("IVWL_RELAY");
	Dl_info info;
	char self[PATH_MAX];

	if (env && env[0]) {
		snprintf(out, size, "%s", env);
		return;
	}
	if (dladdr((void *)relay_path, &info) && info.dli_fname &&
	    strlen(info.dli_fname) < sizeof(self)) {
		strcpy(self, info.dli_fname);
		snprintf(out, size, "%s/ivwl-relay", dirname(self));
		if (access(out, X_OK) == 0)
			return;
	}
	snprintf(out, size, "%s", IVWL_RELAY_DEFAULT);
}

/* The relay must not load the shim again. */
static char **
relay_environ(void)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[k++] = environ[i];
	return env;
}

static int
read_status(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int32_t status;
	int n;

	do {
		n = poll(&pfd, 1,
			 ivwl_display_wait_ms() + RELAY_STATUS_MARGIN_MS);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -ETIMEDOUT;
	if (read(fd, &status, sizeof(status)) != sizeof(status))
		return -ECONNREFUSED;
	return status;
}

/*
 * Starts ivwl-relay on relay_end, and zc_end (-1 for none) for zero-copy
 * requests; 0 once it serves the connection.
 */
static int
start_relay(int relay_end, int zc_end)
{
	posix_spawn_file_actions_t actions;
	char path[PATH_MAX], sock_arg[16], status_arg[16], zc_arg[16];
	char *argv[] = { path, sock_arg, status_arg,
			 zc_end >= 0 ? zc_arg : NULL, NULL };
	char **env;
	int status_pipe[2], ret, wstatus;
	pid_t pid;

	if (pipe2(status_pipe, O_CLOEXEC) < 0)
		return -errno;
	relay_path(path, sizeof(path));
	env = relay_environ();
	/* Fixed numbers in the child: the fds are dup2()ed there. */
	snprintf(sock_arg, sizeof(sock_arg), "%d", 3);
	snprintf(status_arg, sizeof(status_arg), "%d", 4);
	snprintf(zc_arg, sizeof(zc_arg), "%d", 5);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, relay_end, 3);
	posix_spawn_file_actions_adddup2(&actions, status_pipe[1], 4);
	if (zc_end >= 0)
		posix_spawn_file_actions_adddup2(&actions, zc_end, 5);
	ret = env ? -posix_spawn(&pid, path, &actions, NULL, argv, env) :
		    -ENOMEM;
	posix_spawn_file_actions_destroy(&actions);
	free(env);
	close(status_pipe[1]);
	if (ret == 0) {
		/* The first relay process forks and exits at once. */
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		ret = read_status(status_pipe[0]);
	} else {
		ivwl_log_debug("cannot start %s: %s", path, strerror(-ret));
	}
	close(status_pipe[0]);
	return ret;
}

/* The client's own error is a bare "Connection refused": one line why. */
static void
say_refused(int err)
{
	char waited[64] = "";

	if (err == -EHOSTDOWN)
		snprintf(waited, sizeof(waited), " after waiting %d s for it "
			 "(IVWL_DISPLAY_WAIT)", ivwl_display_wait_ms() / 1000);
	ivwl_log("cannot connect to the display through %s: %s%s",
		 ivwl_agent_socket_path(), ivwl_agent_refusal(err), waited);
}

IVWL_SHIM_EXPORT int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static connect_func_t real_connect;
	int relay_end = -1, zc[2] = { -1, -1 }, ret;

	if (!real_connect)
		real_connect = (connect_func_t)dlsym(RTLD_NEXT, "connect");
	if (ivwl_in_relay || !shim_enabled() ||
	    !is_wayland_connect(fd, addr, len))
		return real_connect(fd, addr, len);

	/* In-process, fd becomes an epoll set there instead. */
	if (!ivwl_in_process_enabled()) {
		ret = replace_with_pair(fd, &relay_end);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
	}
	if (ivwl_zero_copy_enabled() &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, zc) < 0)
		zc[0] = zc[1] = -1;
	if (ivwl_in_process_enabled()) {
		ret = ivwl_in_process_connect(fd, zc[1]);
	} else {
		ret = start_relay(relay_end, zc[1]);
		close(relay_end);
		if (zc[1] >= 0)
			close(zc[1]);
	}
	if (ret < 0) {
		say_refused(ret);
		if (zc[0] >= 0)
			close(zc[0]);
		errno = ECONNREFUSED;
		return -1;
	}
	if (zc[0] >= 0)
		ivwl_zero_copy_add_connection(fd, zc[0]);
	return 0;
}
