/*
 * libivwl-shim.so: interposition only.  When a process connects a unix
 * socket to the Wayland display libwayland would use, the socket becomes
 * one end of a socketpair whose other end a relay thread serves through
 * an ivwl slot.  Every other connect() goes through untouched, so
 * processes that never speak Wayland do not notice the shim.
 *
 *   IVWL_AGENT   agent socket (default IVWL_AGENT_DEFAULT_SOCKET)
 *   IVWL_SHIM    "off" disables the shim
 *   IVWL_DEBUG   "1" logs what the shim does on stderr
 */
#include <dlfcn.h>
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

#include "relay.h"
#include "shim.h"

typedef int (*connect_func_t)(int, const struct sockaddr *, socklen_t);

static bool
shim_enabled(void)
{
	const char *v = getenv("IVWL_SHIM");

	return !(v && strcmp(v, "off") == 0);
}

void
ivwl_shim_debug(const char *fmt, ...)
{
	const char *v = getenv("IVWL_DEBUG");
	va_list ap;

	if (!v || strcmp(v, "1") != 0)
		return;
	fprintf(stderr, "ivwl-shim[%d]: ", (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
	fcntl(fd, F_SETFL, flflags);
	*relay_end = sv[1];
	return 0;
}

WL_SHIM_EXPORT int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static connect_func_t real_connect;
	int relay_end = -1, ret;

	if (!real_connect)
		real_connect = (connect_func_t)dlsym(RTLD_NEXT, "connect");
	if (!shim_enabled() || !is_wayland_connect(fd, addr, len))
		return real_connect(fd, addr, len);

	ret = replace_with_pair(fd, &relay_end);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	ret = ivwl_relay_start(relay_end);
	if (ret < 0) {
		ivwl_shim_debug("no slot for this connection: %s",
				strerror(-ret));
		close(relay_end);
		errno = ECONNREFUSED;
		return -1;
	}
	return 0;
}
