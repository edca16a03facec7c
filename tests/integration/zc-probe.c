/* SPDX-License-Identifier: MIT */
/*
 * ivwl-zc-probe: attacks the relay's listening socket (relay-zc.c) the
 * way another process of the VM could, and prints one line per attempt:
 *
 *   NAME STATUS      the relay answered STATUS (0 or -errno)
 *   NAME closed      the relay closed the connection
 *
 *   ivwl-zc-probe PID    PID: the process whose relay to reach
 *
 * Run as a descendant of PID, it is a process of the app: the relay must
 * refuse offers without the file, with another file than named, beyond
 * the bounds, and odd requests; a malformed message ends that process's
 * channel (it connects again) and nothing else.  Run from elsewhere, or
 * as another user, it must be shut out.  Output goes to $IVWL_PROBE_OUT
 * (stdout when unset).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent-client.h"
#include "fdmsg.h"
#include "proc.h"
#include "zero-copy-proto.h"

static FILE *out;

static int
connect_relay(pid_t pid)
{
	struct sockaddr_un addr;
	socklen_t len = ivwl_zc_relay_address(pid, &addr);
	int fd;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, len) < 0)
		return -1;
	return fd;
}

/* One request; prints and returns its status, or 1 when closed. */
static int
ask(int sock, const char *name, const void *msg, size_t len, int fd)
{
	struct ivwl_zc_msg reply;
	int fds[2], nfds, n, i;

	if (ivwl_fdmsg_send_whole(sock, msg, len, &fd, fd >= 0) < 0) {
		fprintf(out, "%s closed\n", name);
		return 1;
	}
	n = ivwl_fdmsg_recv_whole(sock, &reply, sizeof(reply), fds, 2, &nfds);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	if (n != (int)sizeof(reply)) {
		fprintf(out, "%s closed\n", name);
		return 1;
	}
	fprintf(out, "%s %d\n", name, reply.status);
	return reply.status;
}

static int
file_of(size_t size)
{
	int fd = memfd_create("probe", MFD_CLOEXEC);

	if (fd >= 0 && ftruncate(fd, (off_t)size) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct ivwl_zc_msg
offer_of(int fd, uint64_t size)
{
	struct ivwl_zc_msg m = { .op = IVWL_ZC_OFFER, .size = size };
	struct stat st;

	if (fstat(fd, &st) == 0) {
		m.dev = st.st_dev;
		m.ino = st.st_ino;
	}
	return m;
}

/* Offers 4 MiB files until refused: how many MiB were granted. */
static int
fill(int sock)
{
	int granted = 0, fd, ret;

	do {
		struct ivwl_zc_msg m;

		fd = file_of(4u << 20);
		if (fd < 0)
			return granted;
		m = offer_of(fd, 4u << 20);
		ret = ask(sock, "fill", &m, sizeof(m), fd);
		/* Kept open: a closed file could be a new one's twin. */
		if (ret == 0)
			granted += 4;
	} while (ret == 0 && granted < 1024);
	return granted;
}

int
main(int argc, char *argv[])
{
	const char *path = getenv("IVWL_PROBE_OUT");
	struct ivwl_zc_msg m;
	int sock, a, b;
	/* 7 bytes: shorter than any message of the relay's */
	static const char junk[] = "garbag";

	out = path ? fopen(path, "w") : stdout;
	if (argc != 2 || !out)
		return 2;
	setvbuf(out, NULL, _IOLBF, 0);
	sock = connect_relay((pid_t)atoi(argv[1]));
	if (sock < 0) {
		fprintf(out, "connect closed\n");
		return 0;
	}
	a = file_of(1u << 20);
	b = file_of(1u << 20);
	if (a < 0 || b < 0)
		return 1;
	m = offer_of(a, 1u << 20);
	if (ask(sock, "offer-no-fd", &m, sizeof(m), -1) == 1)
		return 0;
	ask(sock, "offer-other-file", &m, sizeof(m), b);
	m.size = UINT64_MAX;
	ask(sock, "offer-huge", &m, sizeof(m), a);
	ask(sock, "short-message", junk, sizeof(junk), -1);
	close(sock);
	sock = connect_relay((pid_t)atoi(argv[1]));
	if (sock < 0) {
		fprintf(out, "reconnect closed\n");
		return 0;
	}
	m = offer_of(a, 1u << 20);
	m.op = IVWL_ZC_FOLLOW;
	ask(sock, "follow-unmoved", &m, sizeof(m), a);
	m.op = IVWL_ZC_UNFOLLOW;
	ask(sock, "unfollow-unfollowed", &m, sizeof(m), -1);
	m.op = IVWL_ZC_REVERT;
	ask(sock, "revert-not-granted", &m, sizeof(m), -1);
	m.op = 77;
	ask(sock, "unknown-op", &m, sizeof(m), -1);
	m = offer_of(a, 1u << 20);
	ask(sock, "offer", &m, sizeof(m), a);
	fprintf(out, "granted-mib %d\n", fill(sock));
	return 0;
}
