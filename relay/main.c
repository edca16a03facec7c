/* SPDX-License-Identifier: MIT */
/*
 * ivwl-relay: serves one Wayland connection of an app through an ivwl
 * slot.  Started by libivwl-shim.so from connect(), never by hand:
 *
 *   ivwl-relay SOCKET_FD STATUS_FD [ZERO_COPY_FD]
 *
 * ZERO_COPY_FD, when the shim runs in zero-copy mode, is the socket its
 * interposers ask the relay for grants on (relay-zc.c).
 * It detaches at once (so it is nobody's child to reap and survives the
 * process that connected, as the socket does), gets its slot, writes 0 or
 * a negative errno as an int32 to STATUS_FD, and relays until the client
 * closes its end or the display closes the connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relay.h"
#include "log.h"

static int
parse_fd(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v >= 0 && v < 1 << 20 ? (int)v : -1;
}

/*
 * Keeps only our fds, and stderr unless it is a pipe (always for
 * IVWL_DEBUG): any other fd the client had would stay open here, and a
 * pipe it holds would never see its end while the relay runs.  A log
 * file, a terminal or the journal's socket keep the relay's few lines
 * (a connection kept over a display restart, or lost).
 */
static void
detach_fds(int sock, int status_fd, int zc_fd)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC), fd;
	const char *debug = getenv("IVWL_DEBUG");
	struct stat st;
	bool keep_stderr = (debug && strcmp(debug, "1") == 0) ||
			   getenv("IVWL_STATS") ||
			   (fstat(2, &st) == 0 && !S_ISFIFO(st.st_mode));

	for (fd = 0; fd < 3; fd++)
		if (null >= 0 && !(fd == 2 && keep_stderr))
			dup2(null, fd);
	if (null > 2)
		close(null);
	for (fd = 3; fd < 6; fd++)
		if (fd != sock && fd != status_fd && fd != zc_fd)
			close(fd);
	close_range(6, ~0u, 0);
}

int
main(int argc, char *argv[])
{
	struct relay *r;
	int sock, status_fd, zc_fd = -1;
	int32_t status;
	pid_t pid;

	/* ivwl-relay SOCK STATUS [ZERO_COPY]: fds numbered 3 to 5 */
	if (argc < 3 || argc > 4 || (sock = parse_fd(argv[1])) < 0 ||
	    (status_fd = parse_fd(argv[2])) < 0 ||
	    (argc == 4 && (zc_fd = parse_fd(argv[3])) < 0))
		return 2;
	if (sock > 5 || status_fd > 5 || zc_fd > 5)
		return 2;
	detach_fds(sock, status_fd, zc_fd);
	ivwl_log_setup("ivwl-relay", true);

	/* The shim reaps this first process; the relay goes on alone. */
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0)
		_exit(0);
	setsid();
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);

	status = ivwl_relay_open(sock, zc_fd, 0, &r);
	if (write(status_fd, &status, sizeof(status)) != sizeof(status))
		status = -EPIPE;
	close(status_fd);
	if (status < 0)
		return 1;
	ivwl_relay_run(r);
	return 0;
}
